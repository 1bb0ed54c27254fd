/* See LICENSE file for copyright and license details. */
/* fuzz_sse.c: libFuzzer target for sse.c: the events must not depend on
 * where the input is split. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../sse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
logev(void *arg, const char *event, const char *data, size_t len)
{
	Buf *b = arg;

	bufadds(b, event);
	bufaddc(b, 0);
	bufadd(b, data, len);
	bufaddc(b, 0);
	return 0;
}

static void
run(Buf *out, const char *p, size_t n, size_t cut)
{
	Sse s;

	sseinit(&s, logev, out);
	if (cut) {
		ssefeed(&s, p, cut);
		ssefeed(&s, p + cut, n - cut);
	} else {
		/* a byte at a time: no event is ever whole in hand */
		for (; n; p++, n--)
			ssefeed(&s, p, 1);
	}
	sseend(&s);
	ssefree(&s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf whole = { 0 }, split = { 0 };
	size_t cut;

	if (!size)
		return 0;
	cut = data[0] % size;
	run(&whole, (const char *)data + 1, size - 1, size - 1);
	run(&split, (const char *)data + 1, size - 1, MIN(cut, size - 1));
	if (whole.len != split.len ||
	    (whole.len && memcmp(whole.p, split.p, whole.len)))
		abort();
	bufreset(&split);
	run(&split, (const char *)data + 1, size - 1, 0);
	if (whole.len != split.len ||
	    (whole.len && memcmp(whole.p, split.p, whole.len)))
		abort();
	buffree(&whole);
	buffree(&split);
	return 0;
}
