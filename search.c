/* See LICENSE file for copyright and license details. */
/* search.c: the tools that search a tree, grep, find and ls: walk.c
 * walks it (.gitignore, globs), regex.c matches grep's patterns; here
 * their arguments, their output cut to the limits, their time budget,
 * an abort from SIGINT or -r's stdin, and the files the read rules leave
 * out, told to the model.  The arguments and the output's head are
 * tools.c's. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "tools.h"
#include "proc.h"
#include "walk.h"
#include "regex.h"
#include "file.h"
#include "search.h"

enum {
	LINECAP = 1 << 20,	/* grep matches the first MiB of a line */
	POLLGAP = 50,		/* grep, find, ls: ms between looks at stdin */
};

/* When grep, find and ls stop before the end: SIGINT or RPC abort set
 * e->intr, or the time budget is spent. */
typedef struct {
	const Toolenv *e;
	long long end;		/* monoms() when the time is up, 0: never */
	long long polled;	/* when stdin was last looked at */
	int nowatch;		/* it ended: no more to look at */
	int timeout;		/* the time was up */
	int unseen;		/* files the read rules left out */
	int rule;		/* the number of the first rule that did */
} Halt;

typedef struct {
	const Toolenv *e;
	Regex re;
	int context, limit, matches, done, linecut;
	Head h;
	Buf line, text;
	Buf *ring;		/* the last context lines, cut for output */
	Filerd *rd;
	Halt halt;
} Grep;

typedef struct {
	const Toolenv *e;
	Glob glob;
	int limit, n, more;
	Head h;
	Halt halt;
} Find;

/* Notices are joined into one bracket: "[this. that]". */
static void
notesep(Buf *nb)
{
	if (nb->len)
		bufadds(nb, ". ");
}

/* What the output limits cut, and how to see the rest. */
static void
headnote(const Toolenv *e, const Head *h, const char *hint, Buf *nb)
{
	if (!h->cut)
		return;
	notesep(nb);
	if (h->cut == CUTLINES) {
		bufaddf(nb, "%d lines limit reached", e->lim->maxlines);
	} else {
		bufaddsize(nb, e->lim->maxbytes);
		bufadds(nb, " limit reached");
	}
	bufaddf(nb, ": %s to see the rest", hint);
}

static void
flushnotes(Buf *out, Buf *nb)
{
	if (nb->len)
		bufaddf(out, "\n\n[%s]", nb->p);
	buffree(nb);
}

static void
haltinit(Halt *h, const Toolenv *e)
{
	memset(h, 0, sizeof(*h));
	h->e = e;
	if (e->lim->searchtime > 0)
		h->end = monoms() + e->lim->searchtime * 1000LL;
}

/* Whether to stop now (the walk's and rematch's stop).  In -r, stdin
 * is read as the bash tool reads it, for an abort: no more often than
 * every POLLGAP ms. */
static int
halted(void *arg)
{
	Halt *h = arg;
	const Toolenv *e = h->e;
	struct pollfd pf;
	long long now;

	if ((e->intr && *e->intr) || h->timeout)
		return 1;
	now = monoms();
	if (e->procs->watch && !h->nowatch && now - h->polled >= POLLGAP) {
		h->polled = now;
		pf.fd = e->procs->watchfd;
		pf.events = POLLIN;
		if (poll(&pf, 1, 0) > 0 && e->procs->watch(e->procs->watcharg))
			h->nowatch = 1;
		if (e->intr && *e->intr)
			return 1;
	}
	if (h->end && now >= h->end)
		h->timeout = 1;
	return h->timeout;
}

/* The note of a search the time budget stopped. */
static void
timenote(const Halt *h, const char *hint, Buf *nb)
{
	if (!h->timeout)
		return;
	notesep(nb);
	bufaddf(nb, "Search stopped after %d s, its time limit: results "
	        "are incomplete; %s", h->e->lim->searchtime, hint);
}

/* Whether the read rules leave out the file at path (Toolenv's
 * unseen), counted in the Halt at arg for the result's note. */
static int
unseenby(void *arg, const char *path)
{
	Halt *h = arg;
	int rule;

	if (!h->e->unseen || !(rule = h->e->unseen(h->e->unseenarg, path)))
		return 0;
	h->unseen++;
	h->rule = h->rule ? h->rule : rule;
	return 1;
}

/* The note of files the read rules left out: the model is told they
 * are there, and why it cannot see them. */
static void
unseennote(const Halt *h, Buf *nb)
{
	if (!h->unseen)
		return;
	notesep(nb);
	bufaddf(nb, "%d %s left out: denied by read rule%s of config.h "
	        "(rule %d)", h->unseen, h->unseen > 1 ? "paths" : "path",
	        h->unseen > 1 ? "s" : "", h->rule);
}

