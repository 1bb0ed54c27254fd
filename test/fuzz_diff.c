/* See LICENSE file for copyright and license details. */
/* fuzz_diff.c: libFuzzer target for diff.c: a byte of context lines,
 * then the old text and the new one, split at the first NUL.  Besides no
 * crash and no leak: the hunks applied to the old text give the new
 * one, none when they are the same, and a file's change in git's form
 * is made of either as well. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../diff.h"
#include "patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *a, *b, *nul;
	size_t an, bn;
	Buf h = { 0 }, r = { 0 };
	Diffhead dh = { "x", "y", 0100644, 0100755, 1 };
	int ctx, n;

	if (size < 1)
		return 0;
	ctx = data[0] % 8;
	a = (const char *)data + 1;
	size--;
	if ((nul = memchr(a, '\0', size))) {
		an = nul - a;
		b = nul + 1;
		bn = size - an - 1;
	} else {
		an = size / 2;
		b = a + an;
		bn = size - an;
	}
	n = diffunified(&h, a, an, b, bn, ctx);
	if ((n == 0) != (an == bn && !memcmp(a, b, an)))
		abort();
	if (patchapply(&r, a, an, bstr(&h), h.len) < 0 || r.len != bn ||
	    memcmp(bstr(&r), b, bn))
		abort();
	bufreset(&h);
	if (!difffile(&h, &dh, a, an, b, bn, ctx))
		abort();
	buffree(&h);
	buffree(&r);
	return 0;
}
