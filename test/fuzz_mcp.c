/* See LICENSE file for copyright and license details. */
/* fuzz_mcp.c: libFuzzer target for mcp.c: a server's output, split into
 * lines as a stdio server's is, each mapped as a tools/call answer. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../util.h"
#include "../json.h"
#include "../tools.h"
#include "../mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *nl;
	Buf out = { 0 }, image = { 0 };
	size_t n;

	while (size) {
		nl = memchr(p, '\n', size);
		n = nl ? (size_t)(nl - p) : size;
		mcpresult(p, n, &out, &image, 5 << 20);
		bufreset(&out);
		bufreset(&image);
		p += n + (nl != NULL);
		size -= n + (nl != NULL);
	}
	buffree(&out);
	buffree(&image);
	return 0;
}
