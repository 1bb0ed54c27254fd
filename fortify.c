/* See LICENSE file for copyright and license details. */
/* fortify.c: what the static musl builds (make static, make cross) take
 * from us rather than from musl, linked only into them: the checked
 * copies that Debian's libbearssl.a calls, built as it is with glibc's
 * _FORTIFY_SOURCE (musl has none), and the printf family, by fmt.c, so
 * that musl's vfprintf is not linked. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

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
