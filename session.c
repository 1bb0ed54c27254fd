/* See LICENSE file for copyright and license details. */
/* session.c: the JSONL session file, pi's format version 3: index, load
 * (only the lines the context uses), append under a lock, fork; the
 * branch from the leaf.  What the entries say is entry.c's. */
#ifdef __linux__
#define _DEFAULT_SOURCE	/* madvise(2), to let mapped pages go */
#endif
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "entry.h"
#include "session.h"

#ifndef READBLOCK
#define READBLOCK 65536	/* a load reads the file this much at once (the
			 * fuzz target makes it small, to cut lines up) */
#endif

enum {
	IDTRIES = 100,		/* then a whole UUID, as pi does */
	WINDOW = 1 << 20,	/* and the lines it keeps, this much */
	MAPSTEP = 4 << 20	/* bytes of mapped lines held at most */
};

/* The entries are found by id through a hash table, so that a branch is
 * followed at once whatever the order of the lines: searched for, 40,000
 * entries whose parents came after them took 27 s to resume.  The seed
 * is drawn at random, so that a file cannot choose ids that all fall in
 * one slot. */
static size_t
idhash(const Session *s, const char *id)
{
	unsigned long long h = s->seed;

	for (; *id; id++)
		h = (h ^ (unsigned char)*id) * 0x100000001b3ULL;
	/* the low bits pick the slot: mix the high ones into them */
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 29;
	return (size_t)h;
}

/* The slot of id in s->ids: its entry's, or the free one it would take. */
static size_t
idslot(const Session *s, const char *id)
{
	size_t i = idhash(s, id) & (s->nids - 1);

	while (s->ids[i] && strcmp(s->e[s->ids[i] - 1].id, id))
		i = (i + 1) & (s->nids - 1);
	return i;
}

/* Index e[k] by its id.  A later entry of the same id takes the place
 * of the earlier, as in pi's map. */
static void
putid(Session *s, size_t k)
{
	size_t at = idslot(s, s->e[k].id);

	if (s->ids[at])
		s->e[s->ids[at] - 1].hidden = 1;
	s->ids[at] = k + 1;
}

/* Index e[0..n) anew, in a table at most half full. */
static void
indexall(Session *s, size_t n)
{
	unsigned char b[8];
	size_t i;

	if (!s->ids) {
		randbytes(b, sizeof(b));
		for (i = 0; i < sizeof(b); i++)
			s->seed = s->seed << 8 | b[i];
	}
	free(s->ids);
	for (s->nids = 64; s->nids < 2 * n; s->nids *= 2)
		;
	s->ids = xcalloc(s->nids, sizeof(*s->ids));
	for (i = 0; i < n; i++)
		putid(s, i);
}

/* Index an entry added to the end of a session. */
static void
indexnew(Session *s)
{
	if (2 * s->n > s->nids)
		indexall(s, s->n);
	else
		putid(s, s->n - 1);
}

/* The index of the entry id (the last of that id), or -1 if none. */
static long
findid(const Session *s, const char *id)
{
	size_t i;

	if (!s->nids)
		return -1;
	i = idslot(s, id);
	return s->ids[i] ? (long)s->ids[i] - 1 : -1;
}

/* The index of e[i]'s parent, or -1: none, or none in the file.  Most
 * often the parent is the entry just before: looked at first, it spares
 * a look in the table (those took a fifth of the CPU time of make
 * bench's "resume 100 MB compacted", a few walks of 42,000 entries). */
static long
parentof(const Session *s, size_t i)
{
	const char *id = s->e[i].parent;

	if (!id)
		return -1;
	if (i > 0 && !s->e[i - 1].hidden && !strcmp(s->e[i - 1].id, id))
		return i - 1;
	return findid(s, id);
}

/* Add an entry: its strings copied into one allocation, e->id's (a big
 * session has tens of thousands of entries, and four allocations each
 * cost it megabytes); the line taken over. */
static void
addentry(Session *s, const char *id, const char *parent, const char *type,
         const char *role, char *line)
{
	const char *v[4];
	char **to[4], *p;
	size_t len[4], n = 0;
	Entry *e;
	int k;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->e = xrealloc(s->e, s->cap * sizeof(*s->e));
	}
	e = &s->e[s->n++];
	v[0] = id, v[1] = parent, v[2] = type, v[3] = role;
	to[0] = &e->id, to[1] = &e->parent, to[2] = &e->type, to[3] = &e->role;
	for (k = 0; k < 4; k++)
		n += len[k] = v[k] ? strlen(v[k]) + 1 : 0;
	p = xmalloc(n);		/* id first: e->id owns it */
	for (k = 0; k < 4; k++) {
		*to[k] = v[k] ? memcpy(p, v[k], len[k]) : NULL;
		p += len[k];
	}
	e->line = line;
	e->off = -1;	/* not at a known offset: never dropped */
	e->len = line ? strlen(line) : 0;
	e->msgat = e->msglen = 0;
	e->shared = e->hidden = e->plain = 0;
	s->leaf = e->id;
}

enum { LINEOK, LINEBLANK, LINEJUNK, LINENOTENTRY, LINENOID };

/* The string value p[n] unescaped, or NULL if it is not a string. */
static char *
str(const char *p, size_t n)
{
	Json j;
	char *v;

	if (n < 2 || *p != '"')
		return NULL;
	if (!memchr(p, '\\', n))
		return xstrndup(p + 1, n - 2);
	if (jsonparse(&j, p, n) < 0)
		return NULL;
	v = jsonstr(&j, 0);
	jsonfree(&j);
	return v;
}

/* Add the line p[n], at off in the file, as an entry if it is one; the
 * line itself is not kept: readcontext() reads the ones the context uses.  A
 * check of the line finds the members wanted, without jsmn: the index
 * of a big file is made at the speed of reading it. */
