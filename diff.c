/* See LICENSE file for copyright and license details. */
/* diff.c: unified diffs of two texts by Myers' O(ND) algorithm, bounded,
 * and a file's change in git's form: the header, the hunks, or a binary
 * file as a GIT binary patch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "util.h"
#include "diff.h"

enum {
	/* Edits the search looks for before it gives up and replaces the
	 * whole changed middle: its trace holds (D+1)(D+2)/2 ints, 8 MB at
	 * 2000, and its time is (N+M)D. */
	MAXD = 2000,
	MAXWORK = 1 << 25,	/* steps of the search, at most */
	BINSNIFF = 8000,	/* bytes looked at for a NUL, as git does */
	B85LINE = 52		/* bytes of a binary patch's line */
};

typedef struct {
	const char *p;
	size_t n;		/* its bytes, the newline with them */
	unsigned h;
} Line;

/* Two texts as lines, and which lines of each are not in the other. */
typedef struct {
	Line *a, *b;
	int n, m;
	char *adel, *bins;	/* a's line deleted, b's line inserted */
} Script;

static Line *
splitlines(const char *s, size_t len, int *count)
{
	Line *v;
	const char *p, *e = s + len, *nl;
	unsigned h;
	int n = 0;

	for (p = s; p < e; p = nl + 1, n++)
		if (!(nl = memchr(p, '\n', e - p)))
			nl = e - 1;
	v = xcalloc(n + 1, sizeof(*v));
	for (n = 0, p = s; p < e; p = nl + 1, n++) {
		if (!(nl = memchr(p, '\n', e - p)))
			nl = e - 1;
		v[n].p = p;
		v[n].n = nl + 1 - p;
		for (h = 2166136261u; p <= nl; p++)
			h = (h ^ (unsigned char)*p) * 16777619u;
		v[n].h = h;
	}
	*count = n;
	return v;
}

static int
lineeq(const Line *x, const Line *y)
{
	return x->h == y->h && x->n == y->n && !memcmp(x->p, y->p, x->n);
}

/* Mark the lines of a[x0..x1) and b[y0..y1) that the shortest edit
 * script deletes and inserts, by Myers' greedy search with its trace
 * kept for the way back: V of step d is kept for k = -d, -d+2 .. d at
 * tr[d(d+1)/2 + (k+d)/2].  -1 past MAXD or MAXWORK. */
static int
myers(Script *s, int x0, int x1, int y0, int y1)
{
	int n = x1 - x0, m = y1 - y0, d, k, x, y, px, pk, D = -1;
	size_t cap = 0, need;
	long work = 0;
	int *tr = NULL;

	for (d = 0; d <= MAXD && D < 0 && work <= MAXWORK; d++) {
		if ((need = (size_t)(d + 1) * (d + 2) / 2) > cap) {
			cap = MAX(need, 2 * cap);
			tr = xrealloc(tr, cap * sizeof(*tr));
		}
		for (k = -d; k <= d; k += 2) {
			if (d == 0)
				x = 0;
			else if (k == -d || (k != d &&
			    tr[(d - 1) * d / 2 + (k - 1 + d - 1) / 2] <
			    tr[(d - 1) * d / 2 + (k + 1 + d - 1) / 2]))
				x = tr[(d - 1) * d / 2 + (k + 1 + d - 1) / 2];
			else
				x = tr[(d - 1) * d / 2 + (k - 1 + d - 1) / 2]
				    + 1;
			for (y = x - k; x < n && y < m &&
			     lineeq(&s->a[x0 + x], &s->b[y0 + y]); x++, y++)
				work++;
			tr[d * (d + 1) / 2 + (k + d) / 2] = x;
			work++;
			if (x >= n && y >= m) {
				D = d;
				break;
			}
		}
	}
	/* back from (n, m): each step came down (an insertion) or right
	 * (a deletion) from step d-1's furthest point on a next diagonal */
	for (x = n, y = m, d = D; d > 0; d--) {
		k = x - y;
		if (k == -d || (k != d &&
		    tr[(d - 1) * d / 2 + (k - 1 + d - 1) / 2] <
		    tr[(d - 1) * d / 2 + (k + 1 + d - 1) / 2]))
			pk = k + 1;
		else
			pk = k - 1;
		px = tr[(d - 1) * d / 2 + (pk + d - 1) / 2];
		if (pk == k + 1)
			s->bins[y0 + px - pk] = 1;
		else
			s->adel[x0 + px] = 1;
		x = px;
		y = px - pk;
	}
	free(tr);
	return D;
}

