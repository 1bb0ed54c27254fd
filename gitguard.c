/* See LICENSE file for copyright and license details. */
/* gitguard.c: git's execution surface kept as it was at start.  Git
 * obeys .git/config (core.fsmonitor, core.pager, aliases, hooksPath),
 * config.worktree, commondir (where the rest of the config is) and the
 * programs in hooks/, and reads info/ (attributes, exclude), at the
 * user's next git command, outside any sandbox; and so for each
 * submodule's .git directory in .git/modules, which git status enters.
 * Landlock only allows, and allows a tree whole: it cannot keep these
 * read-only beneath a working directory tools may write.  So they are
 * copied at start, their fingerprint checked around every tool call,
 * before every hook and at exit, and what a tool changed is put back
 * from the copy.  A submodule .git/modules did not hold at start is
 * removed: its config would be obeyed as well.  git status enters a
 * submodule by its gitlink in the index (mode 160000) and the .git in
 * its directory, a file that names its repository or the repository
 * itself: those of the gitlinks at start are kept too, and of a .git
 * under a gitlink added later, a tool's, what git obeys is removed. */
#define _XOPEN_SOURCE 700
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "gitguard.h"

enum { GABSENT, GFILE, GDIR, GLINK };	/* what a node was at start */
enum {
	GITSAY = 20,		/* paths named in a message, then "and N
				 * more": a tool can add thousands */
	GITTRIES = 4,		/* temporary names tried */
	GITDEPTH = 64,		/* directories deep a node may be: a
				 * submodule in a submodule in ... */
	GITPATHMAX = 4096	/* bytes of a path in the index */
};
#define GITINDEXMAX ((size_t)256 << 20)	/* bytes of .git/index read */

typedef struct {
	Buf b;			/* ", path", ", path (why)" */
	int n, said;		/* paths, and those in b */
} Gitlist;

typedef struct {
	char *path;		/* from the working directory */
	const char *name;	/* its last component, within path */
	int parent;		/* its directory's node; -1: the working
				 * directory */
	int end;		/* a directory: its nodes are those after it
				 * and before end */
	int part;		/* .git itself, or a submodule's: only the
				 * nodes under it (gitnames) are kept, not
				 * what else it holds */
	int mods;		/* a .git's modules/, or a directory in it
				 * holding submodules named a/b: what it
				 * holds is submodules */
	int depth;		/* directories above it, to GITDEPTH */
	int sub;		/* a submodule's .git in its directory, or
				 * in it: gone is as good as kept, for git
				 * enters no repository that is not there */
	int kind;		/* GABSENT, GFILE, GDIR, GLINK */
	int bad;		/* could not be put back: not stamped, so
				 * that every later check tries again */
	mode_t mode;		/* its permission bits */
	Buf data;		/* a file's content, a link's target */
	struct stat st;		/* lstat last seen: the fingerprint */
} Gitnode;

typedef struct Gitcopy {
	int rootfd;		/* the working directory */
	Gitnode *v;		/* .git first, then each directory before
				 * what it holds */
	int n, cap;
	size_t bytes, maxbytes;	/* content copied, and the limit */
	int maxfiles;
	Gitlist told;		/* what was put back, not yet told the
				 * model */
	Gitlist nottold;	/* what could not be */
	struct stat index;	/* .git/index as last read; st_ino 0 if
				 * none was */
	size_t hash;		/* its object names' size: 20, or 32 for
				 * SHA-256 */
	Buf links;		/* the gitlinks added since start, each
				 * ended by a NUL */
	int saidindex;		/* said once that it could not be read */
	struct timespec start;	/* when the copy was made, 2 s early */
	int unplanted;		/* the last check left a tool's .git */
} Gitcopy;

/* What git reads of a .git directory; modules/ holds the submodules'
 * .git directories, which git reads too (git status goes into them).
 * Their objects and refs are not copied: what they hold is taken as
 * .git's own is. */
static const char *const gitnames[] = {
	"config", "config.worktree", "commondir", "hooks", "info", "modules",
	NULL
};

/* A node for name in the directory of node parent, or for path name
 * from the working directory (parent -1). */
static int
gitadd(Gitcopy *g, const char *name, int parent)
{
	Gitnode *nd;
	Buf b = { 0 };

	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 16;
		g->v = xrealloc(g->v, g->cap * sizeof(*g->v));
	}
	nd = &g->v[g->n];
	memset(nd, 0, sizeof(*nd));
	if (parent >= 0)
		bufaddf(&b, "%s/", g->v[parent].path);
	bufadds(&b, name);
	nd->path = bufdetach(&b);
	nd->name = strrchr(nd->path, '/') ? strrchr(nd->path, '/') + 1 :
	           nd->path;
	nd->parent = parent;
	nd->depth = parent >= 0 ? g->v[parent].depth + 1 : 0;
	nd->sub = parent >= 0 ? g->v[parent].sub : nd->name != nd->path;
	return g->n++;
}

