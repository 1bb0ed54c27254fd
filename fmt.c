/* See LICENSE file for copyright and license details. */
/* fmt.c: printf's formatting for the static builds, where fortify.c gives
 * it the C library's names, in place of musl's vfprintf and its long
 * double arithmetic (10.5 KB).  It knows what agent's formats use: the
 * flags - and 0, a width and a precision (either may be *), the lengths
 * l, ll and z, and d i u x X o c s f g %; %f and %g are exact, rounded
 * half to even as the C library's, and test/fmt.c holds them to it. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

enum {
	FMTLEFT = 1, FMTZERO = 2,	/* the flags - and 0 */
	FMTLIMBS = 88,		/* limbs of 9 digits: m * 5^1074 has 767 */
	FMTPREC = 500,		/* a float's precision at most: its text
				 * then fits FMTTEXT */
	FMTTEXT = 1024
};

/* Where the text goes: into s, cap bytes of it at most; with f set, s
 * is a buffer written to f each time it fills.  total counts it all. */
typedef struct {
	char *s;
	size_t cap, used, total;
	FILE *f;
	int err;
} Fmtout;

static void
fmtput(Fmtout *o, const char *p, size_t n)
{
	size_t k;

	o->total += n;
	while (n) {
		if (o->f && o->used == o->cap) {
			if (fwrite(o->s, 1, o->used, o->f) != o->used)
				o->err = 1;
			o->used = 0;
		}
		k = o->cap - o->used < n ? o->cap - o->used : n;
		if (!k)
			return;	/* snprintf's buffer is full: count only */
		memcpy(o->s + o->used, p, k);
		o->used += k;
		p += k;
		n -= k;
	}
}

static void
fmtpad(Fmtout *o, char c, size_t n)
{
	char pad[16];

	memset(pad, c, sizeof(pad));
	for (; n > sizeof(pad); n -= sizeof(pad))
		fmtput(o, pad, sizeof(pad));
	fmtput(o, pad, n);
}

/* A conversion's text: its sign pre (zeros go after it), then body,
 * padded to width. */
static void
fmtfield(Fmtout *o, const char *pre, const char *body, size_t n, int width,
         int flags)
{
	size_t np = strlen(pre), pad = 0;

	if (width > 0 && (size_t)width > np + n)
		pad = width - np - n;
	if (!(flags & (FMTLEFT | FMTZERO)))
		fmtpad(o, ' ', pad);
	fmtput(o, pre, np);
	if ((flags & (FMTLEFT | FMTZERO)) == FMTZERO)
		fmtpad(o, '0', pad);
	fmtput(o, body, n);
	if (flags & FMTLEFT)
		fmtpad(o, ' ', pad);
}

/* The exact decimal digits of a finite double's magnitude into d, from
 * the first that is not 0 to the last that is not: their count, and in
 * *dp where the point goes (the value is 0.d times 10 to *dp).  A double
 * is m * 2^e, which for e < 0 is m * 5^-e / 10^-e: its digits are those
 * of the integer m * 5^-e (or m * 2^e), worked in limbs of 9 digits. */
static int
fmtdigits(double v, char *d, int *dp)
{
	uint32_t a[FMTLIMBS], f, x;
	uint64_t b, m, c;
	int e, i, j, k, n, nd, step;

	memcpy(&b, &v, sizeof(b));
	e = (int)(b >> 52 & 0x7ff);
	m = b & (((uint64_t)1 << 52) - 1);
	if (e)
		m |= (uint64_t)1 << 52;
	else
		e = 1;
	e -= 1075;
	*dp = 1;
	if (!m)
		return 0;
	for (; !(m & 1) && e < 0; e++)
		m >>= 1;
	a[0] = m % 1000000000;
	a[1] = m / 1000000000;	/* m < 2^53 < 10^18 */
	n = a[1] ? 2 : 1;
	/* by 2^28 or 5^13 at a time: a limb's product stays in 64 bits */
	for (k = e; k; k -= step) {
		step = k > 28 ? 28 : k < -13 ? -13 : k;
		if (step > 0)
			f = (uint32_t)1 << step;
		else
			for (f = 1, i = 0; i < -step; i++)
				f *= 5;
		for (c = 0, i = 0; i < n; i++) {
			c += (uint64_t)a[i] * f;
			a[i] = c % 1000000000;
			c /= 1000000000;
		}
		for (; c; c /= 1000000000)
			a[n++] = c % 1000000000;
	}
	for (nd = 0, x = a[n - 1]; x; x /= 10)
		nd++;
	for (x = a[n - 1], j = nd; j > 0; x /= 10)
		d[--j] = '0' + x % 10;
	for (i = n - 2; i >= 0; i--, nd += 9)
		for (x = a[i], j = 9; j > 0; x /= 10)
			d[nd + --j] = '0' + x % 10;
	*dp = nd + (e < 0 ? e : 0);
	while (nd > 0 && d[nd - 1] == '0')
		nd--;
	return nd;
}

