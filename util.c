/* See LICENSE file for copyright and license details. */
/* util.c: messages, checked allocation, growable buffers, UTF-8, time. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

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

	while (i < n) {
		if ((unsigned char)s[i] < 0x80) {
			i++;
			continue;
		}
		if (!(k = utf8seq(s + i, n - i)))
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
