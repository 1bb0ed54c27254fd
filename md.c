/* See LICENSE file for copyright and license details. */
/* md.c: Markdown as HTML, for the exported page.  A subset (CommonMark's
 * common cases and GFM's tables), line by line, and each line's text by
 * one scan that never looks back: hostile text costs time linear in its
 * bytes.  Every byte is escaped; links go to http(s) only. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "md.h"

enum {
	MAXTICK = 16,	/* longer backtick runs are text, so a failed
			 * search for a closer happens at most 16 times */
	MAXLOOK = 8,	/* openers a closer looks back at, so emphasis
			 * costs O(1) a delimiter */
	MAXCOLS = 64	/* a table's columns given an alignment */
};

/* A piece of a paragraph: text, code, a link, or a run of * or _ that
 * is an opener, a closer or (unmatched) text. */
enum { MTEXT, MCODE, MLINK, MDELIM };
enum { MLIT, MOPEN, MCLOSE };

typedef struct {
	int kind, state, len;
	size_t at, n;		/* the text shown */
	size_t u, un;		/* a link's target */
} Mdtok;

typedef struct {
	Mdtok *t;
	size_t n, cap;
	size_t *open;		/* openers not yet matched, by index */
	size_t nopen;
} Mdline;

/* The block structure as the lines open and close it. */
typedef struct {
	Buf *b;
	Buf text;		/* lines of the paragraph being gathered */
	int kind;		/* of text: 0, 'p'aragraph, 'q'uote, 'i'tem,
				 * 'c': a paragraph within an item */
	int lists[2], depth;	/* open lists, 'u' or 'o', two deep */
	int blank;		/* the last line was blank */
	int fence;		/* an open fence's character, or 0 */
	size_t flen, find;	/* its length and indentation */
	int cols;		/* an open table's columns, or 0 */
	char align[MAXCOLS];
} Md;

void
mdesc(Buf *b, const char *s, size_t n)
{
	static const char marks[] = "&<>\"'";
	static const char *const ents[] = {
		"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"
	};
	const char *q;
	size_t i, k;
	unsigned char c;

	bufgrow(b, n);
	for (i = 0; i < n; i += k) {
		c = s[i];
		k = utf8seq(s + i, n - i);
		if (c == '\r') {
			k = 1;
		} else if (!k || (c < 0x20 && c != '\n' && c != '\t') ||
		           c == 0x7f) {
			bufadds(b, "\xef\xbf\xbd");
			k = 1;
		} else if ((q = memchr(marks, c, 5)) && c) {
			bufadds(b, ents[q - marks]);
		} else {
			bufadd(b, s + i, k);
		}
	}
}

static Mdtok *
mdtok(Mdline *l, int kind, size_t at, size_t n)
{
	Mdtok *t;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->t = xrealloc(l->t, l->cap * sizeof(*l->t));
	}
	t = &l->t[l->n++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->at = at;
	t->n = n;
	return t;
}

static int
mdhttp(const char *s, size_t n)
{
	return (n > 7 && !strncmp(s, "http://", 7)) ||
	       (n > 8 && !strncmp(s, "https://", 8));
}

/* A backtick run at s[i]: a code span to the next run of its length, or
 * text.  none[k]: no run of length k follows, found once. */
static size_t
mdticks(Mdline *l, const char *s, size_t n, size_t i, char *none)
{
	size_t k, j, r;

	for (k = 0; i + k < n && s[i + k] == '`'; k++)
		;
	if (k <= MAXTICK && !none[k]) {
		for (j = i + k; j < n; j += r ? r : 1) {
			for (r = 0; j + r < n && s[j + r] == '`'; r++)
				;
			if (r == k) {
				mdtok(l, MCODE, i + k, j - i - k);
				return j + k - i;
			}
		}
		none[k] = 1;
	}
	mdtok(l, MTEXT, i, k);
	return k;
}

/* [text](http...) at s[i]: its length, or 0.  The look-ahead stops at
 * the next bracket and the target's at a space, bracket or paren, so no
 * byte is looked at by two of them. */