/* d[nd] rounded to its first keep digits, half to even (the C library's
 * way in the default rounding mode): the new count, zeros at the end
 * cut, and *dp one on when the carry makes a digit more. */
static int
fmtround(char *d, int nd, int *dp, int keep)
{
	int up;

	if (keep >= nd)
		return nd;
	if (keep < 0)
		return 0;
	up = d[keep] > '5' || (d[keep] == '5' && (nd > keep + 1 ||
	    (keep > 0 && (d[keep - 1] - '0') % 2)));
	nd = keep;
	if (up) {
		while (nd > 0 && d[nd - 1] == '9')
			nd--;
		if (nd == 0) {
			d[nd++] = '1';
			(*dp)++;
		} else {
			d[nd - 1]++;
		}
	}
	while (nd > 0 && d[nd - 1] == '0')
		nd--;
	return nd;
}

/* Digit i of d[nd], the places past either end being zeros. */
static char
fmtdigit(const char *d, int nd, int i)
{
	return i >= 0 && i < nd ? d[i] : '0';
}

/* A finite v >= 0 as %f (g 0) or %g with precision prec, into t: its
 * length.  %g is %f or %e by the exponent of its rounded value, without
 * the zeros at the end of its fraction. */
static int
fmtfloat(char *t, double v, int prec, int g)
{
	char d[FMTLIMBS * 9];
	int nd, dp, x, i, n = 0, frac = prec;

	nd = fmtdigits(v, d, &dp);
	if (g) {
		prec = prec ? prec : 1;
		nd = fmtround(d, nd, &dp, prec);
		x = nd ? dp - 1 : 0;
		frac = nd - dp;
		if (x < -4 || x >= prec) {
			t[n++] = d[0];
			if (nd > 1)
				t[n++] = '.';
			for (i = 1; i < nd; i++)
				t[n++] = d[i];
			t[n++] = 'e';
			t[n++] = x < 0 ? '-' : '+';
			x = x < 0 ? -x : x;
			if (x >= 100)
				t[n++] = '0' + x / 100;
			t[n++] = '0' + x / 10 % 10;
			t[n++] = '0' + x % 10;
			return n;
		}
	} else {
		nd = fmtround(d, nd, &dp, dp + prec);
	}
	if (dp <= 0)
		t[n++] = '0';
	for (i = 0; i < dp; i++)
		t[n++] = fmtdigit(d, nd, i);
	if (frac > 0)
		t[n++] = '.';
	for (i = 0; i < frac; i++)
		t[n++] = fmtdigit(d, nd, dp + i);
	return n;
}

/* An unsigned integer in base into the end of t[24]: where it starts. */
static char *
fmtint(char *t, unsigned long long u, int base, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char *p = t + 24;

	do
		*--p = digits[u % base];
	while (u /= base);
	return p;
}

/* A width or a precision, written or * (taken from ap by the caller). */
static int
fmtnum(const char **fmt)
{
	int n = 0;

	for (; **fmt >= '0' && **fmt <= '9'; (*fmt)++)
		n = n < 100000 ? n * 10 + (**fmt - '0') : n;
	return n;
}

