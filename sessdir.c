/* See LICENSE file for copyright and license details. */
/* sessdir.c: where sessions live, and which is the latest of a working
 * directory: the directory of session files, as pi lays it out. */
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
#include "json.h"
#include "entry.h"
#include "session.h"
#include "sessdir.h"

/* A session of a directory, as a list shows it. */
typedef struct {
	char *path;
	char *id;		/* the header's session id ("" if none) */
	long long mtime;	/* when the file was last written: seconds, */
	long mnsec;		/* and nanoseconds */
	size_t entries;		/* its lines after the header */
	char *prompt;		/* its first user message's text, or NULL */
	char *name;		/* pi's session_info name before it, or NULL */
} Sessinfo;

enum {
	HEADMAX = 65536,	/* sessdirlatest reads no more of a header line */
	PROMPTMAX = 1 << 20,	/* a list looks for the first prompt in lines
				 * no longer */
	STALE = 600		/* a temp file this many seconds old is a
				 * crash's leftover */
};

/* Where sessions live: AGENT_SESSION_DIR, or under the XDG data home. */
static char *
sessdirbase(void)
{
	Buf b = { 0 };
	const char *v;

	if ((v = getenv("AGENT_SESSION_DIR")) && *v)
		bufadds(&b, v);
	else if ((v = getenv("XDG_DATA_HOME")) && *v)
		bufaddf(&b, "%s/agent/sessions", v);
	else if ((v = getenv("HOME")) && *v)
		bufaddf(&b, "%s/.local/share/agent/sessions", v);
	else
		return NULL;
	return bufdetach(&b);
}

char *
sessdirfor(const char *base, const char *cwd)
{
	Buf b = { 0 };
	size_t n = strlen(base);
	const char *p;

	while (n > 1 && base[n - 1] == '/')
		n--;
	bufadd(&b, base, n);
	bufadds(&b, "/--");
	if (*cwd == '/' || *cwd == '\\')
		cwd++;
	for (p = cwd; *p; p++)
		bufaddc(&b, strchr("/\\:", *p) ? '-' : *p);
	bufadds(&b, "--");
	return bufdetach(&b);
}

/* The cwd in the session header that is the first line of file path,
 * to be freed ("" if it has none), or NULL if that is no header. */