static size_t
mdlink(Mdline *l, const char *s, size_t n, size_t i)
{
	size_t j, u;
	Mdtok *t;

	for (j = i + 1; j < n && s[j] != '[' && s[j] != ']'; j++)
		;
	if (j + 1 >= n || s[j] != ']' || s[j + 1] != '(')
		return 0;
	for (u = j + 2; u < n && !strchr("()[]<> \t\n", s[u]); u++)
		;
	if (u == n || s[u] != ')' || !mdhttp(s + j + 2, u - j - 2))
		return 0;
	t = mdtok(l, MLINK, i + 1, j - i - 1);
	t->u = j + 2;
	t->un = u - j - 2;
	return u + 1 - i;
}

/* A bare http(s) address at s[i], not within a word: its length, or 0;
 * what ends a sentence is left out of it. */
static size_t
mdauto(Mdline *l, const char *s, size_t n, size_t i)
{
	size_t j;
	Mdtok *t;

	if ((i && isalnum((unsigned char)s[i - 1])) || !mdhttp(s + i, n - i))
		return 0;
	for (j = i; j < n && !isspace((unsigned char)s[j]) &&
	     !strchr("<>\"`", s[j]); j++)
		;
	while (j > i && strchr(".,:;!?)'*_", s[j - 1]))
		j--;
	if (!mdhttp(s + i, j - i))
		return 0;
	t = mdtok(l, MLINK, i, j - i);
	t->u = i;
	t->un = j - i;
	return j - i;
}

/* A run of * or _ at s[i]: a closer if an opener of its kind is among
 * the last MAXLOOK (those above it stay text), else an opener if it
 * may open, else text.  _ neither opens nor closes within a word. */
static size_t
mddelim(Mdline *l, const char *s, size_t n, size_t i)
{
	size_t k, d;
	Mdtok *t, *o;
	int c = s[i], prev, next, canopen, canclose;

	for (k = 0; i + k < n && s[i + k] == c; k++)
		;
	prev = i ? (unsigned char)s[i - 1] : ' ';
	next = i + k < n ? (unsigned char)s[i + k] : ' ';
	canopen = !isspace(next) && (c == '*' || !isalnum(prev));
	canclose = !isspace(prev) && (c == '*' || !isalnum(next));
	t = mdtok(l, k > 3 ? MTEXT : MDELIM, i, k);
	t->len = k;
	if (k > 3)
		return k;
	for (d = 0; canclose && d < MAXLOOK && d < l->nopen; d++) {
		o = &l->t[l->open[l->nopen - 1 - d]];
		if (s[o->at] == c && o->len == t->len) {
			o->state = MOPEN;
			t->state = MCLOSE;
			l->nopen -= d + 1;
			return k;
		}
	}
	if (canopen)
		l->open[l->nopen++] = l->n - 1;
	return k;
}

static void
mdemph(Buf *b, const Mdtok *t)
{
	static const char *const tags[2][4] = {
		{ "", "<em>", "<strong>", "<strong><em>" },
		{ "", "</em>", "</strong>", "</em></strong>" }
	};

	bufadds(b, tags[t->state == MCLOSE][t->len]);
}

/* What may start a piece other than text. */
static int
mdspecial(int c)
{
	return c && strchr("`[*_h", c);
}

/* Append s[n], a paragraph's text, as HTML: first its pieces, then
 * each as it turned out. */
