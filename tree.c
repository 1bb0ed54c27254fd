/* See LICENSE file for copyright and license details. */
/* tree.c: the session as a tree: an entry found by the start of its id,
 * the tree drawn a line a message, the part of a branch that a move to
 * another entry leaves. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "entry.h"
#include "session.h"
#include "tree.h"

enum { MAXINDENT = 24 };	/* levels shown; deeper ones are drawn at it */

/* Whether the tree shows entries of this type. */
static int
shown(const char *type)
{
	return !strcmp(type, "message") || !strcmp(type, "compaction") ||
	       !strcmp(type, "branch_summary") ||
	       !strcmp(type, "custom_message");
}

/* The index of e[i]'s parent in the file, or -1. */
static long
parentat(const Session *s, size_t i)
{
	return s->e[i].parent ? sessfind(s, s->e[i].parent) : -1;
}

long
treefind(const Session *s, const char *prefix, Buf *why)
{
	size_t i, k = strlen(prefix), found = 0;
	long at;

	if (k && (at = sessfind(s, prefix)) >= 0)
		return at;
	at = -1;
	for (i = 0; k && i < s->n; i++)
		if (!s->e[i].hidden && !strncmp(s->e[i].id, prefix, k))
			at = i, found++;
	if (found == 1)
		return at;
	safetext(why, prefix, k, 1);
	if (!found) {
		bufadds(why, ": no entry has that id (/tree shows them)");
		return -1;
	}
	bufadds(why, ": more than one entry's id begins so:");
	for (i = 0; i < s->n; i++)
		if (!s->e[i].hidden && !strncmp(s->e[i].id, prefix, k)) {
			bufaddc(why, ' ');
			safetext(why, s->e[i].id, strlen(s->e[i].id), 1);
		}
	return -1;
}

/* What the tree's lines say: each shown entry's kind and start of text,
 * made safe to show, while sesseach has its line at hand. */
typedef struct {
	const Session *s;
	char **brief;
	size_t max;
} Briefs;

static void
briefof(const Entry *e, void *arg)
{
	Briefs *b = arg;
	Buf raw = { 0 }, t = { 0 };
	const char *kind;

	if (e->hidden || !shown(e->type))
		return;
	kind = entrybrief(&raw, e->type, e->line, e->len);
	bufaddf(&t, "%.8s %s", e->id, kind);
	if (raw.len)
		bufadds(&t, ": ");
	/* a line shows the start: only that much is looked at */
	safetext(&t, raw.len ? raw.p : "", MIN(raw.len, b->max), 1);
	textcut(&t, b->max);
	b->brief[e - b->s->e] = bufdetach(&t);
	buffree(&raw);
}

/* Each entry's children, in file order: first[i] and on through next;
 * the roots (entries whose parent is not in the file) likewise from
 * *root.  An entry that is its own parent is on no branch. */
static void
children(const Session *s, long *first, long *next, size_t *nkids,
         long *root)
{
	size_t i;
	long p;

	*root = -1;
	for (i = s->n; i-- > 0;) {
		first[i] = -1;
		next[i] = -1;
		nkids[i] = 0;
	}
	for (i = s->n; i-- > 0;) {
		if (s->e[i].hidden || (p = parentat(s, i)) == (long)i)
			continue;
		if (p < 0) {
			next[i] = *root;
			*root = i;
		} else {
			next[i] = first[p];
			first[p] = i;
			nkids[p]++;
		}
	}
}

/* The shown entry that stands for the leaf: it, or its nearest shown
 * ancestor; -1 if none. */
static long
leafshown(const Session *s)
{
	long i = s->leaf ? sessfind(s, s->leaf) : -1;
	size_t steps = 0;

	while (i >= 0 && !shown(s->e[i].type) && steps++ < s->n)
		i = parentat(s, i);
	return i >= 0 && shown(s->e[i].type) ? i : -1;
}

/* Push the list from i on the stack, its first on top, each with mark:
 * its depth, times two, plus one if it starts a branch. */
static void
pushlist(long *stack, size_t *mark, size_t *top, const long *next, long i,
         size_t m)
{
	size_t a, b;
	long t;

	for (a = *top; i >= 0; i = next[i]) {
		stack[*top] = i;
		mark[(*top)++] = m;
	}
	for (b = *top; a + 1 < b; a++, b--) {
		t = stack[a];
		stack[a] = stack[b - 1];
		stack[b - 1] = t;
	}
}

/* One line of the tree: the leaf's mark, the indent (a branch's first
 * entry marked +), the brief; cut to cols. */
