/* See LICENSE file for copyright and license details. */
/* regex.c: grep's regular expressions: POSIX extended ones over bytes,
 * as in the C locale, run as a Thompson NFA, in time linear in the line
 * whatever the pattern.  Our own rather than libc's regcomp: musl's,
 * with the wide-character tables it pulls in, was 44 KB, 14% of the
 * static binary, for this one user. */
#include <sys/types.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "regex.h"

enum {
	REMAX = 4096,	/* instructions: a bigger pattern is refused */
	REDUP = 255,	/* the biggest count in {m,n}, as RE_DUP_MAX */
	REDEPTH = 200,	/* groups nested deeper are refused */
	RESTOP = 4096,	/* bytes of a line between two asks to stop: a
			 * 4 MB line took 13 s with the worst pattern */
};

/* SET consumes a byte of set x; JMP and SPLIT go x (and y) instructions
 * on, relative so that a piece copied for {m,n} needs no fixing; the
 * others test where the thread stands without consuming. */
enum { SET, JMP, SPLIT, BOL, EOL, WORDB, NWORDB, WBEG, WEND, MATCH };

struct Reinst {
	int op, x, y;
};

typedef struct {
	Regex *r;
	const char *p;
	int cap, setcap, icase, depth;
	const char *err;
} Comp;

static int alt(Comp *c);

static int
instadd(Comp *c, int op, int x, int y)
{
	if (c->r->n >= REMAX) {
		c->err = "pattern too big";
		return -1;
	}
	if (c->r->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		c->r->prog = xrealloc(c->r->prog, c->cap * sizeof(Reinst));
	}
	c->r->prog[c->r->n].op = op;
	c->r->prog[c->r->n].x = x;
	c->r->prog[c->r->n].y = y;
	return c->r->n++;
}

/* Put an instruction at i, moving what follows one place on. */
static int
instinsert(Comp *c, int i, int op, int x, int y)
{
	Reinst *p;

	if (instadd(c, op, x, y) < 0)
		return -1;
	p = c->r->prog;
	memmove(p + i + 1, p + i, (c->r->n - 1 - i) * sizeof(*p));
	p[i].op = op;
	p[i].x = x;
	p[i].y = y;
	return 0;
}

static unsigned char *
newset(Comp *c)
{
	Regex *r = c->r;

	if (r->nset == c->setcap) {
		c->setcap = c->setcap ? 2 * c->setcap : 8;
		r->set = xrealloc(r->set, c->setcap * sizeof(*r->set));
	}
	memset(r->set[r->nset], 0, sizeof(*r->set));
	return r->set[r->nset++];
}

static int
inset(const unsigned char *s, int b)
{
	return s[b >> 3] & 1 << (b & 7);
}

static void
addset(unsigned char *s, int b)
{
	s[b >> 3] |= 1 << (b & 7);
}

/* The newest set as a SET instruction: with icase, ASCII letters both
 * ways, before the set is turned round. */
static int
putset(Comp *c, int neg)
{
	unsigned char *s = c->r->set[c->r->nset - 1];
	int b;

	for (b = 'a'; c->icase && b <= 'z'; b++) {
		if (inset(s, b) || inset(s, toupper(b))) {
			addset(s, b);
			addset(s, toupper(b));
		}
	}
	for (b = 0; neg && b < 32; b++)
		s[b] = ~s[b];
	return instadd(c, SET, c->r->nset - 1, 0) < 0 ? -1 : 0;
}

static int
isword(int b)
{
	return isalnum(b) || b == '_';
}

/* Add the bytes of class name (n bytes) to s; -1 if there is none. */
static int
addclass(unsigned char *s, const char *name, size_t n)
{
	static const char *names[] = { "alpha", "digit", "alnum", "upper",
	    "lower", "space", "blank", "punct", "print", "graph", "cntrl",
	    "xdigit" };
	int (*fn[])(int) = { isalpha, isdigit, isalnum, isupper, islower,
	    isspace, isblank, ispunct, isprint, isgraph, iscntrl, isxdigit };
	size_t i;
	int b;

	for (i = 0; i < LEN(names); i++) {
		if (strlen(names[i]) != n || memcmp(names[i], name, n))
			continue;
		for (b = 0; b < 256; b++)
			if (fn[i](b))
				addset(s, b);
		return 0;
	}
	return -1;
}