static void
mdinline(Buf *b, const char *s, size_t n)
{
	Mdline l = { 0 };
	char none[MAXTICK + 1] = { 0 };
	size_t i = 0, text = 0, k;
	Mdtok *t;

	l.open = xmalloc((n + 1) * sizeof(*l.open));
	while (i < n) {
		k = 0;
		if (s[i] == '\\' && i + 1 < n &&
		    ispunct((unsigned char)s[i + 1])) {
			mdtok(&l, MTEXT, text, i - text);
			mdtok(&l, MTEXT, i + 1, 1);
			i += 2;
			text = i;
			continue;
		}
		if (mdspecial(s[i]))
			mdtok(&l, MTEXT, text, i - text);
		if (s[i] == '`')
			k = mdticks(&l, s, n, i, none);
		else if (s[i] == '[')
			k = mdlink(&l, s, n, i);
		else if (s[i] == '*' || s[i] == '_')
			k = mddelim(&l, s, n, i);
		else if (s[i] == 'h')
			k = mdauto(&l, s, n, i);
		if (k) {
			i += k;
			text = i;
		} else if (mdspecial(s[i])) {
			l.n--;	/* the text before goes on */
			i++;
		} else {
			i++;
		}
	}
	mdtok(&l, MTEXT, text, n - text);
	for (i = 0; i < l.n; i++) {
		t = &l.t[i];
		if (t->kind == MDELIM && t->state != MLIT) {
			mdemph(b, t);
			continue;
		}
		if (t->kind == MCODE)
			bufadds(b, "<code>");
		if (t->kind == MLINK) {
			bufadds(b, "<a href=\"");
			mdesc(b, s + t->u, t->un);
			bufadds(b, "\">");
		}
		mdesc(b, s + t->at, t->n);
		bufadds(b, t->kind == MCODE ? "</code>" :
		        t->kind == MLINK ? "</a>" : "");
	}
	free(l.t);
	free(l.open);
}

/* The gathered text out, as its kind has it. */
static void
mdflush(Md *m)
{
	static const char *const open[] = { "<p>", "<blockquote><p>", "" };
	static const char *const close[] = { "</p>\n", "</p></blockquote>\n",
	                                     "" };
	int k = m->kind == 'q' ? 1 : m->kind == 'i' ? 2 : 0;

	if (!m->kind)
		return;
	bufadds(m->b, open[k]);
	mdinline(m->b, m->text.p, m->text.len);
	bufadds(m->b, close[k]);
	bufreset(&m->text);
	m->kind = 0;
}

/* Close the open lists deeper than depth. */
static void
mdlists(Md *m, int depth)
{
	mdflush(m);
	while (m->depth > depth) {
		m->depth--;
		bufadds(m->b, m->lists[m->depth] == 'o' ? "</li></ol>" :
		        "</li></ul>");
		/* not within an item, whose white space is kept */
		bufadds(m->b, m->depth ? "" : "\n");
	}
}

/* A list item of kind 'u' or 'o' (numbered from start) at level 0 or
 * 1: the lists it ends closed, its own opened or its last item ended. */
static void
mditem(Md *m, int level, int kind, long start)
{
	level = MIN(level, m->depth);
	mdlists(m, level + 1);
	if (m->depth == level + 1 && m->lists[level] != kind)
		mdlists(m, level);
	if (m->depth == level + 1) {
		bufadds(m->b, "</li>\n<li>");
	} else if (kind == 'o' && start != 1) {
		bufaddf(m->b, "<ol start=\"%ld\"><li>", start);
	} else {
		bufadds(m->b, kind == 'o' ? "<ol><li>" : "<ul><li>");
	}
	m->lists[level] = kind;
	m->depth = level + 1;
}

/* A list item's marker at l: its kind, its start and the text's offset
 * by the out-parameters; 0 if there is none. */
static int
mdmarker(const char *l, size_t n, long *start, size_t *text)
{
	size_t i = 0;

	*start = 0;
	if (n >= 1 && strchr("-*+", l[0]) && l[0]) {
		i = 1;
	} else {
		for (; i < n && i < 9 && isdigit((unsigned char)l[i]); i++)
			*start = *start * 10 + (l[i] - '0');
		if (!i || i == n || (l[i] != '.' && l[i] != ')'))
			return 0;
		i++;
	}
	if (i < n && l[i] != ' ' && l[i] != '\t')
		return 0;
	*text = i < n ? i + 1 : i;
	return l[0] == '-' || l[0] == '*' || l[0] == '+' ? 'u' : 'o';
}

/* A rule: three or more of one of - * _ and spaces only. */
static int
mdrule(const char *l, size_t n)
{
	size_t i, k = 0;

	if (!n || !strchr("-*_", l[0]) || !l[0])
		return 0;
	for (i = 0; i < n; i++) {
		if (l[i] == l[0])
			k++;
		else if (l[i] != ' ' && l[i] != '\t')
			return 0;
	}
	return k >= 3;
}

