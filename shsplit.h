/* See LICENSE file for copyright and license details. */
/* shsplit.h: a bash command line split for the guard's rules (shsplit.c's;
 * the caller owns the Shline, freed by shsplitfree) */

/* A bash command line as rules read it: its simple commands, each in two
 * forms, and the files its redirections write. */
typedef struct {
	Buf parts;		/* each simple command as written (words
				 * unquoted, one space apart, command, exec,
				 * nohup, time and a bare env dropped), then
				 * normalised (assignments, every wrapper with
				 * its options, git's global options and the
				 * command's directory dropped): each form
				 * ended by a NUL */
	int n;			/* simple commands */
	Buf writes;		/* the paths written to, each ended by a NUL */
	int nwrites;
	const char *unsure;	/* why no rule may allow the line unasked
				 * (a substitution, a subshell...), or NULL */
} Shline;

void shsplit(const char *cmd, Shline *l);
void shsplitfree(Shline *l);