/* A file's content (at most max bytes, and one more to tell), or a
 * link's target, from name in dir: 0, or -1 with errno. */
static int
gitread(int dir, const char *name, int kind, size_t max, Buf *b)
{
	char buf[4096];
	ssize_t n;
	int fd, rc, err;

	if (kind == GLINK) {
		if ((n = readlinkat(dir, name, buf, sizeof(buf))) < 0)
			return -1;
		bufadd(b, buf, n);
		return 0;
	}
	if ((fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	                 O_CLOEXEC)) < 0)
		return -1;
	rc = readall(fd, b, max);
	err = errno;
	close(fd);
	errno = err;
	return rc < 0 ? -1 : 0;
}

static int gitsnapdir(Gitcopy *g, int dir, int i, Buf *why);

/* Whether directory node i, open at fd, is a .git's modules/, a
 * submodule's .git directory (it has a HEAD, as git asks), or a
 * directory of submodules named a/b. */
static void
gitkindof(Gitcopy *g, int fd, int i)
{
	Gitnode *nd = &g->v[i], *up;
	struct stat st;

	if (nd->parent < 0) {
		nd->part = 1;	/* .git, or a submodule's */
		return;
	}
	up = &g->v[nd->parent];
	if (up->part && !strcmp(nd->name, "modules"))
		nd->mods = 1;
	else if (up->mods && fstatat(fd, "HEAD", &st,
	                             AT_SYMLINK_NOFOLLOW) == 0)
		nd->part = 1;
	else if (up->mods)
		nd->mods = 1;
}

/* Copy name in dir, the directory of node parent (or path name, from
 * the working directory, in dir: parent -1): what it is, its mode, its
 * content, its fingerprint.  -1 with why. */
