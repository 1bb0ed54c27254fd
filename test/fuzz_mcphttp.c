/* See LICENSE file for copyright and license details. */
/* fuzz_mcphttp.c: libFuzzer target for mcp.c: a streamable HTTP reply,
 * JSON or an event stream, holding the server's requests among its
 * messages, read as an exchange reads it, in pieces.  The answers it
 * makes must be JSON-RPC, at most as many as mcp.c answers in a call,
 * and the answer taken one JSON object. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../util.h"
#include "../json.h"
#include "../tools.h"
#include "../mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A fault the sanitizers do not see: abort, so libFuzzer keeps it. */
static void
wrong(const char *why)
{
	fprintf(stderr, "fuzz_mcphttp: %s\n", why);
	abort();
}

/* Byte 0: bit 0 an event stream, else JSON; bit 1 a reply to an
 * answer (id -1), else to request 7.  Byte 1: bytes a feed, 0 all at
 * once.  The rest: the body. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf res = { 0 }, asks = { 0 };
	const char *body = (const char *)data + 2;
	size_t n, i, k;
	Json j;
	int r;

	if (size < 2)
		return 0;
	n = size - 2;
	r = mcpreply(data[0] & 1 ? "text/event-stream" : "application/json",
	             body, n, data[1] ? data[1] : n + 1, data[0] & 2 ? -1 : 7,
	             &res, &asks);
	if (r > 0) {
		if (jsonparse(&j, res.p, res.len) < 0)
			wrong("the answer taken is no JSON");
		jsonfree(&j);
	}
	if (r == 0 && res.len)
		wrong("an answer taken, none said");
	for (i = k = 0; i < asks.len; i += strlen(asks.p + i) + 1, k++) {
		if (jsonparse(&j, asks.p + i, strlen(asks.p + i)) < 0)
			wrong("an answer to the server is no JSON");
		if (j.t[0].type != JOBJ || jsonget(&j, 0, "jsonrpc") < 0 ||
		    jsonget(&j, 0, "id") < 0)
			wrong("an answer to the server is no JSON-RPC");
		jsonfree(&j);
	}
	if (k > 32)
		wrong("more answers than a call makes");
	buffree(&res);
	buffree(&asks);
	return 0;
}
