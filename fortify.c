/* See LICENSE file for copyright and license details. */
/* fortify.c: what the static musl builds (make static, make cross) take
 * from us rather than from musl, linked only into them: the checked
 * copies that Debian's libbearssl.a calls, built as it is with glibc's
 * _FORTIFY_SOURCE (musl has none); the printf family, by fmt.c, so
 * that musl's vfprintf is not linked; qsort, smaller than musl's;
 * strtol and its kin, smaller than musl's (which read through a FILE);
 * and ioctl, without musl's translation of 32-bit time requests. */
#define _DEFAULT_SOURCE	/* syscall(2) */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "fmt.h"

int ioctl(int, int, ...);	/* not <sys/ioctl.h>: glibc's takes a long */
void *__memcpy_chk(void *, const void *, size_t, size_t);
void *__memmove_chk(void *, const void *, size_t, size_t);
void *__memset_chk(void *, int, size_t, size_t);

/* As glibc's do, each aborts when the length passes the size of the
 * destination. */
static void
check(size_t n, size_t size)
{
	if (n > size) {
		fputs("agent: buffer overflow detected\n", stderr);
		abort();
	}
}

void *
__memcpy_chk(void *dst, const void *src, size_t n, size_t size)
{
	check(n, size);
	return memcpy(dst, src, n);
}

void *
__memmove_chk(void *dst, const void *src, size_t n, size_t size)
{
	check(n, size);
	return memmove(dst, src, n);
}

void *
__memset_chk(void *dst, int c, size_t n, size_t size)
{
	check(n, size);
	return memset(dst, c, n);
}

int
vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
	return fmtbuf(s, n, fmt, ap);
}

int
snprintf(char *s, size_t n, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmtbuf(s, n, fmt, ap);
	va_end(ap);
	return r;
}

int
vfprintf(FILE *f, const char *fmt, va_list ap)
{
	return fmtfile(f, fmt, ap);
}

int
fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmtfile(f, fmt, ap);
	va_end(ap);
	return r;
}

int
printf(const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmtfile(stdout, fmt, ap);
	va_end(ap);
	return r;
}

static void
sortswap(char *a, char *b, size_t n)
{
	char t;

	for (; n; n--, a++, b++) {
		t = *a;
		*a = *b;
		*b = t;
	}
}

/* Element i of the heap v[n] moved down to its place. */
static void
sortsift(char *v, size_t i, size_t n, size_t size,
         int (*cmp)(const void *, const void *))
{
	size_t c;

	while ((c = 2 * i + 1) < n) {
		if (c + 1 < n && cmp(v + c * size, v + (c + 1) * size) < 0)
			c++;
		if (cmp(v + i * size, v + c * size) >= 0)
			return;
		sortswap(v + i * size, v + c * size, size);
		i = c;
	}
}

/* A heapsort: n log n at worst, in place, in a fifth of the bytes of
 * musl's smoothsort (2 KB), which is faster only on input nearly sorted;
 * neither is stable, and no caller (ours, musl's resolver) needs it. */
void
qsort(void *base, size_t n, size_t size,
      int (*cmp)(const void *, const void *))
{
	char *v = base;
	size_t i;

	for (i = n / 2; i-- > 0;)
		sortsift(v, i, n, size, cmp);
	for (i = n; i-- > 1;) {
		sortswap(v, v + i * size, size);
		sortsift(v, 0, i, size, cmp);
	}
}

/* c's value as a digit of any base up to 36; 36 for no digit. */
static int
scandigit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 32;
	return c >= 'a' && c <= 'z' ? c - 'a' + 10 : 36;
}

enum { SCANNEG = 1, SCANOVER = 2 };

/* The integer that s starts with, in base (0: by its prefix, 0x or 0),
 * as the strto* functions read it: its magnitude in *v, and SCANNEG for
 * a minus sign, SCANOVER for a magnitude past any integer's.  musl's own
 * reads through a FILE and its buffer machinery (1.6 KB on armhf), for
 * what agent and musl's resolver read: short strings. */
static int
scanint(const char *s, char **end, int base, unsigned long long *v)
{
	const char *p = s;
	unsigned long long q;
	int d, f = 0;

	*v = 0;
	if (end)
		*end = (char *)s;
	if (base < 0 || base == 1 || base > 36) {
		errno = EINVAL;
		return 0;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-' || *p == '+')
		f = *p++ == '-' ? SCANNEG : 0;
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 32) == 'x' &&
	    scandigit((unsigned char)p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = *p == '0' ? 8 : 10;
	}
	if (scandigit((unsigned char)*p) >= base)
		return 0;	/* no digits: nothing read */
	q = ULLONG_MAX / base;
	for (; (d = scandigit((unsigned char)*p)) < base; p++) {
		if (*v > q || *v * base > ULLONG_MAX - d)
			f |= SCANOVER;
		else
			*v = *v * base + d;
	}
	if (end)
		*end = (char *)p;
	return f;
}

/* v and its flags as an unsigned type of largest value max: past it,
 * ERANGE and max; negated in that type after a minus sign. */
static unsigned long long
scanunsigned(unsigned long long v, int f, unsigned long long max)
{
	if ((f & SCANOVER) || v > max) {
		errno = ERANGE;
		return max;
	}
	return f & SCANNEG ? (0 - v) & max : v;
}

/* v and its flags as a signed type of largest value max: past it (max
 * + 1 after a minus sign), ERANGE and the end of the range. */
static long long
scansigned(unsigned long long v, int f, long long max)
{
	if ((f & SCANOVER) || v > (unsigned long long)max + (f & SCANNEG)) {
		errno = ERANGE;
		return f & SCANNEG ? -max - 1 : max;
	}
	if (!(f & SCANNEG))
		return (long long)v;
	return v ? -(long long)(v - 1) - 1 : 0;	/* -max - 1 fits too */
}

long
strtol(const char *s, char **end, int base)
{
	unsigned long long v;
	int f = scanint(s, end, base, &v);

	return (long)scansigned(v, f, LONG_MAX);
}

long long
strtoll(const char *s, char **end, int base)
{
	unsigned long long v;
	int f = scanint(s, end, base, &v);

	return scansigned(v, f, LLONG_MAX);
}

unsigned long
strtoul(const char *s, char **end, int base)
{
	unsigned long long v;
	int f = scanint(s, end, base, &v);

	return (unsigned long)scanunsigned(v, f, ULONG_MAX);
}

unsigned long long
strtoull(const char *s, char **end, int base)
{
	unsigned long long v;
	int f = scanint(s, end, base, &v);

	return scanunsigned(v, f, ULLONG_MAX);
}

/* The request passed to the kernel as it is.  musl's ioctl, on a 32-bit
 * machine, retries the requests that carry a time (SIOCGSTAMP, sound and
 * video buffers) in their 32-bit form when an old kernel refuses their
 * 64-bit one: a table and a translator (0.8 KB on armhf) for requests
 * that neither agent (TIOCGWINSZ) nor musl's resolver (SIOCGIFINDEX)
 * makes. */
int
ioctl(int fd, int req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	return (int)syscall(SYS_ioctl, fd, req, arg);
}