static int
addline(Session *s, const char *p, size_t n, off_t off)
{
	enum { TYPE, ID, PARENT, MESSAGE, ROLE };
	Jmember m[] = {
		{ "type", -1, 0, 0 }, { "id", -1, 0, 0 },
		{ "parentId", -1, 0, 0 }, { "message", -1, 0, 0 },
		{ "role", MESSAGE, 0, 0 }
	};
	char *v[4];
	Entry *e;
	size_t i;
	unsigned fl;
	int msg, ok;

	for (i = 0; i < n && p[i] && strchr(" \t\r", p[i]); i++)
		;
	if (i == n)
		return LINEBLANK;
	if (jsonmembersof(p, n, m, LEN(m), &fl) < 0)
		return LINEJUNK;
	if (p[i] != '{' || !m[TYPE].at || p[m[TYPE].at] != '"')
		return LINENOTENTRY;
	if (!m[ID].at || p[m[ID].at] != '"' || m[ID].len == 2)
		return LINENOID;
	if (m[PARENT].at && p[m[PARENT].at] != '"' &&
	    (m[PARENT].len != 4 || memcmp(p + m[PARENT].at, "null", 4)))
		return LINENOTENTRY;
	v[0] = str(p + m[ID].at, m[ID].len);
	v[1] = m[PARENT].at ? str(p + m[PARENT].at, m[PARENT].len) : NULL;
	v[2] = str(p + m[TYPE].at, m[TYPE].len);
	v[3] = NULL;
	msg = m[MESSAGE].at && p[m[MESSAGE].at] == '{';
	if (msg && m[ROLE].at)
		v[3] = str(p + m[ROLE].at, m[ROLE].len);
	/* an id or type that does not unescape is none */
	ok = v[0] && v[2] && (v[1] || !m[PARENT].at ||
	                      p[m[PARENT].at] != '"');
	if (ok)
		addentry(s, v[0], v[1], v[2], v[3], NULL);
	for (i = 0; i < LEN(v); i++)
		free(v[i]);
	if (!ok)
		return LINENOTENTRY;
	e = &s->e[s->n - 1];
	e->off = off;
	e->len = n;
	e->plain = !(fl & JSONNOTPLAIN);
	if (off >= 0 && off + (off_t)n > s->end)
		s->end = off + n;
	if (msg) {
		e->msgat = m[MESSAGE].at;
		e->msglen = m[MESSAGE].len;
	}
	return LINEOK;
}

/* Free the entries and all else, leaving s empty. */
void
sessfree(Session *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->e[i].id);	/* and its other strings */
		if (!s->e[i].shared)
			free(s->e[i].line);
	}
	sessmapfree(&s->map);
	free(s->e);
	free(s->ids);
	free(s->head);
	free(s->cwd);
	if (s->fd >= 0 && close(s->fd) < 0)
		warn("close %s:", s->path ? s->path : "session");
	if (s->oldfd >= 0)
		close(s->oldfd);	/* only read */
	free(s->path);
	memset(s, 0, sizeof(*s));
	s->fd = s->oldfd = -1;
}

/* A session's lines, from memory or read from a file a block at a time,
 * so that a big file is never whole in memory. */
typedef struct {
	int fd;			/* -1: no more to read */
	const char *text;	/* the bytes at hand: buf.p or the caller's */
	size_t len, at;		/* text[at..len) is not yet taken */
	size_t seen;		/* text[at..seen) holds no newline */
	off_t off;		/* the file offset of text[0] */
	Buf buf;
} Lines;

/* Read on into l->buf, keeping the line under way: 0, or -1. */
static int
readmore(Lines *l)
{
	ssize_t r;

	if (l->at) {
		memmove(l->buf.p, l->buf.p + l->at, l->len - l->at);
		l->off += l->at;
		l->buf.len = l->len -= l->at;
		l->seen -= l->at;
		l->at = 0;
	}
	/* a long line doubles the room, and so each read */
	bufgrow(&l->buf, READBLOCK);
	while ((r = read(l->fd, l->buf.p + l->buf.len,
	                 l->buf.cap - l->buf.len - 1)) < 0)
		if (errno != EINTR)
			return -1;
	if (r == 0)
		l->fd = -1;
	l->buf.len += r;
	l->text = l->buf.p;
	l->len = l->buf.len;
	return 0;
}

/* The next line into *p, *n (without its newline or a CR before it) at
 * *off; *whole: whether a newline ended it.  1, 0 at the end, -1 when
 * a read fails. */
static int
nextline(Lines *l, const char **p, size_t *n, off_t *off, int *whole)
{
	const char *nl;

	for (;;) {
		l->seen = MAX(l->seen, l->at);
		nl = l->seen < l->len ?
		     memchr(l->text + l->seen, '\n', l->len - l->seen) : NULL;
		if (nl || l->fd < 0)
			break;
		l->seen = l->len;
		if (readmore(l) < 0)
			return -1;
	}
	if (l->at == l->len)
		return 0;
	*p = l->text + l->at;
	*off = l->off + l->at;
	*n = nl ? (size_t)(nl - *p) : l->len - l->at;
	l->at += *n + (nl != NULL);
	*whole = nl != NULL;
	if (*n && (*p)[*n - 1] == '\r')
		--*n;
	return 1;
}

/* The entry lines after the header.  Entries without ids are pi's first
 * format, which we cannot place in a tree; they are counted in noid. */
static int
parselines(Session *s, Lines *l, const char *name, size_t *noid, int v3)
{
	const char *p;
	size_t n, lineno;
	off_t off;
	int r, whole;

	for (lineno = 2; (r = nextline(l, &p, &n, &off, &whole)) > 0;
	     lineno++) {
		r = addline(s, p, n, off);
		if (r == LINEOK || r == LINEBLANK)
			continue;
		/* a crash mid-append, or another agent's append still
		 * under way: the file is left as it is either way */
		if (r == LINEJUNK && !whole)
			warn("%s:%zu: torn last line skipped", name, lineno);
		else if (r == LINENOID && !v3)
			++*noid;
		else
			warn("%s:%zu: not a valid entry: skipped", name,
			     lineno);
	}
	if (r < 0)
		warn("read %s:", name);
	return r;
}

/* Whether e[i]'s parents lead to a root rather than round a loop.  mark
 * holds what is known of each entry: 1 on the way being walked, 2 leads
 * to a root, 3 does not; way has room for s->n indexes.  Each entry is
 * walked once, however many are asked about and in whatever order. */
