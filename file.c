/* See LICENSE file for copyright and license details. */
/* file.c: files as the tools take them: opened to be read as text, read
 * in chunks and lines, told text from binary; replaced whole through a
 * temporary file and rename(2), by path or (undo's) by a directory's
 * descriptor and a name. */
#include <sys/stat.h>
#include <sys/types.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "file.h"

static void
fileerr(Buf *out, const char *path, int err)
{
	if (err == ENOENT)
		bufaddf(out, "File not found: %s", path);
	else if (err == EACCES)
		bufaddf(out, "Permission denied: %s", path);
	else
		bufaddf(out, "Cannot open %s: %s", path, strerror(err));
}

/* Open a file to read its text; -1 with the reason in out. */
int
fileopen(const char *path, Buf *out)
{
	struct stat st;
	int fd;

	if (stat(path, &st) < 0) {
		fileerr(out, path, errno);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		bufaddf(out, "%s is a directory, not a file: use ls to list "
		        "it", path);
		return -1;
	}
	/* a device or FIFO may never end (/dev/tty, /dev/zero) */
	if (!S_ISREG(st.st_mode)) {
		bufaddf(out, "%s is not a regular file", path);
		return -1;
	}
	/* O_NONBLOCK: should a FIFO take its place now, open does not wait */
	if ((fd = open(path, O_RDONLY | O_NONBLOCK)) < 0) {
		fileerr(out, path, errno);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		bufaddf(out, "%s is not a regular file", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Refill r->buf once it is used up; -1 with errno on a read error, or
 * EINTR once SIGINT has come. */
int
filemore(Filerd *r)
{
	ssize_t n;

	r->pos = r->len = 0;
	while (!r->eof && r->len < sizeof(r->buf)) {
		if (r->intr && *r->intr) {
			errno = EINTR;
			return -1;
		}
		n = read(r->fd, r->buf + r->len, sizeof(r->buf) - r->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			r->eof = 1;
		r->len += n;
	}
	return 0;
}

/* The next line without its newline: at most cap bytes of it kept in line,
 * its whole length in *n.  1 for a line, 0 at the end, -1 on error.  A last
 * line without a newline counts; the end after a final newline does not. */
int
fileline(Filerd *r, Buf *line, size_t cap, size_t *n)
{
	const char *nl;
	size_t k;
	int any = 0;

	bufreset(line);
	*n = 0;
	for (;;) {
		if (r->pos == r->len) {
			if (r->eof)
				return any;
			if (filemore(r) < 0)
				return -1;
			continue;
		}
		nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
		k = (nl ? (size_t)(nl - r->buf) : r->len) - r->pos;
		if (line->len < cap)
			bufadd(line, r->buf + r->pos, MIN(k, cap - line->len));
		*n += k;
		r->pos += k;
		any = 1;
		r->nl = nl != NULL;
		if (nl) {
			r->pos++;
			return 1;
		}
	}
}

/* Binary: a NUL or invalid UTF-8 in the first FILESNIFF bytes.  p holds
 * all of the file's start that fits, so a character begun there is
 * complete. */
int
filebinary(const char *p, size_t n)
{
	size_t m = MIN(n, FILESNIFF);

	return memchr(p, '\0', m) || utf8valid(p, n) < m;
}

/* A reader of fd (which the caller closes), to be freed. */
Filerd *
filereader(int fd, volatile sig_atomic_t *intr)
{
	Filerd *r = xmalloc(sizeof(*r));

	r->fd = fd;
	r->intr = intr;
	r->eof = 0;
	r->pos = r->len = 0;
	return r;
}

/* Create the directories above path, as mkdir -p. */
int
filemkparents(const char *path, Buf *out)
{
	char *dir = dirof(path), *bad;
	int rc = 0;

	if (mkdirs(dir, 0777, &bad) < 0) {
		bufaddf(out, "Cannot create directory %s: %s", bad,
		        errno == ENOTDIR ? "a file is in the way" :
		        strerror(errno));
		rc = -1;
	}
	free(bad);
	free(dir);
	return rc;
}

/* A new file next to target, from mkstemp; its mode as open(2) would
 * make it, mkstemp's being 0600. */
static int
tmpnear(const char *target, Buf *name)
{
	const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 :
	                   target;
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	/* the name cut short, or a long one would pass NAME_MAX */
	bufreset(name);
	bufadd(name, target, base - target);
	bufaddf(name, "%.200s.agentXXXXXX", base);
	if ((fd = mkstemp(name->p)) >= 0 && fchmod(fd, 0666 & ~mask) < 0) {
		close(fd);
		unlink(name->p);
		return -1;
	}
	return fd;
}

/* Fill the new file, keeping the old one's owner and mode; fd is closed
 * whatever happens, errno tells the first failure. */
static int
tmpfill(int fd, const struct stat *old, const char *p, size_t n)
{
	int err;

	/* chown first: it may clear the set-id bits that fchmod sets */
	if ((old && fchown(fd, old->st_uid, old->st_gid) < 0 &&
	     errno != EPERM) ||
	    (old && fchmod(fd, old->st_mode & 07777) < 0) ||
	    writeall(fd, p, n) < 0 || fsync(fd) < 0) {
		err = errno;
		close(fd);
		errno = err;
		return -1;
	}
	return close(fd);
}

/* Replace the file's content through a temporary file in the same
 * directory and rename(2), so a reader sees the old or the new file, never
 * half of one.  A symlink is written through; the file's owner and mode
 * are kept.  A hard link is not: the name gets a new file and the other
 * names keep the old one, the price of the atomic rename. */
int
filereplace(const char *path, const char *p, size_t n, Buf *out)
{
	struct stat st;
	Buf tmp = { 0 };
	char *real, *dir = NULL;
	const char *target;
	int fd, have, err, rc = -1;

	if (linktarget(path, &real) < 0) {
		bufaddf(out, "Cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	target = real ? real : path;
	have = stat(target, &st) == 0;
	if (have && S_ISDIR(st.st_mode)) {
		bufaddf(out, "Cannot write %s: it is a directory", path);
		goto done;
	}
	if (have && !S_ISREG(st.st_mode)) {
		bufaddf(out, "Cannot write %s: not a regular file", path);
		goto done;
	}
	/* the rename would replace a file we may not write */
	if (have && access(target, W_OK) < 0) {
		if (errno == EACCES)
			bufaddf(out, "Permission denied: %s is read-only",
			        path);
		else
			bufaddf(out, "Cannot write %s: %s", path,
			        strerror(errno));
		goto done;
	}
	if ((fd = tmpnear(target, &tmp)) < 0 ||
	    tmpfill(fd, have ? &st : NULL, p, n) < 0 ||
	    rename(tmp.p, target) < 0) {
		err = errno;
		if (fd >= 0)
			unlink(tmp.p);
		if (err == EACCES)
			bufaddf(out, "Permission denied: %s", path);
		else
			bufaddf(out, "Cannot write %s: %s", path,
			        strerror(err));
		goto done;
	}
	dir = dirof(target);
	if (syncdir(dir) < 0) {
		bufaddf(out, "Wrote %s, but cannot sync its directory: %s",
		        path, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	buffree(&tmp);
	free(real);
	free(dir);
	return rc;
}

/* Replace the entry name of the directory dir by a new file holding p,
 * with old's owner and mode, through a temporary file beside it and
 * renameat(2): the name is replaced, whatever it is now, never followed.
 * The caller syncs dir.  -1 with errno. */
int
filereplaceat(int dir, const char *name, const struct stat *old,
              const char *p, size_t n)
{
	char tmp[NAME_MAX + 1];
	int fd, err;

	snprintf(tmp, sizeof(tmp), "%.200s.agent%06x", name,
	         (unsigned)rand() & 0xffffff);
	if ((fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	                 O_CLOEXEC, 0600)) < 0)
		return -1;
	if (tmpfill(fd, old, p, n) < 0 || renameat(dir, tmp, dir, name) < 0) {
		err = errno;
		unlinkat(dir, tmp, 0);
		errno = err;
		return -1;
	}
	return 0;
}
