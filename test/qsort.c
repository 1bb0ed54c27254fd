/* See LICENSE file for copyright and license details. */
/* qsort.c: the static builds' qsort (fortify.c, linked here in place of
 * the C library's): arrays of every small length and of odd element
 * sizes, many equal keys among them, come out in order and a
 * permutation of what went in. */
#include <stdlib.h>
#include <string.h>

#include "t.h"

typedef struct {
	unsigned char key;
	unsigned char tag[4];	/* 5 bytes: no alignment to lean on */
} Odd;

static unsigned long seed = 12345;

static unsigned
rnd(void)
{
	seed = seed * 1103515245 + 12345;
	return (unsigned)(seed >> 16) & 0x7fff;
}

static int
intcmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int
oddcmp(const void *a, const void *b)
{
	return ((const Odd *)a)->key - ((const Odd *)b)->key;
}

/* ints: in order, and the same counts of each value as before */
static int
ints(size_t n, unsigned range)
{
	int v[600], count[1000] = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		count[v[i] = (int)(rnd() % range)]++;
	qsort(v, n, sizeof(v[0]), intcmp);
	for (i = 0; i < n; i++)
		if ((i && v[i - 1] > v[i]) || count[v[i]]-- <= 0)
			return 0;
	return 1;
}

/* 5-byte elements: in order by key, each tag still with its key */
static int
odds(size_t n)
{
	Odd v[300];
	int seen[300] = { 0 };
	size_t i, k;

	for (i = 0; i < n; i++) {
		v[i].key = (unsigned char)(rnd() % 7);
		/* the index in two bytes, low first, on any byte order */
		v[i].tag[0] = (unsigned char)(i & 0xff);
		v[i].tag[1] = (unsigned char)(i >> 8);
		v[i].tag[3] = v[i].key;
	}
	qsort(v, n, sizeof(v[0]), oddcmp);
	for (i = 0; i < n; i++) {
		k = v[i].tag[0] | (size_t)v[i].tag[1] << 8;
		if ((i && v[i - 1].key > v[i].key) || v[i].tag[3] != v[i].key ||
		    k >= n || seen[k]++)
			return 0;
	}
	return 1;
}

int
main(void)
{
	size_t n;
	int ok = 1, odd = 1;

	for (n = 0; n <= 600; n += n < 40 ? 1 : 37)
		ok = ok && ints(n, 1000) && ints(n, 3) && ints(n, 1);
	T(ok, "ints of every length to 40, then to 600: in order, the same "
	    "values");
	for (n = 0; n <= 300; n += n < 20 ? 1 : 23)
		odd = odd && odds(n);
	T(odd, "5-byte elements, 7 keys: in order, none lost or doubled");
	return tfail != 0;
}