/* The lines that differ: the common head and tail left alone, the
 * middle searched, or replaced whole when the search would cost too
 * much. */
static void
compare(Script *s)
{
	int x0 = 0, x1 = s->n, y0 = 0, y1 = s->m, i;

	while (x0 < x1 && y0 < y1 && lineeq(&s->a[x0], &s->b[y0]))
		x0++, y0++;
	while (x1 > x0 && y1 > y0 && lineeq(&s->a[x1 - 1], &s->b[y1 - 1]))
		x1--, y1--;
	if (x0 == x1 || y0 == y1 || myers(s, x0, x1, y0, y1) < 0) {
		for (i = x0; i < x1; i++)
			s->adel[i] = 1;
		for (i = y0; i < y1; i++)
			s->bins[i] = 1;
	}
}

static void
hunkline(Buf *out, int c, const Line *l)
{
	bufaddc(out, c);
	bufadd(out, l->p, l->n);
	if (l->p[l->n - 1] != '\n')
		bufadds(out, "\n\\ No newline at end of file\n");
}

/* A range of a hunk's header: where it starts and its length, ",1" left
 * out; an empty range names the line before it. */
static void
hunkrange(Buf *out, int c, int start, int len)
{
	bufaddf(out, "%c%d", c, len ? start + 1 : start);
	if (len != 1)
		bufaddf(out, ",%d", len);
}

/* The hunk of a[i0..i1) and b[j0..j1), both ranges holding the same
 * unchanged lines. */
static void
hunk(Buf *out, const Script *s, int i0, int i1, int j0, int j1)
{
	int i = i0, j = j0;

	bufadds(out, "@@ ");
	hunkrange(out, '-', i0, i1 - i0);
	bufaddc(out, ' ');
	hunkrange(out, '+', j0, j1 - j0);
	bufadds(out, " @@\n");
	while (i < i1 || j < j1) {
		if (i < i1 && j < j1 && !s->adel[i] && !s->bins[j]) {
			hunkline(out, ' ', &s->a[i++]);
			j++;
			continue;
		}
		if (!(i < i1 && s->adel[i]) && !(j < j1 && s->bins[j]))
			break;	/* cannot be: the ranges hold the same */
		while (i < i1 && s->adel[i])
			hunkline(out, '-', &s->a[i++]);
		while (j < j1 && s->bins[j])
			hunkline(out, '+', &s->b[j++]);
	}
}

/* The next change at or after (*i, *j): its end in a and b; 0 if none. */
static int
nextchange(const Script *s, int *i, int *j, int *ie, int *je)
{
	while (*i < s->n && *j < s->m && !s->adel[*i] && !s->bins[*j])
		(*i)++, (*j)++;
	if (*i >= s->n && *j >= s->m)
		return 0;
	for (*ie = *i; *ie < s->n && s->adel[*ie]; (*ie)++)
		;
	for (*je = *j; *je < s->m && s->bins[*je]; (*je)++)
		;
	return 1;
}

/* The changes as hunks of up to context unchanged lines around them,
 * those closer than twice that joined, as diff -u and git diff make
 * them. */
static int
hunks(Buf *out, const Script *s, int context)
{
	int i = 0, j = 0, ie, je, hi, hj, ni, nj, nie, nje, c, count = 0;

	if (!nextchange(s, &i, &j, &ie, &je))
		return 0;
	for (;;) {
		c = MIN(i, context);
		hi = i - c;
		hj = j - c;
		for (;;) {
			ni = ie, nj = je;
			if (!nextchange(s, &ni, &nj, &nie, &nje) ||
			    ni - ie > 2 * context)
				break;
			ie = nie, je = nje;
		}
		c = MIN(s->n - ie, context);
		hunk(out, s, hi, ie + c, hj, je + c);
		count++;
		if (!nextchange(s, &ni, &nj, &nie, &nje))
			return count;
		i = ni, j = nj, ie = nie, je = nje;
	}
}

/* Append to out the hunks that make b of a, with context lines of
 * context; the number of hunks, 0 when the texts are the same. */
