/* See LICENSE file for copyright and license details. */
/* fuzz_responses.c: libFuzzer target for responses.c: a Responses event
 * stream from any server; the first byte says where it is split, and the
 * answer must not depend on the split.  The stored answer made of it must
 * be valid JSON, and so must the request body that sends it back; so must
 * a body made of the bytes taken for a stored message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "../sse.h"
#include "../wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
rfzlog(void *arg, int kind, const char *p, size_t n)
{
	Buf *b = arg;

	bufaddc(b, kind);
	bufadd(b, p, n);
	return 0;
}

/* A body of one stored message msg (and a user's before it), which must
 * be JSON when msg is. */
static void
rfzbody(char *msg, int images, int level)
{
	char *msgs[2] = { "{\"role\":\"user\",\"content\":\"q\"}", msg };
	Wirereq q;
	Buf b = { 0 };
	Json j;

	memset(&q, 0, sizeof(q));
	q.wire = RESPONSES;
	q.model = "m";
	q.provider = "p";
	q.system = "s";
	q.msgs = msgs;
	q.nmsgs = 2;
	q.maxout = 1;
	q.images = images;
	q.level = level;
	q.think = THEFFORT;
	q.cachekey = "k";
	wirebody(&q, &b);
	if (jsonparse(&j, msg, strlen(msg)) == 0) {
		jsonfree(&j);
		if (jsonparse(&j, b.p, b.len) < 0)
			abort();
		jsonfree(&j);
	}
	buffree(&b);
}

/* Feed p split at cut; the pieces and the stored answer into out. */
static void
rfzrun(Buf *out, const char *p, size_t n, size_t cut)
{
	Sse s;
	Wire w;
	Json j;
	char *m;

	wireinit(&w, RESPONSES, rfzlog, out);
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
	if (cut == n)	/* the answer goes back as the same model's */
		rfzbody(m, 1, LEVELMEDIUM);
	/* the timestamp differs from run to run */
	*strstr(m, "\"timestamp\":") = '\0';
	bufadds(out, m);
	bufadd(out, w.err.p ? w.err.p : "", w.err.len);
	bufaddf(out, "%d%d%s", w.done, w.cut, w.finish);
	free(m);
	ssefree(&s);
	wirefree(&w);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf whole = { 0 }, split = { 0 };
	const char *p = (const char *)data + 1;
	char *msg;
	size_t n, cut;

	if (!size)
		return 0;
	n = size - 1;
	cut = n ? data[0] % (n + 1) : 0;
	rfzrun(&whole, p, n, n);
	rfzrun(&split, p, n, cut);
	if (whole.len != split.len ||
	    (whole.len && memcmp(whole.p, split.p, whole.len)))
		abort();
	buffree(&whole);
	buffree(&split);
	msg = xstrndup(p, n);
	rfzbody(msg, data[0] >> 7, data[0] & 7);
	free(msg);
	return 0;
}
