/* See LICENSE file for copyright and license details. */
/* fuzz_gitindex.c: libFuzzer target for gitguard.c's reading of a git
 * index, which a tool may write: no read outside the bytes, each
 * gitlink's path whole (its length, no NUL in it, within GITPATHMAX).
 * The first byte picks the object names' size, 20 or 32. */
#include <stdint.h>

#include "../gitguard.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
checklink(void *arg, const char *path, size_t n)
{
	size_t *count = arg;

	if (strlen(path) != n || n > GITPATHMAX)
		abort();
	gitsafepath(path, n);
	++*count;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *p;
	size_t count = 0;

	if (!size)
		return 0;
	p = xmalloc(size - 1 + 1);	/* exactly the bytes, for ASan */
	memcpy(p, data + 1, size - 1);
	gitlinks(p, size - 1, data[0] & 1 ? 32 : 20, checklink, &count);
	free(p);
	return 0;
}