int
diffunified(Buf *out, const char *a, size_t an, const char *b, size_t bn,
            int context)
{
	Script s;
	int rc;

	memset(&s, 0, sizeof(s));
	if (!a)		/* an empty side may come as NULL */
		a = "", an = 0;
	if (!b)
		b = "", bn = 0;
	s.a = splitlines(a, an, &s.n);
	s.b = splitlines(b, bn, &s.m);
	s.adel = xcalloc(s.n + 1, 1);
	s.bins = xcalloc(s.m + 1, 1);
	compare(&s);
	rc = hunks(out, &s, context < 0 ? 0 : context);
	free(s.a);
	free(s.b);
	free(s.adel);
	free(s.bins);
	bufgrow(out, 0);
	return rc;
}

/* Binary as git tells: a NUL in the first 8000 bytes. */
static int
diffbinary(const char *p, size_t n)
{
	return n && memchr(p, '\0', MIN(n, BINSNIFF)) != NULL;
}

/* A path as git writes it: in double quotes with C escapes when it holds
 * a quote, a backslash, a control character or a byte past ASCII, the
 * a/ or b/ in front within them. */
static void
quotepath(Buf *out, const char *pre, const char *name)
{
	const unsigned char *p;
	int q = 0;

	for (p = (const unsigned char *)name; *p && !q; p++)
		q = *p < 0x20 || *p >= 0x7f || *p == '"' || *p == '\\';
	if (!q) {
		bufaddf(out, "%s%s", pre, name);
		return;
	}
	bufaddf(out, "\"%s", pre);
	for (p = (const unsigned char *)name; *p; p++) {
		if (*p == '"' || *p == '\\')
			bufaddf(out, "\\%c", *p);
		else if (*p == '\n')
			bufadds(out, "\\n");
		else if (*p == '\t')
			bufadds(out, "\\t");
		else if (*p < 0x20 || *p >= 0x7f)
			bufaddf(out, "\\%03o", *p);
		else
			bufaddc(out, *p);
	}
	bufaddc(out, '"');
}

/* A side of a change: a/X, b/X or /dev/null. */
static void
sidename(Buf *out, const char *pre, const char *name)
{
	if (name)
		quotepath(out, pre, name);
	else
		bufadds(out, "/dev/null");
}

/* The object id git gives these bytes as a blob, in hex, its first
 * digits digits of it; zeros for an absent side. */
static void
blobid(Buf *out, const char *p, size_t n, int absent, int digits)
{
	br_sha1_context c;
	unsigned char h[br_sha1_SIZE];
	char head[32], hex[2 * br_sha1_SIZE + 1];
	int i;

	memset(h, 0, sizeof(h));
	if (!absent) {
		br_sha1_init(&c);
		snprintf(head, sizeof(head), "blob %lu", (unsigned long)n);
		br_sha1_update(&c, head, strlen(head) + 1);
		br_sha1_update(&c, p, n);
		br_sha1_out(&c, h);
	}
	for (i = 0; i < br_sha1_SIZE; i++)
		snprintf(hex + 2 * i, 3, "%02x", h[i]);
	bufadd(out, hex, MIN(digits, 2 * br_sha1_SIZE));
}

/* git's index line: both sides' ids, and the mode where it stays;
 * patch(1) learns from it that a link is one.  A binary patch wants
 * the whole ids. */
static void
indexline(Buf *out, const Diffhead *h, const char *a, size_t an,
          const char *b, size_t bn, int digits)
{
	bufadds(out, "index ");
	blobid(out, a, an, !h->amode, digits);
	bufadds(out, "..");
	blobid(out, b, bn, !h->bmode, digits);
	if (h->amode == h->bmode)
		bufaddf(out, " %06o", h->amode);
	bufaddc(out, '\n');
}

/* A ---/+++ line's name; with a space in it, a tab after it, as git
 * writes it for patch(1) to know where the name ends. */
static void
minusplus(Buf *out, const char *mark, const char *pre, const char *name)
{
	bufaddf(out, "%s ", mark);
	sidename(out, pre, name);
	if (name && strchr(name, ' '))
		bufaddc(out, '\t');
	bufaddc(out, '\n');
}

/* p as a zlib stream of stored blocks: git apply inflates the literal,
 * and a stored block needs no compressor. */
static void
zstored(Buf *z, const char *p, size_t n)
{
	unsigned long s1 = 1, s2 = 0;
	size_t i, k;

	bufadd(z, "\x78\x01", 2);
	do {
		k = MIN(n, 65535);
		bufaddc(z, k == n);	/* the last block */
		bufaddc(z, k & 0xff);
		bufaddc(z, k >> 8);
		bufaddc(z, ~k & 0xff);
		bufaddc(z, (~k >> 8) & 0xff);
		for (i = 0; i < k; i++) {
			s1 = (s1 + (unsigned char)p[i]) % 65521;
			s2 = (s2 + s1) % 65521;
		}
		bufadd(z, p, k);
		p += k;
		n -= k;
	} while (n);
	for (i = 0; i < 4; i++)	/* Adler-32, most significant first */
		bufaddc(z, ((s2 << 16 | s1) >> (24 - 8 * i)) & 0xff);
}

