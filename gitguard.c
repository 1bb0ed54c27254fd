/* See LICENSE file for copyright and license details. */
/* gitguard.c: git's execution surface kept as it was at start.  Git
 * obeys .git/config (core.fsmonitor, core.pager, aliases, hooksPath),
 * config.worktree, commondir (where the rest of the config is) and the
 * programs in hooks/, and reads info/ (attributes, exclude), at the
 * user's next git command, outside any sandbox.  Landlock only allows,
 * and allows a tree whole: it cannot keep these read-only beneath a
 * working directory tools may write.  So they are copied at start,
 * their fingerprint checked around every tool call, before every hook
 * and at exit, and what a tool changed is put back from the copy. */
#define _XOPEN_SOURCE 700
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

enum { GABSENT, GFILE, GDIR, GLINK };	/* what a node was at start */

typedef struct {
	char *path;		/* from the working directory */
	const char *name;	/* its last component, within path */
	int parent;		/* its directory's node; -1: the working
				 * directory */
	int end;		/* a directory: its nodes are those after it
				 * and before end */
	int part;		/* .git itself: only the nodes under it are
				 * kept, not what else it holds */
	int kind;		/* GABSENT, GFILE, GDIR, GLINK */
	mode_t mode;		/* its permission bits */
	Buf data;		/* a file's content, a link's target */
	struct stat st;		/* lstat last seen: the fingerprint */
} Gitnode;

struct Gitguard {
	int rootfd;		/* the working directory */
	Gitnode *v;		/* .git first, then each directory before
				 * what it holds */
	int n, cap;
	size_t bytes, maxbytes;	/* content copied, and the limit */
	int maxfiles;
	Buf told;		/* what was put back, not yet told the
				 * model */
};

/* What git reads of a .git directory. */
static const char *const gitnames[] = {
	"config", "config.worktree", "commondir", "hooks", "info", NULL
};

/* A node for name in the directory of node parent. */
static int
gitadd(Gitguard *g, const char *name, int parent)
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
	nd->name = nd->path + strlen(nd->path) - strlen(name);
	nd->parent = parent;
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

static int gitsnapdir(Gitguard *g, int dir, int i, Buf *why);

/* Copy name in dir, the directory of node parent: what it is, its
 * mode, its content, its fingerprint.  -1 with why. */
static int
gitsnap(Gitguard *g, int dir, const char *name, int parent, Buf *why)
{
	struct stat st;
	int i = gitadd(g, name, parent), fd;
	Gitnode *nd = &g->v[i];

	if (g->n > g->maxfiles) {
		bufaddf(why, "more than %d files", g->maxfiles);
		return -1;
	}
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
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
		if (gitread(dir, name, nd->kind, g->maxbytes - g->bytes,
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
	if ((fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                 O_CLOEXEC)) < 0) {
		bufaddf(why, "%s: %s", nd->path, strerror(errno));
		return -1;
	}
	return gitsnapdir(g, fd, i, why);
}

/* The nodes in the directory of node i, open at fd (closed here); of
 * .git, only gitnames. */
static int
gitsnapdir(Gitguard *g, int fd, int i, Buf *why)
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

/* Whether st is node nd as last seen.  .git's own times and size change
 * with every commit: only what it is counts.  The change time is the
 * one a tool cannot set back. */
static int
gitsame(const Gitnode *nd, const struct stat *st)
{
	if (st->st_dev != nd->st.st_dev || st->st_ino != nd->st.st_ino ||
	    st->st_mode != nd->st.st_mode)
		return 0;
	return nd->part || (st->st_size == nd->st.st_size &&
	       st->st_mtim.tv_sec == nd->st.st_mtim.tv_sec &&
	       st->st_mtim.tv_nsec == nd->st.st_mtim.tv_nsec &&
	       st->st_ctim.tv_sec == nd->st.st_ctim.tv_sec &&
	       st->st_ctim.tv_nsec == nd->st.st_ctim.tv_nsec);
}

/* Whether every node is as last seen: a few lstat calls, the price of
 * a check around every tool call. */
static int
gitfresh(const Gitguard *g)
{
	struct stat st;
	int i, have;

	for (i = 0; i < g->n; i++) {
		have = fstatat(g->rootfd, g->v[i].path, &st,
		               AT_SYMLINK_NOFOLLOW) == 0;
		if (g->v[i].kind == GABSENT ? have || errno != ENOENT :
		    !have || !gitsame(&g->v[i], &st))
			return 0;
	}
	return 1;
}

/* The fingerprints taken anew, after a restore. */
static void
gitstamp(Gitguard *g)
{
	int i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].kind != GABSENT &&
		    fstatat(g->rootfd, g->v[i].path, &g->v[i].st,
		            AT_SYMLINK_NOFOLLOW) < 0)
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

