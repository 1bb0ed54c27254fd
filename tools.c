/* See LICENSE file for copyright and license details. */
/* tools.c: the model's tools: read, write, edit, bash, grep, find, ls,
 * and the guard's hook commands; the sandbox they run in is sandbox.c's,
 * the tree walk of grep, find and ls walk.c's. */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "util.h"
#include "json.h"
#include "tools.h"
#include "sandbox.h"
#include "gitguard.h"
#include "walk.h"
#include "regex.h"

extern char **environ;

enum {
	CHUNK = 65536,		/* bytes read from a file at a time */
	SNIFF = 8192,		/* bytes looked at to tell text from binary */
	LINECAP = 1 << 20,	/* grep matches the first MiB of a line */
	IDLEMS = 150,		/* bash: idle pipe after the shell exited */
	DRAINMS = 1000,		/* bash: read no longer than this after exit */
	POLLMS = 100,		/* bash: how often to look at the child */
	POLLGAP = 50,		/* grep, find, ls: ms between looks at stdin */
	MAXTIMEOUT = 1000000,	/* seconds: a longer bash timeout is none */
	MAXINT = 1000000000,	/* the largest offset, limit or context */
	KILLMS = 1000,		/* ms past the KILL to wait for the last */
};

enum { CUTLINES = 1, CUTBYTES };	/* why a listing was cut */
enum { DONE, TIMEDOUT, ABORTED };	/* how a bash command ended */

/* A file read in chunks: the read tool never holds more than it returns. */
typedef struct {
	int fd;
	int eof;
	volatile sig_atomic_t *intr;	/* or NULL: set, reading stops */
	size_t pos, len;
	int nl;			/* the last line read ended in a newline */
	char buf[CHUNK];
} Rd;

/* Output built line by line from the top, cut at the Toolenv limits. */
typedef struct {
	Buf *out;
	size_t base;		/* where the listing starts in out */
	int lines;
	int cut;		/* CUTLINES or CUTBYTES: a line did not fit */
} Head;

/* The tail of a command's output, and all of it (up to maxlog bytes) in a
 * file once it is cut. */
typedef struct {
	Toolenv *e;
	Buf win;		/* the last bytes of output */
	int trimmed;		/* bytes before win were dropped */
	int prevnl;		/* and the last of them was a newline */
	unsigned long long total, nl;	/* bytes and newlines seen */
	size_t linelen, lastlen;	/* the open line, the last whole one */
	int fd;			/* the log file, -1 until needed */
	char *file;
	size_t saved;		/* bytes in it */
	int logcut;		/* more came past maxlog, not saved */
	int saveerr;		/* errno if the log could not be written */
} Tail;

/* A bash child: the shell, the group it leads, the pipe it writes to. */
typedef struct {
	pid_t pid;
	int fd;
	int status;
	int reaped;
	int nostatus;		/* reaped by someone else: status unknown */
	int eof;
	int held;		/* the shell exited, others hold the pipe */
} Proc;

/* When grep, find and ls stop before the end: SIGINT or RPC abort set
 * e->intr, or the time budget is spent. */
typedef struct {
	const Toolenv *e;
	long long end;		/* monoms() when the time is up, 0: never */
	long long polled;	/* when stdin was last looked at */
	int nowatch;		/* it ended: no more to look at */
	int timeout;		/* the time was up */
} Halt;

/* One .gitignore line; the newest (deepest, latest) rule comes first. */

typedef struct {
	const Toolenv *e;
	Regex re;
	int context, limit, matches, done, linecut;
	Head h;
	Buf line, text;
	Buf *ring;		/* the last context lines, cut for output */
	Rd *rd;
	Halt halt;
} Grep;

typedef struct {
	const Toolenv *e;
	Glob glob;
	int limit, n, more;
	Head h;
	Halt halt;
} Find;

typedef struct {
	Buf old, new;
	size_t pos;		/* where old was found in the file */
	int idx;		/* its place in the call */
} Edit;

/* The work of write or edit: run here, or in a child the sandbox
 * holds, its text and status coming back through a pipe. */
typedef struct {
	const Toolenv *e;
	char *path;
	Buf text;		/* write's content, edit's file */
	Edit *ed;
	int n;
} Job;

/* arguments */

static int
argfind(const Json *j, int args, const char *key)
{
	int i;

	if (args < 0 || args >= j->n || j->t[args].type != JOBJ)
		return -1;
	i = jsonget(j, args, key);
	return i >= 0 && !jsonisnull(j, i) ? i : -1;
}

static int
missing(Buf *out, const char *tool, const char *key)
{
	bufaddf(out, "%s: missing required parameter \"%s\"", tool, key);
	return -1;
}

/* A string argument appended to v; -1 with the reason in out. */
static int
bufarg(const Json *j, int args, const char *tool, const char *key, Buf *v,
       Buf *out)
{
	int i = argfind(j, args, key);

	if (i < 0)
		return missing(out, tool, key);
	if (jsonstrbuf(j, i, v) < 0) {
		bufaddf(out, "%s: parameter \"%s\" must be a string", tool,
		        key);
		return -1;
	}
	return 0;
}

/* A string argument, malloc'd; NULL if it is optional and absent. */
static int
strarg(const Json *j, int args, const char *tool, const char *key, int need,
       char **v, Buf *out)
{
	Buf b = { 0 };

	*v = NULL;
	if (!need && argfind(j, args, key) < 0)
		return 0;
	if (bufarg(j, args, tool, key, &b, out) < 0) {
		buffree(&b);
		return -1;
	}
	*v = bufdetach(&b);
	return 0;
}

/* Numbers may come as strings ("5"); *v is kept when the key is absent.
 * strtod takes "inf", "nan" and 1e999 too: only finite numbers pass, so
 * converting one to an integer in range is defined. */
static int
numarg(const Json *j, int args, const char *tool, const char *key,
       double *v, Buf *out)
{
	int i = argfind(j, args, key);
	double d;

	if (i < 0)
		return 0;
	if (jsonnum(j, i, &d) < 0 || d != d || d > DBL_MAX || d < -DBL_MAX) {
		bufaddf(out, "%s: parameter \"%s\" must be a number", tool,
		        key);
		return -1;
	}
	*v = d;
	return 0;
}

/* An integer of at most MAXINT either way: far beyond any count we use,
 * and sums of two still fit a long. */
static int
intarg(const Json *j, int args, const char *tool, const char *key, long *v,
       Buf *out)
{
	double d = *v;

	if (numarg(j, args, tool, key, &d, out) < 0)
		return -1;
	if (d > MAXINT || d < -MAXINT) {
		bufaddf(out, "%s: parameter \"%s\" is out of range (at most "
		        "%d)", tool, key, MAXINT);
		return -1;
	}
	*v = (long)d;
	return 0;
}

/* Booleans may come as strings ("true"). */
static int
boolarg(const Json *j, int args, const char *tool, const char *key, int *v,
        Buf *out)
{
	int i = argfind(j, args, key);

	if (i < 0)
		return 0;
	if (jsonbool(j, i, v) < 0) {
		bufaddf(out, "%s: parameter \"%s\" must be true or false",
		        tool, key);
		return -1;
	}
	return 0;
}

/* A path as models write it: "@" in front dropped, "~/" for $HOME. */
static char *
expandpath(const char *p)
{
	const char *home = getenv("HOME");
	Buf b = { 0 };

	if (*p == '@')
		p++;
	if (p[0] == '~' && (p[1] == '/' || !p[1]) && home && *home) {
		bufadds(&b, home);
		p++;
	}
	bufadds(&b, p);
	return bufdetach(&b);
}

static int
patharg(const Json *j, int args, const char *tool, int need, char **path,
        Buf *out)
{
	char *s;

	*path = NULL;
	if (strarg(j, args, tool, "path", need, &s, out) < 0)
		return -1;
	if (!s && !need)
		s = xstrdup(".");
	if (!*s) {
		free(s);
		bufaddf(out, "%s: parameter \"path\" must not be empty", tool);
		return -1;
	}
	*path = expandpath(s);
	free(s);
	return 0;
}

/* output limits */

static void
addsize(Buf *b, unsigned long long n)
{
	if (n < 1024)
		bufaddf(b, "%lluB", n);
	else if (n < 1024 * 1024)
		bufaddf(b, "%.1fKB", n / 1024.0);
	else if (n < 1024 * 1024 * 1024)
		bufaddf(b, "%.1fMB", n / (1024.0 * 1024.0));
	else
		bufaddf(b, "%.1fGB", n / (1024.0 * 1024.0 * 1024.0));
}

/* Why a file or a content is refused: it would be held in memory whole,
 * a few times over, and written back whole (a sparse file too). */
static void
overedit(const Toolenv *e, const char *tool, unsigned long long size,
         Buf *out)
{
	addsize(out, size);
	bufadds(out, ", over the ");
	addsize(out, e->maxedit);
	bufaddf(out, " limit for %s.", tool);
}