/* A binary patch's literal: the new bytes, deflated, in git's base 85,
 * up to 52 bytes a line after a letter giving how many. */
static void
literal(Buf *out, const char *p, size_t n)
{
	static const char en85[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";
	Buf z = { 0 };
	unsigned long acc;
	size_t at, k, i, g;
	char five[5];

	zstored(&z, p, n);
	bufaddf(out, "literal %lu\n", (unsigned long)n);
	for (at = 0; at < z.len; at += k) {
		k = MIN(z.len - at, B85LINE);
		bufaddc(out, k <= 26 ? 'A' + k - 1 : 'a' + k - 27);
		for (g = 0; g < k; g += 4) {
			for (acc = 0, i = 0; i < 4; i++)
				acc = acc << 8 | (g + i < k ?
				    (unsigned char)z.p[at + g + i] : 0);
			for (i = 5; i-- > 0; acc /= 85)
				five[i] = en85[acc % 85];
			bufadd(out, five, 5);
		}
		bufaddc(out, '\n');
	}
	bufaddc(out, '\n');
	buffree(&z);
}

static void
binarybody(Buf *out, const Diffhead *h, const char *a, size_t an,
           const char *b, size_t bn)
{
	if (!h->literal) {
		bufadds(out, "Binary files ");
		sidename(out, "a/", h->amode ? h->a : NULL);
		bufadds(out, " and ");
		sidename(out, "b/", h->bmode ? h->b : NULL);
		bufadds(out, " differ\n");
		return;
	}
	indexline(out, h, a, an, b, bn, 2 * br_sha1_SIZE);
	bufadds(out, "GIT binary patch\n");
	literal(out, b, h->bmode ? bn : 0);
}

/* git's header lines: the names, a new or deleted file's mode, a change
 * of mode, a rename. */
static void
githead(Buf *out, const Diffhead *h, int same)
{
	const char *a = h->amode ? h->a : h->b, *b = h->bmode ? h->b : h->a;

	bufadds(out, "diff --git ");
	quotepath(out, "a/", a);
	bufaddc(out, ' ');
	quotepath(out, "b/", b);
	bufaddc(out, '\n');
	if (!h->amode)
		bufaddf(out, "new file mode %06o\n", h->bmode);
	else if (!h->bmode)
		bufaddf(out, "deleted file mode %06o\n", h->amode);
	else if (h->amode != h->bmode)
		bufaddf(out, "old mode %06o\nnew mode %06o\n", h->amode,
		        h->bmode);
	if (h->amode && h->bmode && strcmp(a, b)) {
		if (same)
			bufadds(out, "similarity index 100%\n");
		bufadds(out, "rename from ");
		quotepath(out, "", a);
		bufadds(out, "\nrename to ");
		quotepath(out, "", b);
		bufaddc(out, '\n');
	}
}

/* Append to out the change from a to b of one file, as git diff shows
 * it: nothing when the names, modes and bytes are the same.  An absent
 * side's bytes are not looked at.  1 if something was appended. */
int
difffile(Buf *out, const Diffhead *h, const char *a, size_t an,
         const char *b, size_t bn, int context)
{
	Buf hk = { 0 };
	int same, bin;

	if (!h->amode || !a)
		a = "", an = 0;
	if (!h->bmode || !b)
		b = "", bn = 0;
	same = an == bn && (!an || !memcmp(a, b, an));
	if (same && h->amode == h->bmode && h->amode &&
	    !strcmp(h->a, h->b))
		return 0;
	githead(out, h, same);
	if (same && h->amode && h->bmode)
		return 1;	/* a mode or a name changed, no byte */
	if ((bin = diffbinary(a, an) || diffbinary(b, bn))) {
		binarybody(out, h, a, an, b, bn);
		return 1;
	}
	if (diffunified(&hk, a, an, b, bn, context)) {
		indexline(out, h, a, an, b, bn, 7);
		minusplus(out, "---", "a/", h->amode ? h->a : NULL);
		minusplus(out, "+++", "b/", h->bmode ? h->b : NULL);
		bufadd(out, hk.p, hk.len);
	}
	buffree(&hk);
	return 1;
}
