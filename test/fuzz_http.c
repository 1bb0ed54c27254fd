/* See LICENSE file for copyright and license details. */
/* fuzz_http.c: libFuzzer target for the HTTP response parser: the body
 * and the verdict must not depend on how the bytes arrive. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
body(void *arg, const char *p, size_t n)
{
	bufadd(arg, p, n);
	return 0;
}

/* Feed in pieces of step bytes; the verdict: -1, 1 done, 2 clean EOF. */
static int
run(Buf *out, const char *p, size_t n, size_t step)
{
	Httpresp r;
	size_t i;
	int rc = 0;

	httprespinit(&r, body, out, 4096);
	for (i = 0; i < n && rc == 0; i += step)
		rc = httprespfeed(&r, p + i, MIN(step, n - i));
	if (rc == 0)
		rc = httprespeof(&r) == 0 ? 2 : -1;
	httprespfree(&r);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf a = { 0 }, b = { 0 };
	int ra, rb;

	if (!size)
		return 0;
	ra = run(&a, (const char *)data + 1, size - 1, size);
	rb = run(&b, (const char *)data + 1, size - 1, 1 + data[0] % 7);
	if (ra != rb || (ra > 0 && (a.len != b.len ||
	    memcmp(a.p ? a.p : "", b.p ? b.p : "", a.len))))
		abort();
	buffree(&a);
	buffree(&b);
	return 0;
}