/* One end of a range: a byte, or a collating element [.x.] of one. */
static int
rangeend(Comp *c)
{
	const char *p = c->p;

	if (p[0] == '[' && p[1] == '.') {
		if (!p[2] || p[3] != '.' || p[4] != ']') {
			c->err = "collating elements are not supported";
			return -1;
		}
		c->p += 5;
		return (unsigned char)p[2];
	}
	if (!*p) {
		c->err = "unbalanced [";
		return -1;
	}
	c->p++;
	return (unsigned char)*p;
}

/* A bracket expression, c->p just after its '['.  Backslash is no
 * escape in there: POSIX. */
static int
bracket(Comp *c)
{
	unsigned char *s = newset(c);
	const char *e;
	int neg, lo, hi, first = 1;

	if ((neg = *c->p == '^'))
		c->p++;
	for (; first || *c->p != ']'; first = 0) {
		if (c->p[0] == '[' && (c->p[1] == ':' || c->p[1] == '=')) {
			e = strchr(c->p + 2, c->p[1]);
			if (!e || e[1] != ']') {
				c->err = "unbalanced [";
				return -1;
			}
			if (c->p[1] == '=' && e - c->p == 3) {
				addset(s, (unsigned char)c->p[2]);
			} else if (c->p[1] == '=') {
				c->err = "equivalence classes of more than "
				    "one character are not supported";
				return -1;
			} else if (addclass(s, c->p + 2, e - c->p - 2) < 0) {
				c->err = "unknown character class";
				return -1;
			}
			c->p = e + 2;
			if (*c->p == '-' && c->p[1] != ']') {
				c->err = "a class cannot end a range";
				return -1;
			}
			continue;
		}
		if ((lo = hi = rangeend(c)) < 0)
			return -1;
		if (c->p[0] == '-' && c->p[1] && c->p[1] != ']') {
			c->p++;
			if (c->p[0] == '[' && (c->p[1] == ':' ||
			    c->p[1] == '=')) {
				c->err = "a class cannot end a range";
				return -1;
			}
			if ((hi = rangeend(c)) < 0)
				return -1;
			if (hi < lo) {
				c->err = "range out of order";
				return -1;
			}
			if (*c->p == '-' && c->p[1] != ']') {
				c->err = "a range cannot start at a range's end";
				return -1;
			}
		}
		for (; lo <= hi; lo++)
			addset(s, lo);
	}
	c->p++;
	return putset(c, neg);
}

/* An anchor: it matches no byte, so nothing may repeat it (glibc
 * refuses that too; POSIX leaves it undefined). */
static int
anchor(Comp *c, int op)
{
	if (*c->p && strchr("*+?{", *c->p)) {
		c->err = "an anchor cannot be repeated";
		return -1;
	}
	return instadd(c, op, 0, 0) < 0 ? -1 : 0;
}

/* A backslash and what follows it, c->p on the backslash. */
static int
escape(Comp *c)
{
	static const char cls[] = "dDsSwW", as[] = "bB<>`'";
	static const int asop[] = { WORDB, NWORDB, WBEG, WEND, BOL, EOL };
	static const char *name[] = { "digit", "space", "alnum" };
	unsigned char *s;
	const char *q;
	int ch = (unsigned char)*++c->p;

	if (!ch) {
		c->err = "trailing backslash";
		return -1;
	}
	c->p++;
	if ((q = strchr(as, ch)))
		return anchor(c, asop[q - as]);
	s = newset(c);
	if ((q = strchr(cls, ch))) {
		addclass(s, name[(q - cls) / 2], strlen(name[(q - cls) / 2]));
		if (ch == 'w' || ch == 'W')
			addset(s, '_');
		return putset(c, isupper(ch));
	}
	addset(s, ch == 't' ? '\t' : ch);
	return putset(c, 0);
}

static int
atom(Comp *c)
{
	unsigned char *s;
	int ch = (unsigned char)*c->p;

	switch (ch) {
	case '(':
		if (++c->depth > REDEPTH) {
			c->err = "groups nested too deep";
			return -1;
		}
		c->p++;
		if (alt(c) < 0)
			return -1;
		if (*c->p != ')') {
			c->err = "unbalanced (";
			return -1;
		}
		c->p++;
		c->depth--;
		return 0;
	case '*': case '+': case '?': case '{':
		c->err = "nothing to repeat";
		return -1;
	case '^': case '$':
		c->p++;
		return anchor(c, ch == '^' ? BOL : EOL);
	case '[':
		c->p++;
		return bracket(c);
	case '\\':
		return escape(c);
	}
	c->p++;
	s = newset(c);
	if (ch == '.')
		memset(s, 0xff, sizeof(*c->r->set));
	else
		addset(s, ch);
	return putset(c, 0);
}