static int
gitsnap(Gitcopy *g, int dir, const char *name, int parent, Buf *why)
{
	struct stat st;
	int i = gitadd(g, name, parent), fd;
	Gitnode *nd = &g->v[i];

	if (g->n > g->maxfiles) {
		bufaddf(why, "more than %d files", g->maxfiles);
		return -1;
	}
	if (nd->depth > GITDEPTH) {
		bufaddf(why, "deeper than %d directories", GITDEPTH);
		return -1;
	}
	if (fstatat(dir, nd->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;	/* GABSENT: it must stay so */
		bufaddf(why, "%s: %s", nd->path, strerror(errno));
		return -1;
	}
	nd->st = st;
	nd->mode = st.st_mode & 07777;
	nd->kind = S_ISREG(st.st_mode) ? GFILE : S_ISDIR(st.st_mode) ? GDIR :
	           S_ISLNK(st.st_mode) ? GLINK : GABSENT;
	if (nd->kind == GABSENT) {
		bufaddf(why, "%s is no file, directory or link", nd->path);
		return -1;
	}
	if (nd->kind != GDIR) {
		if (gitread(dir, nd->name, nd->kind, g->maxbytes - g->bytes,
		            &nd->data) < 0) {
			bufaddf(why, "%s: %s", nd->path, strerror(errno));
			return -1;
		}
		if ((g->bytes += nd->data.len) > g->maxbytes) {
			bufaddf(why, "more than %zu bytes", g->maxbytes);
			return -1;
		}
		return 0;
	}
	if ((fd = openat(dir, nd->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                 O_CLOEXEC)) < 0) {
		bufaddf(why, "%s: %s", nd->path, strerror(errno));
		return -1;
	}
	gitkindof(g, fd, i);
	return gitsnapdir(g, fd, i, why);
}

/* The nodes in the directory of node i, open at fd (closed here); of
 * .git, only gitnames. */
static int
gitsnapdir(Gitcopy *g, int fd, int i, Buf *why)
{
	DIR *d;
	struct dirent *de;
	int k, rc = 0;

	if (g->v[i].part) {
		for (k = 0; gitnames[k] && rc == 0; k++)
			rc = gitsnap(g, fd, gitnames[k], i, why);
		close(fd);
		g->v[i].end = g->n;
		return rc;
	}
	if (!(d = fdopendir(fd))) {
		bufaddf(why, "%s: %s", g->v[i].path, strerror(errno));
		close(fd);
		return -1;
	}
	while (rc == 0 && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rc = gitsnap(g, dirfd(d), de->d_name, i, why);
	closedir(d);
	g->v[i].end = g->n;
	return rc;
}

/* Whether a and b are the same file, unchanged. */
static int
gitsamestat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_mode == b->st_mode && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Whether st is node nd as last seen.  .git's own times and size change
 * with every commit: only what it is counts.  The change time is the
 * one a tool cannot set back. */
static int
gitsame(const Gitnode *nd, const struct stat *st)
{
	if (st->st_dev != nd->st.st_dev || st->st_ino != nd->st.st_ino ||
	    st->st_mode != nd->st.st_mode)
		return 0;
	return nd->part || gitsamestat(&nd->st, st);
}

/* Note path as put back, or as not, with why: the first GITSAY. */
static void
gitsaid(Gitlist *l, const char *path, const char *why)
{
	if (l->n++ >= GITSAY)
		return;
	l->said++;
	bufadds(&l->b, ", ");
	safetext(&l->b, path, strlen(path), 1);
	if (why)
		bufaddf(&l->b, " (%s)", why);
}

/* The list for a message: "a, b and 3 more" ("and 3 more" alone if
 * none is in it). */
static const char *
gitsaytext(Gitlist *l)
{
	if (l->n > l->said)
		bufaddf(&l->b, " and %d more", l->n - l->said);
	return bstr(&l->b) + (l->said ? 2 : 1);
}

/* src's paths added to dst's, as long as dst names fewer than GITSAY:
 * a bound however many checks come before the model is told. */
static void
gitsayadd(Gitlist *dst, const Gitlist *src)
{
	if (dst->said < GITSAY) {
		bufadd(&dst->b, src->b.p, src->b.len);
		dst->said += src->said;
	}	/* else counted, not named */
	dst->n += src->n;
}

static void
gitsayfree(Gitlist *l)
{
	buffree(&l->b);
	l->n = l->said = 0;
}

/* The directory that path's last component is in, opened from root
 * through directories alone, no link followed: its descriptor, and
 * *last that component; -1 with errno. */
static int
gitparentat(int root, const char *path, const char **last)
{
	char name[NAME_MAX + 1];
	const char *s = path, *e;
	int fd = fcntl(root, F_DUPFD_CLOEXEC, 0), next, err;

	for (; fd >= 0 && (e = strchr(s, '/')); s = e + 1) {
		if ((size_t)(e - s) > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, s, e - s);
		name[e - s] = '\0';
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		              O_CLOEXEC);
		err = errno;
		close(fd);
		errno = err;
		fd = next;
	}
	*last = s;
	return fd;
}

/* Whether a path whose lstat failed with err is not there for git: no
 * such file, or a file or link in a directory's place. */
static int
gitgone(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP;
}

/* lstat of path from the working directory, no link followed on the
 * way: a link in a directory's place is not what it leads to. */
static int
gitlstat(const Gitcopy *g, const char *path, struct stat *st)
{
	const char *last;
	int fd, rc, err;

	if ((fd = gitparentat(g->rootfd, path, &last)) < 0)
		return -1;
	rc = fstatat(fd, last, st, AT_SYMLINK_NOFOLLOW);
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* Nodes not as last seen, noted in l if not NULL: a few lstat calls,
 * the price of a check around every tool call. */
static int
gitstale(const Gitcopy *g, Gitlist *l)
{
	struct stat st;
	int i, have, n = 0;

	for (i = 0; i < g->n; i++) {
		have = gitlstat(g, g->v[i].path, &st) == 0;
		if (!have && g->v[i].sub && gitgone(errno))
			continue;
		if (g->v[i].kind == GABSENT ? !have && errno == ENOENT :
		    have && gitsame(&g->v[i], &st))
			continue;
		if (!l)
			return 1;
		gitsaid(l, g->v[i].path, NULL);
		n++;
	}
	return n;
}

/* The fingerprints taken anew, after a restore, but for the nodes that
 * could not be put back: theirs stays, so the next check sees them. */
static void
gitstamp(Gitcopy *g)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].kind != GABSENT && !g->v[i].bad &&
		    gitlstat(g, g->v[i].path, &g->v[i].st) < 0)
			memset(&g->v[i].st, 0, sizeof(g->v[i].st));
}

/* Remove name from dir, a directory with all it holds, no link
 * followed; that it was not there is no error. */
static int
gitremove(int dir, const char *name)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	return rmtreeat(dir, name);
}

/* Node i could not be put back (path: it, or what is in its
 * directory), for errno. */
static void
gitfailed(Gitcopy *g, int i, const char *path, Gitlist *failed)
{
	g->v[i].bad = 1;
	gitsaid(failed, path, strerror(errno));
}