/* A table's delimiter row: its columns, their alignment in al ('l',
 * 'c', 'r' or 0); 0 if l is not one. */
static int
mddelims(const char *l, size_t n, char *al)
{
	size_t i = 0;
	int cols = 0, left, dash, pipes = 0;

	while (i < n) {
		while (i < n && (l[i] == ' ' || l[i] == '|'))
			pipes += l[i++] == '|';
		if (i == n)
			break;
		left = l[i] == ':';
		i += left;
		for (dash = 0; i < n && l[i] == '-'; i++)
			dash++;
		if (!dash)
			return 0;
		if (cols < MAXCOLS)
			al[cols] = i < n && l[i] == ':' ? (left ? 'c' : 'r') :
			           left ? 'l' : 0;
		cols++;
		i += i < n && l[i] == ':';
		while (i < n && l[i] == ' ')
			i++;
		if (i < n && l[i] != '|')
			return 0;
	}
	return pipes ? cols : 0;
}

/* A table's row: cells split at | (not \|), each a paragraph's text;
 * as many as the header has, at most. */
static void
mdrow(Md *m, const char *l, size_t n, const char *cell)
{
	size_t i, j;
	int c = 0;

	i = l[0] == '|';
	bufadds(m->b, "<tr>");
	while (i < n && c < m->cols) {
		for (j = i; j < n && (l[j] != '|' || (j && l[j - 1] == '\\'));
		     j++)
			;
		if (j == n && i == j)
			break;
		bufaddf(m->b, "<%s%s>", cell, c >= MAXCOLS || !m->align[c] ?
		        "" : m->align[c] == 'l' ? " class=\"l\"" :
		        m->align[c] == 'c' ? " class=\"c\"" : " class=\"r\"");
		mdinline(m->b, l + i, j - i);
		bufaddf(m->b, "</%s>", cell);
		c++;
		i = j + 1;
	}
	bufadds(m->b, "</tr>\n");
}

/* A fence's opening line at l (after its indentation ind): the fence
 * kept in m, its language as the code's class; 0 if l is not one. */
static int
mdfence(Md *m, const char *l, size_t n, size_t ind)
{
	size_t k, i, e;

	for (k = 0; k < n && l[k] == l[0]; k++)
		;
	if (k < 3 || (l[0] != '`' && l[0] != '~') ||
	    (l[0] == '`' && memchr(l + k, '`', n - k)))
		return 0;
	mdlists(m, ind < 2 ? 0 : m->depth);	/* indented: in the item */
	m->fence = l[0];
	m->flen = k;
	m->find = ind;
	for (i = k; i < n && l[i] == ' '; i++)
		;
	for (e = i; e < n && (isalnum((unsigned char)l[e]) ||
	                      strchr("+-_.#", l[e])) && l[e]; e++)
		;
	if (e > i && (e == n || l[e] == ' ')) {
		bufadds(m->b, "<pre><code class=\"language-");
		bufadd(m->b, l + i, e - i);
		bufadds(m->b, "\">");
	} else {
		bufadds(m->b, "<pre><code>");
	}
	return 1;
}

/* A line within a fence: its end, or a line of the code, the fence's
 * indentation taken off. */
static void
mdcodeline(Md *m, const char *l, size_t n)
{
	size_t i, k;

	for (i = 0; i < n && i < m->find && l[i] == ' '; i++)
		;
	for (k = 0; i + k < n && l[i + k] == m->fence; k++)
		;
	if (k >= m->flen) {
		while (i + k < n && (l[i + k] == ' ' || l[i + k] == '\t'))
			k++;
		if (i + k == n) {
			bufadds(m->b, "</code></pre>\n");
			m->fence = 0;
			return;
		}
	}
	mdesc(m->b, l + i, n - i);
	bufaddc(m->b, '\n');
}

