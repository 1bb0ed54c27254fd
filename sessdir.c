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
#include "sessdir.h"

enum {
	HEADMAX = 65536,	/* sessdirlatest reads no more of a header line */
	STALE = 600		/* a temp file this many seconds old is a
				 * crash's leftover */
};

/* Where sessions live: AGENT_SESSION_DIR, or under the XDG data home. */
char *
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