/* Whether name in dir holds what file node nd held, its mode too. */
static int
gitsamefile(int dir, const Gitnode *nd, const struct stat *st)
{
	Buf b = { 0 };
	int same;

	if (nd->kind == GFILE && (!S_ISREG(st->st_mode) ||
	    (st->st_mode & 07777) != nd->mode))
		return 0;
	if (nd->kind == GLINK && !S_ISLNK(st->st_mode))
		return 0;
	same = gitread(dir, nd->name, nd->kind, nd->data.len, &b) == 0 &&
	       b.len == nd->data.len &&
	       !memcmp(bstr(&b), bstr(&nd->data), b.len);
	buffree(&b);
	return same;
}

/* A temporary name no tool can guess, .agent-restore-<16 hex>: made
 * with O_EXCL, it needs nothing removed first.  A fixed name let a tool
 * put there a directory too deep to remove, and so stop the restore. */
static void
gittmpname(Buf *b)
{
	unsigned char r[8];
	int k;

	randbytes(r, sizeof(r));
	bufreset(b);
	bufadds(b, ".agent-restore-");
	for (k = 0; k < (int)sizeof(r); k++)
		bufaddf(b, "%02x", r[k]);
}

/* The file or link of node nd made in dir under a fresh temporary name
 * (in tmp): 0, or -1 with errno. */
static int
gitmaketmp(int dir, const Gitnode *nd, Buf *tmp)
{
	int fd = -1, k, err;

	for (k = 0; k < GITTRIES; k++) {
		gittmpname(tmp);
		if (nd->kind == GLINK ?
		    symlinkat(bstr(&nd->data), dir, tmp->p) == 0 :
		    (fd = openat(dir, tmp->p, O_WRONLY | O_CREAT | O_EXCL |
		                 O_NOFOLLOW | O_CLOEXEC, 0600)) >= 0)
			break;
		if (errno != EEXIST)
			return -1;
	}
	if (k == GITTRIES || nd->kind == GLINK)
		return k == GITTRIES ? -1 : 0;
	if (writeall(fd, nd->data.p, nd->data.len) < 0 ||
	    fchmod(fd, nd->mode) < 0) {
		err = errno;
		close(fd);
		unlinkat(dir, tmp->p, 0);
		errno = err;
		return -1;
	}
	if (close(fd) < 0) {
		err = errno;
		unlinkat(dir, tmp->p, 0);
		errno = err;
		return -1;
	}
	return 0;
}

/* Put file or link node nd back in dir: made beside it, renamed over
 * it (a directory in its way removed first). */
static int
gitputfile(int dir, const Gitnode *nd, const struct stat *st, int have)
{
	Buf tmp = { 0 };
	int rc = -1, err;

	if (have && S_ISDIR(st->st_mode) && gitremove(dir, nd->name) < 0)
		return -1;
	if (gitmaketmp(dir, nd, &tmp) < 0)
		goto done;
	if (renameat(dir, tmp.p, dir, nd->name) < 0) {
		err = errno;
		unlinkat(dir, tmp.p, 0);
		errno = err;
	} else {
		rc = 0;
	}
done:
	buffree(&tmp);
	return rc;
}

static void gitfixdir(Gitcopy *g, int dir, int i, Gitlist *fixed,
                      Gitlist *failed);

/* Put node i back in dir, the directory of its parent: what is put
 * back is noted in fixed, what cannot be in failed. */
