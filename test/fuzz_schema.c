/* See LICENSE file for copyright and license details. */
/* fuzz_schema.c: libFuzzer target for schema.c: a schema, a NUL, a
 * document.  The schema is read; if it is one, the document is checked
 * against it as an answer (a code fence stripped) and as JSON.  Besides
 * no crash, no leak and no hang: a mismatch always has words, and an
 * answer that matches comes back compact, a document that matches
 * again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "../schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *nul, *d;
	Buf why = { 0 }, doc = { 0 }, again = { 0 };
	Schema sc;
	size_t n;

	if (!(nul = memchr(s, '\0', size)))
		return 0;
	d = nul + 1;
	n = s + size - d;
	if (schemaload(&sc, s, nul - s, &why) < 0) {
		if (!why.len)
			abort();
		buffree(&why);
		return 0;
	}
	if (schemaanswer(&sc, d, n, &doc, &why) < 0) {
		if (!why.len)
			abort();
	} else if (schemaanswer(&sc, doc.p, doc.len, &again, &why) < 0 ||
	           strcmp(doc.p, again.p) || memchr(doc.p, '\n', doc.len)) {
		abort();
	}
	schemafree(&sc);
	buffree(&why);
	buffree(&doc);
	buffree(&again);
	return 0;
}
