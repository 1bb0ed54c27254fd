/* See LICENSE file for copyright and license details. */
/* fmt.c: fmt.c's printf against the C library's, format by format: a
 * table of values and edges, then random doubles by the thousand. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../fmt.h"
#include "t.h"

static int nmiss;

/* fmt with its arguments through both, into a buffer of size; 1 if they
 * agree on the text and the length, else 0 with the two in a, b. */
static int
vsame(char *a, char *b, size_t size, const char *fmt, va_list ap)
{
	va_list ap2;
	int ra, rb;

	va_copy(ap2, ap);
	ra = fmtbuf(size ? a : NULL, size, fmt, ap);
	rb = vsnprintf(size ? b : NULL, size, fmt, ap2);
	va_end(ap2);
	return ra == rb && (!size || !strcmp(a, b));
}

/* One check of the table: one line. */
static void
same(const char *fmt, ...)
{
	char a[2048], b[2048];
	va_list ap;
	int ok;

	va_start(ap, fmt);
	ok = vsame(a, b, sizeof(a), fmt, ap);
	va_end(ap);
	T(ok, "\"%s\": \"%s\"%s%s", fmt, a, ok ? "" : ", libc: ", ok ? "" : b);
}

/* fmt through both into a and b, whole: 1 if they agree. */
static int
agree(char *a, char *b, const char *fmt, ...)
{
	va_list ap;
	int ok;

	va_start(ap, fmt);
	ok = vsame(a, b, 2048, fmt, ap);
	va_end(ap);
	return ok;
}

/* One of many: only counted, and the first to differ said. */
static void
quiet(const char *fmt, double v)
{
	char a[2048], b[2048];

	if (!agree(a, b, fmt, v) && nmiss++ == 0)
		printf("# \"%s\" of %a: \"%s\", libc: \"%s\"\n", fmt, v, a, b);
}

/* snprintf's size: the text cut, its NUL, and the whole length. */
static void
cut(size_t size, const char *fmt, ...)
{
	char a[64], b[64];
	va_list ap;
	int ok;

	memset(a, 'x', sizeof(a));
	memset(b, 'x', sizeof(b));
	va_start(ap, fmt);
	ok = vsame(a, b, size, fmt, ap) && !memcmp(a, b, sizeof(a));
	va_end(ap);
	T(ok, "\"%s\" in %zu bytes: \"%.*s\"", fmt, size,
	    size ? (int)size - 1 : 0, a);
}

static uint64_t seed = 88172645463325252ULL;