static void
gitfix(Gitcopy *g, int dir, int i, Gitlist *fixed, Gitlist *failed)
{
	const Gitnode *nd = &g->v[i];
	struct stat st;
	int have = fstatat(dir, nd->name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (!have && errno != ENOENT) {
		gitfailed(g, i, nd->path, failed);
		return;
	}
	if (!have && nd->sub)
		return;	/* a submodule's, gone: nothing to obey */
	if (nd->kind == GDIR) {
		gitfixdir(g, dir, i, fixed, failed);
		return;
	}
	if (nd->kind == GABSENT ? !have : have && gitsamefile(dir, nd, &st))
		return;
	if (nd->kind == GABSENT ? gitremove(dir, nd->name) < 0 :
	    gitputfile(dir, nd, &st, have) < 0)
		gitfailed(g, i, nd->path, failed);
	else
		gitsaid(fixed, nd->path, NULL);
}

/* Whether name is a node in the directory of node i. */
static int
gitknown(const Gitcopy *g, int i, const char *name)
{
	int k;

	for (k = i + 1; k < g->v[i].end; k++)
		if (g->v[k].parent == i && !strcmp(g->v[k].name, name))
			return 1;
	return 0;
}

/* Directory node i back in dir: made if it is not there (what is in
 * its place removed: a file, a link), what it did not hold removed
 * (but from .git), its nodes put back, its mode. */
static void
gitfixdir(Gitcopy *g, int dir, int i, Gitlist *fixed, Gitlist *failed)
{
	const Gitnode *nd = &g->v[i];
	struct stat st;
	DIR *d;
	struct dirent *de;
	Buf p = { 0 };
	Gitlist made = { 0 };
	int fd, k;

	if (fstatat(dir, nd->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		if (gitremove(dir, nd->name) < 0 ||
		    mkdirat(dir, nd->name, 0700) < 0) {
			gitfailed(g, i, nd->path, failed);
			return;
		}
		gitsaid(fixed, nd->path, NULL);
		fixed = &made;	/* made anew: what it holds unsaid */
	} else if ((st.st_mode & 07777) != nd->mode) {
		gitsaid(fixed, nd->path, NULL);
	}
	if ((fd = openat(dir, nd->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                 O_CLOEXEC)) < 0 || fchmod(fd, nd->mode | 0700) < 0 ||
	    !(d = fdopendir(fd))) {
		gitfailed(g, i, nd->path, failed);
		if (fd >= 0)
			close(fd);
		return;
	}
	while (!nd->part && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    gitknown(g, i, de->d_name))
			continue;
		bufreset(&p);
		bufaddf(&p, "%s/%s", nd->path, de->d_name);
		if (gitremove(dirfd(d), de->d_name) < 0)
			gitfailed(g, i, p.p, failed);
		else
			gitsaid(fixed, p.p, NULL);
	}
	for (k = i + 1; k < nd->end; k++)
		if (g->v[k].parent == i)
			gitfix(g, dirfd(d), k, fixed, failed);
	if (fchmod(dirfd(d), nd->mode) < 0)
		gitfailed(g, i, nd->path, failed);
	closedir(d);
	buffree(&p);
	gitsayfree(&made);
}

/* Submodules */

typedef void Gitlinkfn(void *arg, const char *path, size_t n);

static unsigned long
gitbe(const unsigned char *p, int n)
{
	unsigned long v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/* The number at *at (the index's version 4 writes one before each
 * path: how much of the one before to drop), at most max: -1 if it is
 * cut short or larger. */
static int
gitvarint(const unsigned char *p, size_t n, size_t *at, size_t max,
          size_t *v)
{
	unsigned c;
	size_t val;

	if (*at >= n)
		return -1;
	c = p[(*at)++];
	val = c & 127;
	while (c & 128) {
		if (*at >= n || val > max)
			return -1;
		c = p[(*at)++];
		val = (val + 1) << 7 | (c & 127);
	}
	if (val > max)
		return -1;
	*v = val;
	return 0;
}

/* Each gitlink (mode 160000) of the git index of n bytes at p, to fn;
 * hash is the size of its object names.  -1 if the bytes are not an
 * index of version 2, 3 or 4, as far as they are read. */
static int
gitlinks(const unsigned char *p, size_t n, size_t hash, Gitlinkfn *fn,
         void *arg)
{
	const unsigned char *e;
	unsigned long ver, cnt, k, mode, flags;
	size_t off = 12, at, fixed = 40 + hash + 2, strip, len;
	Buf path = { 0 };
	int rc = -1;

	if (n < 12 || memcmp(p, "DIRC", 4))
		return -1;
	ver = gitbe(p + 4, 4);
	cnt = gitbe(p + 8, 4);
	if (ver < 2 || ver > 4)
		return -1;
	for (k = 0; k < cnt; k++, off = at) {
		if (n - off < fixed)
			goto done;
		mode = gitbe(p + off + 24, 4);
		flags = gitbe(p + off + 40 + hash, 2);
		at = off + fixed + (ver >= 3 && (flags & 0x4000) ? 2 : 0);
		if (at > n)
			goto done;
		if (ver == 4 && gitvarint(p, n, &at, path.len, &strip) < 0)
			goto done;
		path.len = ver == 4 ? path.len - strip : 0;
		if (!(e = memchr(p + at, '\0', n - at)) ||
		    (len = e - (p + at)) > GITPATHMAX - path.len)
			goto done;
		bufadd(&path, p + at, len);
		at += len + 1;
		if (ver < 4)	/* 1 to 8 NULs: the entry a multiple of 8 */
			at = off + ((at - 1 - off + 8) & ~(size_t)7);
		if (at > n)
			goto done;
		if ((mode & 0170000) == 0160000)
			fn(arg, bstr(&path), path.len);
	}
	rc = 0;
done:
	buffree(&path);
	return rc;
}

/* Whether path is one git would enter: relative, no "", ".", ".." or
 * ".git" in it (git refuses such paths). */
static int
gitsafepath(const char *path, size_t n)
{
	const char *s = path, *e;

	if (!n || strlen(path) != n)
		return 0;
	for (; ; s = e + 1) {
		e = s + strcspn(s, "/");
		if (e == s || (e - s == 1 && s[0] == '.') ||
		    (e - s == 2 && !strncmp(s, "..", 2)) ||
		    (e - s == 4 && !strncasecmp(s, ".git", 4)))
			return 0;
		if (!*e)
			return 1;
	}
}

/* The size of the object names: 32 if the config kept names SHA-256
 * (objectformat = sha256), else 20. */
static size_t
githashsize(const Gitcopy *g)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (!strcmp(g->v[i].path, ".git/config"))
			return strstr(bstr(&g->v[i].data), "sha256") ? 32 : 20;
	return 20;
}

/* Read .git/index (mapped, no link followed, not past GITINDEXMAX) if
 * it is not as last read: 1 and its gitlinks to fn; 0 if it is as it
 * was, or there is none; -1 if it cannot be read. */
static int
gitindex(Gitcopy *g, Gitlinkfn *fn, void *arg)
{
	struct stat st;
	const char *last;
	void *p;
	int fd, dir, rc;

	if ((dir = gitparentat(g->rootfd, ".git/index", &last)) < 0)
		return gitgone(errno) ? 0 : -1;
	fd = openat(dir, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	            O_CLOEXEC);
	close(dir);
	if (fd < 0 && errno == ENOENT) {
		memset(&g->index, 0, sizeof(g->index));
		return 0;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > GITINDEXMAX) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (gitsamestat(&g->index, &st)) {
		close(fd);
		return 0;
	}
	p = st.st_size ? mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd,
	                      0) : NULL;
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	g->index = st;
	rc = gitlinks(p, st.st_size, g->hash, fn, arg);
	if (p)
		munmap(p, st.st_size);
	return rc < 0 ? -1 : 1;
}