static int
rooted(const Session *s, size_t i, unsigned char *mark, size_t *way)
{
	size_t k = 0;
	long p;
	int v;

	for (p = i; p >= 0 && !mark[p]; p = parentof(s, p)) {
		mark[p] = 1;
		way[k++] = p;
	}
	v = p < 0 ? 2 : mark[p] == 1 ? 3 : mark[p];
	while (k > 0)
		mark[way[--k]] = v;
	return v == 2;
}

/* The leaf is the last entry, as pi has it, unless its parentIds loop (a
 * file broken by hand, or hostile): then it is the last entry whose
 * parents lead to a root, and the entries that lead round a loop are on
 * no branch.  With none left the session goes on from a new root.  One
 * warning; the file is not changed. */
static void
rootleaf(Session *s, const char *name)
{
	Buf id = { 0 };
	unsigned char *mark;
	size_t *way, i, lost = 0;
	long leaf = -1;

	if (!s->n)
		return;
	mark = xcalloc(s->n, 1);
	way = xmalloc(s->n * sizeof(*way));
	if (!rooted(s, s->n - 1, mark, way)) {
		for (i = s->n; i-- > 0;) {
			if (!rooted(s, i, mark, way))
				lost++;
			else if (leaf < 0 && !s->e[i].hidden)
				leaf = i;
		}
		s->leaf = leaf >= 0 ? s->e[leaf].id : NULL;
		/* the id is the file's: no escape reaches the terminal */
		if (s->leaf)
			safetext(&id, s->leaf, strlen(s->leaf), 1);
		warn("%s: entries whose parentIds loop are left out (%zu): "
		     "the session goes on from %s", name, lost,
		     s->leaf ? bstr(&id) : "a new start");
		buffree(&id);
	}
	free(way);
	free(mark);
}

/* Bytes of the file read at once, from one line's start, to fetch many
 * lines: those of a context mostly follow each other. */
typedef struct {
	Buf b;
	off_t off;		/* the file offset of b.p[0] */
} Window;

