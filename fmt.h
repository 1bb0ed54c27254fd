/* See LICENSE file for copyright and license details. */
/* fmt.h: printf's formatting, for the static builds' own printf family */
#include <stdarg.h>
#include <stdio.h>

int fmtbuf(char *s, size_t size, const char *fmt, va_list ap);
int fmtfile(FILE *f, const char *fmt, va_list ap);