/* A heading: # to ######, a space, the text, closing #s dropped. */
static int
mdheading(Md *m, const char *l, size_t n)
{
	size_t h, i, e = n;

	for (h = 0; h < n && h < 7 && l[h] == '#'; h++)
		;
	if (!h || h > 6 || (h < n && l[h] != ' ' && l[h] != '\t'))
		return 0;
	mdlists(m, 0);
	while (e > h && (l[e - 1] == ' ' || l[e - 1] == '#'))
		e--;
	bufaddf(m->b, "<h%zu>", h);
	for (i = h; i < e && (l[i] == ' ' || l[i] == '\t'); i++)
		;
	mdinline(m->b, l + i, e - i);
	bufaddf(m->b, "</h%zu>\n", h);
	return 1;
}

/* Add l to the text being gathered of kind k, starting it if need be. */
static void
mdgather(Md *m, int k, const char *l, size_t n)
{
	if (m->kind != k)
		mdflush(m);
	else
		bufaddc(&m->text, '\n');
	m->kind = k;
	bufadd(&m->text, l, n);
}

/* One line l, and the next (for a table's delimiter row): as a fence's,
 * a table's, or the start or the rest of a block.  1 when the next line
 * is taken too. */
static int
mdline(Md *m, const char *l, size_t n, const char *nx, size_t nn)
{
	size_t ind = 0, t;
	long start;
	int k;

	if (m->fence) {
		mdcodeline(m, l, n);
		return 0;
	}
	if (m->cols && memchr(l, '|', n)) {
		mdrow(m, l, n, "td");
		return 0;
	}
	if (m->cols)
		bufadds(m->b, "</tbody></table>\n");
	m->cols = 0;
	for (; ind < n && l[ind] == ' '; ind++)
		;
	if (ind == n) {
		mdflush(m);
		m->blank = 1;
		return 0;
	}
	if (ind < 2 && m->depth && m->blank)
		mdlists(m, 0);
	l += ind, n -= ind;
	if (mdfence(m, l, n, ind) || mdheading(m, l, n)) {
		m->blank = 0;
		return 0;
	}
	if (mdrule(l, n)) {
		mdlists(m, 0);
		bufadds(m->b, "<hr>\n");
	} else if (l[0] == '>') {
		if (m->kind != 'q')
			mdlists(m, 0);
		t = n > 1 && l[1] == ' ' ? 2 : 1;
		mdgather(m, 'q', l + t, n - t);
	} else if ((k = mdmarker(l, n, &start, &t))) {
		mditem(m, ind >= 2, k, start);
		m->kind = 'i';
		bufadd(&m->text, l + t, n - t);
	} else if (memchr(l, '|', n) && nx &&
	           (m->cols = mddelims(nx, nn, m->align))) {
		mdlists(m, 0);
		bufadds(m->b, "<table><thead>\n");
		mdrow(m, l, n, "th");
		bufadds(m->b, "</thead><tbody>\n");
		m->blank = 0;
		return 1;
	} else if (m->kind && !m->blank) {
		mdgather(m, m->kind, l, n);
	} else {
		mdgather(m, m->depth ? 'c' : 'p', l, n);
	}
	m->blank = 0;
	return 0;
}

/* The length of the line at l, the newline and a CR before it left
 * out. */
static size_t
mdeol(const char *l, const char *end)
{
	const char *e = memchr(l, '\n', end - l);
	size_t n = (e ? e : end) - l;

	return n && l[n - 1] == '\r' ? n - 1 : n;
}

void
mdhtml(Buf *b, const char *s, size_t n)
{
	Md m;
	const char *l = s, *nx, *end = s + n;
	size_t ln, nn;

	memset(&m, 0, sizeof(m));
	m.b = b;
	for (ln = mdeol(l, end); l < end; l = nx, ln = nn) {
		nx = memchr(l, '\n', end - l);
		nx = nx ? nx + 1 : end;
		nn = mdeol(nx, end);
		if (mdline(&m, l, ln, nx < end ? nx : NULL, nn)) {
			nx = memchr(nx, '\n', end - nx);
			nx = nx ? nx + 1 : end;
			nn = mdeol(nx, end);
		}
	}
	mdflush(&m);
	if (m.fence)
		bufadds(b, "</code></pre>\n");
	if (m.cols)
		bufadds(b, "</tbody></table>\n");
	mdlists(&m, 0);
	buffree(&m.text);
}