static char *
headcwd(const char *path)
{
	char *buf = xmalloc(HEADMAX), *nl, *cwd = NULL;
	ssize_t r;
	size_t n = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		goto out;
	while (n < HEADMAX && (r = read(fd, buf + n, HEADMAX - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out;
		if ((nl = memchr(buf + n, '\n', r))) {
			n = nl - buf;
			break;
		}
		n += r;
	}
	if (n && buf[n - 1] == '\r')
		n--;
	if (!entryheader(buf, n, NULL, &cwd))
		cwd = NULL;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return cwd;
}

/* Is a newer than b?  Names break ties: ours begin with their time. */
static int
newer(const struct stat *a, const char *an, const struct stat *b,
      const char *bn)
{
	if (a->st_mtim.tv_sec != b->st_mtim.tv_sec)
		return a->st_mtim.tv_sec > b->st_mtim.tv_sec;
	if (a->st_mtim.tv_nsec != b->st_mtim.tv_nsec)
		return a->st_mtim.tv_nsec > b->st_mtim.tv_nsec;
	return strcmp(an, bn) > 0;
}

/* Whether name is one of create's temp files: *.jsonl.XXXXXX. */
static int
istemp(const char *name)
{
	size_t n = strlen(name);

	return n > 13 && !strncmp(name + n - 13, ".jsonl.", 7) &&
	       strspn(name + n - 6, "abcdefghijklmnopqrstuvwxyz"
	              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == 6;
}

/* dir/name, to be freed, if it names a session file (*.jsonl, regular:
 * its stat in st), else NULL.  A temp file that a crash left between
 * mkstemp and link (create) is removed on the way. */
static char *
jsonlfile(const char *dir, const char *name, time_t now, struct stat *st)
{
	size_t n = strlen(name);
	char *path;

	path = xmalloc(strlen(dir) + n + 2);
	snprintf(path, strlen(dir) + n + 2, "%s/%s", dir, name);
	if (istemp(name) && lstat(path, st) == 0 && S_ISREG(st->st_mode) &&
	    st->st_mtime < now - STALE && unlink(path) < 0)
		warn("unlink %s:", path);
	if (n <= 6 || strcmp(name + n - 6, ".jsonl") || stat(path, st) < 0 ||
	    !S_ISREG(st->st_mode)) {
		free(path);
		return NULL;
	}
	return path;
}

/* The newest session file in dir of a session worked on in cwd (pi
 * records it), to be freed, or NULL.  A newer session of another
 * directory is passed over, and said so: the names of directories under
 * the session base collide ("/x/a-b/c" and "/x/a/b-c"). */
char *
sessdirlatest(const char *dir, const char *cwd)
{
	DIR *d;
	struct dirent *de;
	struct stat st, best, other;
	char *path, *found = NULL, *passed = NULL, *in = NULL;
	time_t now = time(NULL);

	memset(&best, 0, sizeof(best));
	memset(&other, 0, sizeof(other));	/* gcc -O2 cannot tell it is set */
	if (!(d = opendir(dir)))
		return NULL;
	while ((de = readdir(d))) {
		if (!(path = jsonlfile(dir, de->d_name, now, &st)) ||
		    (found && !newer(&st, path, &best, found)) ||
		    !(in = headcwd(path))) {
			free(path);
			continue;
		}
		if (!strcmp(in, cwd)) {
			free(found);
			found = path;
			best = st;
		} else if (!passed || newer(&st, path, &other, passed)) {
			free(passed);
			passed = path;
			other = st;
		} else {
			free(path);
		}
		free(in);
	}
	closedir(d);
	if (passed && (!found || newer(&other, passed, &best, found)))
		warn("%s: a session of another directory: not continued",
		     passed);
	free(passed);
	return found;
}

/* The header line p[n]: its id and cwd into si and *cwd; -1 if it is no
 * header. */
static int
scanhead(const char *p, size_t n, Sessinfo *si, char **cwd)
{
	Jmember m[] = { { "id", -1, 0, 0 } };
	Json j;

	if (!entryheader(p, n, NULL, cwd))
		return -1;
	si->id = NULL;
	if (jsonmembers(p, n, m, 1) == 0 && m[0].at &&
	    jsonparse(&j, p + m[0].at, m[0].len) == 0) {
		si->id = jsonstr(&j, 0);
		jsonfree(&j);
	}
	if (!si->id)
		si->id = xstrdup("");
	return 0;
}

/* The line p[n] after the header: the prompt into si, if it is the first
 * user message; the name, if it is pi's session_info (a task's session
 * is named so, before its prompt). */
static void
scanentry(const char *p, size_t n, Sessinfo *si)
{
	Jmember m[] = { { "type", -1, 0, 0 }, { "name", -1, 0, 0 } };
	Buf t = { 0 };
	Json j;

	if (jsonmembers(p, n, m, 2) == 0 && m[1].at && m[0].len == 14 &&
	    !memcmp(p + m[0].at, "\"session_info\"", 14) &&
	    jsonparse(&j, p + m[1].at, m[1].len) == 0) {
		free(si->name);
		si->name = jsonstr(&j, 0);
		jsonfree(&j);
	} else if (!strcmp(entrybrief(&t, "message", p, n), "user") && t.len) {
		si->prompt = bufdetach(&t);
	}
	buffree(&t);
}

/* Read a session file for a list: its id, entries, first prompt; its
 * cwd into *cwd.  0, or -1 if it is no session file. */
static int
scanfile(const char *path, Sessinfo *si, char **cwd)
{
	char buf[65536], *p, *nl;
	Buf line = { 0 };
	ssize_t r;
	size_t k, lines = 0;
	int fd, rc = -1, skip = 0;

	*cwd = NULL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		for (p = buf; p < buf + r; p = nl + 1) {
			nl = memchr(p, '\n', buf + r - p);
			k = (nl ? nl : buf + r) - p;
			/* only lines still to be looked at are taken */
			if (!skip && (!lines || !si->prompt))
				bufadd(&line, p, k);
			skip |= line.len > PROMPTMAX;
			if (!nl)
				break;
			if (!lines && (skip || scanhead(line.p ? line.p : "",
			    line.len, si, cwd) < 0))
				goto out;
			else if (lines && !skip && line.len && !si->prompt)
				scanentry(line.p, line.len, si);
			lines++;
			bufreset(&line);
			skip = 0;
		}
	}
	si->entries = lines ? lines - 1 : 0;
	rc = lines ? 0 : -1;
out:
	close(fd);
	buffree(&line);
	if (rc < 0) {
		free(*cwd);
		*cwd = NULL;
	}
	return rc;
}

/* Newest first, as sessdirlatest has it. */
static int
bynewest(const void *a, const void *b)
{
	const Sessinfo *x = a, *y = b;

	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	if (x->mnsec != y->mnsec)
		return x->mnsec > y->mnsec ? -1 : 1;
	return strcmp(y->path, x->path);
}

/* The sessions in dir worked on in cwd (their headers say), newest
 * first, into *list, to be freed with sessdirfree; how many. */
static size_t
sessdirlist(const char *dir, const char *cwd, Sessinfo **list)
{
	DIR *d;
	struct dirent *de;
	struct stat st;
	Sessinfo *v = NULL, si;
	size_t n = 0, cap = 0;
	char *path, *in;
	time_t now = time(NULL);

	*list = NULL;
	if (!(d = opendir(dir)))
		return 0;
	while ((de = readdir(d))) {
		if (!(path = jsonlfile(dir, de->d_name, now, &st)))
			continue;
		memset(&si, 0, sizeof(si));
		if (scanfile(path, &si, &in) < 0 || strcmp(in, cwd)) {
			free(path);
			free(in);
			free(si.id);
			free(si.prompt);
			free(si.name);
			continue;
		}
		free(in);
		si.path = path;
		si.mtime = st.st_mtim.tv_sec;
		si.mnsec = st.st_mtim.tv_nsec;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, cap * sizeof(*v));
		}
		v[n++] = si;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), bynewest);
	*list = v;
	return n;
}

