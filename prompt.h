/* See LICENSE file for copyright and license details. */
/* prompt.h: what the user's words bring in: skills listed in the system
 * prompt, prompt templates (/name args), files named @path */
#include <stdio.h>

/* A directory of skills or templates: "~/" at its start is $HOME; a
 * relative one is the working directory's, and with up set each
 * directory above it too, up to the git root (pi's .agents/skills). */
typedef struct {
	const char *path;
	int up;
} Promptdir;

/* What config.h says of them, handed over at setup. */
typedef struct {
	const Promptdir *skills;	/* where SKILL.md files are, in order */
	const Promptdir *prompts;	/* where templates are, in order */
	size_t maxfile;		/* bytes of a skill or template read */
	size_t maxattach;	/* bytes of an @file's text */
	size_t maximage;	/* bytes of an @file's image */
	/* the read rules (the guard's guarddenied): nonzero, a rule's
	 * number, the @file at path is not attached */
	int (*denied)(void *arg, const char *path);
	void *deniedarg;
} Promptconf;

void promptskills(Buf *b, const Promptconf *c);
void prompthelp(const Promptconf *c, FILE *f);
int promptline(const Promptconf *c, Buf *msg, Buf *more, const char *line);
int promptargv(const Promptconf *c, Buf *msg, Buf *more, char **argv,
               const Buf *in);