/* Fill w with up to want bytes of fd from off: 0, or -1. */
static int
windowfill(Window *w, int fd, off_t off, size_t want)
{
	ssize_t r;

	bufreset(&w->b);
	bufgrow(&w->b, want);
	w->off = off;
	while (w->b.len < want) {
		r = pread(fd, w->b.p + w->b.len, want - w->b.len,
		          off + w->b.len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		w->b.len += r;
	}
	return 0;
}

/* Whether line is that of entry id: a quick look, then a sure one (an
 * id may be written with escapes). */
static int
isline(const char *line, size_t len, const char *id)
{
	Json j;
	int ok;

	if (memfind(line, len, id))
		return 1;
	if (jsonparse(&j, line, len) < 0)
		return 0;
	ok = jsoneq(&j, jsonget(&j, 0, "id"), id);
	jsonfree(&j);
	return ok;
}

/* Read e's line: from text, else from fd through w.  0, or -1. */
static int
fetch(Entry *e, const char *text, int fd, Window *w, const char *name)
{
	const char *p;

	if (e->line)
		return 0;
	if (text) {
		p = text + e->off;
	} else {
		if (e->off < w->off ||
		    e->off + (off_t)e->len > w->off + (off_t)w->b.len) {
			if (windowfill(w, fd, e->off, MAX(e->len, WINDOW)) < 0) {
				warn("read %s:", name);
				return -1;
			}
			if (w->b.len < e->len) {
				warn("%s: cut short while read", name);
				return -1;
			}
		}
		p = w->b.p + (e->off - w->off);
	}
	e->line = xstrndup(p, e->len);
	/* read again after a load, the file may have been rewritten */
	if (!text && !isline(e->line, e->len, e->id)) {
		warn("%s: changed since it was loaded", name);
		free(e->line);
		e->line = NULL;
		return -1;
	}
	return 0;
}

/* Let go of want[k]'s lines, and of the map they lie in. */
static void
unmaplines(Session *s, Entry **want, size_t k)
{
	size_t i;

	for (i = 0; i < k; i++)
		if (want[i]->shared) {
			want[i]->line = NULL;
			want[i]->shared = 0;
		}
	sessmapfree(&s->map);
}

/* Map the lines of want[k] (in file order) read only, as the file has
 * them, from the first one's to the last one's end: a context's
 * messages lie in place there and are sent from there.  Read into
 * memory of the process's own, they cost a big resume half its time
 * (the kernel zeroing fresh pages) and its memory twice over (the lines
 * and the request made of them).  0; -1 if, with check, the file
 * changed since it was loaded; 1 if it cannot be mapped: the lines are
 * read one by one. */
static int
mapcontext(Session *s, Entry **want, size_t k, int fd, const char *name,
           int check)
{
	long page = sysconf(_SC_PAGESIZE);
	off_t lo, hi = want[k - 1]->off + (off_t)want[k - 1]->len;
	struct stat st;
	size_t i;
	void *p;

	if (page <= 0 || fstat(fd, &st) < 0 || st.st_size < hi)
		return 1;
	lo = want[0]->off - want[0]->off % page;
	if ((unsigned long long)(hi - lo) > (size_t)-1 / 2 ||
	    (p = mmap(NULL, hi - lo, PROT_READ, MAP_PRIVATE, fd, lo)) ==
	    MAP_FAILED)
		return 1;
	s->map.p = p;
	s->map.len = hi - lo;
	s->map.kept = 0;
	s->map.off = lo;
	for (i = 0; i < k; i++) {
		want[i]->line = s->map.p + (want[i]->off - lo);
		want[i]->shared = 1;
	}
	/* looked at again after a load: the file may have been rewritten */
	for (i = 0; check && i < k; i++) {
		if (!isline(want[i]->line, want[i]->len, want[i]->id)) {
			warn("%s: changed since it was loaded", name);
			unmaplines(s, want, k);
			return -1;
		}
		sessmapdrop(&s->map, want[i]->line);
	}
	if (check)
		sessmapdrop(&s->map, NULL);
	return 0;
}

/* Read the lines that the branch's context uses: those from the first
 * entry the last compaction kept, and the compaction itself; with all,
 * every line on the branch (a fork copies them), all 2 every line.  The
 * rest of the file stays on disk: only its index is in memory.  fresh:
 * fd was indexed just now, and its lines need no second look.  0, or
 * -1. */
static int
readcontext(Session *s, const char *text, int fd, const char *name,
            int all, int fresh)
{
	const Entry **path;
	Entry **want;
	Window w = { { 0 }, 0 };
	unsigned char *on;	/* 1: read apart, 2: maybe mapped */
	size_t n, i, k = 0, from = 0;
	int r = 0;

	n = sessbranch(s, &path);
	want = xcalloc(n + 1, sizeof(*want));
	on = xcalloc(s->n + 1, 1);
	for (i = n; !all && i-- > 0;)
		if (!strcmp(path[i]->type, "compaction")) {
			if ((r = fetch((Entry *)path[i], text, fd, &w,
			               name)) == 0)
				entrycompaction(path, n, &from, NULL);
			break;
		}
	/* the model and thinking level hold from before the compaction */
	for (i = 0; i < from; i++)
		if (!strcmp(path[i]->type, "model_change") ||
		    !strcmp(path[i]->type, "thinking_level_change"))
			on[path[i] - s->e] = 1;
	for (i = from; i < n; i++)
		on[path[i] - s->e] = 2;
	for (i = 0; all == 2 && i < s->n; i++)
		on[i] = 1;
	/* taken in file order, the index's: a branch may run backwards
	 * through the file, and each line a window away from the last */
	for (i = 0; i < s->n && r == 0; i++)
		if (on[i] == 1)
			r = fetch(&s->e[i], text, fd, &w, name);
		else if (on[i] == 2 && !s->e[i].line)
			want[k++] = &s->e[i];
	/* read again later, a line may not be the one indexed: what the
	 * index saw of its strings no longer holds */
	for (i = 0; !fresh && i < k; i++)
		want[i]->plain = 0;
	/* a big context is mapped at once */
	if (r == 0 && k && !text && !all && !s->map.p &&
	    (r = mapcontext(s, want, k, fd, name, !fresh)) > 0)
		r = 0;
	for (i = 0; i < k && r == 0; i++)
		r = fetch(want[i], text, fd, &w, name);
	buffree(&w.b);
	free(on);
	free(want);
	free(path);
	return r;
}

/* The file that the lines of the entries loaded are read from. */
static int
linefd(const Session *s)
{
	return s->oldfd >= 0 ? s->oldfd : s->fd;
}

/* The branch, as sessbranch, with the lines its context uses read again
 * if sessdone let them go; 0 entries if they cannot be. */
size_t
sesscontext(Session *s, const Entry ***path)
{
	if (s->fd >= 0 && readcontext(s, NULL, linefd(s), s->path ? s->path :
	                       "session", 0, 0) < 0) {
		*path = NULL;
		return 0;
	}
	return sessbranch(s, path);
}

/* Free path; the lines loaded from the file go back to it: the context
 * made of them holds what it needs, and a compaction reads them again. */
void
sessdone(Session *s, const Entry **path)
{
	size_t i;

	free(path);
	for (i = 0; s->fd >= 0 && i < s->n; i++)
		if (s->e[i].off >= 0) {
			if (!s->e[i].shared)
				free(s->e[i].line);
			s->e[i].line = NULL;
			s->e[i].shared = 0;
		}
	sessmapfree(&s->map);
}

/* The map the context's lines lie in, handed to the caller with the
 * messages sessmessage found there: sessmapfree's when done with them. */
void
sessmap(Session *s, Sessmap *to)
{
	*to = s->map;
	s->map.p = NULL;
	s->map.len = 0;
}

/* The pages of m before upto are let go once MAPSTEP bytes of them
 * have been looked at, all of them with upto NULL, if the system can:
 * what lies there is read from the file again when next looked at.  A
 * pass over a big context's lines (a check, its messages made, its
 * request sent) holds a few MB of them at a time, never them all. */
void
sessmapdrop(Sessmap *m, const char *upto)
{
#ifdef MADV_DONTNEED
	long page = sysconf(_SC_PAGESIZE);
	size_t at, to;

	if (!m->p || page <= 0)
		return;
	at = m->kept;
	to = upto ? (uintptr_t)upto - (uintptr_t)m->p : m->len;
	if (upto && ((uintptr_t)upto < (uintptr_t)m->p || to > m->len ||
	    to < at || to - at < MAPSTEP))
		return;
	to -= to % page;
	if (to > at)
		madvise(m->p + at, to - at, MADV_DONTNEED);
	m->kept = upto ? to : 0;
#else
	(void)m;
	(void)upto;
#endif
}

/* Whether the file the lines were loaded from is shorter now than they
 * are: cut short while in use, the context's mapped lines are gone. */
int
sessshort(const Session *s)
{
	struct stat st;

	return s->fd >= 0 && s->end > 0 && fstat(linefd(s), &st) == 0 &&
	       st.st_size < s->end;
}

/* Whether st is the file as we last left it: its change time and size
 * (ctime: no hand can set it back). */
static int
sessasseen(const Session *s, const struct stat *st)
{
	return st->st_ctim.tv_sec == s->seenat.tv_sec &&
	       st->st_ctim.tv_nsec == s->seenat.tv_nsec &&
	       st->st_size == s->seensize;
}

/* The file the lines are read from, as it is now, taken as ours. */
static void
sessseen(Session *s)
{
	struct stat st;

	if (linefd(s) >= 0 && fstat(linefd(s), &st) == 0) {
		s->seenat = st.st_ctim;
		s->seensize = st.st_size;
	}
}

/* Whether each line within m still lies where it was indexed: its id
 * in it, a newline on either side (within m).  A file rewritten in
 * place under a map holds other bytes there than were checked. */
static int
sessmapheld(const Session *s, const Sessmap *m)
{
	off_t end = m->off + (off_t)m->len;
	const Entry *e;
	const char *l;
	size_t i;

	for (i = 0; i < s->n; i++) {
		e = &s->e[i];
		if (e->off < m->off || e->off + (off_t)e->len > end)
			continue;
		l = m->p + (e->off - m->off);
		if ((e->off > m->off && l[-1] != '\n') ||
		    (e->off + (off_t)e->len < end && l[e->len] != '\n') ||
		    !isline(l, e->len, e->id))
			return 0;
	}
	return 1;
}

/* Whether the file was rewritten in place under m, the lines a context
 * lies in, since we last left it: then a request would send whatever
 * the file holds there now.  Looked at only when another hand changed
 * the file (an append of another agent's leaves m as it was). */
int
sessrewritten(Session *s, const Sessmap *m)
{
	struct stat st;

	if (!m->p || linefd(s) < 0 || fstat(linefd(s), &st) < 0 ||
	    (!s->foreign && sessasseen(s, &st)))
		return 0;
	if (!sessmapheld(s, m))
		return 1;
	s->foreign = 0;
	sessseen(s);	/* held: its state now is ours */
	return 0;
}

void
sessmapfree(Sessmap *m)
{
	if (m->p)
		munmap(m->p, m->len);
	m->p = NULL;
	m->len = 0;
}

/* The message of entry e, its length into *len: where it lies in the
 * map of lines (*inmap set: it does not end in a NUL, and lives as long
 * as the map that sessmap hands over); else made from its line, in
 * place when sessdone would let the line go (the line is the session's
 * no more), a copy else.  NULL when the line or the message's place in
 * it is not at hand, or the message's strings need mending (invalid
 * UTF-8): the caller then parses the line itself. */
char *
sessmessage(Session *s, const Entry *e, int *inmap, size_t *len)
{
	Entry *w = &s->e[e - s->e];
	const char *m;
	char *p;
	size_t i;

	*inmap = 0;
	if (!e->line || !e->msgat || e->msglen < 2 ||
	    e->msgat + e->msglen > e->len)
		return NULL;
	/* the line read again after the index was made may not be the
	 * one indexed: a sure look at the message is the form's parse */
	m = e->line + e->msgat;
	for (i = e->msgat; i-- > 0 && strchr(" \t\r\n", e->line[i]);)
		;
	if (i >= e->msgat || e->line[i] != ':' || m[0] != '{' ||
	    m[e->msglen - 1] != '}')
		return NULL;
	if (!e->plain && utf8valid(m, e->msglen) != e->msglen)
		return NULL;
	*len = e->msglen;
	if (w->shared) {
		*inmap = 1;
		return (char *)m;
	}
	if (s->fd < 0 || e->off < 0)
		return xstrndup(m, e->msglen);
	p = w->line;
	w->line = NULL;
	memmove(p, m, e->msglen);
	p[e->msglen] = '\0';
	return xrealloc(p, e->msglen + 1);
}

/* Index the lines of l, header first, and readcontext() what the context
 * needs, the rest read again from text, or fd, when it is needed. */
static int
loadlines(Session *s, Lines *l, const char *text, int fd,
          const char *name, int all)
{
	const char *p;
	size_t n, noid = 0;
	off_t off;
	double v;
	int whole, r;

	memset(s, 0, sizeof(*s));
	s->fd = s->oldfd = -1;
	if ((r = nextline(l, &p, &n, &off, &whole)) < 0) {
		warn("read %s:", name);
		return -1;
	}
	if (r == 0 || !entryheader(p, n, &v, &s->cwd)) {
		warn("%s: not a session file", name);
		return -1;
	}
	s->head = xstrndup(p, n);
	/* indexed at once, in a table of its size: grown line by line,
	 * it was made twice over */
	if ((r = parselines(s, l, name, &noid, v == 3)) == 0) {
		/* the entries at their number, and room for a run's
		 * appends, before the context is read: the array's
		 * doubling left up to half of it unused */
		s->cap = s->n + 256;
		s->e = xrealloc(s->e, s->cap * sizeof(*s->e));
		indexall(s, s->n);
		rootleaf(s, name);
	}
	if (r < 0 || readcontext(s, text, fd, name, all, 1) < 0) {
		sessfree(s);
		return -1;
	}
	if (noid) {
		warn("%s: session version %g has entries without ids: "
		     "not supported", name, v);
		sessfree(s);
		return -1;
	}
	if (v != 3)
		warn("%s: session version %g: read as version 3", name, v);
	return 0;
}

int
sessparse(Session *s, const char *text, size_t len, const char *name)
{
	Lines l;

	memset(&l, 0, sizeof(l));
	l.fd = -1;
	l.text = text;
	l.len = len;
	return loadlines(s, &l, text, -1, name, 0);
}

/* Load path into s; with all, every line of the branch. */
static int
readpath(Session *s, const char *path, int all)
{
	Lines l;
	struct stat st;
	int fd, r;

	memset(s, 0, sizeof(*s));
	s->fd = s->oldfd = -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		if (errno != ENOENT)
			warn("open %s:", path);
		return -1;
	}
	if (fstat(fd, &st) == 0 && st.st_size == 0) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	memset(&l, 0, sizeof(l));
	l.fd = fd;
	r = loadlines(s, &l, NULL, fd, path, all);
	buffree(&l.buf);
	close(fd);
	if (r < 0) {
		errno = EINVAL;
		return -1;
	}
	s->saved = s->n;
	return 0;
}