/* The walk of grep and find: config.h's bounds, h to stop it, and the
 * read rules. */
static void
searchopt(Walkopt *o, const Toolenv *e, Halt *h)
{
	o->ignorebytes = e->lim->ignorebytes;
	o->ignorelines = e->lim->ignorelines;
	o->maxrules = e->lim->maxrules;
	o->rulebytes = e->lim->rulebytes;
	o->stop = halted;
	o->stoparg = h;
	o->skip = unseenby;
	o->skiparg = h;
}

/* A search cut short by SIGINT is an error: what it found so far with a
 * notice, or "Interrupted" alone.  1 if it was. */
static int
searchstopped(const Toolenv *e, const Head *h)
{
	if (!e->intr || !*e->intr)
		return 0;
	if (h->out->len > h->base)
		bufadds(h->out, "\n\n[Interrupted: the search stopped "
		        "early]");
	else
		bufadds(h->out, "Interrupted");
	return 1;
}

/* grep */

/* The model's pattern as regex.c takes it (which knows the Perl classes
 * models use, \d \s \w \t): a literal one with its specials escaped. */
static void
toere(Buf *b, const char *p, int literal)
{
	for (; *p; p++) {
		if (literal && strchr(".[]()*+?{}|^$\\", *p))
			bufaddc(b, '\\');
		bufaddc(b, *p);
	}
}

/* One output line: "rel:12: text" for a match, "rel-13- text" around. */
static void
grepout(Grep *g, const char *rel, long ln, int sep, const char *s, size_t n)
{
	size_t max = g->e->lim->greplinemax;

	bufreset(&g->text);
	bufaddf(&g->text, "%s%c%ld%c ", rel, sep, ln, sep);
	if (n > max) {
		bufadd(&g->text, s, utf8back(s, max));
		bufadds(&g->text, "... [truncated]");
		g->linecut = 1;
	} else {
		bufadd(&g->text, s, n);
	}
	toolheadline(g->e, &g->h, g->text.p, g->text.len);
}

/* Print the context lines before line ln that are not out yet. */
static void
grepbefore(Grep *g, const char *rel, long ln, long shown)
{
	long k;
	Buf *b;

	for (k = MAX(ln - g->context, shown + 1); k < ln; k++) {
		b = &g->ring[k % g->context];
		grepout(g, rel, k, '-', b->p ? b->p : "", b->len);
	}
}

static void
grepremember(Grep *g, long ln)
{
	Buf *b;

	if (!g->context)
		return;
	b = &g->ring[ln % g->context];
	bufreset(b);
	bufadd(b, g->line.p, MIN(g->line.len,
	                          (size_t)g->e->lim->greplinemax + 1));
}

static void
greplines(Grep *g, const char *rel)
{
	long ln = 0, shown = 0, after = 0;
	size_t n;

	int m;

	while (!g->h.cut && fileline(g->rd, &g->line, LINECAP, &n) == 1) {
		ln++;
		if (g->line.len && g->line.p[g->line.len - 1] == '\r')
			g->line.p[--g->line.len] = '\0';
		if (!(ln % 64) && halted(&g->halt))
			break;
		m = g->done ? 0 : rematch(&g->re, g->line.p, g->line.len,
		                          halted, &g->halt);
		if (m < 0)
			break;
		if (m) {
			grepbefore(g, rel, ln, shown);
			grepout(g, rel, ln, ':', g->line.p, g->line.len);
			shown = ln;
			after = g->context;
			g->done = ++g->matches >= g->limit;
		} else if (after > 0) {
			grepout(g, rel, ln, '-', g->line.p, g->line.len);
			shown = ln;
			after--;
		} else if (g->done) {
			break;
		}
		grepremember(g, ln);
	}
}

static void
grepfile(Grep *g, const char *path, const char *rel)
{
	int fd;

	/* O_NONBLOCK: a FIFO put in the file's place does not block us */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0)
		return;
	g->rd->fd = fd;
	g->rd->eof = 0;
	if (filemore(g->rd) == 0 && !memchr(g->rd->buf, '\0',
	    MIN(g->rd->len, FILESNIFF))) {
		bufgrow(&g->line, 0);
		greplines(g, rel);
	}
	close(fd);
}

static int
grepvisit(void *arg, const char *path, const char *rel, const struct stat *st)
{
	Grep *g = arg;

	if (S_ISREG(st->st_mode))
		grepfile(g, path, rel);
	return g->done || g->h.cut || halted(&g->halt);
}

