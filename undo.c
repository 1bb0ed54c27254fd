/* See LICENSE file for copyright and license details. */
/* undo.c: /undo: the files that write and edit changed in the last turn,
 * put back as they were before it.  Each file's content before the turn
 * is kept in memory the first time a call is to change it, within a
 * bound; the hash of what the last call left, so that a file changed
 * since by someone else is left alone.  bash's changes are not undone. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util.h"
#include "sandbox.h"
#include "file.h"
#include "undo.h"

typedef struct {
	char *path;		/* where the calls wrote: absolute, the links
				 * followed (sandboxlanding) */
	Buf pre;		/* its content before the turn */
	struct stat st;		/* and its owner and mode */
	int err;		/* 0: kept; ENOENT: there was none; else
				 * why not kept (EFBIG: over the bound) */
	int done;		/* a call changed it */
	long long size;		/* what the last call left: its size, or -1
				 * if it could not be read, */
	unsigned long long hash;	/* and the hash of its content */
} Undofile;

typedef struct Undoturn {
	Undofile *f;
	int n;
	size_t kept, max;	/* bytes of content kept, the most there may
				 * be (config.h's maxundo) */
	int bash;		/* bash ran in the turn */
} Undoturn;

/* The file at path as it is, reached with no link followed, nor one on
 * the way: open, its status in st; -1 with errno (ENOENT none, ELOOP a
 * link, EINVAL not a regular file). */
static int
undoopen(const char *path, struct stat *st)
{
	const char *name;
	int dir, fd, err;

	if ((dir = sandboxwalk("/", path + 1, &name)) < 0)
		return -1;
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	err = errno;
	close(dir);
	if (fd >= 0 && (fstat(fd, st) < 0 || !S_ISREG(st->st_mode))) {
		close(fd);
		fd = -1;
		err = EINVAL;
	}
	errno = err;
	return fd;
}

/* The size of path's file (undoopen's), or -1, as when it is not from
 * min to max bytes (a sparse file of 1 TB put there is not read); the
 * FNV-1a hash of its content in *h: not proof against a forger, who
 * could only make /undo put back what was there before over what it
 * forged. */
static long long
undohash(const char *path, unsigned long long *h, long long min,
         long long max)
{
	struct stat st;
	char buf[8192];
	long long size = 0;
	ssize_t n, i;
	int fd;

	*h = 14695981039346656037ULL;
	if ((fd = undoopen(path, &st)) < 0)
		return -1;
	if (st.st_size < min || st.st_size > max) {
		close(fd);
		return -1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0 ||
	       (n < 0 && errno == EINTR))
		for (i = 0; i < n; i++, size++)
			*h = (*h ^ (unsigned char)buf[i]) * 1099511628211ULL;
	close(fd);
	return n < 0 ? -1 : size;
}

/* A new record for a turn: up to max bytes of content kept. */
void
undobegin(Undo *e)
{
	undofree(e);
	e->turn = xcalloc(1, sizeof(*e->turn));
	e->turn->max = e->max;
}

/* Before write or edit changes path (allowed by sandboxwritable): its
 * content kept, the first time in the turn.  The file's index in the
 * record for undoafter, or -1. */
int
undobefore(Undo *e, const char *path)
{
	Undoturn *u = e ? e->turn : NULL;
	Undofile *f;
	char *to;
	int k, fd, r;

	if (!u || !(to = sandboxlanding(path)))
		return -1;
	for (k = 0; k < u->n; k++)
		if (!strcmp(u->f[k].path, to)) {
			free(to);
			return k;
		}
	u->f = xrealloc(u->f, (u->n + 1) * sizeof(*u->f));
	f = &u->f[u->n];
	memset(f, 0, sizeof(*f));
	f->path = to;
	if ((fd = undoopen(to, &f->st)) < 0)
		f->err = errno;
	else if ((r = (size_t)f->st.st_size > u->max - u->kept ? 1 :
	              readall(fd, &f->pre, u->max - u->kept)) != 0)
		f->err = r > 0 ? EFBIG : errno;
	if (fd >= 0)
		close(fd);
	if (f->err)
		buffree(&f->pre);
	else	/* what is held, not what readall's growth left */
		f->pre.p = xrealloc(f->pre.p, f->pre.cap = f->pre.len + 1);
	u->kept += f->pre.len;
	return u->n++;
}