static void
treeline(FILE *f, Buf *line, const char *brief, int leaf, size_t m,
         size_t cols)
{
	size_t d = MIN(m / 2, MAXINDENT);

	bufreset(line);
	bufadds(line, leaf ? "* " : "  ");
	bufaddf(line, "%*s", (int)(2 * d), "");
	if (m & 1 && d)
		line->p[line->len - 2] = '+';
	bufadds(line, brief);
	textcut(line, cols);
	fprintf(f, "%s\n", line->p);
}

int
treeshow(Session *s, FILE *f, size_t cols)
{
	Briefs b = { NULL, NULL, 0 };
	long *first, *next, *stack, root, leaf, i;
	size_t *nkids, *mark, top = 0, m, k;
	Buf line = { 0 };

	if (!s->n) {
		fputs("the session has no entries yet\n", f);
		return 0;
	}
	first = xmalloc(3 * s->n * sizeof(*first));
	next = first + s->n;
	stack = next + s->n;
	nkids = xmalloc(2 * s->n * sizeof(*nkids));
	mark = nkids + s->n;
	b.s = s;
	b.brief = xcalloc(s->n, sizeof(*b.brief));
	b.max = cols;
	sesseach(s, NULL, briefof, &b);
	children(s, first, next, nkids, &root);
	leaf = leafshown(s);
	pushlist(stack, mark, &top, next, root, 0);
	while (top) {
		i = stack[--top];
		m = mark[top];
		if (b.brief[i])
			treeline(f, &line, b.brief[i], i == leaf, m, cols);
		if (nkids[i] > 1)
			m = (m | 1) + 2;	/* one deeper, each a branch */
		else if (b.brief[i])
			m &= ~(size_t)1;
		pushlist(stack, mark, &top, next, first[i], m);
	}
	for (k = 0; k < s->n; k++)
		free(b.brief[k]);
	free(b.brief);
	free(first);
	free(nkids);
	buffree(&line);
	return 0;
}

size_t
treeleaving(const Session *s, long to, const Entry ***path)
{
	const Entry **p;
	char *on;
	size_t n, k, steps = 0;
	long i;

	on = xcalloc(s->n, 1);
	for (i = to; i >= 0 && !on[i] && steps++ < s->n; i = parentat(s, i))
		on[i] = 1;
	n = sessbranch(s, &p);
	for (k = 0; k < n && on[p[k] - s->e]; k++)
		;
	memmove(p, p + k, (n - k) * sizeof(*p));
	free(on);
	*path = p;
	return n - k;
}

int
treeuser(Session *s, long i, Buf *t)
{
	const Entry *e = &s->e[i];
	char *line;
	int user;

	bufreset(t);
	if (e->hidden || strcmp(e->type, "message") ||
	    (e->role && strcmp(e->role, "user")) || !(line = sessline(s, i)))
		return 0;
	user = !strcmp(entrybrief(t, e->type, line, strlen(line)), "user");
	if (!user)
		bufreset(t);
	free(line);
	return user;
}

void
treemove(Session *s, long i, const Buf *summary, int *ioerr)
{
	Buf f = { 0 };

	if (summary) {	/* fromId: the leaf left, as pi's docs have it */
		bufadds(&f, "\"fromId\":");
		jsonescs(&f, s->leaf ? s->leaf : "root");
		bufadds(&f, ",\"summary\":");
		jsonesc(&f, summary->p, summary->len);
	}
	sessmove(s, i >= 0 ? s->e[i].id : NULL);
	if (summary && (sessappend(s, "branch_summary", f.p) < 0 ||
	    sesssync(s) < 0))
		*ioerr = 1;
	buffree(&f);
}

/* Add the usage of answer line to tok, as pi stores it; its cost. */
static double
addusage(const char *line, size_t len, long long tok[4])
{
	Json j;
	double cost;

	if (jsonparse(&j, line, len) < 0)
		return 0;
	cost = entryusage(&j, jsonget(&j, 0, "message"), tok);
	jsonfree(&j);
	return cost;
}

/* What treeusage sums. */
typedef struct {
	long long *tok;
	double cost;
} Usage;

static void
usageof(const Entry *e, void *arg)
{
	Usage *u = arg;

	if (e->line)
		u->cost += addusage(e->line, e->len, u->tok);
}

double
treeusage(Session *s, long long tok[4])
{
	Usage u = { NULL, 0 };

	memset(tok, 0, 4 * sizeof(*tok));
	u.tok = tok;
	sesseach(s, "message", usageof, &u);
	return u.cost;
}

int
treesay(Session *s, FILE *f)
{
	long long tok[4];
	double cost = treeusage(s, tok);

	fprintf(f, "%s\ntokens: %lld in, %lld out, %lld cache read, %lld "
	        "cache write, %lld in all; cost $%.4f\n",
	        s->path ? s->path : "no session file (-n)", tok[0], tok[1],
	        tok[2], tok[3], tok[0] + tok[1] + tok[2] + tok[3], cost);
	return 0;
}