static void
sessdirfree(Sessinfo *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].id);
		free(v[i].prompt);
		free(v[i].name);
	}
	free(v);
}

/* Whether -s's word names a file rather than the start of an id: pi's
 * rule, a / in it or .jsonl at its end. */
static int
sessdirispath(const char *word)
{
	size_t n = strlen(word);

	return strchr(word, '/') || (n >= 6 && !strcmp(word + n - 6, ".jsonl"));
}

/* The file of the session of dir worked on in cwd whose id begins with
 * prefix, to be freed; NULL with why: none does, or the candidates. */
static char *
sessdirpick(const char *dir, const char *cwd, const char *prefix, Buf *why)
{
	Sessinfo *v;
	size_t n, i, k = strlen(prefix), found = 0;
	char *path = NULL;

	n = sessdirlist(dir, cwd, &v);
	for (i = 0; i < n; i++)
		if (k && !strncmp(v[i].id, prefix, k) && ++found == 1)
			path = v[i].path;
	safetext(why, prefix, k, 1);
	if (found == 1) {
		path = xstrdup(path);
	} else if (!found) {
		path = NULL;
		bufadds(why, ": no session of this directory has an id that "
		        "begins so (agent -l lists them)");
	} else {
		path = NULL;
		bufadds(why, ": more than one session's id begins so:");
		for (i = 0; i < n; i++)
			if (!strncmp(v[i].id, prefix, k))
				bufaddf(why, "\n  %s  %s", v[i].id, v[i].path);
	}
	sessdirfree(v, n);
	return path;
}

/* One session of a list: its id's start, when it was last written (UTC),
 * its entries, its first prompt; cut to cols. */
static void
showinfo(FILE *f, const Sessinfo *si, size_t cols)
{
	Buf b = { 0 };
	int t[6];

	utcdate(si->mtime, t);
	safetext(&b, si->id, MIN(strlen(si->id), 8), 1);
	bufaddf(&b, "  %04d-%02d-%02d %02d:%02d  %5zu  ", t[0], t[1], t[2],
	        t[3], t[4], si->entries);
	if (si->name) {	/* a task's "task N of ID", or pi's /name */
		bufaddc(&b, '[');
		safetext(&b, si->name, MIN(strlen(si->name), 4 * cols), 1);
		bufadds(&b, "] ");
	}
	if (si->prompt)
		safetext(&b, si->prompt, MIN(strlen(si->prompt), 4 * cols), 1);
	else
		bufadds(&b, "(no prompt)");
	textcut(&b, cols);
	fprintf(f, "%s\n", b.p);
	buffree(&b);
}

size_t
sessdirshow(FILE *f, size_t cols)
{
	Sessinfo *v;
	size_t n = 0, i;
	char cwd[4096], *base, *dir;

	if (!getcwd(cwd, sizeof(cwd)) || !(base = sessdirbase())) {
		warn("no working directory, or no HOME and no "
		     "AGENT_SESSION_DIR: no sessions");
		return 0;
	}
	dir = sessdirfor(base, cwd);
	n = sessdirlist(dir, cwd, &v);
	for (i = 0; i < n; i++)
		showinfo(f, &v[i], cols);
	if (!n)
		fprintf(stderr, "agent: no sessions of %s (in %s)\n", cwd, dir);
	sessdirfree(v, n);
	free(dir);
	free(base);
	return n;
}

/* -s's or -f's (flag) word: a file, or the start of an id; the file of
 * that session, to be freed, or NULL with the candidates said. */
static char *
sfile(const char *dir, const char *cwd, const char *word, int flag)
{
	Buf why = { 0 };
	char *path;

	if (sessdirispath(word))
		return xstrdup(word);
	if (!(path = sessdirpick(dir, cwd, word, &why)))
		fprintf(stderr, "agent: -%c %s\n", flag, why.p);
	buffree(&why);
	return path;
}

/* Whether the directory a new session file would be made in is there:
 * none is begun in a directory a typo named.  0, or -1 said why. */
