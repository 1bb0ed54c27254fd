/* See LICENSE file for copyright and license details. */
/* scratch.c: diff mode (-d): the working tree copied to a scratch
 * directory for the run to work in, what .gitignore ignores and .git
 * left out; at the end the copy against the tree as git diff shows it,
 * renames found, and the copy removed. */
#define _XOPEN_SOURCE 700	/* realpath(3) */
#include <sys/stat.h>
#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/ioctl.h>
#endif

#include "util.h"
#include "walk.h"
#include "diff.h"
#include "scratch.h"

enum {
	GITDIR = 040000,	/* git's modes of a tree's entries */
	GITFILE = 0100644,
	GITEXEC = 0100755,
	GITLINK = 0120000,
	MAXPAIRS = 4096		/* pairs of files of one size read for a
				 * rename, at most */
};

typedef struct {
	char *rel;
	unsigned mode;		/* git's */
	unsigned long long size;
	long other;		/* the same file in the other tree, or -1 */
	int renamed;
} Node;

/* A tree's entries as a walk finds them, within the conf's bounds. */
typedef struct {
	Node *v;
	long n;
	unsigned long long bytes;
	const Scratchconf *c;
	const char *what;	/* "the working tree" or "the copy" */
	Buf *why;
} Tree;

static int
takenode(void *arg, const char *path, const char *rel, const struct stat *st)
{
	Tree *t = arg;
	unsigned mode;

	if (S_ISDIR(st->st_mode))
		mode = GITDIR;
	else if (S_ISLNK(st->st_mode))
		mode = GITLINK;
	else if (S_ISREG(st->st_mode))
		mode = st->st_mode & S_IXUSR ? GITEXEC : GITFILE;
	else
		return 0;	/* a fifo, a socket, a device: git has none */
	if (mode != GITLINK && access(path, mode == GITDIR ? R_OK | X_OK :
	    R_OK) < 0) {
		bufaddf(t->why, "-d: cannot read %s: %s", rel,
		        strerror(errno));
		return 1;
	}
	if (mode != GITDIR)
		t->bytes += st->st_size;
	if (t->n >= t->c->maxfiles || t->bytes > t->c->maxbytes) {
		bufaddf(t->why, "-d: %s holds more than %ld files or %llu "
		        "bytes (config.h's maxscratchfiles, maxscratch)",
		        t->what, t->c->maxfiles, t->c->maxbytes);
		return 1;
	}
	t->v = xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n].rel = xstrdup(rel);
	t->v[t->n].mode = mode;
	t->v[t->n].size = st->st_size;
	t->v[t->n].other = -1;
	t->v[t->n++].renamed = 0;
	return 0;
}

static void
treefree(Tree *t)
{
	long i;

	for (i = 0; i < t->n; i++)
		free(t->v[i].rel);
	free(t->v);
}

/* The entries under dir in walk order (a directory before what it
 * holds), .git and what .gitignore files ignore left out; -1 with why. */
static int
readtree(Tree *t, const char *dir, const Scratchconf *c, const char *what,
         Buf *why)
{
	Walkopt o;

	memset(t, 0, sizeof(*t));
	memset(&o, 0, sizeof(o));
	t->c = c;
	t->what = what;
	t->why = why;
	o.ignorebytes = c->ignorebytes;
	o.ignorelines = c->ignorelines;
	o.maxrules = c->maxrules;
	o.rulebytes = c->rulebytes;
	walktree(dir, takenode, t, &o);
	return why->len ? -1 : 0;
}

/* A reflink where the file system can share the blocks (Btrfs, XFS): the
 * copy costs no space and little time.  0 if it cannot. */
static int
clonefile(int from, int to)
{
#if defined(__linux__) && defined(_IOW)
	return ioctl(to, _IOW(0x94, 9, int), from) == 0;	/* FICLONE */
#else
	(void)from;
	(void)to;
	return 0;
#endif
}

static int
copybytes(const char *from, const char *to, unsigned mode)
{
	char buf[65536];
	ssize_t n;
	int in, out, rc = 0;

	if ((in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	                mode == GITEXEC ? 0755 : 0644)) < 0) {
		close(in);
		return -1;
	}
	if (!clonefile(in, out)) {
		while ((n = read(in, buf, sizeof(buf))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 || writeall(out, buf, n) < 0) {
				rc = -1;
				break;
			}
		}
	}
	close(in);
	if (close(out) < 0)
		rc = -1;
	return rc;
}

/* One entry of the tree into the copy: a link as a link, never
 * followed. */
