/* See LICENSE file for copyright and license details. */
/* fuzz_guard.c: libFuzzer target for shsplit.c's reading of a bash command
 * line (the guard's rules read it), the model's bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../shsplit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Its parts and writes are as many NUL-ended strings as it says. */
static void
whole(const Buf *b, int n)
{
	size_t at = 0;
	int k;

	for (k = 0; k < n; k++) {
		if (at >= b->len)
			abort();
		at += strlen(b->p + at) + 1;
	}
	if (at != b->len)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	Shline l;

	shsplit(s, &l);
	whole(&l.parts, 2 * l.n);
	whole(&l.writes, l.nwrites);
	shsplitfree(&l);
	free(s);
	return 0;
}