static void
fmtdo(Fmtout *o, const char *fmt, va_list ap)
{
	char t[FMTTEXT];
	const char *p, *q, *s, *pre;
	int flags, width, prec, lng, neg;
	unsigned long long u;
	long long i;
	double v;
	uint64_t b;
	size_t n;

	for (;;) {
		for (p = fmt; *p && *p != '%'; p++)
			;
		fmtput(o, fmt, p - fmt);
		if (!*p)
			return;
		for (q = p, flags = 0, p++; *p == '-' || *p == '0'; p++)
			flags |= *p == '-' ? FMTLEFT : FMTZERO;
		if (*p == '*') {
			p++;
			if ((width = va_arg(ap, int)) < 0) {
				flags |= FMTLEFT;
				width = width == INT_MIN ? INT_MAX : -width;
			}
		} else {
			width = fmtnum(&p);
		}
		prec = -1;
		if (*p == '.') {
			p++;
			if (*p == '*')
				p++, prec = va_arg(ap, int);
			else
				prec = fmtnum(&p);
		}
		lng = 0;
		for (; *p == 'l' || *p == 'z'; p++)
			lng += *p == 'z' ? 3 : 1;
		pre = "";
		s = t;
		switch (*p) {
		case 'd':
		case 'i':
			i = lng == 3 ? (ptrdiff_t)va_arg(ap, size_t) :
			    lng == 2 ? va_arg(ap, long long) : lng ?
			    va_arg(ap, long) : va_arg(ap, int);
			pre = i < 0 ? "-" : "";
			u = i < 0 ? -(unsigned long long)i : (unsigned long long)i;
			s = fmtint(t, u, 10, 0);
			n = t + 24 - s;
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			u = lng == 3 ? va_arg(ap, size_t) : lng == 2 ?
			    va_arg(ap, unsigned long long) : lng ?
			    va_arg(ap, unsigned long) : va_arg(ap, unsigned);
			s = fmtint(t, u, *p == 'u' ? 10 : *p == 'o' ? 8 : 16,
			    *p == 'X');
			n = t + 24 - s;
			break;
		case 'c':
			t[0] = (char)va_arg(ap, int);
			n = 1;
			break;
		case 's':
			if (!(s = va_arg(ap, const char *)))
				s = "(null)";
			n = prec < 0 ? strlen(s) : (const char *)memchr(s, 0,
			    prec) ? strlen(s) : (size_t)prec;
			break;
		case 'f':
		case 'g':
			v = va_arg(ap, double);
			memcpy(&b, &v, sizeof(b));
			neg = (int)(b >> 63);
			pre = neg ? "-" : "";
			if ((b >> 52 & 0x7ff) == 0x7ff) {
				s = b << 12 ? "nan" : "inf";
				n = 3;
				flags &= ~FMTZERO;
				break;
			}
			prec = prec < 0 ? 6 : prec > FMTPREC ? FMTPREC : prec;
			n = fmtfloat(t, neg ? -v : v, prec, *p == 'g');
			break;
		case '%':
			s = "%";
			n = 1;
			break;
		default:	/* not one of ours: shown as it is */
			s = q;
			n = p - q + (*p != '\0');
			width = 0;
			break;
		}
		fmtfield(o, pre, s, n, width, flags);
		fmt = *p ? p + 1 : p;
	}
}

/* vsnprintf: at most size - 1 bytes and a NUL into s, and the length the
 * whole would have. */
int
fmtbuf(char *s, size_t size, const char *fmt, va_list ap)
{
	Fmtout o = { 0 };

	o.s = s;
	o.cap = size ? size - 1 : 0;
	fmtdo(&o, fmt, ap);
	if (size)
		s[o.used] = '\0';
	return o.total > INT_MAX ? -1 : (int)o.total;
}

/* vfprintf: written to f in pieces of a buffer's size; -1 if a write
 * failed. */
int
fmtfile(FILE *f, const char *fmt, va_list ap)
{
	char buf[512];
	Fmtout o = { 0 };

	o.s = buf;
	o.cap = sizeof(buf);
	o.f = f;
	fmtdo(&o, fmt, ap);
	if (o.used && fwrite(buf, 1, o.used, f) != o.used)
		o.err = 1;
	return o.err || o.total > INT_MAX ? -1 : (int)o.total;
}