static int
copynode(const Scratch *s, const Node *e, Buf *why)
{
	Buf from = { 0 }, to = { 0 }, target = { 0 };
	ssize_t n;
	int rc = 0;

	bufaddf(&from, "%s/%s", s->root, e->rel);
	bufaddf(&to, "%s/%s", s->copy, e->rel);
	if (e->mode == GITDIR) {
		rc = mkdir(to.p, 0755);
	} else if (e->mode == GITLINK) {
		bufgrow(&target, e->size + 1);
		if ((n = readlink(from.p, target.p, e->size + 1)) < 0 ||
		    (size_t)n > e->size)
			rc = -1;
		else
			target.p[n] = '\0';
		rc = rc ? rc : symlink(target.p, to.p);
	} else {
		rc = copybytes(from.p, to.p, e->mode);
	}
	if (rc < 0)
		bufaddf(why, "-d: cannot copy %s: %s", e->rel,
		        strerror(errno));
	buffree(&from);
	buffree(&to);
	buffree(&target);
	return rc;
}

/* The copy's top, in TMPDIR: a directory named as the tree is, so that
 * the model sees the project's name. */
static int
maketop(Scratch *s, Buf *why)
{
	const char *tmp = getenv("TMPDIR"), *base;
	Buf b = { 0 };

	bufaddf(&b, "%s/agent-scratch-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.p)) {
		bufaddf(why, "-d: cannot make %s: %s", b.p, strerror(errno));
		buffree(&b);
		return -1;
	}
	s->top = bufdetach(&b);
	base = strrchr(s->root, '/') + 1;
	bufaddf(&b, "%s/%s", s->top, *base ? base : "root");
	s->copy = bufdetach(&b);
	if (mkdir(s->copy, 0755) < 0) {
		bufaddf(why, "-d: cannot make %s: %s", s->copy,
		        strerror(errno));
		return -1;
	}
	return 0;
}

/* Copy the working tree, go into the copy and send stdout to stderr:
 * the diff alone goes to stdout as it was.  -1 with why, the copy
 * removed; nothing is copied of a tree past the bounds. */