/* Said once: the index could not be read. */
static void
gitnoindex(Gitcopy *g)
{
	if (!g->saidindex++)
		warn("cannot read .git/index: its submodules are not kept");
}

/* Whether a node stands for path/.git, a gitlink's at start. */
static int
gitkept(const Gitcopy *g, const char *path, size_t n)
{
	int i;

	for (i = 1; i < g->n; i++)
		if (g->v[i].parent < 0 && !strncmp(g->v[i].path, path, n) &&
		    !strcmp(g->v[i].path + n, "/.git"))
			return 1;
	return 0;
}

/* A gitlink of the index at start: its .git kept as .git is, unless a
 * link stands on the way to it (then it is watched as one added). */
typedef struct {
	Gitcopy *g;
	Buf *why;
	int rc;
} Gitstart;

static void
gitstartlink(void *arg, const char *path, size_t n)
{
	Gitstart *s = arg;
	Gitcopy *g = s->g;
	Buf p = { 0 };
	const char *last;
	int fd;

	if (s->rc < 0 || !gitsafepath(path, n) || gitkept(g, path, n))
		return;
	bufaddf(&p, "%s/.git", path);
	if ((fd = gitparentat(g->rootfd, p.p, &last)) >= 0) {
		s->rc = gitsnap(g, fd, p.p, -1, s->why);
		close(fd);
	} else if (errno == ENOENT) {
		gitadd(g, p.p, -1);	/* GABSENT */
	} else if (gitgone(errno)) {
		bufadd(&g->links, path, n + 1);
	} else {
		bufaddf(s->why, "%s: %s", p.p, strerror(errno));
		s->rc = -1;
	}
	buffree(&p);
}

/* A gitlink of the index now: watched if it was not one at start. */
static void
gitnewlink(void *arg, const char *path, size_t n)
{
	Gitcopy *g = arg;

	if (gitsafepath(path, n) && !gitkept(g, path, n) &&
	    g->links.len < (size_t)g->maxfiles * 64)
		bufadd(&g->links, path, n + 1);
}

/* Whether st changed before the copy was made: the user's, then. */
static int
gitbefore(const Gitcopy *g, const struct stat *st)
{
	return st->st_ctim.tv_sec < g->start.tv_sec ||
	       (st->st_ctim.tv_sec == g->start.tv_sec &&
	        st->st_ctim.tv_nsec < g->start.tv_nsec);
}

/* A .git under gitlink path that was not one at start, made or changed
 * since, is a tool's: a file or link (it may name any repository) goes;
 * of a directory, what git obeys (gitnames) of it, its objects and
 * refs staying.  What is older is the user's (a repository in the tree
 * that git add took in), left as it is. */