/* Load path into s, read only: s->fd is -1 and s->path NULL, so s is
 * in memory only and appends never reach path; a torn last line stays
 * in the file.  Every line of the branch is read: a fork copies them.
 * A missing or empty (0-byte) file fails silently with errno ENOENT:
 * the caller may make a new session there. */
int
sessread(Session *s, const char *path)
{
	return readpath(s, path, 1);
}

/* sessread, with every line of the file read: a session held in
 * memory alone (-n) has no file to read another branch from. */
int
sessreadall(Session *s, const char *path)
{
	return readpath(s, path, 2);
}

/* sessread, with the branch that ends at entry leaf (NULL: the file's
 * leaf), every line of it read; an unknown leaf is said, errno EINVAL. */
int
sessreadat(Session *s, const char *path, const char *leaf)
{
	Window w = { { 0 }, 0 };
	const Entry **p;
	size_t n, i;
	int fd, r = 0;

	if (sessread(s, path) < 0)
		return -1;
	if (!leaf)
		return 0;
	if (sessmove(s, leaf) < 0) {
		safetext(&w.b, leaf, strlen(leaf), 1);
		warn("%s: no entry %s", path, bstr(&w.b));
		buffree(&w.b);
		sessfree(s);
		errno = EINVAL;
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		warn("open %s:", path);
		sessfree(s);
		return -1;
	}
	n = sessbranch(s, &p);
	for (i = 0; i < n && r == 0; i++)
		r = fetch((Entry *)p[i], NULL, fd, &w, path);
	close(fd);	/* only read */
	buffree(&w.b);
	free(p);
	if (r < 0) {
		sessfree(s);
		errno = EINVAL;
	}
	return r;
}

