/* See LICENSE file for copyright and license details. */
/* fuzz_regex.c: libFuzzer target for regex.c: a flag byte (1: ignore
 * case), the pattern, a NUL, the line.  Besides no crash and no leak: a
 * pattern after an empty group "()" matches as it does alone, and any
 * line, its specials escaped, is a pattern that matches it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../regex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
literal(const char *s, size_t n, int icase)
{
	Buf b = { 0 };
	Regex r;
	char err[128];
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] && strchr(".[]()*+?{}|^$\\", s[i]))
			bufaddc(&b, '\\');
		bufaddc(&b, s[i]);
	}
	bufgrow(&b, 0);
	if (memchr(s, '\0', n) || b.len > 2000) {
		buffree(&b);
		return;
	}
	if (recomp(&r, b.p, icase, err, sizeof(err)) < 0 ||
	    !rematch(&r, s, n, NULL, NULL))
		abort();
	refree(&r);
	buffree(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf group = { 0 };
	Regex r, g;
	const char *pat, *nul, *s;
	char err[128];
	size_t n;
	int icase, m;

	if (size < 1)
		return 0;
	icase = data[0] & 1;
	pat = (const char *)data + 1;
	if (!(nul = memchr(pat, '\0', size - 1)))
		return 0;
	s = nul + 1;
	n = (const char *)data + size - s;
	literal(s, n, icase);
	if (recomp(&r, pat, icase, err, sizeof(err)) < 0) {
		if (!*err)
			abort();
		return 0;
	}
	m = rematch(&r, s, n, NULL, NULL);
	bufadds(&group, "()");
	bufadds(&group, pat);
	if (recomp(&g, group.p, icase, err, sizeof(err)) == 0) {
		if (rematch(&g, s, n, NULL, NULL) != m)
			abort();
		refree(&g);
	}
	refree(&r);
	buffree(&group);
	return 0;
}