/* Append a line unless the limits forbid it: 0 if added. */
static int
headline(const Toolenv *e, Head *h, const char *s, size_t n)
{
	size_t used = h->out->len - h->base;

	if (h->cut)
		return -1;
	if (h->lines >= e->maxlines) {
		h->cut = CUTLINES;
		return -1;
	}
	if (used + (h->lines > 0) + n > e->maxbytes) {
		h->cut = CUTBYTES;
		return -1;
	}
	if (h->lines > 0)
		bufaddc(h->out, '\n');
	bufadd(h->out, s, n);
	h->lines++;
	return 0;
}

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
		bufaddf(nb, "%d lines limit reached", e->maxlines);
	} else {
		addsize(nb, e->maxbytes);
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
	if (e->searchtime > 0)
		h->end = monoms() + e->searchtime * 1000LL;
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
	if (e->watch && !h->nowatch && now - h->polled >= POLLGAP) {
		h->polled = now;
		pf.fd = e->watchfd;
		pf.events = POLLIN;
		if (poll(&pf, 1, 0) > 0 && e->watch(e->watcharg))
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
	        "are incomplete; %s", h->e->searchtime, hint);
}

/* The walk of grep and find: config.h's bounds, and h to stop it. */
static void
searchopt(Walkopt *o, const Toolenv *e, Halt *h)
{
	o->ignorebytes = e->ignorebytes;
	o->ignorelines = e->ignorelines;
	o->maxrules = e->maxrules;
	o->rulebytes = e->rulebytes;
	o->stop = halted;
	o->stoparg = h;
}

/* A search cut short by SIGINT is an error: what it found so far with a
 * notice, or "Interrupted" alone.  1 if it was. */
static int
stopped(const Toolenv *e, const Head *h)
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

/* files */

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
static int
openread(const char *path, Buf *out)
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
static int
rdmore(Rd *r)
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
static int
rdline(Rd *r, Buf *line, size_t cap, size_t *n)
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
			if (rdmore(r) < 0)
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

/* Binary: a NUL or invalid UTF-8 in the first SNIFF bytes.  p holds all of
 * the file's start that fits, so a character begun there is complete. */
static int
isbinary(const char *p, size_t n)
{
	size_t m = MIN(n, SNIFF);

	return memchr(p, '\0', m) || utf8valid(p, n) < m;
}

static Rd *
rdopen(int fd, volatile sig_atomic_t *intr)
{
	Rd *r = xmalloc(sizeof(*r));

	r->fd = fd;
	r->intr = intr;
	r->eof = 0;
	r->pos = r->len = 0;
	return r;
}

/* Create the directories above path, as mkdir -p. */
static int
mkparents(const char *path, Buf *out)
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
	mode_t mask = umask(0);
	int fd;

	umask(mask);
	bufreset(name);
	bufaddf(name, "%s.agentXXXXXX", target);
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
fill(int fd, const struct stat *old, const char *p, size_t n)
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

/* Write the plan file where it is: the plan profile's sandbox allows
 * no new file beside it for a rename.  path, the model's name for it,
 * is only said: the file is reached as sandboxinit checked it, with no
 * link followed, and written only if it still has one name. */