/* Load path, then open it for appends; of the lines only those that
 * the context uses are kept.  Loading never changes the file: another
 * agent may be appending to it at this moment, and what looks like a
 * torn last line may be its entry half way in.  A torn tail is dealt
 * with by writenew, under the lock. */
int
sessload(Session *s, const char *path)
{
	if (readpath(s, path, 0) < 0)
		return -1;
	s->path = xstrdup(path);
	if ((s->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)) < 0) {
		warn("open %s:", path);
		sessfree(s);
		return -1;
	}
	sessseen(s);
	return 0;
}

/* Start s with a new header; with dir, name its file (not yet made). */
static void
start(Session *s, const char *dir, const char *cwd, const char *parent)
{
	Buf b = { 0 };
	char u[37], ts[32], *p;

	memset(s, 0, sizeof(*s));
	s->fd = s->oldfd = -1;
	uuid(u);
	isonow(ts);
	bufaddf(&b, "{\"type\":\"session\",\"version\":3,\"id\":\"%s\","
	        "\"timestamp\":\"%s\",\"cwd\":", u, ts);
	jsonescs(&b, cwd);
	if (parent) {
		bufadds(&b, ",\"parentSession\":");
		jsonescs(&b, parent);
	}
	bufaddc(&b, '}');
	s->head = bufdetach(&b);
	s->cwd = xstrdup(cwd);
	if (!dir)
		return;
	/* named as pi names it: the time, then the id */
	for (p = ts; *p; p++)
		if (*p == ':' || *p == '.')
			*p = '-';
	bufaddf(&b, "%s/%s_%s.jsonl", dir, ts, u);
	s->path = bufdetach(&b);
}

/* Always 0: nothing is written before the first append. */
int
sessnew(Session *s, const char *dir, const char *cwd)
{
	start(s, dir, cwd, NULL);
	return 0;
}

/* Copy all of file from into fd: 0, or -1. */
static int
copyfile(int from, int fd)
{
	char buf[65536];
	off_t off = 0;
	ssize_t r;

	while ((r = pread(from, buf, sizeof(buf), off)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || writeall(fd, buf, r) < 0)
			return -1;
		off += r;
	}
	return 0;
}

/* Write the header and every entry to a temp file, or with from >= 0
 * all of that file; sync and close it. */
static int
writetemp(const Session *s, int fd, const char *tmp, int from)
{
	Buf b = { 0 };
	size_t i;
	int r;

	if (from >= 0) {
		r = copyfile(from, fd);
	} else {
		bufadds(&b, s->head);
		bufaddc(&b, '\n');
		for (i = 0; i < s->n; i++) {
			bufadds(&b, s->e[i].line);
			bufaddc(&b, '\n');
		}
		r = writeall(fd, b.p, b.len);
	}
	if (r < 0)
		warn("write %s:", tmp);
	else if ((r = fsync(fd)) < 0)
		warn("fsync %s:", tmp);
	buffree(&b);
	if (close(fd) < 0 && r == 0) {
		warn("close %s:", tmp);
		r = -1;
	}
	return r;
}

/* Put the temp file in place as path: link(2) fails where rename(2)
 * would replace a file another agent made meanwhile with the same -s
 * path.  An empty file is replaced: nothing is lost. */
