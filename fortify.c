/* See LICENSE file for copyright and license details. */
/* fortify.c: what the static musl builds (make static, make cross) take
 * from us rather than from musl, linked only into them: the checked
 * copies that Debian's libbearssl.a calls, built as it is with glibc's
 * _FORTIFY_SOURCE (musl has none); the printf family, by fmt.c, so
 * that musl's vfprintf is not linked; and qsort, smaller than musl's. */
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