int
scratchmake(Scratch *s, const Scratchconf *c, Buf *why)
{
	Tree t;
	long i;
	int rc;

	memset(s, 0, sizeof(*s));
	s->conf = c;
	s->out = -1;
	if (!(s->root = realpath(".", NULL))) {
		bufaddf(why, "-d: the working directory: %s",
		        strerror(errno));
		return -1;
	}
	rc = readtree(&t, s->root, c, "the working tree", why);
	if (rc == 0)
		rc = maketop(s, why);
	for (i = 0; rc == 0 && i < t.n; i++)
		rc = copynode(s, &t.v[i], why);
	treefree(&t);
	if (rc == 0 && chdir(s->copy) < 0) {
		bufaddf(why, "-d: cannot enter %s: %s", s->copy,
		        strerror(errno));
		rc = -1;
	}
	/* close-on-exec: no tool may write into the diff */
	if (rc == 0 && ((s->out = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    dup2(2, 1) < 0)) {
		bufaddf(why, "-d: stdout: %s", strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		scratchfree(s);
	return rc;
}

/* The copy gone, stdout back. */
void
scratchfree(Scratch *s)
{
	if (s->root && chdir(s->root) < 0)
		warn("-d: cannot go back to %s:", s->root);
	if (s->out >= 0) {
		fflush(stdout);
		dup2(s->out, 1);
		close(s->out);
		s->out = -1;
	}
	if (s->top && rmtree(s->top) < 0)
		warn("-d: cannot remove %s:", s->top);
	free(s->root);
	free(s->top);
	free(s->copy);
	s->root = s->top = s->copy = NULL;
}

static int
byrel(const void *a, const void *b)
{
	return strcmp(((const Node *)a)->rel, ((const Node *)b)->rel);
}

/* What an entry holds: a file's bytes, a link's target; -1 with a
 * warning when it cannot be read or is past the bound. */
static int
nodebytes(const char *top, const Node *e, unsigned long long max, Buf *b)
{
	Buf path = { 0 };
	ssize_t n;
	int fd, rc = -1;

	bufreset(b);
	bufaddf(&path, "%s/%s", top, e->rel);
	if (e->mode == GITLINK) {
		bufgrow(b, e->size + 1);
		if ((n = readlink(path.p, b->p, e->size + 1)) >= 0 &&
		    (size_t)n <= e->size) {
			b->len = n;
			b->p[n] = '\0';
			rc = 0;
		}
	} else if ((fd = open(path.p, O_RDONLY | O_NOFOLLOW |
	                      O_CLOEXEC)) >= 0) {
		rc = readall(fd, b, max);
		close(fd);
	}
	if (rc == 1)
		warn("-d: %s is past %llu bytes (config.h's maxscratch)",
		     path.p, max);
	else if (rc < 0)
		warn("-d: cannot read %s:", path.p);
	buffree(&path);
	return rc ? -1 : 0;
}

/* Pair the entries of the same name in the two sorted trees. */
static void
pairnames(Tree *a, Tree *b)
{
	long i = 0, j = 0;
	int c;

	while (i < a->n && j < b->n) {
		c = strcmp(a->v[i].rel, b->v[j].rel);
		if (c == 0) {
			a->v[i].other = j;
			b->v[j].other = i;
		}
		i += c <= 0;
		j += c >= 0;
	}
}

static int
samefiles(const Scratch *s, const Node *x, const Node *y)
{
	Buf p = { 0 }, q = { 0 };
	int same;

	same = nodebytes(s->root, x, s->conf->maxbytes, &p) == 0 &&
	    nodebytes(s->copy, y, s->conf->maxbytes, &q) == 0 &&
	    p.len == q.len && !memcmp(p.p, q.p, p.len);
	buffree(&p);
	buffree(&q);
	return same;
}

/* A file gone from the tree whose bytes a new one holds, as they were,
 * was moved: git's exact renames.  Empty files are not paired, as git
 * does not pair them. */
static void
pairrenames(const Scratch *s, Tree *a, Tree *b)
{
	long i, j, looked = 0;
	Node *x, *y;

	for (i = 0; i < a->n; i++) {
		x = &a->v[i];
		if (x->other >= 0 || x->mode == GITDIR || !x->size)
			continue;
		for (j = 0; j < b->n && looked < MAXPAIRS; j++) {
			y = &b->v[j];
			if (y->other >= 0 || y->size != x->size ||
			    (y->mode == GITLINK) != (x->mode == GITLINK))
				continue;
			looked++;
			if (samefiles(s, x, y)) {
				x->other = j;
				y->other = i;
				x->renamed = y->renamed = 1;
				break;
			}
		}
	}
}

/* One file's change into out: x its entry in the tree, y in the copy,
 * either NULL (added, deleted) and of another name for a rename.  A
 * file become a link, or a link a file, is a deletion and an addition,
 * as git shows it. */
static int
change(const Scratch *s, Buf *out, const Node *x, const Node *y)
{
	Buf p = { 0 }, q = { 0 };
	Diffhead h;
	int rc = 0;

	if (x && y && (x->mode == GITLINK) != (y->mode == GITLINK))
		return change(s, out, x, NULL) | change(s, out, NULL, y);
	memset(&h, 0, sizeof(h));
	h.a = x ? x->rel : NULL;
	h.b = y ? y->rel : NULL;
	h.amode = x ? x->mode : 0;
	h.bmode = y ? y->mode : 0;
	h.literal = 1;
	if ((x && nodebytes(s->root, x, s->conf->maxbytes, &p) < 0) ||
	    (y && nodebytes(s->copy, y, s->conf->maxbytes, &q) < 0))
		rc = -1;
	else
		difffile(out, &h, bstr(&p), p.len, bstr(&q), q.len,
		         s->conf->context);
	buffree(&p);
	buffree(&q);
	return rc;
}

/* The change of the entry (or two) at the head of the sorted trees,
 * in the order of their names; directories have none of their own. */
static int
treechange(const Scratch *s, Buf *out, Tree *a, long *i, Tree *b, long *j)
{
	Node *x = *i < a->n ? &a->v[*i] : NULL;
	Node *y = *j < b->n ? &b->v[*j] : NULL;
	int c = !x ? 1 : !y ? -1 : strcmp(x->rel, y->rel);

	if (c < 0) {
		(*i)++;
		y = NULL;
		if (x->renamed)	/* shown where it went */
			return 0;
	} else if (c > 0) {
		(*j)++;
		x = y->renamed ? &a->v[y->other] : NULL;
	} else {
		(*i)++;
		(*j)++;
	}
	if (x && x->mode == GITDIR)
		x = NULL;
	if (y && y->mode == GITDIR)
		y = NULL;
	return x || y ? change(s, out, x, y) : 0;
}

/* The copy against the working tree as it is now, as git diff shows it,
 * to stdout as it was: what git apply and patch -p1 take.  -1 if a file
 * could not be read or the diff not written, with a message. */
int
scratchdiff(Scratch *s)
{
	Tree a, b;
	Buf why = { 0 }, out = { 0 };
	long i = 0, j = 0;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	if (readtree(&a, s->root, s->conf, "the working tree", &why) < 0 ||
	    readtree(&b, s->copy, s->conf, "the copy", &why) < 0) {
		warn("%s: no diff", why.p);
		rc = -1;
		goto done;
	}
	qsort(a.v, a.n, sizeof(*a.v), byrel);
	qsort(b.v, b.n, sizeof(*b.v), byrel);
	pairnames(&a, &b);
	pairrenames(s, &a, &b);
	while (i < a.n || j < b.n) {
		bufreset(&out);
		if (treechange(s, &out, &a, &i, &b, &j) < 0)
			rc = -1;
		if (out.len && writeall(s->out, out.p, out.len) < 0) {
			if (errno != EPIPE)
				warn("-d: write stdout:");
			rc = -1;
			break;
		}
	}
done:
	treefree(&a);
	treefree(&b);
	buffree(&why);
	buffree(&out);
	return rc;
}