static uint64_t
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void
table(void)
{
	same("");
	same("plain text, no conversion");
	same("%d %d %d %d", 0, -1, INT_MAX, INT_MIN);
	same("%i|%ld|%ld", 42, LONG_MAX, LONG_MIN);
	same("%lld %lld %llu", LLONG_MAX, LLONG_MIN, ULLONG_MAX);
	same("%u %lu %zu %zu", UINT_MAX, ULONG_MAX, (size_t)0, (size_t)-1);
	same("%02x %02x %02x %02X %X", 5, 255, 0x1234, 171, 0xdeadbeefu);
	same("%04x %06x %08lx", 0xab, 0xabc, 0x12345678UL);
	same("%06o %03o %o %o", 0755, 7, 0, 01234567);
	same("%02d %02d %04d %04d %03d", 7, -5, -42, 12345, 0);
	same("%5zu|%-5d|%-5zu|", (size_t)42, 3, (size_t)123456);
	same("%c%c%c", 'a', ' ', '~');
	same("100%% and %%d");
	same("%s|%s|%s", "", "hello", "caf\xc3\xa9");
	same("%.*s|%.*s|%.*s|%.*s", 3, "hello", 0, "x", 10, "hi", 2, "");
	same("%.8s %.8s", "abcdefghijk", "abc");
	same("%.200s", "a short one");
	same("%*s|%*s|%*s|", 4, "ab", -4, "ab", 0, "");
	same("%10s|%-10s|%3s|", "right", "left", "longer");
	same("%.0f %.0f %.0f %.0f %.0f", 0.5, 1.5, 2.5, -0.5, 3.5);
	same("%.1f %.1f %.1f %.1f", 0.05, 0.25, 0.35, -9.95);
	same("%.2f %.2f %.2f", 0.005, 1.005, -123.456);
	same("%.4f %.6f %.10f", 0.00015, 1.0 / 3, 2.0 / 3);
	same("%f %f %f", 0.0, -0.0, 1e15);
	same("%.0f %.1f", 1e300, DBL_MAX);
	same("%.10f %.6f", DBL_MIN, 5e-324);
	same("%g %g %g %g %g", 0.0, -0.0, 1e-5, 123456.0, 1234567.0);
	same("%g %g %g %g", 0.0001, 0.00001234, 100000.0, 999999.5);
	same("%g %g %g %g", 1e100, DBL_MAX, DBL_MIN, 5e-324);
	same("%.10g %.10g %.10g", 1.0 / 3, 0.000015, 12345678901.0);
	same("%.17g %.17g %.1g %.0g", 0.1, 1e23, 0.95, 25.0);
	same("%g %g %g %g", 9.9999995, 9.99999949, -1.5, 1e-4);
	same("%g %g %g", (double)INFINITY, -(double)INFINITY, (double)NAN);
	same("%f %.2f", (double)INFINITY, -(double)NAN);
	same("%5g|%-8.2f|%08.3f|%08g|%010d", 1.5, 2.25, -1.5,
	    (double)INFINITY, -7);
	same("cost=%.6f turns=%d %s", 0.123456789, 3, "end");
	cut(0, "%s", "hello");
	cut(1, "%s", "hello");
	cut(4, "%d-%s", 12345, "tail");
	cut(6, "%s", "hello");
	cut(7, "%s", "hello");
	cut(8, "%.3f", 3.14159);
}

/* Random doubles: any bits (every exponent, nan and inf among them),
 * and costs as agent prints them (a few digits over a power of ten). */
static void
many(void)
{
	static const char *const fmts[] = {
		"%g", "%.10g", "%.17g", "%.3g", "%.1g", "%.0f", "%.1f",
		"%.2f", "%.4f", "%.6f", "%.10f", "%f"
	};
	static const double p10[] = { 1, 10, 100, 1e3, 1e4, 1e6, 1e8, 1e10 };
	uint64_t bits;
	double v;
	size_t i, k;

	for (k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		nmiss = 0;
		for (i = 0; i < 4000; i++) {
			bits = rnd();
			memcpy(&v, &bits, sizeof(v));
			quiet(fmts[k], v);
			v = (double)(rnd() % 100000000) / p10[rnd() % 8];
			quiet(fmts[k], v);
			quiet(fmts[k], -v / 7);
		}
		T(nmiss == 0, "\"%s\": 12000 random doubles as libc has them "
		    "(%d differ)", fmts[k], nmiss);
	}
}

static int
tofile(FILE *f, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = fmtfile(f, fmt, ap);
	va_end(ap);
	return r;
}

/* vfprintf's way: in pieces to a stream, a long text crossing them; a
 * stream that cannot be written is -1. */
static void
file(void)
{
	char big[3000], a[4000], b[4000];
	FILE *f;
	size_t n;
	int ra, rb;

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	if (!(f = tmpfile())) {
		SKIP("vfprintf: no tmpfile");
		return;
	}
	ra = tofile(f, "[%s] %d %.2f\n", big, 42, 2.5);
	rewind(f);
	n = fread(a, 1, sizeof(a), f);
	fclose(f);
	rb = snprintf(b, sizeof(b), "[%s] %d %.2f\n", big, 42, 2.5);
	T(ra == rb && n == (size_t)rb && !memcmp(a, b, n),
	    "vfprintf: %d bytes in pieces, as libc's (%d, %zu written)", rb,
	    ra, n);
	if (!(f = fopen("/dev/null", "r"))) {
		SKIP("vfprintf: no /dev/null");
		return;
	}
	ra = tofile(f, "%s %d", "x", 1);
	T(ra == -1 && ferror(f), "vfprintf: a stream not to write is -1 "
	    "(%d)", ra);
	fclose(f);
}

int
main(void)
{
	table();
	many();
	file();
	return tfail != 0;
}
