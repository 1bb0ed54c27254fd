/* See LICENSE file for copyright and license details. */
/* test/sse.c: unit tests of sse.c, every input also split at every byte. */
#include <string.h>

#include "../util.h"
#include "../sse.h"
#include "t.h"

/* Each event is logged as "[event]data|". */
static int
logev(void *arg, const char *event, const char *data, size_t len)
{
	Buf *b = arg;

	bufaddf(b, "[%s]", event);
	bufadd(b, data, len);
	bufaddc(b, '|');
	return 0;
}

static void
feedall(Buf *out, const char *in, size_t n, size_t step)
{
	Sse s;
	size_t i;

	sseinit(&s, logev, out);
	for (i = 0; i < n; i += step)
		ssefeed(&s, in + i, MIN(step, n - i));
	sseend(&s);
	ssefree(&s);
}

static int
same(const Buf *out, const char *want)
{
	return out->len == strlen(want) &&
	       (!out->len || !memcmp(out->p, want, out->len));
}

/* The same events whole, one byte at a time, and split at each byte. */
static void
check(const char *name, const char *in, const char *want)
{
	Buf out = { 0 };
	size_t n = strlen(in), cut;
	Sse s;
	int all = 1;

	feedall(&out, in, n, n ? n : 1);
	T(same(&out, want), "%s", name);
	bufreset(&out);
	feedall(&out, in, n, 1);
	T(same(&out, want), "%s, byte by byte", name);
	for (cut = 1; cut < n; cut++) {
		bufreset(&out);
		sseinit(&s, logev, &out);
		ssefeed(&s, in, cut);
		ssefeed(&s, in + cut, n - cut);
		sseend(&s);
		ssefree(&s);
		if (!same(&out, want))
			all = 0;
	}
	T(all, "%s, split at every byte", name);
	buffree(&out);
}

/* in fed whole and split at every byte, with s->max set: whether every
 * way of feeding it gives SSEBIG (want 1) or none does (want 0). */
static int
bounded(const char *in, size_t max, int want)
{
	Buf out = { 0 };
	size_t n = strlen(in), cut;
	Sse s;
	int ok = 1, big;

	for (cut = 0; cut < n; cut++) {
		sseinit(&s, logev, &out);
		s.max = max;
		big = ssefeed(&s, in, cut) == SSEBIG ||
		      ssefeed(&s, in + cut, n - cut) == SSEBIG;
		ok &= big == want;
		ssefree(&s);
	}
	buffree(&out);
	return ok;
}

static int
stopper(void *arg, const char *event, const char *data, size_t len)
{
	(void)event, (void)data, (void)len;
	return ++*(int *)arg == 2 ? 7 : 0;
}

int
main(void)
{
	Sse s;
	Buf big = { 0 }, out = { 0 };
	int count = 0, r;
	size_t i;

	check("one event", "data: hi\n\n", "[]hi|");
	check("CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", "[]a|[]b|");
	check("CR", "data: a\r\rdata: b\r\r", "[]a|[]b|");
	check("mixed ends", "data: a\r\n\ndata: b\n\r\n", "[]a|[]b|");
	check("multi-line data", "data: a\ndata: b\ndata\n\n", "[]a\nb\n|");
	check("event name", "event: ping\ndata: {}\n\n", "[ping]{}|");
	check("event name resets",
	      "event: x\ndata: 1\n\ndata: 2\n\n", "[x]1|[]2|");
	check("comments", ": keep-alive\n\n:x\ndata: a\n: c\n\n", "[]a|");
	check("no space after colon", "data:a\n\n", "[]a|");
	check("only first space stripped", "data:  a\n\n", "[] a|");
	check("id and retry ignored", "id: 5\nretry: 10\ndata: a\n\n", "[]a|");
	check("blank lines alone", "\n\n\n", "");
	check("event without data", "event: x\n\ndata: y\n\n", "[]y|");
	check("empty data dispatches", "data:\n\n", "[]|");
	check("BOM", "\xef\xbb\xbf" "data: a\n\n", "[]a|");
	check("only a leading BOM",
	      "data: \xef\xbb\xbf\n\n", "[]\xef\xbb\xbf|");
	check("last event flushed", "data: a\n\ndata: b", "[]a|[]b|");
	check("last event without blank line", "data: b\n", "[]b|");
	check("UTF-8", "data: w\xc3\xb6rld \xf0\x9f\x8e\x89\n\n",
	      "[]w\xc3\xb6rld \xf0\x9f\x8e\x89|");
	check("unknown field", "foo: bar\ndata: a\n\n", "[]a|");

	/* an event far larger than any read */
	bufadds(&big, "data: ");
	for (i = 0; i < 1000000; i++)
		bufaddc(&big, 'a' + i % 26);
	bufadds(&big, "\n\n");
	feedall(&out, big.p, big.len, 4096);
	T(out.len == 1000000 + 3 && out.p[2] == 'a' && out.p[out.len - 1] == '|',
	  "a 1 MB event");
	buffree(&out);
	buffree(&big);

	T(bounded("data: 0123456789\n\n", 8, 1),
	  "an event over max: SSEBIG, however it is split");
	T(bounded("data: 0123456789\n\n", 10, 1),
	  "an event at max with its line's end: SSEBIG, whole or split");
	T(bounded("data: 0123456789", 8, 1),
	  "a line over max that never ends: SSEBIG");
	T(bounded("data: 01234\ndata: 56789\n\n", 8, 1),
	  "data lines that add up to over max: SSEBIG");
	T(bounded("data: 0123\n\ndata: 5678\n\n: comment\n", 10, 0),
	  "events under max, one after another: no SSEBIG");

	sseinit(&s, stopper, &count);
	r = ssefeed(&s, "data: 1\n\ndata: 2\n\ndata: 3\n\n", 27);
	T(r == 7 && count == 2, "callback stops the parser");
	ssefree(&s);
	return tfail != 0;
}
