/* See LICENSE file for copyright and license details. */
/* gitguard.h: .git's config and hooks kept as they were at start.  The
 * Gitguard of a run is gitguard.c's: agent.c sets write from the
 * profile, gitinit makes the copy, gitfree frees it. */
#include <stddef.h>

typedef struct Gitguard {
	int write;		/* the profile's gitwrite: tools may change
				 * git's configuration, nothing is kept */
	int bad;		/* at exit, .git could not be put back
				 * (gitexit): agent exits 1 */
	struct Gitcopy *copy;	/* what is kept, or NULL: nothing is */
} Gitguard;

int gitinit(Gitguard *e, size_t maxbytes, int maxfiles, Buf *why);
int gitcheck(Gitguard *e);
void gitagain(Gitguard *e);
void gitnote(Gitguard *e, Buf *res);
void gitexit(Gitguard *e);
void gitfree(Gitguard *e);
