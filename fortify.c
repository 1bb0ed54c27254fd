/* See LICENSE file for copyright and license details. */
/* fortify.c: the checked copies that Debian's libbearssl.a calls, built
 * as it is with glibc's _FORTIFY_SOURCE; musl has none. Linked only into
 * the static musl builds (make static, make cross). As glibc's do, each
 * aborts when the length passes the size of the destination. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *__memcpy_chk(void *, const void *, size_t, size_t);
void *__memmove_chk(void *, const void *, size_t, size_t);
void *__memset_chk(void *, int, size_t, size_t);

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