/* After the call (rc its status): what it left, if it changed k. */
void
undoafter(Undo *e, int k, int rc)
{
	Undofile *f;

	if (k < 0 || rc)
		return;
	f = &e->turn->f[k];
	f->done = 1;
	/* what a call leaves is not much over maxedit */
	f->size = undohash(f->path, &f->hash, 0, 4 * e->maxedit);
}

void
undobash(Undo *e)
{
	if (e && e->turn)
		e->turn->bash = 1;
}

/* Put f back, unless it changed since the turn; what was done into
 * line.  A link planted since, on the way or in its place, is not
 * followed: the walk follows none, and rename and unlink replace the
 * name itself. */
static void
undoput(Undofile *f, const char *show, Buf *line)
{
	unsigned long long h;
	const char *name, *why = NULL;
	int dir = -1;

	if (f->err && f->err != ENOENT)
		why = f->err == EFBIG ? "its content before the turn was not "
		      "kept: over the undo bound (maxundo)" : strerror(f->err);
	else if (f->size < 0 ||
	         undohash(f->path, &h, f->size, f->size) != f->size ||
	         h != f->hash)
		why = "it changed since the turn";
	else if ((dir = sandboxwalk("/", f->path + 1, &name)) < 0 ||
	         (f->err ? unlinkat(dir, name, 0) : filereplaceat(dir, name,
	          &f->st, f->pre.p, f->pre.len)) < 0 || fsync(dir) < 0)
		why = strerror(errno);
	if (dir >= 0)
		close(dir);
	if (why)
		bufaddf(line, "left %s: %s", show, why);
	else
		bufaddf(line, f->err ? "removed %s: it did not exist before "
		        "the turn" : "restored %s", show);
}

/* /undo: the files put back, a line each on stderr; the record goes.
 * The text that tells the model, or NULL if no file was changed. */
char *
undorun(Undo *e)
{
	Undoturn *u = e ? e->turn : NULL;
	Buf msg = { 0 }, line = { 0 };
	const char *show;
	size_t n = e->root ? strlen(e->root) : 0, at;
	int k, any = 0;

	bufadds(&msg, "/undo: the user put back the files that write and "
	        "edit changed in the last turn, as they were before it:");
	for (k = 0; u && k < u->n; k++) {
		if (!u->f[k].done)
			continue;
		show = u->f[k].path;
		if (n > 1 && !strncmp(show, e->root, n) && show[n] == '/')
			show += n + 1;
		bufreset(&line);
		undoput(&u->f[k], show, &line);
		bufaddc(&msg, '\n');
		at = msg.len;	/* the name is the model's: made safe */
		safetext(&msg, line.p, line.len, 1);
		warn("undo: %s", msg.p + at);
		any = 1;
	}
	if (!any)
		warn("undo: nothing to undo");
	if (u && u->bash) {
		bufadds(&msg, "\nbash ran in that turn: its changes are not "
		        "undone");
		warn("undo: %s", strrchr(msg.p, '\n') + 1);
	}
	undofree(e);
	buffree(&line);
	if (!any)
		buffree(&msg);
	return any ? bufdetach(&msg) : NULL;
}

void
undofree(Undo *e)
{
	Undoturn *u = e ? e->turn : NULL;
	int k;

	if (!u)
		return;
	for (k = 0; k < u->n; k++) {
		free(u->f[k].path);
		buffree(&u->f[k].pre);
	}
	free(u->f);
	free(u);
	e->turn = NULL;
}