/* Note path as put back, or as not, with why. */
static void
gitsaid(Buf *b, const char *path, const char *why)
{
	bufadds(b, ", ");
	safetext(b, path, strlen(path), 1);
	if (why)
		bufaddf(b, " (%s)", why);
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

/* Put file or link node nd back in dir: made beside it, renamed over
 * it (a directory in its way removed first). */
static int
gitputfile(int dir, const Gitnode *nd, const struct stat *st, int have)
{
	Buf tmp = { 0 };
	int fd, rc = -1;

	bufaddf(&tmp, "%s.agent-restore", nd->name);
	if (gitremove(dir, tmp.p) < 0 ||
	    (have && S_ISDIR(st->st_mode) && gitremove(dir, nd->name) < 0))
		goto done;
	if (nd->kind == GLINK) {
		if (symlinkat(bstr(&nd->data), dir, tmp.p) < 0)
			goto done;
	} else {
		if ((fd = openat(dir, tmp.p, O_WRONLY | O_CREAT | O_EXCL |
		                 O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
			goto done;
		if (writeall(fd, nd->data.p, nd->data.len) < 0 ||
		    fchmod(fd, nd->mode) < 0) {
			close(fd);
			unlinkat(dir, tmp.p, 0);
			goto done;
		}
		if (close(fd) < 0)
			goto done;
	}
	if (renameat(dir, tmp.p, dir, nd->name) < 0)
		unlinkat(dir, tmp.p, 0);
	else
		rc = 0;
done:
	buffree(&tmp);
	return rc;
}

static void gitfixdir(Gitguard *g, int dir, int i, Buf *fixed,
                      Buf *failed);

/* Put node i back in dir, the directory of its parent: what differs is
 * noted in fixed, what cannot be put back in failed. */
static void
gitfix(Gitguard *g, int dir, int i, Buf *fixed, Buf *failed)
{
	const Gitnode *nd = &g->v[i];
	struct stat st;
	int have = fstatat(dir, nd->name, &st, AT_SYMLINK_NOFOLLOW) == 0;

	if (!have && errno != ENOENT) {
		gitsaid(failed, nd->path, strerror(errno));
		return;
	}
	if (nd->kind == GDIR) {
		gitfixdir(g, dir, i, fixed, failed);
		return;
	}
	if (nd->kind == GABSENT ? !have : have && gitsamefile(dir, nd, &st))
		return;
	gitsaid(fixed, nd->path, NULL);
	if (nd->kind == GABSENT ? gitremove(dir, nd->name) < 0 :
	    gitputfile(dir, nd, &st, have) < 0)
		gitsaid(failed, nd->path, strerror(errno));
}

/* Whether name is a node in the directory of node i. */
static int
gitknown(const Gitguard *g, int i, const char *name)
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
gitfixdir(Gitguard *g, int dir, int i, Buf *fixed, Buf *failed)
{
	const Gitnode *nd = &g->v[i];
	struct stat st;
	DIR *d;
	struct dirent *de;
	Buf p = { 0 }, made = { 0 };
	int fd, k;

	if (fstatat(dir, nd->name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		gitsaid(fixed, nd->path, NULL);
		fixed = &made;	/* made anew: what it holds unsaid */
		if (gitremove(dir, nd->name) < 0 ||
		    mkdirat(dir, nd->name, 0700) < 0) {
			gitsaid(failed, nd->path, strerror(errno));
			return;
		}
	} else if ((st.st_mode & 07777) != nd->mode) {
		gitsaid(fixed, nd->path, NULL);
	}
	if ((fd = openat(dir, nd->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	                 O_CLOEXEC)) < 0 || fchmod(fd, nd->mode | 0700) < 0 ||
	    !(d = fdopendir(fd))) {
		gitsaid(failed, nd->path, strerror(errno));
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
		gitsaid(fixed, p.p, NULL);
		if (gitremove(dirfd(d), de->d_name) < 0)
			gitsaid(failed, p.p, strerror(errno));
	}
	for (k = i + 1; k < nd->end; k++)
		if (g->v[k].parent == i)
			gitfix(g, dirfd(d), k, fixed, failed);
	if (fchmod(dirfd(d), nd->mode) < 0)
		gitsaid(failed, nd->path, strerror(errno));
	closedir(d);
	buffree(&p);
	buffree(&made);
}

/* With gitwrite 0 and a .git in the working directory: copy what of it
 * git obeys.  -1 with why if it cannot be copied whole, or holds more
 * than maxfiles files or maxbytes bytes: the run does not start. */
int
gitinit(Toolenv *e, size_t maxbytes, int maxfiles, Buf *why)
{
	Gitguard *g;
	struct stat st;
	Buf b = { 0 };
	int fd, rc;

	if (e->gitwrite || e->git)
		return 0;
	if ((fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		bufaddf(why, "the working directory: %s", strerror(errno));
		return -1;
	}
	if (fstatat(fd, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(fd);
		return 0;	/* no repository: nothing to keep */
	}
	g = e->git = xcalloc(1, sizeof(*g));
	g->rootfd = fd;
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
 * model (gitnote).  1 if anything was put back. */
int
gitcheck(Toolenv *e)
{
	Gitguard *g = e ? e->git : NULL;
	Buf fixed = { 0 }, failed = { 0 };
	int n = 0;

	if (!g || gitfresh(g))
		return 0;
	gitfix(g, g->rootfd, 0, &fixed, &failed);
	gitstamp(g);
	if (fixed.len) {
		warn("a tool changed %s: put back as it was (git's config "
		     "and hooks are read-only for tools)", fixed.p + 2);
		bufadd(&g->told, fixed.p, fixed.len);
		n = 1;
	}
	if (failed.len)
		warn("cannot put back %s: check them before you run git",
		     failed.p + 2);
	buffree(&fixed);
	buffree(&failed);
	return n;
}

/* The user ran a command of their own (rpc's bash): what it changed
 * of .git stays, copied anew. */
void
gitagain(Toolenv *e)
{
	Gitguard *g = e->git;
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

/* What was put back since the model was last told, at the end of a tool
 * result. */
void
gitnote(Toolenv *e, Buf *res)
{
	Gitguard *g = e->git;

	if (!g || !g->told.len)
		return;
	bufaddf(res, "\n\nRestored %s: git's configuration and hooks "
	        "(.git/config, config.worktree, commondir, hooks/, info/) "
	        "are read-only for tools in this run, and were put back as "
	        "they were.", g->told.p + 2);
	bufreset(&g->told);
}

/* The last check, at exit: after the tool processes are ended, so that
 * none changes .git after it. */
void
gitexit(Toolenv *e)
{
	gitcheck(e);
}

void
gitfree(Toolenv *e)
{
	Gitguard *g = e->git;
	int i;

	if (!g)
		return;
	for (i = 0; i < g->n; i++) {
		free(g->v[i].path);
		buffree(&g->v[i].data);
	}
	free(g->v);
	buffree(&g->told);
	close(g->rootfd);
	free(g);
	e->git = NULL;
}
