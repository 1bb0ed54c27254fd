/* See LICENSE file for copyright and license details. */
/* util.c: what every room needs: messages, checked allocation, growable
 * buffers, UTF-8 and text safe for a terminal, time, files (readall,
 * mkdirs, syncdir) and paths (globs, absolute paths, links). */
#define _XOPEN_SOURCE 700	/* realpath(3) */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util.h"

static void
vwarn(const char *fmt, va_list ap)
{
	int saved = errno;	/* before stdio can change it */
	size_t n;

	fputs("agent: ", stderr);
	vfprintf(stderr, fmt, ap);
	n = strlen(fmt);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

/* die's, with exit status 2: bad usage or configuration, for the user
 * to fix before anything is sent. */
void
diecfg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(2);
}

void
warn(const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	errno = saved;
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory");
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

/* Make room for n more bytes and the terminating NUL. */
void
bufgrow(Buf *b, size_t n)
{
	size_t cap;

	if (b->len + n < b->cap)
		return;
	if (n > (size_t)-1 / 2 - b->len)
		die("out of memory");
	cap = b->cap ? b->cap : 64;
	while (cap <= b->len + n)
		cap *= 2;
	b->p = xrealloc(b->p, cap);
	b->cap = cap;
	b->p[b->len] = '\0';
}

void
bufadd(Buf *b, const void *p, size_t n)
{
	bufgrow(b, n);
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
bufaddc(Buf *b, int c)
{
	char ch = c;

	bufadd(b, &ch, 1);
}

void
bufadds(Buf *b, const char *s)
{
	bufadd(b, s, strlen(s));
}

void
bufaddf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	bufgrow(b, n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/* A size as the tools' notices give it: 512B, 50.0KB, 64.0MB. */
void
bufaddsize(Buf *b, unsigned long long n)
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

/* The text of b, "" when it has none yet. */
const char *
bstr(const Buf *b)
{
	return b->p ? b->p : "";
}

void
bufreset(Buf *b)
{
	b->len = 0;
	if (b->cap)
		b->p[0] = '\0';
}

void
buffree(Buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Hand the bytes to the caller, who frees them; the Buf is empty again. */
char *
bufdetach(Buf *b)
{
	char *p;

	if (!b->cap)
		bufgrow(b, 0);
	p = b->p;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

/* Length of the valid UTF-8 sequence at s, or 0 if there is none (invalid,
 * overlong, surrogate, beyond U+10FFFF, or cut short by n). */
size_t
utf8seq(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len, i;
	unsigned long c;

	if (!n)
		return 0;
	if (u[0] < 0x80)
		return 1;
	else if ((u[0] & 0xe0) == 0xc0)
		len = 2, c = u[0] & 0x1f;
	else if ((u[0] & 0xf0) == 0xe0)
		len = 3, c = u[0] & 0x0f;
	else if ((u[0] & 0xf8) == 0xf0)
		len = 4, c = u[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (u[i] & 0x3f);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) ||
	    (len == 4 && c < 0x10000) || c > 0x10ffff ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

/* Length of the longest valid UTF-8 prefix of s. */
size_t
utf8valid(const char *s, size_t n)
{
	size_t i = 0, k;
	unsigned long w;

	while (i < n) {
		/* most text is ASCII: a word of it at a time */
		for (; n - i >= sizeof(w); i += sizeof(w)) {
			memcpy(&w, s + i, sizeof(w));
			if (w & (~0UL / 0xff * 0x80))
				break;
		}
		if (i < n && (unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (i == n || !(k = utf8seq(s + i, n - i)))
			break;
		i += k;
	}
	return i;
}

/* Where to cut s at or before byte n without splitting a UTF-8 sequence:
 * the start of the character holding s[n], which must be readable. */
size_t
utf8back(const char *s, size_t n)
{
	size_t m = n;

	while (m > 0 && n - m < 3 && ((unsigned char)s[m] & 0xc0) == 0x80)
		m--;
	return ((unsigned char)s[m] & 0xc0) == 0x80 ? n : m;
}

/* Append s to b, each invalid byte replaced by U+FFFD. */
void
utf8repair(Buf *b, const char *s, size_t n)
{
	size_t i = 0, k;

	while (i < n) {
		k = utf8valid(s + i, n - i);
		bufadd(b, s + i, k);
		i += k;
		if (i < n) {
			bufadds(b, "\xef\xbf\xbd");
			i++;
		}
	}
}

long long
nowms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether s is one of the words of list, which spaces separate:
 * wordin("fork", "new fork") is 1, wordin("for", "new fork") and
 * wordin("", " new ") 0.  One call for a chain of strcmp. */
int
wordin(const char *s, const char *list)
{
	size_t n = strlen(s), k;

	while (*list) {
		k = strcspn(list, " ");
		if (k && k == n && !memcmp(list, s, n))
			return 1;
		list += list[k] ? k + 1 : k;
	}
	return 0;
}

/* Where s first is in the n bytes at p (which need no NUL), or NULL:
 * strstr within bounds, for a message that lies in place in its line. */
const char *
memfind(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);
	const char *e = p + n, *q;

	if (!k)
		return p;
	for (; (size_t)(e - p) >= k && (q = memchr(p, *s, e - p - k + 1));
	     p = q + 1)
		if (!memcmp(q, s, k))
			return q;
	return NULL;
}

/* The value of a hex digit, or -1. */
int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Milliseconds on a clock that never jumps: for timeouts. */
long long
monoms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Write all of p, retrying short writes; -1 with errno on failure. */
int
writeall(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

/* The value of a base64 digit (RFC 4648), or -1. */
int
b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Append n bytes of p in base64 (RFC 4648, padded), as images go to the
 * providers. */
void
b64enc(Buf *b, const void *p, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = p;
	unsigned long v;
	char *o;
	size_t i;

	bufgrow(b, (n + 2) / 3 * 4);
	o = b->p + b->len;
	for (i = 0; i + 2 < n; i += 3) {
		v = (unsigned long)s[i] << 16 | s[i + 1] << 8 | s[i + 2];
		*o++ = abc[v >> 18];
		*o++ = abc[v >> 12 & 63];
		*o++ = abc[v >> 6 & 63];
		*o++ = abc[v & 63];
	}
	if (i < n) {
		v = (unsigned long)s[i] << 16;
		v |= i + 1 < n ? s[i + 1] << 8 : 0;
		*o++ = abc[v >> 18];
		*o++ = abc[v >> 12 & 63];
		*o++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
		*o++ = '=';
	}
	b->len = o - b->p;
	b->p[b->len] = '\0';
}

/* Append the bytes of base64 text s[n] (RFC 4648, padded or not); -1 at
 * a byte that is no digit or padding out of place, b then holding what
 * came before it. */
int
b64dec(Buf *b, const char *s, size_t n)
{
	unsigned long v = 0;
	size_t i, k = 0;
	int d;

	while (n && s[n - 1] == '=')
		n--;
	for (i = 0; i < n; i++) {
		if ((d = b64val((unsigned char)s[i])) < 0)
			return -1;
		v = v << 6 | d;
		if (++k == 4) {
			bufaddc(b, v >> 16 & 255);
			bufaddc(b, v >> 8 & 255);
			bufaddc(b, v & 255);
			v = k = 0;
		}
	}
	if (k == 1)
		return -1;
	if (k >= 2)
		bufaddc(b, v >> (k == 2 ? 4 : 10) & 255);
	if (k == 3)
		bufaddc(b, v >> 2 & 255);
	return 0;
}

/* About four bytes a token: the estimate for text with no usage count. */
long
tokensof(size_t bytes)
{
	return (long)(bytes / 4);
}

/* Append what fd holds to b: 0 at its end, 1 when it holds more than max
 * bytes (b then has max + 1 of them), -1 with errno on a read error. */
int
readall(int fd, Buf *b, size_t max)
{
	size_t got = 0, want;
	ssize_t n;

	for (;;) {
		bufgrow(b, 65536);
		want = MIN(b->cap - b->len - 1, max + 1 - got);
		if ((n = read(fd, b->p + b->len, want)) == 0)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		b->len += n;
		b->p[b->len] = '\0';
		if ((got += n) > max)
			return 1;
	}
}

/* The directory of path, to be freed. */
char *
dirof(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, slash - path);
}

/* mkdir -p dir with mode: 0, or -1 with errno, the path that failed in
 * bad if it is not NULL (to be freed).  A file in the way is ENOTDIR. */
int
mkdirs(const char *dir, int mode, char **bad)
{
	char *d = xstrdup(dir), *p = d;
	struct stat st;
	int last;

	if (bad)
		*bad = NULL;
	for (;;) {
		p += strspn(p, "/");
		p += strcspn(p, "/");
		last = !*p || !p[strspn(p, "/")];
		*p = '\0';
		if (mkdir(d, mode) < 0 && (errno != EEXIST ||
		    stat(d, &st) < 0 || !S_ISDIR(st.st_mode))) {
			if (errno == EEXIST)
				errno = ENOTDIR;
			if (bad)
				*bad = xstrdup(d);
			free(d);
			return -1;
		}
		if (last)
			break;
		*p = '/';
	}
	free(d);
	return 0;
}

/* Make the new names in a directory durable: after a rename or a file
 * made in it.  0, or -1 with errno. */
int
syncdir(const char *dir)
{
	int fd, err = 0;

	if ((fd = open(dir, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	/* some file systems cannot sync a directory: nothing to be done */
	if (fsync(fd) < 0 && errno != EINVAL && errno != ENOTSUP)
		err = errno;
	if (close(fd) < 0 && !err)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

/* Text from the model, made safe for a terminal: control characters
 * (an escape sequence could hide what is asked) shown as \xNN, newlines
 * and tabs kept unless oneline. */
void
safetext(Buf *b, const char *s, size_t n, int oneline)
{
	Buf v = { 0 };
	size_t i;
	unsigned char c, d;

	utf8repair(&v, s, n);
	for (i = 0; i < v.len; i++) {
		c = v.p[i];
		d = i + 1 < v.len ? (unsigned char)v.p[i + 1] : 0;
		if (c == '\n' || c == '\t')
			bufaddc(b, oneline ? ' ' : c);
		else if (c < 0x20 || c == 0x7f)
			bufaddf(b, "\\x%02x", c);
		else if (c == 0xc2 && d >= 0x80 && d <= 0x9f)
			bufaddf(b, "\\u%04x", d), i++;	/* C1 controls */
		else
			bufaddc(b, c);
	}
	buffree(&v);
}

/* A line of fd added to b, read a byte at a time so that what follows
 * is left unread, without its line end (\n, or \r\n), cut to max bytes:
 * 1, or 0 at the end with nothing read, or -1 with errno (EINTR too: the
 * caller says whether to go on, adding to b). */
int
fdgetline(int fd, Buf *b, size_t max)
{
	char c;
	ssize_t n;

	while ((n = read(fd, &c, 1)) == 1 && c != '\n')
		if (b->len < max)
			bufaddc(b, c);
	if (n < 0)
		return -1;
	if (b->len && b->p[b->len - 1] == '\r')
		b->p[--b->len] = '\0';
	return n == 1 || b->len ? 1 : 0;
}

/* A line of fd as fdgetline reads it, through interrupts; NULL if it is
 * empty (-K's key). */
char *
fdline(int fd, size_t max)
{
	Buf b = { 0 };

	while (fdgetline(fd, &b, max) < 0 && errno == EINTR)
		;
	if (!b.len)
		buffree(&b);
	return b.p;
}

/* Whether two descriptors write to one file, as with 2>&1. */
int
samefile(int fd1, int fd2)
{
	struct stat s1, s2;

	return fstat(fd1, &s1) == 0 && fstat(fd2, &s2) == 0 &&
	       s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
}

enum {
	RMDEPTH = 256,	/* directories deep rmtree goes: a tool may make a
			 * tree deep enough to exhaust our stack or
			 * descriptors */
	RMPASSES = 1000	/* passes over the top: RMDEPTH levels each */
};

/* A removal under way: too deep a directory is moved up into top, the
 * one being removed, under a fresh name, and the top is gone over again
 * till none is moved: the depth stays bounded and nothing is left. */
typedef struct {
	int top;
	unsigned seq;	/* for the fresh names */
	int moved;	/* directories moved up in this pass */
	int err;	/* the first errno, 0 for none */
} Rm;

static void rmat(Rm *r, int dir, const char *name, int depth);

static void
rmfail(Rm *r)
{
	if (!r->err)
		r->err = errno;
}

/* Remove what the directory fd holds, by descriptor, then close fd. */
static void
rmbelow(Rm *r, int fd, int depth)
{
	DIR *d;
	struct dirent *de;

	if (!(d = fdopendir(fd))) {
		rmfail(r);
		close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rmat(r, fd, de->d_name, depth + 1);
	closedir(d);
}

/* Move the directory name in dir up into the top, for the next pass.
 * A name taken is tried again with the next; renameat replaces an
 * empty directory, which was to go anyway. */
static void
rmmove(Rm *r, int dir, const char *name)
{
	char fresh[32];
	int k;

	for (k = 0; k < 100; k++) {
		snprintf(fresh, sizeof(fresh), ".rm%u", r->seq++);
		if (renameat(dir, name, r->top, fresh) == 0) {
			r->moved++;
			return;
		}
		if (errno != EEXIST && errno != ENOTEMPTY && errno != ENOTDIR)
			break;
	}
	rmfail(r);
}

/* Remove the directory name, now empty, or the link it was swapped
 * for: unlinkat without AT_REMOVEDIR only then, or its error would
 * hide the real one. */
static void
rmgone(Rm *r, int dir, const char *name)
{
	if (unlinkat(dir, name, AT_REMOVEDIR) == 0)
		return;
	if (errno == ENOTDIR && unlinkat(dir, name, 0) == 0)
		return;
	rmfail(r);
}

/* Open the directory name to remove what it holds: a tool may have
 * taken our rights away (a link's own mode, if it is one by now, is
 * all fchmodat changes).  A process still at work in the tree may swap
 * a directory for a link to one outside while we walk: O_NOFOLLOW
 * refuses the link, which rmgone then removes, never what it leads
 * to. */
static int
rmopen(Rm *r, int dir, const char *name)
{
	int fd;

	fchmodat(dir, name, 0700, AT_SYMLINK_NOFOLLOW);
	fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	            O_CLOEXEC);
	if (fd < 0 && errno != ENOTDIR && errno != ELOOP)
		rmfail(r);
	return fd;
}

static void
rmat(Rm *r, int dir, const char *name, int depth)
{
	struct stat st;
	int fd;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		rmfail(r);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (unlinkat(dir, name, 0) < 0)
			rmfail(r);
		return;
	}
	if (depth > RMDEPTH) {
		rmmove(r, dir, name);
		return;
	}
	if ((fd = rmopen(r, dir, name)) >= 0)
		rmbelow(r, fd, depth);
	rmgone(r, dir, name);
}

/* Remove name in the directory dir, as rm -rf would, following no link:
 * a link is removed itself.  Each pass opens the top anew: a descriptor
 * read to its end by the last would show nothing. */
int
rmtreeat(int dir, const char *name)
{
	Rm r = { -1, 0, 0, 0 };
	struct stat st;
	int fd, pass;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dir, name, 0);
	r.top = rmopen(&r, dir, name);
	for (pass = 0; r.top >= 0 && pass < RMPASSES; pass++) {
		r.moved = 0;
		if ((fd = openat(r.top, ".", O_RDONLY | O_DIRECTORY |
		                 O_CLOEXEC)) < 0) {
			rmfail(&r);
			break;
		}
		rmbelow(&r, fd, 0);
		if (!r.moved)
			break;
	}
	if (r.top >= 0)
		close(r.top);
	rmgone(&r, dir, name);
	if (r.err) {
		errno = r.err;
		return -1;
	}
	return 0;
}

/* Remove dir and what is beneath it; a link named dir is removed
 * itself. */
int
rmtree(const char *dir)
{
	return rmtreeat(AT_FDCWD, dir);
}

/* Paths */

enum {
	MAXLINKS = 40,		/* symbolic links followed, as Linux does */
	BRACKETMAX = 256,	/* bytes of a glob's bracket expression */
	COMPMAX = 1024		/* bytes of a glob's component matched */
};

/* A "**" component: any number of whole components. */
static int
isstars(const char *p)
{
	return p[0] == '*' && p[1] == '*' && (p[2] == '/' || !p[2]);
}

/* The component after the one at p, or NULL if that was the last. */
static const char *
nextcomp(const char *p)
{
	p += strcspn(p, "/");
	return *p ? p + 1 : NULL;
}

/* The ":]" that ends a class "[:name:]" whose name starts at s, before
 * lim; NULL if there is none. */
static const char *
classend(const char *s, const char *lim)
{
	for (; s + 1 < lim && *s; s++)
		if (s[0] == ':' && s[1] == ']')
			return s;
	return NULL;
}

/* The end of a bracket expression, p just past its '[': its ']', or
 * NULL when there is none in BRACKETMAX bytes and the '[' is an ordinary
 * character.  The bound keeps each try at a '[' cheap whatever follows;
 * a class's end is searched for once, kept while it lies ahead: looked
 * for again at each "[:" of "[:[:[:...", to the end of the pattern, it
 * made a 1 MB .gitignore cost 250 ms a path. */
static const char *
bracketend(const char *p)
{
	const char *lim = p + strnlen(p, BRACKETMAX), *e = p;

	if (p < lim && (*p == '!' || *p == '^'))
		p++;
	if (p < lim && *p == ']')
		p++;
	for (; p < lim && *p != ']'; p++) {
		if (*p == '[' && p[1] == ':' && e && e < p + 2)
			e = classend(p + 2, lim);
		if (*p == '[' && p[1] == ':' && e)
			p = e + 1;
		else if (*p == '\\' && p[1])
			p++;
	}
	return p < lim ? p : NULL;
}

/* Whether byte c is in the bracket expression from p to its ']' at e. */
static int
inbracket(const char *p, const char *e, int c)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
		{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
		{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};
	int neg = 0, in = 0, lo, hi;
	const char *end = p;
	size_t k;

	if (*p == '!' || *p == '^')
		neg = 1, p++;
	while (p < e) {
		if (*p == '[' && p[1] == ':' && end && end < p + 2)
			end = classend(p + 2, e + 1);	/* as bracketend */
		if (*p == '[' && p[1] == ':' && end) {
			for (k = 0; k < LEN(classes); k++)
				if (!strncmp(p + 2, classes[k].name, end - p - 2) &&
				    !classes[k].name[end - p - 2])
					in |= c < 128 && classes[k].is(c);
			p = end + 2;
			continue;
		}
		if (*p == '\\' && p + 1 < e)
			p++;
		lo = hi = (unsigned char)*p++;
		if (*p == '-' && p + 1 < e) {
			if (*++p == '\\' && p + 1 < e)
				p++;
			hi = (unsigned char)*p++;
		}
		in |= c >= lo && c <= hi;
	}
	return in != neg;
}

/* The next character of UTF-8 text s, past its continuation bytes. */
static const char *
nextchar(const char *s)
{
	for (s++; (*s & 0xc0) == 0x80; s++)
		;
	return s;
}

/* Whether name matches glob pat as fnmatch(3) matches them with no
 * flags: '*' any run, '?' one character, brackets with ranges, classes
 * and '!', a backslash to escape.  Our own: fnmatch would add its size
 * to a static build. */
int
namematch(const char *pat, const char *name)
{
	const char *p = pat, *s = name, *star = NULL, *back = NULL, *e;
	int c;

	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			star = p;
			back = s;
			continue;
		}
		if (!*s)
			return !*p;
		if (*p == '?') {
			p++;
			s = nextchar(s);
			continue;
		}
		if (*p == '[' && (e = bracketend(p + 1))) {
			if (inbracket(p + 1, e, (unsigned char)*s)) {
				p = e + 1;
				s++;
				continue;
			}
		} else {
			c = *p == '\\' && p[1] ? *++p : *p;
			if (c && c == *s) {
				p++;
				s++;
				continue;
			}
		}
		if (!star)	/* no '*' to give another character to */
			return 0;
		p = star;
		s = back = nextchar(back);
	}
}

/* Glob pat made ready to be matched against many names, into b: each
 * '[' that opens no bracket expression escaped, so that namematch takes
 * it as the byte it is at once rather than look for its end again at
 * each try (a star's try per byte of the name): "*[[[[..." against a
 * name cost the pattern's length squared times the name's.  Brackets
 * are found per component, as pathmatch matches them; what a pattern
 * matches is the same. */
void
globprep(Buf *b, const char *pat)
{
	Buf comp = { 0 };
	const char *p, *e, *end;
	size_t k;

	for (;;) {
		bufreset(&comp);
		bufadd(&comp, pat, strcspn(pat, "/"));
		bufgrow(&comp, 0);
		for (p = comp.p, end = p + comp.len; p < end; ) {
			if (*p == '[' && (e = bracketend(p + 1))) {
				bufadd(b, p, e + 1 - p);
				p = e + 1;
			} else if (*p == '[') {
				bufadds(b, "\\[");
				p++;
			} else {
				k = *p == '\\' && p[1] ? 2 : 1;
				bufadd(b, p, k);
				p += k;
			}
		}
		if (!pat[strcspn(pat, "/")])
			break;
		pat += strcspn(pat, "/") + 1;
		bufaddc(b, '/');
	}
	bufgrow(b, 0);
	buffree(&comp);
}

/* The UTC date and time of sec seconds since the epoch into f: year,
 * month (1 to 12), day, hours, minutes, seconds.  By hand: gmtime(3)
 * would link the time zone code into a static build.  Days are counted
 * from 1 March of year 0, in eras of 400 years (146097 days), so that
 * the leap day ends each year. */
void
utcdate(long long sec, int f[6])
{
	long long days = sec / 86400, rem = sec % 86400;
	long long era, doe, yoe, doy, mp;

	if (rem < 0)
		rem += 86400, days--;
	days += 719468;		/* 1970-01-01 from 0000-03-01 */
	era = (days >= 0 ? days : days - 146096) / 146097;
	doe = days - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	f[2] = doy - (153 * mp + 2) / 5 + 1;
	f[1] = mp < 10 ? mp + 3 : mp - 9;
	f[0] = yoe + era * 400 + (f[1] <= 2);
	f[3] = rem / 3600;
	f[4] = rem / 60 % 60;
	f[5] = rem % 60;
}

/* fnmatch(3) on one component of a pattern and one of a path. */
static int
compmatch(const char *p, const char *s)
{
	char pat[COMPMAX], name[COMPMAX];
	size_t pn = strcspn(p, "/"), sn = strcspn(s, "/");

	if (pn >= sizeof(pat) || sn >= sizeof(name))
		return 0;
	memcpy(pat, p, pn);
	pat[pn] = '\0';
	memcpy(name, s, sn);
	name[sn] = '\0';
	return namematch(pat, name);
}

/* fnmatch(3) per path component, with "**" matching any number of whole
 * components, as in .gitignore and most globbing tools; a last "**" after
 * others matches one or more (what is inside dir, for dir followed by
 * "**").  As with "*" in a string, going back to the latest "**" alone is
 * enough, for every other component takes exactly one: the work is at
 * most the pattern's components times the path's.  Trying every split at
 * every "**" was exponential: a .gitignore line of twelve "**" and a name
 * kept grep busy for minutes on a deep tree, and .gitignore files come
 * with the repository. */
int
pathmatch(const char *p, const char *s)
{
	const char *star = NULL, *mark = NULL, *q;

	for (;;) {
		if (p && isstars(p) && (q = nextcomp(p))) {
			star = p = q;
			mark = s;
		} else if (p && isstars(p) && s) {
			return 1;
		} else if (p && s && compmatch(p, s)) {
			p = nextcomp(p);
			s = nextcomp(s);
		} else if (!p && !s) {
			return 1;
		} else if (star && mark) {
			/* the last "**" takes one more component */
			p = star;
			s = mark = nextcomp(mark);
		} else {
			return 0;
		}
	}
}

/* Whether real (a real path) is dir (one too) or beneath it. */
static int
realbeneath(const char *real, const char *dir)
{
	size_t n = strlen(dir);

	if (!strcmp(dir, "/"))
		return 1;
	return !strncmp(real, dir, n) && (!real[n] || real[n] == '/');
}

/* A file of instructions we trust (AGENTS.md, a skill, a template),
 * opened to be read: a regular file of ours or root's, not one that
 * another user left in a shared directory such as /tmp, whose real path
 * (every link followed) lies in the tree it was found in, the real path
 * of tree: a repository's AGENTS.md -> ~/.ssh/id_rsa or ->
 * /proc/self/environ would send that file to the model with no tool
 * call, past read rules and hooks.  Such a file is refused and said on
 * stderr; one that is not there or not trusted, quietly.  The file read
 * is the file checked: the real path is opened with no link followed at
 * its end, and must still name what was opened.  The descriptor, or
 * -1. */
int
trustedopen(const char *path, const char *tree)
{
	struct stat st, at;
	char *real, *top;
	Buf b = { 0 };
	int fd = -1;

	if (!(real = realpath(path, NULL)))
		return -1;
	tree = tree ? tree : "(no tree)";	/* none holds it */
	if (!(top = realpath(tree, NULL)) || !realbeneath(real, top)) {
		safetext(&b, path, strlen(path), 1);
		bufadds(&b, " leads outside ");
		safetext(&b, top ? top : tree, strlen(top ? top : tree), 1);
		warn("%s: not read", b.p);
		goto done;
	}
	/* O_NONBLOCK: a FIFO put there does not hold us up */
	if ((fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) < 0)
		goto done;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (st.st_uid != getuid() && st.st_uid != 0) ||
	    lstat(real, &at) < 0 || at.st_dev != st.st_dev ||
	    at.st_ino != st.st_ino) {
		close(fd);
		fd = -1;
	}
done:
	buffree(&b);
	free(real);
	free(top);
	return fd;
}

/* Whether a file of size bytes lacks its final newline: a line torn by
 * a crash or a full disk, or one that a writer who takes no lock (pi)
 * has under way.  Either way a new line of ours starts on a line of its
 * own; nothing is cut, as the half line may yet be finished.  When in
 * doubt, say yes: a blank line costs nothing, a line glued to junk is
 * lost. */
int
lacksnewline(int fd, off_t size)
{
	char c;

	if (size == 0)
		return 0;
	return pread(fd, &c, 1, size - 1) != 1 || c != '\n';
}

/* A path as models write it: "@" in front dropped, "~/" for $HOME.
 * What a tool opens and what the guard's rules match, alike. */
char *
modelpath(const char *p)
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

/* path made absolute, "." and ".." taken out by its letters alone */
char *
abspath(const char *path)
{
	char cwd[PATH_MAX];
	const char *s, *e;
	Buf in = { 0 }, b = { 0 };

	if (path[0] != '/' && getcwd(cwd, sizeof(cwd)))
		bufaddf(&in, "%s/", cwd);
	bufadds(&in, path);
	for (s = in.p; *s; s = e) {
		s += strspn(s, "/");
		e = s + strcspn(s, "/");
		if (e == s || (e - s == 1 && s[0] == '.'))
			continue;
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			while (b.len && b.p[--b.len] != '/')
				;
			continue;
		}
		bufaddc(&b, '/');
		bufadd(&b, s, e - s);
	}
	buffree(&in);
	if (!b.len)
		bufaddc(&b, '/');
	b.p[b.len] = '\0';
	return bufdetach(&b);
}

/* The target of the link at, as a path from the working directory; NULL
 * with errno if it cannot be read. */
static char *
linkpath(const char *at)
{
	char buf[PATH_MAX];
	const char *slash;
	ssize_t n;
	Buf b = { 0 };

	if ((n = readlink(at, buf, sizeof(buf))) < 0)
		return NULL;
	if (n == sizeof(buf)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	buf[n] = '\0';
	if (buf[0] != '/' && (slash = strrchr(at, '/')))
		bufadd(&b, at, slash - at + 1);
	bufadds(&b, buf);
	return bufdetach(&b);
}

/* Where path leads through symbolic links, in *real (NULL if path is not
 * one); -1 with errno if the chain does not end within MAXLINKS links, as
 * the kernel's lookup would fail.  Stopping short instead, we would take
 * the last link reached for the file and rename a file over it. */
int
linktarget(const char *path, char **real)
{
	const char *at = path;
	struct stat st;
	char *next;
	int k, err;

	*real = NULL;
	for (k = 0; lstat(at, &st) == 0 && S_ISLNK(st.st_mode); k++) {
		next = k < MAXLINKS ? linkpath(at) : NULL;
		err = k < MAXLINKS ? errno : ELOOP;
		free(*real);
		if (!(at = *real = next)) {
			errno = err;
			return -1;
		}
	}
	return 0;
}

/* Cut the text in b to cols characters (code points, each taken as one
 * column), its end marked "..." when cut: for a line of a list. */
void
textcut(Buf *b, size_t cols)
{
	size_t at = 0, k, chars = 0, keep = 0;

	for (; at < b->len && chars <= cols; chars++) {
		if (chars == (cols > 3 ? cols - 3 : 0))
			keep = at;
		k = utf8seq(b->p + at, b->len - at);
		at += k ? k : 1;
	}
	if (chars <= cols && at >= b->len)
		return;
	b->len = keep;
	b->p[keep] = '\0';
	bufadds(b, cols > 3 ? "..." : "");
}

/* The columns a line of a list is cut to: $COLUMNS, else 80. */
size_t
termcols(void)
{
	const char *c = getenv("COLUMNS");
	size_t v = 0;

	while (c && *c >= '0' && *c <= '9' && v < 10000)
		v = 10 * v + (*c++ - '0');
	return v >= 20 && v <= 1000 ? v : 80;
}

/* The next flag of argv from *ind (the word) and *pos (the letter), as
 * getopt(3) takes them from spec ("s:" takes an argument, into *arg):
 * -1 at the first word that is no flag, or past "--"; '?' for a bad
 * one, said.  By hand: getopt would add its size to a static build. */
int
flagnext(char **argv, const char *spec, int *ind, int *pos,
         const char **arg)
{
	const char *w = argv[*ind], *s = NULL;
	int c;

	if (*pos == 1 && (!w || w[0] != '-' || !w[1]))
		return -1;
	if (*pos == 1 && !strcmp(w, "--")) {
		++*ind;
		return -1;
	}
	c = (unsigned char)w[*pos];
	if (c == ':' || !(s = strchr(spec, c))) {
		warn("unknown flag -%c", c);
		return '?';
	}
	if (s[1] != ':') {
		if (!w[++*pos])
			++*ind, *pos = 1;
		return c;
	}
	*arg = w[*pos + 1] ? w + *pos + 1 : argv[++*ind];
	if (!*arg) {
		warn("-%c needs an argument", c);
		return '?';
	}
	++*ind, *pos = 1;
	return c;
}

/* n random bytes: /dev/urandom, or a clock and pid mix when it fails. */
void
randbytes(unsigned char *p, size_t n)
{
	struct timespec ts;
	unsigned long x;
	size_t got = 0;
	ssize_t r;
	int fd;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) >= 0) {
		while (got < n) {
			if ((r = read(fd, p + got, n - got)) > 0)
				got += r;
			else if (r == 0 || errno != EINTR)
				break;
		}
		close(fd);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	x = (unsigned long)ts.tv_sec ^ (unsigned long)ts.tv_nsec << 8 ^
	    (unsigned long)getpid() << 20 ^ (unsigned long)monoms();
	for (; got < n; got++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		x ^= (unsigned long)ts.tv_nsec + got;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[got] = x >> 11;
	}
}

/* A UUID version 4 into u[37]. */
void
uuid(char *u)
{
	unsigned char b[16];

	randbytes(b, sizeof(b));
	b[6] = (b[6] & 0x0f) | 0x40;
	b[8] = (b[8] & 0x3f) | 0x80;
	snprintf(u, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
	         "%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3], b[4],
	         b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
	         b[14], b[15]);
}

/* The time now as ISO 8601 UTC with milliseconds into t[32]. */
void
isonow(char *t)
{
	long long ms = nowms();
	int f[6];

	/* by hand, not gmtime and strftime: see utcdate */
	utcdate(ms / 1000, f);
	snprintf(t, 32, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	         f[0] % 10000, f[1] % 100, f[2] % 100, f[3] % 100, f[4] % 100,
	         f[5] % 100, (int)(ms % 1000));
}