static int
grepinit(Grep *g, const Json *j, int args, char **glob, Buf *out)
{
	Buf ere = { 0 };
	char *pat, err[256];
	int icase = 0, literal = 0, rc;
	long ctx = 0, lim = g->e->lim->greplimit;

	if (toolstrarg(j, args, "grep", "pattern", 1, &pat, out) < 0)
		return -1;
	if (toolstrarg(j, args, "grep", "glob", 0, glob, out) < 0 ||
	    toolboolarg(j, args, "grep", "ignoreCase", &icase, out) < 0 ||
	    toolboolarg(j, args, "grep", "literal", &literal, out) < 0 ||
	    toolintarg(j, args, "grep", "context", &ctx, out) < 0 ||
	    toolintarg(j, args, "grep", "limit", &lim, out) < 0) {
		free(pat);
		return -1;
	}
	toere(&ere, pat, literal);
	free(pat);
	bufgrow(&ere, 0);
	rc = recomp(&g->re, ere.p, icase, err, sizeof(err));
	buffree(&ere);
	if (rc < 0) {
		bufaddf(out, "grep: invalid regular expression: %s", err);
		return -1;
	}
	g->context = MIN(MAX(ctx, 0), g->e->lim->maxlines);
	g->limit = MAX(lim, 1);
	g->ring = g->context ? xcalloc(g->context, sizeof(*g->ring)) : NULL;
	g->rd = filereader(-1, g->e->intr);
	return 0;
}

static void
grepfree(Grep *g)
{
	int i;

	for (i = 0; i < g->context; i++)
		buffree(&g->ring[i]);
	free(g->ring);
	free(g->rd);
	buffree(&g->line);
	buffree(&g->text);
	refree(&g->re);
}

static void
grepnotes(Grep *g, Buf *out)
{
	Buf nb = { 0 };

	if (!g->matches) {
		bufadds(out, "No matches found");
		timenote(&g->halt, "narrow the path, glob or pattern", &nb);
		unseennote(&g->halt, &nb);
		flushnotes(out, &nb);
		return;
	}
	if (g->done) {
		bufaddf(&nb, "%d matches limit reached. Use limit=%d for "
		        "more, or refine pattern", g->limit, 2 * g->limit);
	}
	headnote(g->e, &g->h, "narrow the path, glob or pattern", &nb);
	timenote(&g->halt, "narrow the path, glob or pattern", &nb);
	unseennote(&g->halt, &nb);
	if (g->linecut) {
		notesep(&nb);
		bufaddf(&nb, "Some lines truncated to %d bytes. Use read tool "
		        "to see full lines", g->e->lim->greplinemax);
	}
	flushnotes(out, &nb);
}

/* grep with a glob looks only at files whose names match it */
typedef struct {
	Grep *g;
	Glob glob;
} Grepglob;

static int
grepglob(void *arg, const char *path, const char *rel, const struct stat *st)
{
	Grepglob *gg = arg;
	const char *name = strrchr(rel, '/');

	name = name ? name + 1 : rel;
	if (S_ISREG(st->st_mode) && !walkglobmatch(&gg->glob, rel, name))
		return 0;
	return grepvisit(gg->g, path, rel, st);
}

int
searchgrep(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	Grep g = { 0 };
	Grepglob gg = { 0 };
	Walkopt o;
	struct stat st;
	char *path, *glob = NULL, *name;
	int rc = 1;

	g.e = e;
	haltinit(&g.halt, e);
	searchopt(&o, e, &g.halt);
	if (toolpatharg(j, args, "grep", 0, &path, out) < 0)
		return 1;
	if (grepinit(&g, j, args, &glob, out) < 0) {
		free(glob);
		free(path);
		return 1;
	}
	if ((glob && walkglobinit(&gg.glob, "grep", glob, out) < 0) ||
	    walkroot(path, &st, out) < 0)
		goto done;
	g.h.out = out;
	g.h.base = out->len;
	gg.g = &g;
	if (S_ISDIR(st.st_mode)) {
		walktree(path, glob ? grepglob : grepvisit,
		         glob ? (void *)&gg : (void *)&g, &o);
	} else if (!S_ISREG(st.st_mode)) {
		bufaddf(out, "Not a regular file: %s", path);
		goto done;
	} else {
		name = strrchr(path, '/');
		grepfile(&g, path, name ? name + 1 : path);
	}
	if (!(rc = searchstopped(e, &g.h)))
		grepnotes(&g, out);
done:
	grepfree(&g);
	walkglobfree(&gg.glob);
	free(glob);
	free(path);
	return rc;
}

/* find */

static int
findvisit(void *arg, const char *path, const char *rel, const struct stat *st)
{
	Find *f = arg;
	const char *name = strrchr(rel, '/');
	Buf b = { 0 };
	int full;

	(void)path;
	name = name ? name + 1 : rel;
	if (!walkglobmatch(&f->glob, rel, name))
		return 0;
	if (f->n == f->limit) {
		f->more = 1;
		return 1;
	}
	bufadds(&b, rel);
	if (S_ISDIR(st->st_mode))
		bufaddc(&b, '/');
	full = toolheadline(f->e, &f->h, b.p, b.len) < 0;
	buffree(&b);
	f->n += !full;
	return full;
}