static int
sfiledir(const char *file)
{
	struct stat st;
	char *d = dirof(file);
	int r = 0;

	if (stat(d, &st) < 0 || (errno = ENOTDIR, !S_ISDIR(st.st_mode))) {
		warn("-s %s: %s:", file, d);
		r = -1;
	}
	free(d);
	return r;
}

/* -s: that file, or a new session there if it is not (or is empty);
 * without save, only read. */
static int
openfile(Session *s, const char *dir, const char *cwd, const char *word,
         int save)
{
	char *file = sfile(dir, cwd, word, 's');

	if (!file)
		return 2;
	if ((save ? sessload(s, file) : sessreadall(s, file)) < 0 &&
	    errno != ENOENT && errno != ENOTDIR) {
		free(file);
		return 1;
	}
	if (!s->head && sfiledir(file) < 0) {
		free(file);
		return 2;
	}
	if (!s->head && save) {
		sessnew(s, dir, cwd);
		free(s->path);
		s->path = file;
		return 0;
	}
	if (!s->head)
		sessnew(s, NULL, cwd);
	free(file);
	return 0;
}

/* -f: a new session (in dir, or in memory) holding a copy of the
 * branch of word's session (a file, or the start of an id of one in
 * sdir); the file is only read. */
static int
openfork(Session *s, const char *sdir, const char *dir, const char *cwd,
         const char *word)
{
	Session from;
	char *file = sfile(sdir, cwd, word, 'f');
	int rc = 1;

	if (!file)
		return 2;
	if (sessread(&from, file) < 0 && errno == ENOENT)
		warn("-f %s: no such session file", file);
	else if (from.head)
		rc = sessfork(s, &from, NULL, file, dir, cwd) < 0;
	if (from.head)
		sessfree(&from);
	free(file);
	return rc;
}

/* Whether a session file could be made in dir: its nearest ancestor
 * that exists may be written (a read-only root, a HOME mounted read-only
 * say no).  Nothing is made: a run that saves nothing leaves no trace.
 * 0 with errno, or 1. */
static int
canwrite(const char *dir)
{
	char *d = xstrdup(dir), *slash;
	int r;

	while ((r = access(d, W_OK | X_OK)) < 0 && errno == ENOENT &&
	    (slash = strrchr(d, '/')))
		slash[slash == d] = '\0';	/* "/x" gives "/" */
	free(d);
	return r == 0;
}

int
sessdiropen(Session *s, int mode, const char *file, int save)
{
	char cwd[4096], *base = NULL, *dir, *latest;
	struct stat st;
	int rc = 0;

	if (!getcwd(cwd, sizeof(cwd))) {
		warn("getcwd:");
		return 1;
	}
	if ((mode || save) && !(base = sessdirbase())) {
		warn("no HOME and no AGENT_SESSION_DIR: no session file");
		mode = save = 0;
	}
	if (!mode && !save)
		return sessnew(s, NULL, cwd);
	dir = sessdirfor(base, cwd);
	free(base);
	/* a new session where none can be saved: the run goes on, said */
	if (save && mode != 's' && mode != 'c' && !canwrite(dir)) {
		warn("%s: cannot write (%s): this run's session is not saved",
		     dir, strerror(errno));
		save = 0;
	}
	if (mode == 'c' && (latest = sessdirlatest(dir, cwd))) {
		rc = (save ? sessload(s, latest) : sessreadall(s, latest)) <
		     0;
		free(latest);
	} else if (mode == 's') {
		rc = openfile(s, dir, cwd, file, save);
	} else if (mode == 'f') {
		rc = openfork(s, dir, save ? dir : NULL, cwd, file);
	} else {
		sessnew(s, save ? dir : NULL, cwd);
	}
	free(dir);
	/* -s and -c asked for a file: no request is made that it would
	 * not keep */
	if (!rc && save && s->path && s->fd < 0) {
		dir = dirof(s->path);
		if (!canwrite(dir)) {
			warn("-%c: %s: cannot write (%s): the session would "
			     "not be saved", mode, dir, strerror(errno));
			rc = 1;
		}
		free(dir);
		if (rc)
			return rc;
	}
	/* pi refuses such a session; it goes on here, but not silently */
	if (!rc && s->cwd && stat(s->cwd, &st) < 0)
		warn("the session's working directory %s is gone: the tools "
		     "work in %s", s->cwd, cwd);
	return rc;
}

int
sessdirnext(Session *s, Session *cur, int fork, const char *at)
{
	char cwd[4096], *dir;
	int r = 0;

	if (!getcwd(cwd, sizeof(cwd))) {
		warn("getcwd:");
		return -1;
	}
	dir = cur->path ? dirof(cur->path) : NULL;
	if (fork)
		r = sessfork(s, cur, at, cur->path, dir, cwd);
	else
		sessnew(s, dir, cwd);
	free(dir);
	return r;
}
