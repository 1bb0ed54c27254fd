/* See LICENSE file for copyright and license details. */
/* fuzz_eventstream.c: libFuzzer target for eventstream.c: no crash on
 * any bytes, and the messages and the verdict must not depend on where
 * the input is split. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../eventstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
logmsg(void *arg, const Eshead *h, int nh, const char *p, size_t n)
{
	Buf *b = arg;
	int i;

	for (i = 0; i < nh; i++) {
		bufadd(b, h[i].name, h[i].namelen);
		bufaddf(b, "%d%lld", h[i].type, h[i].num);
		bufadd(b, h[i].p, h[i].len);
		bufaddc(b, 0);
	}
	bufadd(b, p, n);
	bufaddc(b, 0);
	return 0;
}

/* The log of the messages and the last value returned. */
static void
run(Buf *out, const char *p, size_t n, size_t cut)
{
	Es s;
	int rc = 0;

	esinit(&s, logmsg, out);
	s.max = 4096;
	if (cut) {
		rc = esfeed(&s, p, cut);
		if (!rc)
			rc = esfeed(&s, p + cut, n - cut);
	} else {
		for (; n && !rc; p++, n--)
			rc = esfeed(&s, p, 1);
	}
	if (!rc)
		rc = esend(&s);
	bufaddf(out, "=%d", rc);
	esfree(&s);
}

static void
same(const Buf *a, const Buf *b)
{
	if (a->len != b->len || (a->len && memcmp(a->p, b->p, a->len)))
		abort();
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
	same(&whole, &split);
	bufreset(&split);
	run(&split, (const char *)data + 1, size - 1, 0);
	same(&whole, &split);
	buffree(&whole);
	buffree(&split);
	return 0;
}