static void
gitunplant(Gitcopy *g, const char *path, Gitlist *fixed, Gitlist *failed)
{
	struct stat st;
	Buf p = { 0 };
	const char *last;
	int fd, dir = -1, k;

	bufaddf(&p, "%s/.git", path);
	if ((fd = gitparentat(g->rootfd, p.p, &last)) < 0 ||
	    fstatat(fd, last, &st, AT_SYMLINK_NOFOLLOW) < 0)
		goto done;	/* git enters no .git that is not there */
	if (!S_ISDIR(st.st_mode)) {
		if (gitbefore(g, &st))
			;
		else if (unlinkat(fd, last, 0) < 0)
			gitsaid(failed, p.p, strerror(errno));
		else
			gitsaid(fixed, p.p, NULL);
		goto done;
	}
	if ((dir = openat(fd, last, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                  O_CLOEXEC)) < 0) {
		gitsaid(failed, p.p, strerror(errno));
		goto done;
	}
	for (k = 0; gitnames[k]; k++) {
		if (fstatat(dir, gitnames[k], &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    gitbefore(g, &st))
			continue;
		bufreset(&p);
		bufaddf(&p, "%s/.git/%s", path, gitnames[k]);
		if (rmtreeat(dir, gitnames[k]) < 0)
			gitsaid(failed, p.p, strerror(errno));
		else
			gitsaid(fixed, p.p, NULL);
	}
done:
	if (dir >= 0)
		close(dir);
	if (fd >= 0)
		close(fd);
	buffree(&p);
}

/* The gitlinks added since start, from the index if it changed, and
 * what a tool planted under them removed; said once if the index
 * cannot be read. */
static void
gitlinkcheck(Gitcopy *g, Gitlist *fixed, Gitlist *failed)
{
	Buf old = g->links;
	const char *s;
	int rc, n = failed->n;

	memset(&g->links, 0, sizeof(g->links));
	if ((rc = gitindex(g, gitnewlink, g)) < 0)
		gitnoindex(g);
	if (rc <= 0) {
		buffree(&g->links);
		g->links = old;
	} else {
		buffree(&old);
	}
	for (s = bstr(&g->links); s < bstr(&g->links) + g->links.len;
	     s += strlen(s) + 1)
		gitunplant(g, s, fixed, failed);
	g->unplanted = failed->n > n;
}

/* Put top-level node i back: .git, or a submodule's .git, reached
 * through directories alone. */
static void
gitfixtop(Gitcopy *g, int i, Gitlist *fixed, Gitlist *failed)
{
	const char *last;
	int fd;

	if ((fd = gitparentat(g->rootfd, g->v[i].path, &last)) < 0) {
		if (!gitgone(errno))
			gitfailed(g, i, g->v[i].path, failed);
		return;	/* no directory: no submodule to enter */
	}
	gitfix(g, fd, i, fixed, failed);
	close(fd);
}

/* The submodules of the index at start, each one's .git kept; said
 * once if the index cannot be read.  -1 with why if a .git cannot be
 * copied. */
static int
gitsubinit(Gitcopy *g, Buf *why)
{
	Gitstart s;

	s.g = g;
	s.why = why;
	s.rc = 0;
	g->hash = githashsize(g);
	if (gitindex(g, gitstartlink, &s) < 0 && s.rc == 0)
		gitnoindex(g);
	return s.rc;
}

/* With gitwrite 0 and a .git in the working directory: copy what of it
 * git obeys.  -1 with why if it cannot be copied whole, or holds more
 * than maxfiles files or maxbytes bytes: the run does not start. */
int
gitinit(Gitguard *e, size_t maxbytes, int maxfiles, Buf *why)
{
	Gitcopy *g;
	struct stat st;
	Buf b = { 0 };
	int fd, rc;

	if (e->write || e->copy)
		return 0;
	if ((fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		bufaddf(why, "the working directory: %s", strerror(errno));
		return -1;
	}
	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(fd);
		return 0;	/* no repository: nothing to keep */
	}
	g = e->copy = xcalloc(1, sizeof(*g));
	g->rootfd = fd;
	/* 2 s before: a file's time is the kernel's coarse clock, and on
	 * some file systems counts in 2 s steps */
	clock_gettime(CLOCK_REALTIME, &g->start);
	g->start.tv_sec -= 2;
	g->maxbytes = maxbytes;
	g->maxfiles = maxfiles;
	if (!S_ISDIR(st.st_mode)) {
		rc = gitsnap(g, fd, ".git", -1, why);
	} else {
		gitadd(g, ".git", -1);
		g->v[0].kind = GDIR;
		g->v[0].part = 1;
		g->v[0].st = st;
		g->v[0].mode = st.st_mode & 07777;
		rc = (fd = openat(fd, ".git", O_RDONLY | O_DIRECTORY |
		                  O_NOFOLLOW | O_CLOEXEC)) < 0 ? -1 :
		     gitsnapdir(g, fd, 0, why);
		if (fd < 0)
			bufaddf(why, ".git: %s", strerror(errno));
	}
	if (rc == 0 && g->v[0].kind == GDIR)
		rc = gitsubinit(g, why);
	if (rc < 0) {
		/* a part copied must not be put back over the rest */
		gitfree(e);
		bufadds(&b, bstr(why));
		bufreset(why);
		bufaddf(why, "cannot keep .git's config and hooks as they "
		        "are (%s): use a profile with gitwrite, or raise "
		        "maxgitbytes or maxgitfiles in config.h", b.p);
		buffree(&b);
		return -1;
	}
	return 0;
}

/* Put back what a tool changed of .git's config and hooks, if the
 * fingerprint says anything did; say so on stderr, and keep it for the
 * model (gitnote).  1 if anything was put back or could not be. */
int
gitcheck(Gitguard *e)
{
	Gitcopy *g = e ? e->copy : NULL;
	Gitlist fixed = { 0 }, failed = { 0 };
	int i, n;

	if (!g)
		return 0;
	if (gitstale(g, NULL)) {
		for (i = 0; i < g->n; i++)
			g->v[i].bad = 0;
		for (i = 0; i < g->n; i++)
			if (g->v[i].parent < 0)
				gitfixtop(g, i, &fixed, &failed);
		gitstamp(g);
	}
	if (g->v[0].kind == GDIR)
		gitlinkcheck(g, &fixed, &failed);
	gitsayadd(&g->told, &fixed);
	gitsayadd(&g->nottold, &failed);
	if (fixed.n)
		warn("a tool changed %s: put back as it was (git's config "
		     "and hooks are read-only for tools)", gitsaytext(&fixed));
	if (failed.n)
		warn("a tool changed %s, and it CANNOT be put back: check "
		     "it before you run git", gitsaytext(&failed));
	n = fixed.n || failed.n;
	gitsayfree(&fixed);
	gitsayfree(&failed);
	return n;
}

/* The user ran a command of their own (rpc's bash): what it changed
 * of .git stays, copied anew. */
void
gitagain(Gitguard *e)
{
	Gitcopy *g = e ? e->copy : NULL;
	Buf why = { 0 };
	size_t max;
	int files;

	if (!g)
		return;
	max = g->maxbytes;
	files = g->maxfiles;
	gitfree(e);
	if (gitinit(e, max, files, &why) < 0)
		warn("%s; .git is no longer kept as it is", why.p);
	buffree(&why);
}

/* What was put back since the model was last told, and what could
 * not be, at the end of a tool result. */
void
gitnote(Gitguard *e, Buf *res)
{
	Gitcopy *g = e ? e->copy : NULL;

	if (g && g->told.n)
		bufaddf(res, "\n\nRestored %s: git's configuration and hooks "
		        "(.git/config, config.worktree, commondir, hooks/, "
		        "info/, and those of submodules, the .git in their "
		        "directory and theirs in .git/modules) are "
		        "read-only for tools in this run, and were put back "
		        "as they were.", gitsaytext(&g->told));
	if (g && g->nottold.n)
		bufaddf(res, "\n\nCould NOT put back %s: git's configuration "
		        "and hooks are read-only for tools in this run, but "
		        "these changes could not be undone; the user is "
		        "warned. Do not run git until the user has checked "
		        ".git.",
		        gitsaytext(&g->nottold));
	if (g) {
		gitsayfree(&g->told);
		gitsayfree(&g->nottold);
	}
}

/* The last check, at exit: after the tool processes are ended, so that
 * none changes .git after it.  What still differs is said loudly, and
 * makes the exit status 1 (bad): the user's next git command would
 * obey it. */
void
gitexit(Gitguard *e)
{
	Gitlist l = { 0 };

	gitcheck(e);
	if (!e || !e->copy)
		return;
	if (e->copy->unplanted)
		gitsaid(&l, "a submodule's .git made by a tool", NULL);
	if (!gitstale(e->copy, &l) && !l.n)
		return;
	warn("WARNING: git's config or hooks differ from what they were at "
	     "start, and could not be put back: %s.  Git may run a tool's "
	     "commands: check .git before you run git.", gitsaytext(&l));
	e->bad = 1;
	gitsayfree(&l);
}

void
gitfree(Gitguard *e)
{
	Gitcopy *g = e ? e->copy : NULL;
	int i;

	if (!g)
		return;
	for (i = 0; i < g->n; i++) {
		free(g->v[i].path);
		buffree(&g->v[i].data);
	}
	free(g->v);
	buffree(&g->links);
	gitsayfree(&g->told);
	gitsayfree(&g->nottold);
	close(g->rootfd);
	free(g);
	e->copy = NULL;
}