/* Append n instructions copied from the piece at src. */
static int
instcopy(Comp *c, const Reinst *src, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (instadd(c, src[i].op, src[i].x, src[i].y) < 0)
			return -1;
	return 0;
}

/* The piece from instruction s to the end, repeated min to max times
 * (max < 0: no bound): min copies, then a loop or max - min optional
 * ones. */
static int
repeat(Comp *c, int s, int min, int max)
{
	Regex *r = c->r;
	Reinst *f;
	int n = r->n - s, i, rc = -1;

	f = xmalloc(MAX(n, 1) * sizeof(*f));
	if (n > 0)	/* "()*" first: no program yet */
		memcpy(f, r->prog + s, n * sizeof(*f));
	r->n = s;
	for (i = 0; i < min; i++)
		if (instcopy(c, f, n) < 0)
			goto out;
	if (max < 0 && min > 0) {
		if (instadd(c, SPLIT, -n, 1) < 0)
			goto out;
	} else if (max < 0) {
		if (instadd(c, SPLIT, 1, n + 2) < 0 || instcopy(c, f, n) < 0 ||
		    instadd(c, JMP, -n - 1, 0) < 0)
			goto out;
	}
	for (i = min; i < max; i++)
		if (instadd(c, SPLIT, 1, n + 1) < 0 || instcopy(c, f, n) < 0)
			goto out;
	rc = 0;
out:
	free(f);
	return rc;
}

/* {m}, {m,}, {m,n} or {,n}, c->p just after the '{'. */
static int
bound(Comp *c, int *min, int *max)
{
	char *e;
	long m = 0, n;

	if (isdigit((unsigned char)*c->p))
		m = strtol(c->p, &e, 10);
	else
		e = (char *)c->p;
	if (e == c->p && *e != ',') {
		c->err = "bad repetition: { without a count";
		return -1;
	}
	n = m;
	if (*e == ',') {
		c->p = ++e;
		n = isdigit((unsigned char)*e) ? strtol(c->p, &e, 10) : -1;
	}
	if (*e != '}') {
		c->err = "bad repetition: unbalanced {";
		return -1;
	}
	c->p = e + 1;
	if (m > REDUP || n > REDUP) {
		c->err = "repetition count over 255";
		return -1;
	}
	if (n >= 0 && n < m) {
		c->err = "bad repetition range";
		return -1;
	}
	*min = m;
	*max = n;
	return 0;
}

/* An atom and the repetitions after it. */
static int
piece(Comp *c)
{
	int s = c->r->n, min, max;

	if (atom(c) < 0)
		return -1;
	for (;;) {
		switch (*c->p) {
		case '*': min = 0; max = -1; break;
		case '+': min = 1; max = -1; break;
		case '?': min = 0; max = 1; break;
		case '{':
			c->p++;
			if (bound(c, &min, &max) < 0)
				return -1;
			if (repeat(c, s, min, max) < 0)
				return -1;
			continue;
		default:
			return 0;
		}
		c->p++;
		if (repeat(c, s, min, max) < 0)
			return -1;
	}
}

/* Branches apart by '|': A|B|C is built as (A|B)|C, a SPLIT put before
 * what came so far and a JMP from its end past the next branch.  A ')'
 * outside a group is an ordinary byte (POSIX). */
static int
alt(Comp *c)
{
	Regex *r = c->r;
	int s = r->n, j = -1;

	for (;;) {
		while (*c->p && *c->p != '|' && (*c->p != ')' || !c->depth))
			if (piece(c) < 0)
				return -1;
		if (j >= 0)
			r->prog[j].x = r->n - j;
		if (*c->p != '|')
			return 0;
		c->p++;
		if (instinsert(c, s, SPLIT, 1, r->n - s + 2) < 0 ||
		    (j = instadd(c, JMP, 0, 0)) < 0)
			return -1;
	}
}

/* The bytes a match can start with, when every way from the start
 * reads a byte first (no anchor, no empty match): rematch skips to
 * them while it has no thread. */