static int
putinplace(Session *s, const char *tmp)
{
	struct stat st;

	if (lstat(s->path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0) {
		if (rename(tmp, s->path) == 0)
			return 0;
		warn("rename %s:", tmp);
		return -1;
	}
	if (link(tmp, s->path) == 0)
		return 0;
	if (errno != EEXIST) {
		warn("link %s:", s->path);
		return -1;
	}
	warn("%s: made meanwhile by another agent: not overwritten; "
	     "this session is kept in memory only", s->path);
	free(s->path);
	s->path = NULL;
	return -1;
}

/* Make the file of a new session: a temp file, synced, put in place,
 * the directory synced; the temp file's inode is kept open for appends
 * so that nothing can come between.  With from >= 0 the file is made
 * again as a copy of that one, s->fd, and the entries not in it are left
 * for the caller to append. */
static int
create(Session *s, int from)
{
	char *dir, *tmp, *bad = NULL;
	int fd = -1, made = 0, r = -1;

	dir = dirof(s->path);
	tmp = xmalloc(strlen(s->path) + 8);
	snprintf(tmp, strlen(s->path) + 8, "%s.XXXXXX", s->path); /* not .jsonl */
	if (mkdirs(dir, 0700, &bad) < 0) {
		warn("mkdir %s:", bad);
		goto out;
	}
	if ((fd = mkstemp(tmp)) < 0) {
		warn("mkstemp %s:", tmp);
		goto out;
	}
	made = 1;
	if (writetemp(s, fd, tmp, from) < 0) {
		fd = -1;	/* closed */
		goto out;
	}
	if ((fd = open(tmp, O_RDWR | O_APPEND | O_CLOEXEC)) < 0) {
		warn("open %s:", tmp);
		goto out;
	}
	if (putinplace(s, tmp) < 0)
		goto out;
	/* renamed, tmp is gone; else sessdirlatest removes it later */
	if (unlink(tmp) < 0 && errno != ENOENT)
		warn("unlink %s:", tmp);
	made = 0;
	/* a copy: the lines are where they were */
	if (from >= 0 && close(s->fd) < 0)
		warn("close %s:", s->path);
	s->fd = fd;
	fd = -1;
	if (from < 0)
		s->saved = s->n;
	if ((r = syncdir(dir)) < 0)
		warn("fsync %s:", dir);
out:
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	free(bad);
	free(tmp);
	free(dir);
	return r;
}

/* Copy the branch to entry at (NULL: the leaf) into s, its lines read
 * from the file first where they are not in memory.  0, or -1. */
static int
copybranch(Session *s, Session *from, const char *at)
{
	const char *leaf = from->leaf;
	const Entry **path;
	size_t n, i;
	long k;
	int r = 0;

	if (at)
		from->leaf = (k = findid(from, at)) >= 0 ? from->e[k].id : NULL;
	if (from->fd >= 0 && readcontext(from, NULL, linefd(from),
	                                 from->path, 1, 0) < 0)
		r = -1;
	n = r < 0 ? 0 : sessbranch(from, &path);
	for (i = 0; i < n && r == 0; i++)
		if (!path[i]->line)
			r = -1;
		else
			addentry(s, path[i]->id, path[i]->parent,
			         path[i]->type, NULL,
			         xstrndup(path[i]->line, path[i]->len));
	from->leaf = leaf;
	if (n && from->fd >= 0)
		sessdone(from, path);	/* the lines go back to the file */
	else if (n)
		free(path);
	return r;
}

int
sessfork(Session *s, Session *from, const char *at, const char *frompath,
         const char *dir, const char *cwd)
{
	char here[4096];
	Buf abs = { 0 };

	/* pi records the source as an absolute path */
	if (frompath && *frompath != '/' && getcwd(here, sizeof(here)))
		bufaddf(&abs, "%s/", here);
	if (frompath)
		bufadds(&abs, frompath);
	start(s, dir, cwd, frompath ? abs.p : NULL);
	buffree(&abs);
	if (copybranch(s, from, at) < 0) {
		sessfree(s);
		return -1;
	}
	indexall(s, s->n);
	if (!s->path)
		return 0;
	return create(s, -1);
}

/* A new entry id: 8 hex digits unused in s, into id[37]. */
static void
newid(const Session *s, char *id)
{
	unsigned char b[4];
	int k;

	for (k = 0; k < IDTRIES; k++) {
		randbytes(b, sizeof(b));
		snprintf(id, 37, "%02x%02x%02x%02x", b[0], b[1], b[2], b[3]);
		if (findid(s, id) < 0)
			return;
	}
	do
		uuid(id);
	while (findid(s, id) >= 0);
}

/* The line of a new entry; NULL if fields do not make valid JSON. */
static char *
entryline(const Session *s, const char *type, const char *id,
          const char *fields)
{
	Buf b = { 0 };
	char ts[32], *p;
	Json j;

	isonow(ts);
	bufadds(&b, "{\"type\":");
	jsonescs(&b, type);
	bufaddf(&b, ",\"id\":\"%s\",\"parentId\":", id);
	if (s->leaf)
		jsonescs(&b, s->leaf);
	else
		bufadds(&b, "null");
	bufaddf(&b, ",\"timestamp\":\"%s\"%s%s}", ts, *fields ? "," : "",
	        fields);
	if (jsonparse(&j, b.p, b.len) < 0) {
		buffree(&b);
		return NULL;
	}
	jsonfree(&j);
	/* a newline in valid JSON is only white space between tokens */
	for (p = b.p; (p = memchr(p, '\n', b.len - (p - b.p))); p++)
		*p = ' ';
	return bufdetach(&b);
}

/* A failed append left w > 0 bytes of b in the file and they could not
 * be cut off: the entries written whole count as saved, so that a retry
 * writes none twice; a line cut short is junk the next load skips.  The
 * bytes began with a newline when pre is 1. */
static void
partial(Session *s, size_t w, int pre)
{
	size_t o = pre;

	for (; s->saved < s->n; s->saved++) {
		o += strlen(s->e[s->saved].line);
		if (o > w)
			break;
		o++;
	}
}

/* Take (F_WRLCK) or give back (F_UNLCK) the lock on the whole file that
 * every agent holds while it appends, so that the look at the file's end
 * and the write after it see the same end.  POSIX record locks, not
 * flock(2): they work over NFS too. */
static int
lockfile(int fd, int type)
{
	struct flock fl;

	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;	/* l_start 0, l_len 0: the whole file */
	while (fcntl(fd, F_SETLKW, &fl) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* Cut a failed append of w bytes off again, leaving the file of size
 * bytes as it was; not if anything else was appended after it. */
static int
cutback(Session *s, off_t size, size_t w)
{
	struct stat st;

	if (fstat(s->fd, &st) < 0) {
		warn("fstat %s:", s->path);
		return -1;
	}
	if (st.st_size != size + (off_t)w) {
		warn("%s: written to meanwhile: the failed append is not "
		     "cut off", s->path);
		return -1;
	}
	if (ftruncate(s->fd, size) < 0) {
		warn("truncate %s:", s->path);
		return -1;
	}
	return 0;
}

/* Append the entries not yet in the file, under the lock. */
static int
appendlocked(Session *s)
{
	Buf b = { 0 };
	struct stat st;
	size_t i, w = 0;
	ssize_t r = 0;
	int pre;

	if (fstat(s->fd, &st) < 0) {
		warn("fstat %s:", s->path);
		return -1;
	}
	/* what was cut from under the lines loaded is not made up for */
	if (s->oldfd < 0 && st.st_size < s->end) {
		warn("%s: cut short while in use: not written", s->path);
		return -1;
	}
	if (s->oldfd < 0 && !sessasseen(s, &st))
		s->foreign = 1;	/* looked into before the next request */
	if ((pre = lacksnewline(s->fd, st.st_size)))
		bufaddc(&b, '\n');
	for (i = s->saved; i < s->n; i++) {
		bufadds(&b, s->e[i].line);
		bufaddc(&b, '\n');
	}
	/* one write on O_APPEND: a crash leaves at worst a torn last line */
	while (w < b.len) {
		if ((r = write(s->fd, b.p + w, b.len - w)) < 0 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			break;
		w += r;
	}
	if (w == b.len) {
		buffree(&b);
		s->saved = s->n;
		if (s->oldfd < 0)
			sessseen(s);
		return 0;
	}
	if (r < 0)
		warn("write %s:", s->path);
	else
		warn("write %s: short write", s->path);
	if (w > 0 && cutback(s, st.st_size, w) < 0)
		partial(s, w, pre);
	buffree(&b);
	return -1;
}

/* Before each append: whether path still names the file open, s->fd.
 * An editor's save or sed -i puts a new file in its place by rename(2),
 * and entries appended to the old one would be lost with it.  If path
 * names another file, that one is opened and appended to; the file that
 * was loaded stays open, as its entries' lines are read from it.  If it
 * names none, it is made again, a copy of the open one.  Either is said
 * on stderr, once.  0, or -1. */
static int
followpath(Session *s)
{
	struct stat fst, pst;
	int fd;

	if (fstat(s->fd, &fst) < 0) {
		warn("fstat %s:", s->path);
		return -1;
	}
	if (stat(s->path, &pst) < 0) {
		if (errno != ENOENT) {
			warn("stat %s:", s->path);
			return -1;
		}
		warn("%s: removed since it was opened: made again", s->path);
		return create(s, s->fd);
	}
	if (pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino)
		return 0;
	if (!S_ISREG(pst.st_mode)) {
		warn("%s: no longer a file: not appended to", s->path);
		return -1;
	}
	if ((fd = open(s->path, O_RDWR | O_APPEND | O_CLOEXEC)) < 0) {
		warn("open %s:", s->path);
		return -1;
	}
	warn("%s: replaced since it was opened: appending to the new file",
	     s->path);
	if (s->oldfd < 0)
		s->oldfd = s->fd;
	else if (close(s->fd) < 0)
		warn("close %s:", s->path);
	s->fd = fd;
	return 0;
}

/* Create the file of a new session, or append the entries not yet in
 * it: the new one, and any a failed write left behind.  A failed append
 * is cut off again, leaving the file as it was. */
static int
writenew(Session *s)
{
	int locked, r;

	if (s->fd < 0)
		return create(s, -1);
	if (followpath(s) < 0)
		return -1;
	/* without the lock (a file system that has none) appends are
	 * still whole lines; only the look at the file's end may race */
	if (!(locked = lockfile(s->fd, F_WRLCK) == 0))
		warn("lock %s:", s->path);
	r = appendlocked(s);
	if (locked && lockfile(s->fd, F_UNLCK) < 0)
		warn("unlock %s:", s->path);
	return r;
}

int
sessappend(Session *s, const char *type, const char *fields)
{
	char id[37], *line;

	newid(s, id);
	if (!(line = entryline(s, type, id, fields ? fields : ""))) {
		warn("session: %s entry is not valid JSON: not kept", type);
		return -1;
	}
	addentry(s, id, s->leaf, type, NULL, line);
	indexnew(s);
	if (!s->path)
		return 0;
	return writenew(s);
}

int
sesssync(Session *s)
{
	if (s->fd >= 0 && fsync(s->fd) < 0) {
		warn("fsync %s:", s->path);
		return -1;
	}
	return 0;
}

/* The entries from the root to the leaf, following parentId; an entry
 * whose parent is not in the file is a root, as pi takes it.  A loop is
 * cut where it closes, each entry taken once: a load moves the leaf off
 * loops (rootleaf), so only a session changed in memory meets one. */
size_t
sessbranch(const Session *s, const Entry ***path)
{
	const Entry **p;
	char *seen;
	long i;
	size_t n = 0, k;

	*path = NULL;
	if (!s->leaf || (i = findid(s, s->leaf)) < 0)
		return 0;
	p = xmalloc(s->n * sizeof(*p));
	seen = xcalloc(s->n, 1);
	for (; i >= 0 && !seen[i]; i = parentof(s, i)) {
		seen[i] = 1;
		p[n++] = &s->e[i];
	}
	free(seen);
	for (k = 0; k < n / 2; k++) {
		const Entry *t = p[k];

		p[k] = p[n - 1 - k];
		p[n - 1 - k] = t;
	}
	*path = p;
	return n;
}

/* Call fn on every entry of the file of type (NULL: of any), in file
 * order, with its line at hand if it can be read (else e->line is
 * NULL); lines not in memory are read a window at a time and let go
 * again, so that a big file is never whole in memory. */
void
sesseach(Session *s, const char *type, void (*fn)(const Entry *, void *),
         void *arg)
{
	Window w = { { 0 }, 0 };
	size_t i;
	Entry *e;

	for (i = 0; i < s->n; i++) {
		e = &s->e[i];
		if (type && strcmp(e->type, type))
			continue;
		if (e->line || s->fd < 0 || fetch(e, NULL, linefd(s), &w,
		    s->path ? s->path : "session") < 0) {
			fn(e, arg);
			continue;
		}
		fn(e, arg);
		free(e->line);
		e->line = NULL;
	}
	buffree(&w.b);
}

/* A copy of e[i]'s line, read from the file if it is not in memory, or
 * NULL if it cannot be. */
char *
sessline(Session *s, size_t i)
{
	Window w = { { 0 }, 0 };
	Entry *e = &s->e[i];
	char *line;

	if (e->line)
		return xstrndup(e->line, e->len);
	if (s->fd < 0 || fetch(e, NULL, linefd(s), &w, s->path) < 0) {
		buffree(&w.b);
		return NULL;
	}
	buffree(&w.b);
	line = e->line;
	e->line = NULL;
	return line;
}

/* The index of the entry with that id, or -1. */
long
sessfind(const Session *s, const char *id)
{
	return findid(s, id);
}

/* Move the leaf to the entry with that id: the next entry appended
 * continues from it, and the file says so then, as pi's does; nothing
 * is written now.  0, or -1 if there is none. */
int
sessmove(Session *s, const char *id)
{
	long i;

	if (!id) {	/* before the first entry, as pi's resetLeaf */
		s->leaf = NULL;
		return 0;
	}
	if ((i = findid(s, id)) < 0)
		return -1;
	s->leaf = s->e[i].id;
	return 0;
}
