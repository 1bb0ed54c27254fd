/* See LICENSE file for copyright and license details. */
/* fuzz_wire.c: libFuzzer target for wire.c: a stream of events, from
 * any server, for chat completions, Anthropic or Gemini; the first byte
 * picks the wire and where the stream is split, and the answer must not
 * depend on the split.  The stored message made of it must be valid
 * JSON, and so must a request body made of the bytes taken for a stored
 * message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "../sse.h"
#include "../wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
logpiece(void *arg, int kind, const char *p, size_t n)
{
	Buf *b = arg;

	bufaddc(b, kind);
	bufadd(b, p, n);
	return 0;
}

/* Feed p split at cut; the pieces and the stored answer into out. */
static void
run(Buf *out, int wire, const char *p, size_t n, size_t cut)
{
	Sse s;
	Wire w;
	Json j;
	char *m;

	wireinit(&w, wire, logpiece, out);
	w.maxcalls = 8;
	w.maxkeep = 4096;
	sseinit(&s, wireevent, &w);
	if (!ssefeed(&s, p, cut) && !ssefeed(&s, p + cut, n - cut)) {
		w.atend = 1;
		sseend(&s);
	}
	m = wiremessage(&w, "p", "m", NULL);
	if (jsonparse(&j, m, strlen(m)) < 0)
		abort();
	jsonfree(&j);
	/* the timestamp differs from run to run */
	*strstr(m, "\"timestamp\":") = '\0';
	bufadds(out, m);
	bufadd(out, w.err.p ? w.err.p : "", w.err.len);
	free(m);
	ssefree(&s);
	wirefree(&w);
}

/* The same bytes as a stored message, as a session on disk holds one:
 * the body made of it must be valid JSON, images taken or not, when the
 * message is (a stored one always is: checked when its line was read,
 * or made by us; forms are made without checking it again). */
static void
body(int wire, const char *p, size_t n, int images)
{
	char *msg = xstrndup(p, n);
	Wirereq q;
	Buf b = { 0 }, s = { 0 };
	Wireform f;
	Wirebody wb;
	Json j;
	size_t i;

	memset(&q, 0, sizeof(q));
	q.wire = wire;
	q.model = "m";
	q.system = "s";
	q.msgs = &msg;
	q.nmsgs = 1;
	q.maxout = 1;
	q.images = images;
	wirebody(&q, &b);
	if (jsonparse(&j, msg, n) == 0) {
		jsonfree(&j);
		if (jsonparse(&j, b.p, b.len) < 0)
			abort();
		jsonfree(&j);
	}
	/* in spans from a kept form, the same bytes */
	memset(&f, 0, sizeof(f));
	q.forms = &f;
	wirespans(&q, &wb);
	for (i = 0; i < wb.n; i++)
		bufadd(&s, wb.v[i].p, wb.v[i].len);
	if (s.len != b.len || wb.len != b.len || memcmp(s.p, b.p, b.len))
		abort();
	wirebodyfree(&wb);
	wireformfree(&f);
	buffree(&s);
	buffree(&b);
	free(msg);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf whole = { 0 }, split = { 0 };
	const char *p = (const char *)data + 1;
	size_t n, cut;
	int wire;

	if (!size)
		return 0;
	n = size - 1;
	/* bit 0 Anthropic, with bit 6 Gemini; else OpenAI, with bits 1
	 * and 6 Bedrock (its chunks' base64 JSON, Anthropic's body) */
	wire = data[0] & 1 ? (data[0] & 0x40 ? GEMINI : ANTHROPIC) :
	       (data[0] & 0x42) == 0x42 ? BEDROCK : OPENAI;
	cut = n ? (data[0] >> 1) % (n + 1) : 0;
	run(&whole, wire, p, n, n);
	run(&split, wire, p, n, cut);
	if (whole.len != split.len ||
	    (whole.len && memcmp(whole.p, split.p, whole.len)))
		abort();
	buffree(&whole);
	buffree(&split);
	body(wire, p, n, data[0] >> 7);
	return 0;
}
