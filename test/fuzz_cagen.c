/* See LICENSE file for copyright and license details. */
/* fuzz_cagen.c: libFuzzer target for cagen's reading of a CAFILE (the
 * build's PEM): no read or write outside the bytes, and what it keeps
 * as a certificate is one whole DER SEQUENCE. */
#define main cagenmain
#include "../cagen.c"
#undef main

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	unsigned char *der = malloc(size + 3);
	long n;

	if (!s || !der)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	/* base64: 3 bytes out for 4 in, at most */
	if ((n = cagendecode(s, der)) > (long)(size / 4 * 3 + 2))
		abort();
	if (n > 0 && cagender(der, n) && der[0] != 0x30)
		abort();
	free(der);
	free(s);
	return 0;
}
