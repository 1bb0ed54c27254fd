/* See LICENSE file for copyright and license details. */
/* fuzz_json.c: libFuzzer target for json.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../agent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Json j, back;
	Buf b = { 0 };
	double d;
	char *s;
	int i, v;

	if (jsonparse(&j, (const char *)data, size) < 0)
		return 0;
	for (i = 0; i < j.n; i++) {
		free(jsonstr(&j, i));
		jsonnum(&j, i, &d);
		jsonbool(&j, i, &v);
		jsonget(&j, i, "a");
		jsonat(&j, i, 1);
	}
	/* what we copy on must always be valid JSON in valid UTF-8 */
	jsonraw(&b, &j, 0);
	if (jsonparse(&back, b.p, b.len) < 0 || utf8valid(b.p, b.len) != b.len)
		abort();
	jsonfree(&back);
	if (j.t[0].type == JSTR) {
		s = jsonstr(&j, 0);
		bufreset(&b);
		jsonescs(&b, s);
		if (jsonparse(&back, b.p, b.len) < 0)
			abort();
		jsonfree(&back);
		free(s);
	}
	buffree(&b);
	jsonfree(&j);
	return 0;
}
