/* See LICENSE file for copyright and license details. */
/* strtol.c: the static builds' strtol, strtoll, strtoul and strtoull
 * (fortify.c, linked here in place of the C library's): each base and
 * prefix, signs, white space, no digits, and the ends of each range
 * with ERANGE past them, on 32-bit longs and 64-bit ones alike. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"

/* name(s, base, v, len, e): whether fn(s, &end, base) reads the value
 * v, of type T, up to s + len, errno e (0: none); l for strtol, ll, ul
 * and ull for the others */
#define READS(name, T, fn) \
static int \
name(const char *s, int base, T v, size_t len, int e) \
{ \
	char *end; \
	T r; \
 \
	errno = 0; \
	r = fn(s, &end, base); \
	return r == v && end == s + len && errno == e; \
}

READS(l, long, strtol)
READS(ll, long long, strtoll)
READS(ul, unsigned long, strtoul)
READS(ull, unsigned long long, strtoull)

int
main(void)
{
	char max[64], over[64], min[64], under[64];

	T(l("42", 10, 42, 2, 0) && l("  \t\n-17x", 10, -17, 7, 0) &&
	    l("+5", 10, 5, 2, 0) && l("007", 10, 7, 3, 0),
	    "decimal: digits, white space and signs before, a stop after");
	T(l("", 10, 0, 0, 0) && l("  -", 10, 0, 0, 0) && l("x1", 10, 0, 0, 0) &&
	    l(" +z", 10, 0, 0, 0),
	    "no digits: 0, nothing read (the end is the string)");
	T(l("0x1F", 0, 31, 4, 0) && l("0X1f", 16, 31, 4, 0) &&
	    l("1f", 16, 31, 2, 0) && l("017", 0, 15, 3, 0) &&
	    l("019", 0, 1, 2, 0) && l("19", 0, 19, 2, 0) &&
	    l("-0x10", 0, -16, 5, 0),
	    "base 0 by prefix (0x, 0), base 16 with and without 0x");
	T(l("0x", 16, 0, 1, 0) && l("0xg", 0, 0, 1, 0),
	    "0x with no hex digit after: the 0 alone is read");
	T(l("zZ", 36, 35 * 36 + 35, 2, 0) && l("102", 2, 2, 2, 0) &&
	    l("777", 8, 511, 3, 0),
	    "bases 36, 2 and 8: letters of either case, a digit past the base "
	    "stops");
	errno = 0;
	T(strtol("5", NULL, 1) == 0 && errno == EINVAL &&
	    strtol("5", NULL, 37) == 0 && errno == EINVAL,
	    "bases 1 and 37: 0 and EINVAL");

	snprintf(max, sizeof(max), "%ld", LONG_MAX);
	snprintf(min, sizeof(min), "%ld", LONG_MIN);
	snprintf(over, sizeof(over), "%lu", (unsigned long)LONG_MAX + 1);
	snprintf(under, sizeof(under), "-%lu", (unsigned long)LONG_MAX + 2);
	T(l(max, 10, LONG_MAX, strlen(max), 0) &&
	    l(min, 10, LONG_MIN, strlen(min), 0) &&
	    l(over, 10, LONG_MAX, strlen(over), ERANGE) &&
	    l(under, 10, LONG_MIN, strlen(under), ERANGE) &&
	    l("99999999999999999999999", 10, LONG_MAX, 23, ERANGE),
	    "strtol: %s and %s exact, ERANGE past them, the whole number read",
	    max, min);
	T(ll("9223372036854775807", 10, LLONG_MAX, 19, 0) &&
	    ll("-9223372036854775808", 10, LLONG_MIN, 20, 0) &&
	    ll("9223372036854775808", 10, LLONG_MAX, 19, ERANGE) &&
	    ll("-9223372036854775809", 10, LLONG_MIN, 20, ERANGE) &&
	    ll("-0", 10, 0, 2, 0),
	    "strtoll: the ends of its range, ERANGE past them");

	snprintf(max, sizeof(max), "%lu", ULONG_MAX);
	if (ULONG_MAX == ULLONG_MAX)
		strcpy(over, "18446744073709551616");
	else
		snprintf(over, sizeof(over), "%llu",
		    (unsigned long long)ULONG_MAX + 1);
	T(ul(max, 10, ULONG_MAX, strlen(max), 0) &&
	    ul(over, 10, ULONG_MAX, strlen(over), ERANGE) &&
	    ul("-1", 10, ULONG_MAX, 2, 0) &&
	    ul("-2", 10, ULONG_MAX - 1, 2, 0) &&
	    ul("0x8000", 0, 32768, 6, 0),
	    "strtoul: %s exact, ERANGE past it, a minus sign negates", max);
	T(ull("18446744073709551615", 10, ULLONG_MAX, 20, 0) &&
	    ull("18446744073709551616", 10, ULLONG_MAX, 20, ERANGE) &&
	    ull("-18446744073709551615", 10, 1, 21, 0) &&
	    ull("-18446744073709551616", 10, ULLONG_MAX, 21, ERANGE) &&
	    ull("ffffffffffffffff", 16, ULLONG_MAX, 16, 0),
	    "strtoull: the end of its range, ERANGE past it, even negated");
	return tfail != 0;
}