static int
overwrite(const Toolenv *e, const char *path, const char *p, size_t n,
          Buf *out)
{
	struct stat st;
	int fd, err;

	if ((fd = sandboxplan(e, O_WRONLY | O_NONBLOCK, 0)) < 0) {
		bufaddf(out, "Cannot write %s: %s", path, errno == ELOOP ||
		        errno == ENOTDIR ? "the plan file is reached through "
		        "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		bufaddf(out, "Cannot write %s: the plan file is no longer a "
		        "regular file with one link", path);
		return -1;
	}
	if (ftruncate(fd, 0) < 0 || writeall(fd, p, n) < 0 || fsync(fd) < 0) {
		err = errno;
		close(fd);
		bufaddf(out, "Cannot write %s: %s", path, strerror(err));
		return -1;
	}
	if (close(fd) < 0) {
		bufaddf(out, "Cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Replace the file's content through a temporary file in the same
 * directory and rename(2), so a reader sees the old or the new file, never
 * half of one.  A symlink is written through; the file's owner and mode
 * are kept.  A hard link is not: the name gets a new file and the other
 * names keep the old one, the price of the atomic rename. */
static int
savefile(const Toolenv *e, const char *path, const char *p, size_t n,
         Buf *out)
{
	struct stat st;
	Buf tmp = { 0 };
	char *real, *dir = NULL;
	const char *target;
	int fd, have, err, rc = -1;

	if (e->write == WPLAN)
		return overwrite(e, path, p, n, out);
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
	    fill(fd, have ? &st : NULL, p, n) < 0 ||
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

/* read */

/* The media type of an image the models take, from its first bytes (the
 * name may lie), or NULL. */
static const char *
imagetype(const char *p, size_t n)
{
	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
		return "image/png";
	if (n >= 3 && !memcmp(p, "\xff\xd8\xff", 3))
		return "image/jpeg";
	if (n >= 6 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6)))
		return "image/gif";
	if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
		return "image/webp";
	return NULL;
}

/* An image file as pi keeps one in a message: a content block with its
 * comma before it, appended to b, for read and -i.  Its media type, or
 * NULL with the reason in out. */
const char *
toolimage(const char *path, size_t max, Buf *b, Buf *out)
{
	Buf raw = { 0 };
	const char *type = NULL;
	int fd, rc;

	if ((fd = openread(path, out)) < 0)
		return NULL;
	rc = readall(fd, &raw, max);
	close(fd);
	if (rc < 0) {
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
	} else if (rc > 0) {
		bufaddf(out, "Cannot read %s: it is over the ", path);
		addsize(out, max);
		bufadds(out, " limit for images");
	} else if (!(type = imagetype(raw.p, raw.len))) {
		bufaddf(out, "%s is not a png, jpeg, gif or webp image", path);
	} else {
		bufadds(b, ",{\"type\":\"image\",\"data\":\"");
		b64enc(b, raw.p, raw.len);
		bufaddf(b, "\",\"mimeType\":\"%s\"}", type);
	}
	buffree(&raw);
	return type;
}

/* An image for the model: its block waits in e for the result the
 * caller makes, the text only says what it is. */
static int
readimage(Toolenv *e, const char *path, Buf *out)
{
	const char *type;

	bufreset(&e->image);
	if (!(type = toolimage(path, e->maximage, &e->image, out)))
		return 1;
	bufaddf(out, "Read image file [%s]", type);
	return 0;
}

/* The first line asked for is over the byte limit on its own. */
static void
longline(const Toolenv *e, const char *path, long ln, size_t size, Buf *out)
{
	bufaddf(out, "[Line %ld is ", ln);
	addsize(out, size);
	bufadds(out, ", exceeds ");
	addsize(out, e->maxbytes);
	bufaddf(out, " limit. Use bash: sed -n '%ldp' %s | head -c %lu]", ln,
	        path, (unsigned long)e->maxbytes);
}

static void
shownote(const Toolenv *e, int cut, long off, long last, long total,
         Buf *out)
{
	bufaddf(out, "\n\n[Showing lines %ld-%ld of %ld", off, last, total);
	if (cut == CUTBYTES) {
		bufadds(out, " (");
		addsize(out, e->maxbytes);
		bufadds(out, " limit)");
	}
	bufaddf(out, ". Use offset=%ld to continue.]", last + 1);
}

/* Stream the lines of r from off, at most lim of them (0: no limit), into
 * out within the limits; count the rest of the file for the notice. */
static int
readlines(const Toolenv *e, Rd *r, const char *path, long off, long lim,
          Buf *out)
{
	Head h = { 0 };
	Buf line = { 0 };
	long ln = 0, last = 0;
	size_t n, first = 0;
	int got, want;

	h.out = out;
	h.base = out->len;
	for (;;) {
		want = ln + 1 >= off && !h.cut &&
		       !(lim && ln + 1 >= off + lim);
		got = rdline(r, &line, want ? e->maxbytes + 1 : 0, &n);
		if (got <= 0)
			break;
		ln++;
		if (!want)
			continue;
		if (ln == off)
			first = n;
		if (headline(e, &h, line.p ? line.p : "", line.len) == 0)
			last = ln;
	}
	buffree(&line);
	if (got < 0) {
		out->len = h.base;
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	if (off > ln && (ln > 0 || off > 1)) {
		bufaddf(out, "Offset %ld is beyond end of file (%ld lines "
		        "total)", off, ln);
		return 1;
	}
	if (ln == 0) {
		bufadds(out, "(empty file)");
		return 0;
	}
	/* the file to its end is given as it is, final newline and all */
	if (!h.cut && last == ln && r->nl)
		bufaddc(out, '\n');
	if (h.cut && !last)
		longline(e, path, off, first, out);
	else if (h.cut)
		shownote(e, h.cut, off, last, ln, out);
	else if (lim && off + lim - 1 < ln) {
		bufaddf(out, "\n\n[%ld more lines in file. Use offset=%ld to "
		        "continue.]", ln - (off + lim - 1), off + lim);
	}
	return 0;
}

int
toolread(Toolenv *e, const Json *j, int args, Buf *out)
{
	char *path;
	long off = 1, lim = 0;
	int fd, rc = 1;
	Rd *r;

	if (patharg(j, args, "read", 1, &path, out) < 0)
		return 1;
	if (intarg(j, args, "read", "offset", &off, out) < 0 ||
	    intarg(j, args, "read", "limit", &lim, out) < 0 ||
	    (fd = openread(path, out)) < 0) {
		free(path);
		return 1;
	}
	off = MAX(off, 1);
	lim = MAX(lim, 0);
	r = rdopen(fd, e->intr);
	if (rdmore(r) < 0)
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
	else if (imagetype(r->buf, r->len))
		rc = readimage(e, path, out);
	else if (isbinary(r->buf, r->len))
		bufaddf(out, "Cannot read %s: it is a binary file (of images, "
		        "only png, jpeg, gif and webp are read)", path);
	else
		rc = readlines(e, r, path, off, lim, out);
	free(r);
	close(fd);
	free(path);
	return rc;
}

/* write */

/* The work of write, done where the sandbox holds it. */
static int
writejob(void *arg, Buf *out)
{
	Job *w = arg;
	int inplace = w->e->write == WPLAN;

	if ((inplace || mkparents(w->path, out) == 0) &&
	    savefile(w->e, w->path, w->text.p, w->text.len, out) == 0) {
		bufaddf(out, "Wrote %lu bytes to %s",
		        (unsigned long)w->text.len, w->path);
		return 0;
	}
	return 1;
}

/* The plan file, made empty by us if it is missing: the sandbox lets
 * the writer write to it, not make it.  1 if made. */
static int
makeplan(const Toolenv *e, const char *path)
{
	char *to;
	int fd, made = 0;

	if (e->write != WPLAN || !(to = sandboxlanding(path)))
		return 0;
	if (!strcmp(to, e->planpath) &&
	    (fd = sandboxplan(e, O_WRONLY | O_CREAT | O_EXCL, 0666)) >= 0) {
		close(fd);
		made = 1;
	}
	free(to);
	return made;
}

int
toolwrite(Toolenv *e, const Json *j, int args, Buf *out)
{
	Job w = { 0 };
	int rc = 1, made;

	w.e = e;
	if (patharg(j, args, "write", 1, &w.path, out) < 0)
		return 1;
	if (bufarg(j, args, "write", "content", &w.text, out) < 0 ||
	    sandboxwritable(e, "write", w.path, out) < 0)
		goto done;
	if (w.text.len > e->maxedit) {
		bufaddf(out, "Cannot write %s: the content is ", w.path);
		overedit(e, "write", w.text.len, out);
		goto done;
	}
	made = makeplan(e, w.path);
	if ((rc = sandboxrun(e, writejob, &w, out)) != 0 && made)
		unlink(e->planpath);
done:
	buffree(&w.text);
	free(w.path);
	return rc;
}

/* edit */

/* The file whole, if it is no more than maxedit bytes (and has not grown
 * past them since it was opened). */
static int
slurp(const Toolenv *e, const char *path, Buf *b, Buf *out)
{
	unsigned long long size = 0;
	struct stat st;
	int fd, rc;

	if ((fd = openread(path, out)) < 0)
		return -1;
	if (fstat(fd, &st) == 0)
		size = st.st_size;
	/* a sparse file of 2 GB is refused before a byte is read */
	if (size > e->maxedit)
		rc = 1;
	else
		rc = readall(fd, b, e->maxedit);
	if (rc < 0)
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (rc > 0) {
		bufaddf(out, "Cannot edit %s: it is ", path);
		overedit(e, "edit", MAX(size, b->len), out);
		bufadds(out, " Use bash (sed, patch) to change a file this "
		        "large.");
	}
	return rc ? -1 : 0;
}

static const char *
findmem(const char *h, size_t hn, const char *s, size_t n)
{
	const char *p = h, *end = h + hn;

	while (n && (size_t)(end - p) >= n &&
	       (p = memchr(p, s[0], end - p - n + 1))) {
		if (!memcmp(p, s, n))
			return p;
		p++;
	}
	return NULL;
}

/* Occurrences of s in h that do not overlap; the first at *at. */
static int
count(const char *h, size_t hn, const char *s, size_t n, size_t *at)
{
	const char *p = h, *q;
	int k = 0;

	while ((q = findmem(p, hn - (p - h), s, n))) {
		if (!k)
			*at = q - h;
		k++;
		p = q + n;
	}
	return k;
}

static int
addpair(const Json *j, int obj, int idx, int top, Edit **ed, int *n,
        Buf *out)
{
	const char *k[2] = { "oldText", "newText" };
	char key[32];
	Edit *d;
	int i, v;

	*ed = xrealloc(*ed, (*n + 1) * sizeof(**ed));
	d = &(*ed)[*n];
	memset(d, 0, sizeof(*d));
	d->idx = idx;
	(*n)++;
	for (i = 0; i < 2; i++) {
		if (top)
			snprintf(key, sizeof(key), "%s", k[i]);
		else
			snprintf(key, sizeof(key), "edits[%d].%s", idx, k[i]);
		v = jsonget(j, obj, k[i]);
		if (v < 0 || jsonisnull(j, v))
			return missing(out, "edit", key);
		if (jsonstrbuf(j, v, i ? &d->new : &d->old) < 0) {
			bufaddf(out, "edit: parameter \"%s\" must be a "
			        "string", key);
			return -1;
		}
	}
	return 0;
}

/* edits as an array of objects, one object, or either of those as a JSON
 * text in a string (models send all three). */
static int
addedits(const Json *j, int i, Edit **ed, int *n, Buf *out)
{
	Json sub;
	char *s;
	int k, el, rc;

	if (j->t[i].type == JOBJ)
		return addpair(j, i, 0, 0, ed, n, out);
	if (j->t[i].type == JARR) {
		for (k = 0, el = jsonat(j, i, 0); el >= 0;
		     k++, el = jsonnext(j, el)) {
			if (j->t[el].type != JOBJ) {
				bufaddf(out, "edit: edits[%d] must be an "
				        "object with oldText and newText", k);
				return -1;
			}
			if (addpair(j, el, k, 0, ed, n, out) < 0)
				return -1;
		}
		return 0;
	}
	memset(&sub, 0, sizeof(sub));
	s = jsonstr(j, i);
	if (s && jsonparse(&sub, s, strlen(s)) == 0 &&
	    (sub.t[0].type == JOBJ || sub.t[0].type == JARR)) {
		rc = addedits(&sub, 0, ed, n, out);
	} else {
		bufadds(out, "edit: parameter \"edits\" must be an array of "
		        "{oldText, newText}");
		rc = -1;
	}
	jsonfree(&sub);
	free(s);
	return rc;
}

static int
editargs(const Json *j, int args, Edit **ed, int *n, Buf *out)
{
	int i;

	*ed = NULL;
	*n = 0;
	if ((i = argfind(j, args, "edits")) >= 0 &&
	    addedits(j, i, ed, n, out) < 0)
		return -1;
	if (argfind(j, args, "oldText") >= 0 &&
	    addpair(j, args, *n, 1, ed, n, out) < 0)
		return -1;
	if (*n == 0) {
		if (i >= 0)
			bufadds(out, "edit: edits must contain at least one "
			        "replacement");
		else
			missing(out, "edit", "edits");
		return -1;
	}
	return 0;
}

static void
freeedits(Edit *ed, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		buffree(&ed[i].old);
		buffree(&ed[i].new);
	}
	free(ed);
}

/* Write text in the file's line endings: every LF as CRLF. */
static void
tocrlf(Buf *b)
{
	Buf t = { 0 };
	size_t i;

	for (i = 0; i < b->len; i++) {
		if (b->p[i] == '\n' && (i == 0 || b->p[i - 1] != '\r'))
			bufaddc(&t, '\r');
		bufaddc(&t, b->p[i]);
	}
	buffree(b);
	*b = t;
}

/* Text with its CRLFs as LF, then every LF as CRLF. */
static void
crlftext(Buf *b)
{
	Buf t = { 0 };
	size_t i;

	for (i = 0; i < b->len; i++)
		if (b->p[i] != '\r' || i + 1 == b->len || b->p[i + 1] != '\n')
			bufaddc(&t, b->p[i]);
	buffree(b);
	*b = t;
	tocrlf(b);
}

static int
barelf(const Buf *b)
{
	size_t i;

	for (i = 0; i < b->len; i++)
		if (b->p[i] == '\n' && (i == 0 || b->p[i - 1] != '\r'))
			return 1;
	return 0;
}

/* The line at pos ends in CRLF (the last line: the one before it). */
static int
crlfat(const char *s, size_t len, size_t pos)
{
	const char *nl = memchr(s + pos, '\n', len - pos), *q;

	for (q = s + pos; !nl && q > s; q--)
		if (q[-1] == '\n')
			nl = q - 1;
	return nl && nl > s && nl[-1] == '\r';
}

/* Occurrences of d's oldText in s; the first at d->pos.  The model may
 * have seen a file with CRLF line ends in CRLF or in LF, and a file may
 * mix both: the text is looked for as given first, then in CRLF.  newText
 * takes the line ends of the place it goes, so the lines no edit touches
 * keep their bytes. */
static int
lookup(Edit *d, const char *s, size_t len)
{
	int k = count(s, len, d->old.p, d->old.len, &d->pos);

	if (k == 0 && findmem(s, len, "\r\n", 2)) {
		crlftext(&d->old);
		crlftext(&d->new);
		return count(s, len, d->old.p, d->old.len, &d->pos);
	}
	if (k == 1 && !barelf(&d->old) && crlfat(s, len, d->pos))
		crlftext(&d->new);
	return k;
}

/* Where each edit's oldText is, exactly once; -1 with the reason. */
static int
locate(Edit *ed, int n, const char *s, size_t len, const char *path,
       Buf *out)
{
	int i, k;

	for (i = 0; i < n; i++) {
		if (!ed[i].old.len) {
			if (n == 1)
				bufaddf(out, "oldText must not be empty in "
				        "%s.", path);
			else
				bufaddf(out, "edits[%d].oldText must not be "
				        "empty in %s.", ed[i].idx, path);
			return -1;
		}
		k = lookup(&ed[i], s, len);
		if (k == 1)
			continue;
		if (k == 0 && n == 1)
			bufaddf(out, "Could not find the exact text in %s. "
			        "The old text must match exactly including "
			        "all whitespace and newlines.", path);
		else if (k == 0)
			bufaddf(out, "Could not find edits[%d] in %s. The "
			        "oldText must match exactly including all "
			        "whitespace and newlines.", ed[i].idx, path);
		else if (n == 1)
			bufaddf(out, "Found %d occurrences of the text in %s. "
			        "The text must be unique. Please provide more "
			        "context to make it unique.", k, path);
		else
			bufaddf(out, "Found %d occurrences of edits[%d] in "
			        "%s. Each oldText must be unique. Please "
			        "provide more context to make it unique.", k,
			        ed[i].idx, path);
		return -1;
	}
	return 0;
}

static int
bypos(const void *a, const void *b)
{
	const Edit *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sort by place in the file and refuse overlaps. */
static int
order(Edit *ed, int n, const char *path, Buf *out)
{
	int i;

	qsort(ed, n, sizeof(*ed), bypos);
	for (i = 1; i < n; i++) {
		if (ed[i - 1].pos + ed[i - 1].old.len <= ed[i].pos)
			continue;
		bufaddf(out, "edits[%d] and edits[%d] overlap in %s. Merge "
		        "them into one edit or target disjoint regions.",
		        MIN(ed[i - 1].idx, ed[i].idx),
		        MAX(ed[i - 1].idx, ed[i].idx), path);
		return -1;
	}
	return 0;
}

static long
firstdiff(const Buf *a, const Buf *b)
{
	size_t i, n = MIN(a->len, b->len);
	long ln = 1;

	for (i = 0; i < n && a->p[i] == b->p[i]; i++)
		if (a->p[i] == '\n')
			ln++;
	return ln;
}

/* Apply the edits to the original; locate brings the texts to its line
 * endings. */
static int
apply(Edit *ed, int n, const Buf *orig, const char *path, Buf *res,
      Buf *out)
{
	size_t at = 0;
	int i;

	if (locate(ed, n, orig->p, orig->len, path, out) < 0 ||
	    order(ed, n, path, out) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		bufadd(res, orig->p + at, ed[i].pos - at);
		bufadd(res, ed[i].new.p, ed[i].new.len);
		at = ed[i].pos + ed[i].old.len;
	}
	bufadd(res, orig->p + at, orig->len - at);
	if (res->len == orig->len && !memcmp(res->p, orig->p, res->len)) {
		bufaddf(out, "No changes made to %s. The replacement produced "
		        "identical content. This might indicate an issue with "
		        "special characters or the text not existing as "
		        "expected.", path);
		return -1;
	}
	return 0;
}

/* The work of edit, done where the sandbox holds it. */
static int
editjob(void *arg, Buf *out)
{
	Job *d = arg;
	Buf res = { 0 };
	int rc = 1;

	if (slurp(d->e, d->path, &d->text, out) == 0 &&
	    apply(d->ed, d->n, &d->text, d->path, &res, out) == 0 &&
	    savefile(d->e, d->path, res.p, res.len, out) == 0) {
		bufaddf(out, "Successfully replaced %d block%s in %s (first "
		        "change at line %ld).", d->n, d->n == 1 ? "" : "s",
		        d->path, firstdiff(&d->text, &res));
		rc = 0;
	}
	buffree(&res);
	return rc;
}

int
tooledit(Toolenv *e, const Json *j, int args, Buf *out)
{
	Job d = { 0 };
	int rc = 1;

	d.e = e;
	if (patharg(j, args, "edit", 1, &d.path, out) < 0)
		return 1;
	if (editargs(j, args, &d.ed, &d.n, out) == 0 &&
	    sandboxwritable(e, "edit", d.path, out) == 0)
		rc = sandboxrun(e, editjob, &d, out);
	freeedits(d.ed, d.n);
	buffree(&d.text);
	free(d.path);
	return rc;
}

/* bash */

/* This run's directory of bash logs, made when first needed.  mkdtemp(3)
 * makes it mode 0700: nobody else reads the output, or puts a file where
 * we are about to make one. */
static const char *
logdir(Toolenv *e)
{
	const char *tmp = getenv("TMPDIR");
	Buf b = { 0 };

	if (e->logdir)
		return e->logdir;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	bufaddf(&b, "%s/agent-XXXXXX", tmp);
	if (!mkdtemp(b.p)) {
		buffree(&b);
		return NULL;
	}
	return e->logdir = bufdetach(&b);
}

static void
logname(const Toolenv *e, int k, Buf *b)
{
	bufreset(b);
	bufaddf(b, "%s/bash-%d.log", e->logdir, k);
}

/* A new log file in that directory, mode 0600. */
static int
tmplog(Toolenv *e, char **name)
{
	Buf b = { 0 };
	int fd;

	if (!logdir(e))
		return -1;
	logname(e, ++e->nlogs, &b);
	if ((fd = open(b.p, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0) {
		buffree(&b);
		return -1;
	}
	*name = bufdetach(&b);
	return fd;
}

/* Save more of the output, up to maxlog bytes in all: endless output
 * must not fill the disk.  Past that, win still keeps the end. */
static void
logput(Tail *t, const char *p, size_t n)
{
	if (t->fd < 0)
		return;
	if (n > t->e->maxlog - t->saved) {
		n = t->e->maxlog - t->saved;
		t->logcut = 1;
	}
	if (n && writeall(t->fd, p, n) < 0) {
		t->saveerr = errno;
		close(t->fd);
		unlink(t->file);
		t->fd = -1;
		return;
	}
	t->saved += n;
}

/* Start saving the whole output: win still holds all of it. */
static void
tailsave(Tail *t)
{
	if ((t->fd = tmplog(t->e, &t->file)) < 0) {
		t->saveerr = errno;
		return;
	}
	logput(t, t->win.p, t->win.len);
}

/* Take more output: count it, keep its tail, save it once it is too much
 * to show.  win holds at most twice maxbytes; trimming keeps maxbytes. */
static void
tailadd(Tail *t, const char *p, size_t n)
{
	const Toolenv *e = t->e;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			t->nl++;
			t->lastlen = t->linelen;
			t->linelen = 0;
		} else {
			t->linelen++;
		}
	}
	t->total += n;
	bufadd(&t->win, p, n);
	if (t->fd < 0 && !t->saveerr && (t->total > e->maxbytes ||
	    t->nl > (unsigned long long)e->maxlines))
		tailsave(t);
	else
		logput(t, p, n);
	if (t->win.len > 2 * e->maxbytes) {
		i = t->win.len - e->maxbytes;
		t->prevnl = t->win.p[i - 1] == '\n';
		memmove(t->win.p, t->win.p + i, e->maxbytes);
		t->win.len = e->maxbytes;
		t->win.p[t->win.len] = '\0';
		t->trimmed = 1;
	}
}

/* Name the log to the model, which may read it later in the session:
 * from now on the log directory outlives the run. */
static void
addfull(Tail *t, Buf *out)
{
	if (t->fd < 0 && !t->saveerr)
		tailsave(t);
	if (t->fd < 0) {
		bufaddf(out, "Full output not saved: %s]",
		        strerror(t->saveerr));
		return;
	}
	t->e->logkept = 1;
	bufaddf(out, "Full output: %s", t->file);
	if (t->logcut)
		bufaddf(out, " (cut at %lu bytes)", (unsigned long)t->saved);
	bufaddc(out, ']');
}

/* How many whole lines at the end of win fit the limits; from is where
 * they start.  CUTLINES or CUTBYTES if there is more before them. */
static int
tailfit(Tail *t, size_t end, unsigned long long lines, int *n, size_t *from)
{
	const Toolenv *e = t->e;
	size_t pos = end, start, used = 0;

	*n = 0;
	*from = end;
	for (;;) {
		if ((unsigned long long)*n == lines)
			return 0;
		if (*n == e->maxlines)
			return CUTLINES;
		for (start = pos; start > 0 && t->win.p[start - 1] != '\n';)
			start--;
		if (start == 0 && t->trimmed && !t->prevnl)
			return CUTBYTES;	/* begun before win */
		if (used + (pos - start) + (*n > 0) > e->maxbytes)
			return CUTBYTES;
		used += (pos - start) + (*n > 0);
		(*n)++;
		*from = start;
		if (start == 0)
			return t->trimmed ? CUTBYTES : 0;
		pos = start - 1;
	}
}

/* The output as the model sees it: the last lines that fit, a notice if
 * some were cut, "(no output)" if there was none. */
static int
tailtext(Tail *t, Buf *out)
{
	const Toolenv *e = t->e;
	unsigned long long lines;
	size_t end, from;
	int n, cut, endnl;

	if (!t->total) {
		bufadds(out, "(no output)");
		return 0;
	}
	endnl = t->win.p[t->win.len - 1] == '\n';
	end = t->win.len - endnl;
	lines = t->nl + !endnl;
	cut = tailfit(t, end, lines, &n, &from);
	if (n == 0) {
		from = end > e->maxbytes ? end - e->maxbytes : 0;
		while (from < end && (t->win.p[from] & 0xc0) == 0x80)
			from++;
	}
	bufadd(out, t->win.p + from, end - from);
	if (endnl && e->keepnl)
		bufaddc(out, '\n');
	if (!cut)
		return 0;
	if (n == 0) {
		bufadds(out, "\n\n[Showing last ");
		addsize(out, end - from);
		bufaddf(out, " of line %llu (line is ", lines);
		addsize(out, endnl ? t->lastlen : t->linelen);
		bufadds(out, "). ");
	} else {
		bufaddf(out, "\n\n[Showing lines %llu-%llu of %llu",
		        lines - n + 1, lines, lines);
		if (cut == CUTBYTES) {
			bufadds(out, " (");
			addsize(out, e->maxbytes);
			bufadds(out, " limit)");
		}
		bufadds(out, ". ");
	}
	addfull(t, out);
	return cut;
}

static const char *
findshell(const Toolenv *e)
{
	const char *const *s;

	for (s = e->shells; s && *s; s++)
		if (access(*s, X_OK) == 0)
			return *s;
	return NULL;
}

static int
scrubbed(const char *var, const char *const *drop)
{
	size_t n;

	for (; drop && *drop; drop++) {
		n = strlen(*drop);
		if (!strncmp(var, *drop, n) && var[n] == '=')
			return 1;
	}
	return 0;
}

/* Whether the name of var holds one of words, in any case: CI puts its
 * secrets in variables of every name (GITHUB_TOKEN, DB_PASSWORD...). */
static int
secretname(const char *var, const char *const *words)
{
	size_t n = strcspn(var, "="), w, i;

	for (; words && *words; words++) {
		w = strlen(*words);
		for (i = 0; w && i + w <= n; i++)
			if (!strncasecmp(var + i, *words, w))
				return 1;
	}
	return 0;
}

/* Whether var is a proxy's, as HTTPS_PROXY or npm_config_proxy: the
 * name ends in "proxy", in any case. */
static int
proxyname(const char *var)
{
	size_t n = strcspn(var, "=");

	return n >= 5 && !strncasecmp(var + n - 5, "proxy", 5);
}

/* Append var to b without the "user:pass@" of its URL, with its NUL;
 * 0 if it has none (nothing appended). */
static int
stripuser(const char *var, Buf *b)
{
	const char *v, *auth, *end, *at = NULL, *p;

	if (!(v = strchr(var, '=')))
		return 0;
	v++;
	auth = strstr(v, "://") ? strstr(v, "://") + 3 : v;
	end = auth + strcspn(auth, "/?#");
	for (p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	if (!at)
		return 0;
	bufadd(b, var, auth - var);
	bufadds(b, at + 1);
	bufaddc(b, '\0');
	return 1;
}

/* Whether var is left out of the tools' environment: a key of ours
 * (scrubenv), a name that says it holds a secret unless keepenv names
 * it, or TMPDIR when the run has its own. */
static int
secretvar(const Toolenv *e, const char *var)
{
	static const char *const tmpdir[] = { "TMPDIR", NULL };

	if (scrubbed(var, e->scrubenv) ||
	    (e->tmpdir && scrubbed(var, tmpdir)))
		return 1;
	return !scrubbed(var, e->keepenv) && secretname(var, e->secretwords);
}

/* The environment of tool processes: without the variables that hold
 * secrets, proxies without their credentials, and with TMPDIR the run's
 * own directory when it has one.  tmp holds the strings made here, one
 * after the other in the order of env, which points into it once tmp
 * has stopped growing. */
static char **
cleanenv(const Toolenv *e, Buf *tmp)
{
	char **env, *p;
	size_t n, i, k = 0;

	for (n = 0; environ[n]; n++)
		;
	env = xmalloc((n + 2) * sizeof(*env));
	for (i = 0; i < n; i++) {
		if (secretvar(e, environ[i]))
			continue;
		if (proxyname(environ[i]) && stripuser(environ[i], tmp))
			env[k++] = NULL;	/* in tmp: set below */
		else
			env[k++] = environ[i];
	}
	if (e->tmpdir) {
		bufaddf(tmp, "TMPDIR=%s", e->tmpdir);
		bufaddc(tmp, '\0');
		env[k++] = NULL;
	}
	for (i = 0, p = tmp->p; i < k; i++)
		if (!env[i]) {
			env[i] = p;
			p += strlen(p) + 1;
		}
	env[k] = NULL;
	return env;
}

/* In the child: a session and process group of its own (the terminal's
 * ^C does not reach it; we kill the whole group instead), default signal
 * dispositions (ours, like SIGPIPE ignored, would be inherited), stdin
 * from in and stdout to out (-1: /dev/null), stderr to err; the
 * sandbox's ruleset rs and e's filter, if rs is not -1.  The pipes
 * given are close-on-exec: only their copies as 0, 1 and 2 are left. */
static void
child(const Toolenv *e, char **argv, char **env, int in, int out, int err,
      int rs)
{
	static const char msg[] = "agent: cannot run the shell\n";
	static const char nosand[] = "agent: cannot enter the sandbox\n";
	const int sigs[] = { SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP,
	                     SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU };
	sigset_t none;
	size_t i;
	int fd;

	setsid();
	for (i = 0; i < LEN(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((fd = open("/dev/null", O_RDWR)) < 0 ||
	    dup2(in >= 0 ? in : fd, 0) < 0 ||
	    dup2(out >= 0 ? out : fd, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (fd > 2)
		close(fd);
	if (rs >= 0 && sandboxenter(e, rs) < 0) {
		if (write(2, nosand, sizeof(nosand) - 1) < 0)
			_exit(126);
		_exit(126);
	}
	execve(argv[0], argv, env);
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(127);
	_exit(127);
}

static int
spawn(const Toolenv *e, const char *sh, const char *cmd, Proc *p, Buf *out)
{
	char *argv[4];
	char **env;
	int fds[2], rs = -1;
	Buf tmp = { 0 };

	if (sandboxheld(e) && (rs = sandboxruleset(e)) < 0) {
		bufaddf(out, "bash: cannot make the sandbox: %s",
		        strerror(errno));
		return -1;
	}
	if (pipe(fds) < 0) {
		bufaddf(out, "bash: cannot make a pipe: %s", strerror(errno));
		if (rs >= 0)
			close(rs);
		return -1;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	argv[0] = (char *)sh;
	argv[1] = "-c";
	argv[2] = (char *)cmd;
	argv[3] = NULL;
	env = cleanenv(e, &tmp);
	if ((p->pid = fork()) == 0)
		child(e, argv, env, -1, fds[1], fds[1], rs);
	if (p->pid > 0 && e->pgid)	/* the child leads its own group */
		*e->pgid = p->pid;
	free(env);
	buffree(&tmp);
	if (rs >= 0)
		close(rs);
	close(fds[1]);
	if (p->pid < 0) {
		bufaddf(out, "bash: cannot fork: %s", strerror(errno));
		close(fds[0]);
		return -1;
	}
	p->fd = fds[0];
	return 0;
}

static void
reap(Proc *p, int flags)
{
	pid_t r;

	if (p->reaped)
		return;
	while ((r = waitpid(p->pid, &p->status, flags)) < 0 && errno == EINTR)
		;
	if (r == p->pid) {
		p->reaped = 1;
	} else if (r < 0) {
		p->reaped = 1;	/* SIGCHLD ignored: reaped for us */
		p->nostatus = 1;
	}
}

/* Read what the pipe has; the command's output goes into t. */
static void
drain(Proc *p, Tail *t, long long *last)
{
	char buf[16384];
	ssize_t n;

	n = read(p->fd, buf, sizeof(buf));
	if (n > 0) {
		tailadd(t, buf, n);
		if (t->e->progress)
			t->e->progress(t->e->progarg, buf, n);
		*last = monoms();
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		p->eof = 1;
	}
}

/* Collect output until the command ends, times out or is interrupted.
 * Once the shell has exited, a background job it started may still hold
 * the pipe (`server &`): we read on only while output keeps coming, for at
 * most DRAINMS, then stop reading and leave the job running, as pi 1.5
 * does.  It is not killed: starting a server in the background is a
 * legitimate use; it dies of SIGPIPE if it writes to the pipe again. */
static int
pump(const Toolenv *e, Proc *p, Tail *t, double secs)
{
	long long now, start = monoms(), last = start, exitat = 0, deadline;
	struct pollfd pf[2];
	struct timespec ts;
	int (*watch)(void *) = e->watch;
	long nap = 100;	/* microseconds: the first wait for the exit */
	int ms;

	deadline = secs > 0 ? start + (long long)(secs * 1000) : 0;
	for (;;) {
		now = monoms();
		if (!p->reaped) {
			reap(p, WNOHANG);
			exitat = now;	/* ends up as when the exit was seen */
		}
		if (p->reaped && (p->eof || now - exitat >= DRAINMS ||
		    now - MAX(last, exitat) >= IDLEMS)) {
			p->held = !p->eof;
			return DONE;
		}
		if (e->intr && *e->intr)
			return ABORTED;
		if (!p->reaped && deadline && now >= deadline)
			return TIMEDOUT;
		if (p->eof) {
			/* the output is over and the exit comes in a moment:
			 * a short nap, doubled while it does not, where a
			 * fixed 10 ms cost every command 10 ms */
			ts.tv_sec = 0;
			ts.tv_nsec = nap * 1000;
			nanosleep(&ts, NULL);
			nap = MIN(nap * 2, 10000);
			continue;
		}
		ms = POLLMS;
		if (!p->reaped && deadline && deadline - now < ms)
			ms = deadline - now;
		pf[0].fd = p->fd;
		pf[1].fd = watch ? e->watchfd : -1;	/* -1: none */
		pf[0].events = pf[1].events = POLLIN;
		pf[0].revents = pf[1].revents = 0;
		if (poll(pf, 2, ms) <= 0)
			continue;
		if (pf[1].revents && watch(e->watcharg))
			watch = NULL;
		if (pf[0].revents)
			drain(p, t, &last);
	}
}

/*
 * What the tools leave running.  Under a seccomp filter (sandbox.c) a
 * call's processes cannot leave its process group: killing the group
 * ends them all, at once.  On Linux agent is also the subreaper of what
 * they start: an orphan (cmd &, nohup, setsid, a double fork) is
 * reparented to us, not to init, so every process left is below us in
 * /proc and is found there, whatever its group or session: what has no
 * filter (hooks, the full profile, AGENT_NO_SECCOMP=1, another
 * architecture).  That scan is best effort: a process that forks on
 * and exits at once may be gone before each kill reaches it, its child
 * born after the scan.  Elsewhere only a call's own group can be found.
 */
#ifdef __linux__
#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif

typedef struct {
	pid_t pid, ppid;
	int live;	/* not a zombie */
} Procent;

static int
procentcmp(const void *a, const void *b)
{
	pid_t x = ((const Procent *)a)->pid, y = ((const Procent *)b)->pid;

	return x < y ? -1 : x > y;
}

/* The pid, ppid and state of process name from /proc/name/stat: the
 * command in parentheses may hold any byte, so its last ')' ends it;
 * what comes after is numbers, and 128 bytes hold the fields we need. */
static int
procent(const char *name, Procent *p)
{
	char path[32 + NAME_MAX], buf[128], st, *q;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* ") S 123 ...": no sscanf, which would bring a static build the
	 * whole of scanf's floating point */
	if (!(q = strrchr(buf, ')')) || q[1] != ' ' || !q[2] || q[3] != ' ')
		return -1;
	st = q[2];
	p->ppid = strtol(q + 4, &q, 10);
	if (*q != ' ')
		return -1;
	p->pid = strtol(name, NULL, 10);
	p->live = st != 'Z' && st != 'X' && st != 'x';
	return 0;
}

/* The live processes below us, from one scan of /proc, into *out (to be
 * freed): their number, or 0. */
static size_t
descendants(pid_t **out)
{
	DIR *d;
	struct dirent *de;
	Procent *all = NULL, *up, key;
	size_t n = 0, cap = 0, k, i, depth;
	pid_t self = getpid();

	*out = NULL;
	if (!(d = opendir("/proc")))
		return 0;
	while ((de = readdir(d))) {
		if (*de->d_name < '0' || *de->d_name > '9')
			continue;
		if (n == cap)
			all = xrealloc(all, (cap = cap ? 2 * cap : 256) *
			               sizeof(*all));
		if (procent(de->d_name, &all[n]) == 0)
			n++;
	}
	closedir(d);
	qsort(all, n, sizeof(*all), procentcmp);
	*out = xrealloc(NULL, (n ? n : 1) * sizeof(**out));
	for (i = k = 0; i < n; i++) {
		/* up the parents till us, or init, or a loop's bound */
		for (up = &all[i], depth = 0; up && up->ppid != self &&
		     depth < n; depth++) {
			key.pid = up->ppid;
			up = bsearch(&key, all, n, sizeof(*all), procentcmp);
		}
		if (up && depth < n && all[i].live && all[i].pid != self)
			(*out)[k++] = all[i].pid;
	}
	free(all);
	return k;
}

void
toolreaper(Toolenv *e)
{
	e->reaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}
#else
static size_t
descendants(pid_t **out)
{
	*out = NULL;
	return 0;
}

void
toolreaper(Toolenv *e)
{
	e->reaper = 0;
}
#endif

/* Reap the children that have ended (the tools' orphans, ours as the
 * subreaper): whether one is still alive.  When none is, the usual
 * case, this one waitpid is all a call's end costs.  The shell p, if
 * it is among them, keeps its status. */
static int
reapleft(Proc *p)
{
	pid_t r;
	int st;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0 ||
	       (r < 0 && errno == EINTR)) {
		if (p && r == p->pid && !p->reaped) {
			p->status = st;
			p->reaped = 1;
		}
	}
	return r == 0;
}

static int
pidin(const pid_t *p, size_t n, pid_t pid)
{
	while (n--)
		if (p[n] == pid)
			return 1;
	return 0;
}

enum { NONELEFT, KILLED, UNKILLED };	/* what a kill found and did */

/* As the subreaper, end every process below us: TERM (and CONT, or a
 * stopped one would not see it) to each when first seen, KILL to what
 * is left after killgrace ms, scanned again till none is, for one may
 * fork while we look; KILLMS past the KILL we give up: UNKILLED. */
static int
killbelow(const Toolenv *e, Proc *sh)
{
	long long until, now;
	pid_t *p, *seen = NULL;
	size_t n, nseen = 0, i;
	int nap = 1, any = NONELEFT;

	if (!e->reaper || !reapleft(sh))
		return NONELEFT;
	until = monoms() + e->killgrace;
	while ((n = descendants(&p)) > 0 && (now = monoms()) < until + KILLMS) {
		any = KILLED;
		for (i = 0; i < n; i++) {
			if (now >= until) {
				kill(p[i], SIGKILL);
			} else if (!pidin(seen, nseen, p[i])) {
				kill(p[i], SIGTERM);
				kill(p[i], SIGCONT);
			}
		}
		free(seen);
		seen = p;
		nseen = n;
		poll(NULL, 0, nap);
		nap = MIN(nap * 2, 10);
		reapleft(sh);
	}
	if (n > 0)
		any = UNKILLED;
	free(p);
	free(seen);
	reapleft(sh);
	return any;
}

/* Whether group pg is empty, once what has ended in it is reaped: the
 * shell sh (or NULL), and as the subreaper, the orphans. */
static int
pggone(const Toolenv *e, pid_t pg, Proc *sh)
{
	if (sh)
		reap(sh, WNOHANG);
	if (e->reaper)
		reapleft(sh);
	return kill(-pg, 0) < 0 && errno == ESRCH;
}

/* Whether group pg empties within ms milliseconds. */
static int
pgwait(const Toolenv *e, pid_t pg, Proc *sh, long long ms)
{
	long long until = monoms() + ms;

	while (!pggone(e, pg, sh)) {
		if (monoms() >= until)
			return 0;
		poll(NULL, 0, 10);
	}
	return 1;
}

/* TERM (and CONT) the group pg, give it killgrace ms to go, KILL what
 * is left; KILLMS past it we give up.  NONELEFT if it was empty, else
 * KILLED or UNKILLED.  kill(2) cannot tell a zombie from the living:
 * unless we are the subreaper, who reaps them, one that another
 * process leaves unreaped would keep the group: then the KILL sent is
 * taken for done. */
static int
pgkill(const Toolenv *e, pid_t pg, Proc *sh)
{
	if (pggone(e, pg, sh))
		return NONELEFT;
	kill(-pg, SIGTERM);
	kill(-pg, SIGCONT);
	if (pgwait(e, pg, sh, e->killgrace))
		return KILLED;
	kill(-pg, SIGKILL);
	return !e->reaper || pgwait(e, pg, sh, KILLMS) ? KILLED : UNKILLED;
}

/* Kill the shell's whole group, then read what it wrote before. */
static void
killgroup(const Toolenv *e, Proc *p, Tail *t)
{
	long long last;
	int k;

	pgkill(e, p->pid, p);
	reap(p, 0);
	for (k = 0; k < 64 && !p->eof; k++)
		drain(p, t, &last);
}

/* At a call's end, when the profile does not let its processes stay:
 * kill its group, then what else is below us as the subreaper.
 * NONELEFT, KILLED or UNKILLED. */
static int
killleft(const Toolenv *e, Proc *p)
{
	int g, b;

	g = pgkill(e, p->pid, p);
	b = killbelow(e, p);
	return MAX(g, b);
}

/* When a call's processes may stay: its group, kept to be killed at
 * exit, if anyone is left in it; the groups now empty are dropped. */
static void
keepgroup(Toolenv *e, pid_t pg)
{
	int i, n;

	for (i = n = 0; i < e->ngroups; i++)
		if (!pggone(e, e->groups[i], NULL))
			e->groups[n++] = e->groups[i];
	e->ngroups = n;
	if (n < (int)LEN(e->groups) && !pggone(e, pg, NULL))
		e->groups[e->ngroups++] = pg;
}

/* At exit: the groups kept, then anything else below us. */
static void
killall(Toolenv *e)
{
	int i;

	for (i = 0; i < e->ngroups; i++)
		pgkill(e, e->groups[i], NULL);
	e->ngroups = 0;
	killbelow(e, NULL);
}

/* A signal's name, as strsignal(3) gives the common ones (which would
 * bring its whole table into a static build). */
static const char *
signame(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGHUP, "Hangup" }, { SIGINT, "Interrupt" },
		{ SIGQUIT, "Quit" }, { SIGILL, "Illegal instruction" },
		{ SIGABRT, "Aborted" }, { SIGBUS, "Bus error" },
		{ SIGFPE, "Arithmetic exception" }, { SIGKILL, "Killed" },
		{ SIGSEGV, "Segmentation fault" }, { SIGPIPE, "Broken pipe" },
		{ SIGALRM, "Alarm clock" }, { SIGTERM, "Terminated" },
		{ SIGXCPU, "CPU time limit exceeded" },
		{ SIGXFSZ, "File size limit exceeded" },
	};
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return "Unknown signal";
}

static int
bashstatus(const Proc *p, int why, double secs, Buf *out)
{
	if (why == TIMEDOUT) {
		bufaddf(out, "\n\nCommand timed out after %g seconds", secs);
		return 1;
	}
	if (why == ABORTED) {
		bufadds(out, "\n\nCommand aborted");
		return 1;
	}
	if (p->nostatus) {
		bufadds(out, "\n\nCommand terminated without an exit code");
		return 1;
	}
	if (WIFSIGNALED(p->status)) {
		bufaddf(out, "\n\nCommand killed by signal %d (%s)",
		        WTERMSIG(p->status), signame(WTERMSIG(p->status)));
		return 1;
	}
	if (WIFEXITED(p->status) && WEXITSTATUS(p->status)) {
		bufaddf(out, "\n\nCommand exited with code %d",
		        WEXITSTATUS(p->status));
		return 1;
	}
	return 0;
}

int
toolbash(Toolenv *e, const Json *j, int args, Buf *out)
{
	const char *sh;
	char *cmd;
	double secs = 0;
	Proc p = { 0 };
	Tail t = { 0 };
	int why, rc, left = 0;

	if (strarg(j, args, "bash", "command", 1, &cmd, out) < 0)
		return 1;
	if (numarg(j, args, "bash", "timeout", &secs, out) < 0) {
		free(cmd);
		return 1;
	}
	if (secs <= 0)
		secs = e->bashtimeout;
	else if (secs > MAXTIMEOUT)
		secs = 0;
	if (!(sh = findshell(e))) {
		bufadds(out, "bash: no shell found (see shells in config.h)");
		free(cmd);
		return 1;
	}
	t.e = e;
	t.fd = -1;
	if (spawn(e, sh, cmd, &p, out) < 0) {
		free(cmd);
		return 1;
	}
	free(cmd);
	if ((why = pump(e, &p, &t, secs)) != DONE)
		killgroup(e, &p, &t);
	if (!e->stay)
		left = killleft(e, &p);
	else
		keepgroup(e, p.pid);
	reapleft(&p);	/* what ended in the background, whatever stay is */
	if (e->pgid)
		*e->pgid = 0;
	close(p.fd);
	if (!tailtext(&t, out) && t.file)
		unlink(t.file);	/* saved early, but it all fits */
	rc = bashstatus(&p, why, secs, out);
	if (left == KILLED)
		bufadds(out, "\n\n[Processes left in the background were "
		        "killed: under this profile a command's processes end "
		        "with it]");
	else if (left == UNKILLED)
		bufadds(out, "\n\n[Processes left in the background could "
		        "not all be killed: under this profile a command's "
		        "processes should end with it]");
	else if (p.held)
		bufadds(out, "\n\n[Background processes still hold the "
		        "output: redirect theirs (cmd > file 2>&1 &) or they "
		        "die on their next write]");
	if (t.fd >= 0 && close(t.fd) < 0)
		warn("close %s:", t.file);
	free(t.file);
	buffree(&t.win);
	return rc;
}

/* hooks */

/* A pipe whose ends are close-on-exec, ours (end k) not blocking. */
static int
hookpipe(int fds[2], int k)
{
	if (pipe(fds) < 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fcntl(fds[k], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Feed the hook its stdin and keep the start of its stderr until it has
 * exited and closed stderr, or the deadline: 1 if it has exited. */
static int
hookwait(pid_t pid, int *st, int ip, int ep, const char *in, size_t n,
         long long end, Buf *err)
{
	struct pollfd pf[2];
	char buf[4096];
	size_t off = 0;
	long long now, goneat = 0;
	ssize_t k;
	int eof = 0;

	for (; (now = monoms()) < end; ) {
		if (!goneat && waitpid(pid, st, WNOHANG) == pid)
			goneat = now;
		if (goneat && (eof || now - goneat > IDLEMS))
			break;
		if (ip >= 0 && off == n) {
			close(ip);
			ip = -1;
		}
		pf[0].fd = eof ? -1 : ep;
		pf[1].fd = ip;
		pf[0].events = POLLIN;
		pf[1].events = POLLOUT;
		if (poll(pf, 2, MIN(end - now, 20)) <= 0)
			continue;
		if (pf[0].revents && (k = read(ep, buf, sizeof(buf))) > 0)
			bufadd(err, buf, MIN((size_t)k, 4096 - MIN(err->len,
			       4096)));
		else if (pf[0].revents && (k == 0 || errno != EAGAIN))
			eof = 1;
		if (ip >= 0 && pf[1].revents) {
			if ((k = write(ip, in + off, n - off)) > 0)
				off += k;
			else if (errno != EAGAIN && errno != EINTR)
				off = n;	/* it reads no more */
		}
	}
	if (ip >= 0)
		close(ip);
	return goneat != 0;
}

/* Run a hook of the guard: cmd with /bin/sh -c, in on its stdin, the
 * start of its stderr into err, its stdout thrown away, with the
 * environment bash has (no keys) but unsandboxed: it is the user's own.
 * Its exit status, or -1 if it was killed at ms milliseconds or could
 * not run. */
int
toolhook(const Toolenv *e, const char *cmd, const char *in, size_t n,
         int ms, Buf *err)
{
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	char **env;
	int ip[2], ep[2], st = 0, gone;
	pid_t pid;
	Buf tmp = { 0 };

	argv[2] = (char *)cmd;
	if (hookpipe(ip, 1) < 0)
		return -1;
	if (hookpipe(ep, 0) < 0) {
		close(ip[0]);
		close(ip[1]);
		return -1;
	}
	env = cleanenv(e, &tmp);
	if ((pid = fork()) == 0)
		child(e, argv, env, ip[0], -1, ep[1], -1);
	free(env);
	buffree(&tmp);
	close(ip[0]);
	close(ep[1]);
	if (pid < 0) {
		close(ip[1]);
		close(ep[0]);
		return -1;
	}
	gone = hookwait(pid, &st, ip[1], ep[0], in, n, monoms() + ms, err);
	close(ep[0]);
	if (!gone) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* At the end of the run, what the tools and hooks left running is
 * killed, then .git's config and hooks are checked a last time
 * (gitguard.c), the run's temporary directory goes with what they left
 * in it, and the log directory goes, unless the model was told of a
 * file in it: then we say where it is.  rmdir(2) fails if a file we
 * could not remove is left.  Not for a signal handler: it calls stdio. */
void
toolcleanup(Toolenv *e)
{
	Buf b = { 0 };
	int k;

	killall(e);	/* first: one could change the tree as it goes */
	gitexit(e);
	gitfree(e);
	if (e->tmpdir && rmtree(e->tmpdir) < 0)
		warn("cannot remove %s:", e->tmpdir);
	free(e->tmpdir);
	free(e->root);
	free(e->planpath);
	free(e->unheld);
	e->unheld = NULL;
	buffree(&e->image);
	e->tmpdir = e->root = e->planpath = NULL;
	if (!e->logdir)
		return;
	if (e->logkept) {
		warn("bash output kept in %s", e->logdir);
	} else {
		for (k = 1; k <= e->nlogs; k++) {
			logname(e, k, &b);
			unlink(b.p);	/* most are gone already */
		}
		if (rmdir(e->logdir) < 0)
			warn("cannot remove %s:", e->logdir);
		buffree(&b);
	}
	free(e->logdir);
	e->logdir = NULL;
	e->nlogs = e->logkept = 0;
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
	size_t max = g->e->greplinemax;

	bufreset(&g->text);
	bufaddf(&g->text, "%s%c%ld%c ", rel, sep, ln, sep);
	if (n > max) {
		bufadd(&g->text, s, utf8back(s, max));
		bufadds(&g->text, "... [truncated]");
		g->linecut = 1;
	} else {
		bufadd(&g->text, s, n);
	}
	headline(g->e, &g->h, g->text.p, g->text.len);
}

/* Print the context lines before line ln that are not out yet. */
static void
before(Grep *g, const char *rel, long ln, long shown)
{
	long k;
	Buf *b;

	for (k = MAX(ln - g->context, shown + 1); k < ln; k++) {
		b = &g->ring[k % g->context];
		grepout(g, rel, k, '-', b->p ? b->p : "", b->len);
	}
}

static void
remember(Grep *g, long ln)
{
	Buf *b;

	if (!g->context)
		return;
	b = &g->ring[ln % g->context];
	bufreset(b);
	bufadd(b, g->line.p, MIN(g->line.len, (size_t)g->e->greplinemax + 1));
}

static void
greplines(Grep *g, const char *rel)
{
	long ln = 0, shown = 0, after = 0;
	size_t n;

	int m;

	while (!g->h.cut && rdline(g->rd, &g->line, LINECAP, &n) == 1) {
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
			before(g, rel, ln, shown);
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
		remember(g, ln);
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
	if (rdmore(g->rd) == 0 && !memchr(g->rd->buf, '\0',
	    MIN(g->rd->len, SNIFF))) {
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
	long ctx = 0, lim = g->e->greplimit;

	if (strarg(j, args, "grep", "pattern", 1, &pat, out) < 0)
		return -1;
	if (strarg(j, args, "grep", "glob", 0, glob, out) < 0 ||
	    boolarg(j, args, "grep", "ignoreCase", &icase, out) < 0 ||
	    boolarg(j, args, "grep", "literal", &literal, out) < 0 ||
	    intarg(j, args, "grep", "context", &ctx, out) < 0 ||
	    intarg(j, args, "grep", "limit", &lim, out) < 0) {
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
	g->context = MIN(MAX(ctx, 0), g->e->maxlines);
	g->limit = MAX(lim, 1);
	g->ring = g->context ? xcalloc(g->context, sizeof(*g->ring)) : NULL;
	g->rd = rdopen(-1, g->e->intr);
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
		flushnotes(out, &nb);
		return;
	}
	if (g->done) {
		bufaddf(&nb, "%d matches limit reached. Use limit=%d for "
		        "more, or refine pattern", g->limit, 2 * g->limit);
	}
	headnote(g->e, &g->h, "narrow the path, glob or pattern", &nb);
	timenote(&g->halt, "narrow the path, glob or pattern", &nb);
	if (g->linecut) {
		notesep(&nb);
		bufaddf(&nb, "Some lines truncated to %d bytes. Use read tool "
		        "to see full lines", g->e->greplinemax);
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
toolgrep(Toolenv *e, const Json *j, int args, Buf *out)
{
	Grep g = { 0 };
	Grepglob gg = { 0 };
	Walkopt o;
	struct stat st;
	char *path, *glob = NULL, *name;
	int rc = 1;

	g.e = e;
	haltinit(&g.halt, e);
	searchopt(&o, e, &g.halt);
	if (patharg(j, args, "grep", 0, &path, out) < 0)
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
	if (!(rc = stopped(e, &g.h)))
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
	full = headline(f->e, &f->h, b.p, b.len) < 0;
	buffree(&b);
	f->n += !full;
	return full;
}

int
toolfind(Toolenv *e, const Json *j, int args, Buf *out)
{
	Find f = { 0 };
	Buf nb = { 0 };
	Walkopt o;
	struct stat st;
	char *path = NULL, *pat;
	long lim = e->findlimit;
	int rc = 1;

	if (strarg(j, args, "find", "pattern", 1, &pat, out) < 0)
		return 1;
	if (patharg(j, args, "find", 0, &path, out) < 0 ||
	    intarg(j, args, "find", "limit", &lim, out) < 0 ||
	    walkroot(path, &st, out) < 0)
		goto done;
	if (!S_ISDIR(st.st_mode)) {
		bufaddf(out, "Not a directory: %s", path);
		goto done;
	}
	if (walkglobinit(&f.glob, "find", pat, out) < 0)
		goto done;
	f.e = e;
	f.limit = lim > 0 ? lim : e->findlimit;
	f.h.out = out;
	f.h.base = out->len;
	haltinit(&f.halt, e);
	searchopt(&o, e, &f.halt);
	walktree(path, findvisit, &f, &o);
	if (stopped(e, &f.h))
		goto done;
	if (!f.n)
		bufadds(out, "No files found matching pattern");
	if (f.more)
		bufaddf(&nb, "%d results limit reached. Use limit=%d for "
		        "more, or refine pattern", f.limit, 2 * f.limit);
	headnote(e, &f.h, "narrow the path or pattern", &nb);
	timenote(&f.halt, "narrow the path", &nb);
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
	size_t i;

	h.out = out;
	h.base = out->len;
	haltinit(&halt, e);
	for (i = 0; i < n && i < (size_t)lim && !halted(&halt); i++) {
		bufreset(&b);
		bufaddf(&b, "%s/%s", path, v[i]);
		st.st_mode = 0;
		if (stat(b.p, &st) < 0)
			lstat(b.p, &st);
		bufreset(&b);
		bufadds(&b, v[i]);
		if (S_ISDIR(st.st_mode))
			bufaddc(&b, '/');
		if (headline(e, &h, b.p, b.len) < 0)
			break;
	}
	buffree(&b);
	if (n > (size_t)lim)
		bufaddf(&nb, "%ld entries limit reached. Use limit=%ld for "
		        "more", lim, 2 * lim);
	headnote(e, &h, "list a subdirectory or use find", &nb);
	timenote(&halt, "list a subdirectory or use find", &nb);
	flushnotes(out, &nb);
}

int
toolls(Toolenv *e, const Json *j, int args, Buf *out)
{
	struct stat st;
	char *path, **v;
	long lim = e->lslimit;
	size_t n, i;
	int rc = 1;

	if (patharg(j, args, "ls", 0, &path, out) < 0)
		return 1;
	if (intarg(j, args, "ls", "limit", &lim, out) < 0 ||
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
		lslist(e, path, v, n, lim > 0 ? lim : e->lslimit, out);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	rc = 0;
done:
	free(path);
	return rc;
}
