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
 * removed: its config would be obeyed as well. */
#define _XOPEN_SOURCE 700
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "gitguard.h"

enum { GABSENT, GFILE, GDIR, GLINK };	/* what a node was at start */
enum {
	GITSAY = 20,		/* paths named in a message, then "and N
				 * more": a tool can add thousands */
	GITTRIES = 4,		/* temporary names tried */
	GITDEPTH = 64		/* directories deep a node may be: a
				 * submodule in a submodule in ... */
};

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
} Gitcopy;

/* What git reads of a .git directory; modules/ holds the submodules'
 * .git directories, which git reads too (git status goes into them).
 * Their objects and refs are not copied: what they hold is taken as
 * .git's own is. */
static const char *const gitnames[] = {
	"config", "config.worktree", "commondir", "hooks", "info", "modules",
	NULL
};

/* A node for name in the directory of node parent. */
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
	nd->name = nd->path + strlen(nd->path) - strlen(name);
	nd->parent = parent;
	nd->depth = parent >= 0 ? g->v[parent].depth + 1 : 0;
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

	if (nd->parent < 0)
		return;
	up = &g->v[nd->parent];
	if (up->part && !strcmp(nd->name, "modules"))
		nd->mods = 1;
	else if (up->mods && fstatat(fd, "HEAD", &st,
	                             AT_SYMLINK_NOFOLLOW) == 0)
		nd->part = 1;
	else if (up->mods)
		nd->mods = 1;
}

/* Copy name in dir, the directory of node parent: what it is, its
 * mode, its content, its fingerprint.  -1 with why. */
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

/* Nodes not as last seen, noted in l if not NULL: a few lstat calls,
 * the price of a check around every tool call. */
static int
gitstale(const Gitcopy *g, Gitlist *l)
{
	struct stat st;
	int i, have, n = 0;

	for (i = 0; i < g->n; i++) {
		have = fstatat(g->rootfd, g->v[i].path, &st,
		               AT_SYMLINK_NOFOLLOW) == 0;
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
 * model (gitnote).  1 if anything was put back or could not be. */
int
gitcheck(Gitguard *e)
{
	Gitcopy *g = e ? e->copy : NULL;
	Gitlist fixed = { 0 }, failed = { 0 };
	int i, n;

	if (!g || !gitstale(g, NULL))
		return 0;
	for (i = 0; i < g->n; i++)
		g->v[i].bad = 0;
	gitfix(g, g->rootfd, 0, &fixed, &failed);
	gitstamp(g);
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
		        "info/, and those of submodules in .git/modules) are "
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
	if (!e || !e->copy || !gitstale(e->copy, &l))
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
	gitsayfree(&g->told);
	gitsayfree(&g->nottold);
	close(g->rootfd);
	free(g);
	e->copy = NULL;
}
