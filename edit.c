/* See LICENSE file for copyright and license details. */
/* edit.c: edit's replacements, no I/O: each oldText found exactly once in
 * the file's text, in its line endings, none overlapping, then applied. */
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "edit.h"

static const char *
findmem(const char *h, size_t hn, const char *s, size_t n)
{
	const char *p = h, *end = h + hn;

	while (n && (size_t)(end - p) >= n &&
	       (p = memchr(p, s[0], end - p - n + 1))) {
		if (!memcmp(p, s, n))
			return p;
		p++;
	}
	return NULL;
}

/* Occurrences of s in h that do not overlap; the first at *at. */
static int
editcount(const char *h, size_t hn, const char *s, size_t n, size_t *at)
{
	const char *p = h, *q;
	int k = 0;

	while ((q = findmem(p, hn - (p - h), s, n))) {
		if (!k)
			*at = q - h;
		k++;
		p = q + n;
	}
	return k;
}

/* Write text in the file's line endings: every LF as CRLF. */
static void
tocrlf(Buf *b)
{
	Buf t = { 0 };
	size_t i;

	for (i = 0; i < b->len; i++) {
		if (b->p[i] == '\n' && (i == 0 || b->p[i - 1] != '\r'))
			bufaddc(&t, '\r');
		bufaddc(&t, b->p[i]);
	}
	buffree(b);
	*b = t;
}

/* Text with its CRLFs as LF, then every LF as CRLF. */
static void
crlftext(Buf *b)
{
	Buf t = { 0 };
	size_t i;

	for (i = 0; i < b->len; i++)
		if (b->p[i] != '\r' || i + 1 == b->len || b->p[i + 1] != '\n')
			bufaddc(&t, b->p[i]);
	buffree(b);
	*b = t;
	tocrlf(b);
}

static int
barelf(const Buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		if (b->p[i] == '\n' && (i == 0 || b->p[i - 1] != '\r'))
			return 1;
	return 0;
}

/* The line at pos ends in CRLF (the last line: the one before it). */
static int
crlfat(const char *s, size_t len, size_t pos)
{
	const char *nl = memchr(s + pos, '\n', len - pos), *q;

	for (q = s + pos; !nl && q > s; q--)
		if (q[-1] == '\n')
			nl = q - 1;
	return nl && nl > s && nl[-1] == '\r';
}

/* Occurrences of d's oldText in s; the first at d->pos.  The model may
 * have seen a file with CRLF line ends in CRLF or in LF, and a file may
 * mix both: the text is looked for as given first, then in CRLF.  newText
 * takes the line ends of the place it goes, so the lines no edit touches
 * keep their bytes. */
static int
editfind(Edit *d, const char *s, size_t len)
{
	int k = editcount(s, len, d->old.p, d->old.len, &d->pos);

	if (k == 0 && findmem(s, len, "\r\n", 2)) {
		crlftext(&d->old);
		crlftext(&d->new);
		return editcount(s, len, d->old.p, d->old.len, &d->pos);
	}
	if (k == 1 && !barelf(&d->old) && crlfat(s, len, d->pos))
		crlftext(&d->new);
	return k;
}

/* Where each edit's oldText is, exactly once; -1 with the reason. */
static int
editlocate(Edit *ed, int n, const char *s, size_t len, const char *path,
           Buf *out)
{
	int i, k;

	for (i = 0; i < n; i++) {
		if (!ed[i].old.len) {
			if (n == 1)
				bufaddf(out, "oldText must not be empty in "
				        "%s.", path);
			else
				bufaddf(out, "edits[%d].oldText must not be "
				        "empty in %s.", ed[i].idx, path);
			return -1;
		}
		k = editfind(&ed[i], s, len);
		if (k == 1)
			continue;
		if (k == 0 && n == 1)
			bufaddf(out, "Could not find the exact text in %s. "
			        "The old text must match exactly including "
			        "all whitespace and newlines.", path);
		else if (k == 0)
			bufaddf(out, "Could not find edits[%d] in %s. The "
			        "oldText must match exactly including all "
			        "whitespace and newlines.", ed[i].idx, path);
		else if (n == 1)
			bufaddf(out, "Found %d occurrences of the text in %s. "
			        "The text must be unique. Please provide more "
			        "context to make it unique.", k, path);
		else
			bufaddf(out, "Found %d occurrences of edits[%d] in "
			        "%s. Each oldText must be unique. Please "
			        "provide more context to make it unique.", k,
			        ed[i].idx, path);
		return -1;
	}
	return 0;
}

static int
bypos(const void *a, const void *b)
{
	const Edit *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sort by place in the file and refuse overlaps. */
static int
editorder(Edit *ed, int n, const char *path, Buf *out)
{
	int i;

	qsort(ed, n, sizeof(*ed), bypos);
	for (i = 1; i < n; i++) {
		if (ed[i - 1].pos + ed[i - 1].old.len <= ed[i].pos)
			continue;
		bufaddf(out, "edits[%d] and edits[%d] overlap in %s. Merge "
		        "them into one edit or target disjoint regions.",
		        MIN(ed[i - 1].idx, ed[i].idx),
		        MAX(ed[i - 1].idx, ed[i].idx), path);
		return -1;
	}
	return 0;
}

/* The line where a and b first differ, from 1. */
long
editdiffline(const Buf *a, const Buf *b)
{
	size_t i, n = MIN(a->len, b->len);
	long ln = 1;

	for (i = 0; i < n && a->p[i] == b->p[i]; i++)
		if (a->p[i] == '\n')
			ln++;
	return ln;
}

/* Apply the edits to the original into res; editlocate brings the texts
 * to its line endings.  -1 with the reason in out if one is not found
 * exactly once, two overlap, or nothing changes. */
int
editapply(Edit *ed, int n, const Buf *orig, const char *path, Buf *res,
          Buf *out)
{
	size_t at = 0;
	int i;

	if (editlocate(ed, n, orig->p, orig->len, path, out) < 0 ||
	    editorder(ed, n, path, out) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		bufadd(res, orig->p + at, ed[i].pos - at);
		bufadd(res, ed[i].new.p, ed[i].new.len);
		at = ed[i].pos + ed[i].old.len;
	}
	bufadd(res, orig->p + at, orig->len - at);
	if (res->len == orig->len && !memcmp(res->p, orig->p, res->len)) {
		bufaddf(out, "No changes made to %s. The replacement produced "
		        "identical content. This might indicate an issue with "
		        "special characters or the text not existing as "
		        "expected.", path);
		return -1;
	}
	return 0;
}
