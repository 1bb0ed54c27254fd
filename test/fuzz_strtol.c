/* See LICENSE file for copyright and license details. */
/* fuzz_strtol.c: libFuzzer target for fortify.c's strtol family, which
 * the static builds read /proc's and the resolver's files with.  Each
 * base reads the same bytes to the same end, within the string, and
 * reads them again alone to the same value. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
base(const char *s, size_t n, int b)
{
	char *e1, *e2, *e3, *e4, *again;
	unsigned long long u;
	long long ll;
	int e;

	errno = 0;
	u = strtoull(s, &e1, b);
	e = errno;
	(void)strtoul(s, &e2, b);
	ll = strtoll(s, &e3, b);
	(void)strtol(s, &e4, b);
	if (e1 < s || e1 > s + n || e1 != e2 || e1 != e3 || e1 != e4)
		abort();
	if (e1 == s && (u != 0 || ll != 0))
		abort();
	if (e1 > s && e != ERANGE) {
		char *t = strndup(s, (size_t)(e1 - s));

		if (!t)
			return;
		if (strtoull(t, &again, b) != u || again != t + (e1 - s))
			abort();
		free(t);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int bases[] = { 0, 2, 8, 10, 16, 36 };
	char *s;
	size_t i;

	if (!(s = malloc(size + 1)))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		base(s, strlen(s), bases[i]);
	free(s);
	return 0;
}
