/* See LICENSE file for copyright and license details. */
/* diff.h: unified diffs of two texts, and a file's change in git's form */

/* One file's change: its names and git's modes on each side (0100644,
 * 0100755, 0120000 for a symbolic link; 0: the side is absent, so the
 * file is new or deleted). */
typedef struct {
	const char *a, *b;	/* from the tree's top; NULL: absent */
	unsigned amode, bmode;
	int literal;	/* binary files as a GIT binary patch, which git
			 * apply takes, rather than a line saying they
			 * differ */
} Diffhead;

int diffunified(Buf *out, const char *a, size_t an, const char *b,
                size_t bn, int context);
int difffile(Buf *out, const Diffhead *h, const char *a, size_t an,
             const char *b, size_t bn, int context);
