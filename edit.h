/* See LICENSE file for copyright and license details. */
/* edit.h: edit's replacements found and applied, no I/O */

typedef struct {
	Buf old, new;
	size_t pos;		/* where old was found in the file */
	int idx;		/* its place in the call */
} Edit;

int editapply(Edit *ed, int n, const Buf *orig, const char *path, Buf *res,
              Buf *out);
long editdiffline(const Buf *a, const Buf *b);
