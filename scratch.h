/* See LICENSE file for copyright and license details. */
/* scratch.h: diff mode's copy of the working tree, and its change as a
 * diff */

/* What the copy may hold, and how the walk reads .gitignore files
 * (walk.h's Walkopt, in plain fields). */
typedef struct {
	unsigned long long maxbytes;	/* of its files, together */
	long maxfiles;		/* its files, links and directories */
	int context;		/* lines of context around a change */
	size_t ignorebytes;
	int ignorelines, maxrules;
	size_t rulebytes;
} Scratchconf;

typedef struct {
	const Scratchconf *conf;
	char *root;		/* the working tree, absolute */
	char *top;		/* the directory made for the copy */
	char *copy;		/* the copy, in top */
	int out;		/* where the diff goes: stdout as it was */
} Scratch;

int scratchmake(Scratch *s, const Scratchconf *c, Buf *why);
int scratchdiff(Scratch *s);
void scratchfree(Scratch *s);