int
searchfind(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	Find f = { 0 };
	Buf nb = { 0 };
	Walkopt o;
	struct stat st;
	char *path = NULL, *pat;
	long lim = e->lim->findlimit;
	int rc = 1;

	if (toolstrarg(j, args, "find", "pattern", 1, &pat, out) < 0)
		return 1;
	if (toolpatharg(j, args, "find", 0, &path, out) < 0 ||
	    toolintarg(j, args, "find", "limit", &lim, out) < 0 ||
	    walkroot(path, &st, out) < 0)
		goto done;
	if (!S_ISDIR(st.st_mode)) {
		bufaddf(out, "Not a directory: %s", path);
		goto done;
	}
	if (walkglobinit(&f.glob, "find", pat, out) < 0)
		goto done;
	f.e = e;
	f.limit = lim > 0 ? lim : e->lim->findlimit;
	f.h.out = out;
	f.h.base = out->len;
	haltinit(&f.halt, e);
	searchopt(&o, e, &f.halt);
	walktree(path, findvisit, &f, &o);
	if (searchstopped(e, &f.h))
		goto done;
	if (!f.n)
		bufadds(out, "No files found matching pattern");
	if (f.more)
		bufaddf(&nb, "%d results limit reached. Use limit=%d for "
		        "more, or refine pattern", f.limit, 2 * f.limit);
	headnote(e, &f.h, "narrow the path or pattern", &nb);
	timenote(&f.halt, "narrow the path", &nb);
	unseennote(&f.halt, &nb);
	flushnotes(out, &nb);
	rc = 0;
done:
	walkglobfree(&f.glob);
	free(pat);
	free(path);
	return rc;
}

/* ls */

/* Case-insensitive in ASCII (not the locale's), bytes to break ties. */
static int
byname(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a;
	const unsigned char *y = *(const unsigned char *const *)b;
	size_t i;
	int cx, cy;

	for (i = 0; x[i] || y[i]; i++) {
		cx = x[i] >= 'A' && x[i] <= 'Z' ? x[i] + 32 : x[i];
		cy = y[i] >= 'A' && y[i] <= 'Z' ? y[i] + 32 : y[i];
		if (cx != cy)
			return cx - cy;
	}
	return strcmp((const char *)x, (const char *)y);
}

static void
lslist(const Toolenv *e, const char *path, char **v, size_t n, long lim,
       Buf *out)
{
	Head h = { 0 };
	Halt halt;
	Buf b = { 0 }, nb = { 0 };
	struct stat st;
	size_t i, shown;

	h.out = out;
	h.base = out->len;
	haltinit(&halt, e);
	for (i = shown = 0; i < n && shown < (size_t)lim && !halted(&halt);
	     i++) {
		bufreset(&b);
		bufaddf(&b, "%s/%s", path, v[i]);
		if (unseenby(&halt, b.p))
			continue;
		shown++;
		st.st_mode = 0;
		if (stat(b.p, &st) < 0)
			lstat(b.p, &st);
		bufreset(&b);
		bufadds(&b, v[i]);
		if (S_ISDIR(st.st_mode))
			bufaddc(&b, '/');
		if (toolheadline(e, &h, b.p, b.len) < 0)
			break;
	}
	buffree(&b);
	if (!shown && halt.unseen)
		bufadds(out, "(no entries shown)");
	if (shown == (size_t)lim && i < n)
		bufaddf(&nb, "%ld entries limit reached. Use limit=%ld for "
		        "more", lim, 2 * lim);
	headnote(e, &h, "list a subdirectory or use find", &nb);
	timenote(&halt, "list a subdirectory or use find", &nb);
	unseennote(&halt, &nb);
	flushnotes(out, &nb);
}

int
searchls(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	struct stat st;
	char *path, **v;
	long lim = e->lim->lslimit;
	size_t n, i;
	int rc = 1;

	if (toolpatharg(j, args, "ls", 0, &path, out) < 0)
		return 1;
	if (toolintarg(j, args, "ls", "limit", &lim, out) < 0 ||
	    walkroot(path, &st, out) < 0)
		goto done;
	if (!S_ISDIR(st.st_mode)) {
		bufaddf(out, "Not a directory: %s", path);
		goto done;
	}
	errno = 0;
	if (!(v = walkdirnames(path, &n, 0, byname)) && errno) {
		bufaddf(out, "Cannot read directory %s: %s", path,
		        strerror(errno));
		goto done;
	}
	if (!n)
		bufadds(out, "(empty directory)");
	else
		lslist(e, path, v, n, lim > 0 ? lim : e->lim->lslimit, out);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	rc = 0;
done:
	free(path);
	return rc;
}