static void
firstbytes(Regex *r)
{
	int *seen = xcalloc(r->n, sizeof(*seen)), *stk = r->work, sp = 0;
	int pc, i;

	r->skip = 1;
	stk[sp++] = 0;
	while (sp > 0 && r->skip) {
		if (seen[pc = stk[--sp]])
			continue;
		seen[pc] = 1;
		switch (r->prog[pc].op) {
		case SET:
			for (i = 0; i < 32; i++)
				r->first[i] |= r->set[r->prog[pc].x][i];
			break;
		case SPLIT:
			stk[sp++] = pc + r->prog[pc].y;
			/* fall through */
		case JMP:
			stk[sp++] = pc + r->prog[pc].x;
			break;
		default:
			r->skip = 0;
		}
	}
	free(seen);
}

int
recomp(Regex *r, const char *pat, int icase, char *err, size_t errlen)
{
	Comp c = { 0 };

	memset(r, 0, sizeof(*r));
	c.r = r;
	c.p = pat;
	c.icase = icase;
	if (alt(&c) < 0 || instadd(&c, MATCH, 0, 0) < 0) {
		snprintf(err, errlen, "%s", c.err);
		refree(r);
		return -1;
	}
	r->work = xcalloc(6 * (size_t)r->n + 2, sizeof(*r->work));
	firstbytes(r);
	return 0;
}

void
refree(Regex *r)
{
	free(r->prog);
	free(r->set);
	free(r->work);
	memset(r, 0, sizeof(*r));
}

/* A set of instructions: sparse[pc] indexes dense when pc is in. */
typedef struct {
	int *dense, *sparse, n;
} Threads;

static int
wordat(const char *s, size_t n, size_t i)
{
	return i < n && isword((unsigned char)s[i]);
}

/* Add pc and all it reaches without consuming at position i of s to t;
 * 1 if that reaches MATCH.  stk holds 2n + 1: each instruction pushes
 * at most two, once, when it joins t. */
static int
follow(const Regex *r, Threads *t, int *stk, int pc, const char *s,
    size_t n, size_t i)
{
	int sp = 0, before = i > 0 && wordat(s, n, i - 1);
	int after = wordat(s, n, i);
	const Reinst *in;

	stk[sp++] = pc;
	while (sp > 0) {
		pc = stk[--sp];
		if (t->sparse[pc] < t->n && t->dense[t->sparse[pc]] == pc)
			continue;
		t->sparse[pc] = t->n;
		t->dense[t->n++] = pc;
		in = &r->prog[pc];
		switch (in->op) {
		case MATCH:
			return 1;
		case SPLIT:
			stk[sp++] = pc + in->y;
			/* fall through */
		case JMP:
			stk[sp++] = pc + in->x;
			break;
		case BOL: if (i == 0) stk[sp++] = pc + 1; break;
		case EOL: if (i == n) stk[sp++] = pc + 1; break;
		case WORDB: if (before != after) stk[sp++] = pc + 1; break;
		case NWORDB: if (before == after) stk[sp++] = pc + 1; break;
		case WBEG: if (!before && after) stk[sp++] = pc + 1; break;
		case WEND: if (before && !after) stk[sp++] = pc + 1; break;
		}
	}
	return 0;
}

/* Whether the n bytes at s hold a match anywhere: every thread steps
 * over each byte together, so no input takes more than n times the
 * instructions. */
int
rematch(const Regex *r, const char *s, size_t n, int (*stop)(void *),
        void *arg)
{
	Threads a, b, tmp;
	int *stk = r->work + 4 * r->n, k, pc;
	size_t i, ask = RESTOP;

	a.dense = r->work;
	a.sparse = r->work + r->n;
	b.dense = r->work + 2 * r->n;
	b.sparse = r->work + 3 * r->n;
	a.n = 0;
	for (i = 0;; i++) {
		while (r->skip && a.n == 0 && i < n &&
		    !inset(r->first, (unsigned char)s[i]))
			i++;
		if (i > 0 && a.n == 0 && r->prog[0].op == BOL)
			return 0;	/* "^..." had its one chance */
		if (follow(r, &a, stk, 0, s, n, i))
			return 1;
		if (i == n)
			return 0;
		if (stop && i >= ask) {
			ask = i + RESTOP;
			if (stop(arg))
				return -1;
		}
		b.n = 0;
		for (k = 0; k < a.n; k++) {
			pc = a.dense[k];
			if (r->prog[pc].op == SET && inset(r->set[r->prog[pc].x],
			    (unsigned char)s[i]) &&
			    follow(r, &b, stk, pc + 1, s, n, i + 1))
				return 1;
		}
		tmp = a;
		a = b;
		b = tmp;
	}
}
