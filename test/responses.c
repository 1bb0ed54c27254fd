/* See LICENSE file for copyright and license details. */
/* responses.c: unit tests of OpenAI's Responses wire: streams of our own
 * writing (test/data/responses-*.sse) give the same answer at every split
 * of their bytes; the answer is stored as pi stores it; the request body
 * sends the conversation back as pi does, reasoning items byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util.h"
#include "../json.h"
#include "../sse.h"
#include "../wire.h"
#include "t.h"

/* What the pieces said, in order: T text, H thinking, C a call's
 * arguments (C^ when the call has only begun). */
static int
rlog(void *arg, int kind, const char *p, size_t n)
{
	Buf *log = arg;

	bufaddc(log, kind == PIECETEXT ? 'T' : kind == PIECETHINK ? 'H' : 'C');
	if (kind == PIECECALL && !p)
		bufaddc(log, '^');
	bufadd(log, p, n);
	bufaddc(log, '|');
	return 0;
}

static void
routcome(Buf *log, const Wire *w)
{
	int i;

	bufaddf(log, "\ntext=%s\nthink=%s\n", bstr(&w->text),
	        bstr(&w->think));
	for (i = 0; i < w->nparts; i++)
		bufaddf(log, "part %d %d %zu-%zu %s\n", w->parts[i].kind,
		        w->parts[i].block, w->parts[i].from, w->parts[i].to,
		        bstr(&w->parts[i].sig));
	for (i = 0; i < w->ncalls; i++)
		bufaddf(log, "call %s %s %s\n", bstr(&w->calls[i].id),
		        bstr(&w->calls[i].name), bstr(&w->calls[i].args));
	bufaddf(log, "finish=%s in=%lld out=%lld cached=%lld reasoning=%lld "
	        "done=%d cut=%d again=%d err=%s complete=%d\n", w->finish,
	        w->in, w->out, w->cached, w->reasoning, w->done, w->cut,
	        w->again, bstr(&w->err), wirecomplete(w));
}

/* Feed a stream split at k (k > n: byte by byte). */
static void
rfeed(const char *s, size_t n, size_t k, Wire *w, Buf *out)
{
	Sse sse;
	size_t i;
	int stop = 0;

	wireinit(w, RESPONSES, rlog, out);
	sseinit(&sse, wireevent, w);
	if (k > n) {
		for (i = 0; i < n && !stop; i++)
			stop = ssefeed(&sse, s + i, 1) != 0;
	} else {
		stop = ssefeed(&sse, s, k) != 0;
		if (!stop)
			ssefeed(&sse, s + k, n - k);
	}
	w->atend = 1;
	if (!stop)
		sseend(&sse);
	ssefree(&sse);
	routcome(out, w);
}

/* One outcome at every split; the whole feed's wire is left in w. */
static void
rsplits(const char *name, const char *s, size_t n, Wire *w, Buf *whole)
{
	Buf b = { 0 };
	Wire v;
	size_t k, bad = 0;

	rfeed(s, n, n, w, whole);
	for (k = 0; k <= n + 1; k++) {
		bufreset(&b);
		rfeed(s, n, k, &v, &b);
		if (b.len != whole->len || memcmp(b.p, whole->p, b.len)) {
			if (!bad)
				printf("# %s split at %zu:\n%s\n# whole:\n"
				       "%s\n", name, k, b.p, whole->p);
			bad++;
		}
		wirefree(&v);
	}
	T(bad == 0, "%s: the same answer at each of %zu splits and byte by "
	  "byte (%zu differ)", name, n + 1, bad);
	buffree(&b);
}

static void
rread(const char *path, Buf *b)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0 || readall(fd, b, 1 << 20) != 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

/* A stream file replayed at every split; its outcome must hold each of
 * the wanted lines.  The wire is left in w. */
static void
rstream(const char *path, Wire *w, const char *const *want, int nwant)
{
	Buf b = { 0 }, log = { 0 }, say = { 0 };
	int i, failed = tfail;
	const char *p;

	rread(path, &b);
	rsplits(path, b.p, b.len, w, &log);
	for (i = 0; i < nwant; i++) {
		bufreset(&say);	/* one line a check */
		for (p = want[i]; *p; p++)
			bufadds(&say, *p == '\n' ? "\\n" : (char[2]){ *p, 0 });
		T(strstr(log.p, want[i]) != NULL, "%s: the outcome holds %s",
		  path, say.p);
	}
	buffree(&say);
	if (tfail > failed)
		printf("# %s\n", log.p);
	buffree(&log);
	buffree(&b);
}

/* The token at a dotted path ("input.2.id"), or -1. */
static int
rat(const Json *j, const char *path)
{
	char key[64];
	const char *p = path, *dot;
	int i = 0;
	size_t n;

	while (i >= 0 && *p) {
		dot = strchr(p, '.');
		n = dot ? (size_t)(dot - p) : strlen(p);
		snprintf(key, sizeof(key), "%.*s", (int)n, p);
		if (j->t[i].type == JARR)
			i = jsonat(j, i, atoi(key));
		else
			i = jsonget(j, i, key);
		p += n + (dot != NULL);
	}
	return i;
}

/* Whether the string (unescaped) or raw value at path is s. */
static int
rhas(const Json *j, const char *path, const char *s)
{
	int i = rat(j, path), ok;
	Buf v = { 0 };

	if (i < 0)
		return 0;
	if (j->t[i].type == JSTR)
		jsonstrbuf(j, i, &v);
	else
		jsonraw(&v, j, i);
	ok = v.len == strlen(s) && !memcmp(v.p, s, v.len);
	if (!ok)
		printf("# %s is %s\n", path, bstr(&v));
	buffree(&v);
	return ok;
}

/* The raw JSON of the item in a stream's output_item.done at index:
 * what lies between "item": and the sequence number after it. */
static void
rdoneitem(const char *path, int index, Buf *out)
{
	Buf b = { 0 };
	char want[80];
	const char *p, *e = NULL;

	rread(path, &b);
	snprintf(want, sizeof(want), "\"type\":\"response.output_item.done\","
	         "\"output_index\":%d,\"item\":", index);
	if ((p = strstr(b.p, want))) {
		p += strlen(want);
		e = strstr(p, ",\"sequence_number\"");
	}
	if (e)
		bufadd(out, p, e - p);
	buffree(&b);
}

static void
teststreams(void)
{
	static const char *const text[] = {
		"text=Hello, caf\xc3\xa9 \xf0\x9f\x98\x80 world.\n",
		("finish=stop in=24 out=6 cached=0 reasoning=0 done=1 cut=0 "
		 "again=0 err= complete=1"),
		"part 0 0 0-24 {\"v\":1,\"id\":\"msg_t1a\"}",
	};
	static const char *const reasoning[] = {
		"think=**Reading**\n\nOpen a.txt.\n\n"
		"**Plan**\n\nThen answer.\n",
		"text=Let me read it.\n",
		"call call_r1|fc_r1c read {\"path\":\"a.txt\"}\n",
		"finish=tool_calls in=120 out=30 cached=100 reasoning=18 "
		"done=1 "
		"cut=0 again=0 err= complete=1",
		"part 0 1 0-15 {\"v\":1,\"id\":\"msg_r1b\",\"phase\":"
		"\"commentary\"}",
		/* the summaries stream as thinking, joined by a blank line */
		"H**Read|Hing**\n|H\nOpen |Ha.txt.|H\n\n|H**Plan|",
		"C^|C{\"path\"|C:\"a.txt|C\"}|",
	};
	static const char *const calls[] = {
		"call call_c1|fc_c1b read {\"path\":\"a.txt\"}\n"
		"call call_c2|fc_c1c ls {}\n"
		"call call_c3|fc_c1d grep {\"pattern\":\"x\\\\y\",\"path\":"
		"\".\"}\n",
		"finish=tool_calls in=50 out=40 cached=0 reasoning=10 done=1",
	};
	static const char *const incomplete[] = {
		"text=Partial ans\n",
		"finish=length in=24 out=16 cached=0 reasoning=0 done=1 cut=1 "
		"again=0 err= complete=1",
	};
	static const char *const failed[] = {
		"again=1 err=server_error: The server had an error. "
		"complete=0",
	};
	static const char *const error[] = {
		"again=0 err=insufficient_quota: You exceeded your current "
		"quota. complete=0",
	};
	static const char *const nested[] = {
		"again=0 err=context_length_exceeded: Your input exceeds the "
		"context window of this model. complete=0",
	};
	Wire w;

	rstream("test/data/responses-text.sse", &w, text, LEN(text));
	wirefree(&w);
	rstream("test/data/responses-reasoning.sse", &w, reasoning,
	        LEN(reasoning));
	wirefree(&w);
	rstream("test/data/responses-calls.sse", &w, calls, LEN(calls));
	wirefree(&w);
	rstream("test/data/responses-incomplete.sse", &w, incomplete,
	        LEN(incomplete));
	wirefree(&w);
	rstream("test/data/responses-failed.sse", &w, failed, LEN(failed));
	wirefree(&w);
	rstream("test/data/responses-error.sse", &w, error, LEN(error));
	wirefree(&w);
	rstream("test/data/responses-nested.sse", &w, nested, LEN(nested));
	wirefree(&w);
}

/* A stream cut before response.completed is never a whole answer. */
static void
testcut(void)
{
	Buf b = { 0 }, log = { 0 };
	Wire w;
	char *end;

	rread("test/data/responses-reasoning.sse", &b);
	end = strstr(b.p, "event: response.completed");
	T(end != NULL, "the reasoning stream ends in response.completed");
	if (!end)
		return;
	rfeed(b.p, end - b.p, end - b.p, &w, &log);
	T(!wirecomplete(&w) && w.ncalls == 1,
	  "a stream that ends without response.completed is not complete");
	wirefree(&w);
	bufreset(&log);
	/* and cut inside its last event */
	rfeed(b.p, end - b.p + 60, end - b.p + 60, &w, &log);
	T(!wirecomplete(&w) && strstr(bstr(&w.err), "ended before"),
	  "a stream cut inside response.completed is not complete: %s",
	  bstr(&w.err));
	wirefree(&w);
	bufreset(&log);
	/* the flat error event with a null code: the message alone */
	bufreset(&b);
	bufadds(&b, "data: {\"type\":\"error\",\"code\":null,\"message\":"
	        "\"Something broke.\",\"param\":null}\n\n");
	rfeed(b.p, b.len, b.len, &w, &log);
	T(!strcmp(bstr(&w.err), "Something broke."),
	  "a flat error event without a code says its message alone: %s",
	  bstr(&w.err));
	wirefree(&w);
	buffree(&log);
	buffree(&b);
}

/* A call in an answer cut by the output limit is not kept to be run. */
static void
testcutcall(void)
{
	static const char s[] =
		"data: {\"type\":\"response.output_item.added\","
		"\"output_index\":0,\"item\":{\"id\":\"fc_1\",\"type\":"
		"\"function_call\",\"arguments\":\"\",\"call_id\":\"call_1\","
		"\"name\":\"write\"}}\n\n"
		"data: {\"type\":\"response.function_call_arguments.delta\","
		"\"output_index\":0,\"delta\":\"{\\\"path\\\":\\\"a\"}\n\n"
		"data: {\"type\":\"response.incomplete\",\"response\":{"
		"\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":"
		"\"content_filter\"},\"usage\":{\"input_tokens\":5,"
		"\"output_tokens\":3}}}\n\n";
	Buf log = { 0 };
	Wire w;
	char *m;

	rfeed(s, sizeof(s) - 1, sizeof(s), &w, &log);
	T(w.ncalls == 0 && w.nparts == 0 && w.cut &&
	  !strcmp(w.finish, "content_filter") && wirecomplete(&w),
	  "an incomplete answer's call is dropped, the reason kept: %s",
	  w.finish);
	m = wiremessage(&w, "openai", "gpt", NULL);
	T(strstr(m, "\"stopReason\":\"length\"") != NULL,
	  "an incomplete answer is stored cut short (length)");
	free(m);
	wirefree(&w);
	buffree(&log);
}

/* An item that comes done without its deltas, and a reasoning item
 * with no summary: still kept, to go back. */
static void
testlate(void)
{
	static const char s[] =
		"data: {\"type\":\"response.output_item.done\","
		"\"output_index\":0,\"item\":{\"id\":\"rs_1\",\"type\":"
		"\"reasoning\",\"summary\":[],"
		"\"encrypted_content\":\"E1\"}}\n\n"
		"data: {\"type\":\"response.output_item.done\","
		"\"output_index\":1,\"item\":{\"id\":\"msg_1\",\"type\":"
		"\"message\",\"content\":[{\"type\":\"output_text\",\"text\":"
		"\"Hi \"},{\"type\":\"refusal\",\"refusal\":\"no\"}]}}\n\n"
		"data: {\"type\":\"response.completed\",\"response\":{"
		"\"status\":\"completed\"}}\n\n";
	Buf log = { 0 };
	Wire w;
	Json j;
	char *m;

	rfeed(s, sizeof(s) - 1, sizeof(s), &w, &log);
	T(!strcmp(bstr(&w.text), "Hi no") && wirecomplete(&w),
	  "an item done without deltas gives its text: %s", bstr(&w.text));
	m = wiremessage(&w, "openai", "gpt", NULL);
	T(jsonparse(&j, m, strlen(m)) == 0, "the answer is JSON");
	T(rhas(&j, "content.0.type", "thinking") &&
	  rhas(&j, "content.0.thinking", "") &&
	  rhas(&j, "content.0.thinkingSignature", "{\"id\":\"rs_1\",\"type\":"
	       "\"reasoning\",\"summary\":[],\"encrypted_content\":\"E1\"}"),
	  "a reasoning item without a summary is kept as a thinking block");
	T(rhas(&j, "content.1.text", "Hi no"), "its text follows");
	jsonfree(&j);
	free(m);
	wirefree(&w);
	buffree(&log);
}

static const Wiretool rtool = {
	"read", "Read a file",
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"
};

static void
rrequest(Wirereq *q, char **msgs, size_t n)
{
	memset(q, 0, sizeof(*q));
	q->wire = RESPONSES;
	q->model = "gpt-6.1-sol";
	q->provider = "openai";
	q->system = "be brief";
	q->msgs = msgs;
	q->nmsgs = n;
	q->tools = &rtool;
	q->ntools = 1;
	q->maxout = 32000;
	q->level = LEVELMEDIUM;
	q->think = THEFFORT;
	q->cachekey = "0198-sess";
	q->images = 1;
}

/* The stored answer of the reasoning stream, as pi stores it, and what
 * goes back of it. */
static void
testroundtrip(void)
{
	static const char *path = "test/data/responses-reasoning.sse";
	Buf log = { 0 }, item = { 0 }, body = { 0 }, want = { 0 };
	Wire w;
	Json j;
	char *msgs[4], *m;
	Wirereq q;

	rread(path, &body);
	rfeed(body.p, body.len, body.len, &w, &log);
	bufreset(&body);
	m = wiremessage(&w, "openai", "gpt-6.1-sol", NULL);
	rdoneitem(path, 0, &item);
	T(item.len > 0, "the reasoning item is in the stream");
	T(jsonparse(&j, m, strlen(m)) == 0, "the stored answer is JSON");
	T(rhas(&j, "api", "openai-responses") &&
	  rhas(&j, "stopReason", "toolUse"), "api and stopReason as pi's");
	T(rhas(&j, "content.0.type", "thinking") &&
	  rhas(&j, "content.0.thinking", "**Reading**\n\nOpen a.txt.\n\n"
	       "**Plan**\n\nThen answer.") &&
	  rhas(&j, "content.0.thinkingSignature", bstr(&item)),
	  "the thinking block carries the reasoning item as it came");
	T(rhas(&j, "content.1.textSignature", "{\"v\":1,\"id\":\"msg_r1b\","
	       "\"phase\":\"commentary\"}"), "the text block's textSignature");
	T(rhas(&j, "content.2.id", "call_r1|fc_r1c") &&
	  rhas(&j, "content.2.arguments", "{\"path\":\"a.txt\"}"),
	  "the call's id is call_id|item id");
	T(rhas(&j, "usage.input", "20") &&
	  rhas(&j, "usage.cacheRead", "100") &&
	  rhas(&j, "usage.output", "30") &&
	  rhas(&j, "usage.reasoning", "18") &&
	  rhas(&j, "usage.totalTokens", "150"),
	  "usage: input without the cache, cached and reasoning tokens");
	jsonfree(&j);

	msgs[0] = "{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	          "\"text\":\"what is in a.txt?\"}]}";
	msgs[1] = m;
	msgs[2] = "{\"role\":\"toolResult\",\"toolCallId\":\"call_r1|fc_r1c\","
	          "\"toolName\":\"read\",\"content\":[{\"type\":\"text\","
	          "\"text\":\"alpha\\n\"}],\"isError\":false}";
	rrequest(&q, msgs, 3);
	wirebody(&q, &body);
	/* the reasoning item, byte for byte, before the items after it */
	bufadds(&want, "{\"role\":\"user\",\"content\":[{\"type\":"
	        "\"input_text\",\"text\":\"what is in a.txt?\"}]},");
	bufadd(&want, item.p, item.len);
	bufadds(&want, ",{\"type\":\"message\",\"role\":\"assistant\","
	        "\"content\":[{\"type\":\"output_text\","
	        "\"text\":\"Let me read "
	        "it.\",\"annotations\":[]}],\"status\":\"completed\",\"id\":"
	        "\"msg_r1b\",\"phase\":\"commentary\"},{\"type\":"
	        "\"function_call\",\"id\":\"fc_r1c\",\"call_id\":\"call_r1\","
	        "\"name\":\"read\","
	        "\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}"
	        "\"},{\"type\":\"function_call_output\",\"call_id\":"
	        "\"call_r1\",\"output\":\"alpha\\n\"}]");
	T(strstr(bstr(&body), bstr(&want)) != NULL,
	  "the same model gets the reasoning item byte-equal, in place");
	if (!strstr(bstr(&body), bstr(&want)))
		printf("# %s\n# want %s\n", body.p, want.p);
	T(jsonparse(&j, body.p, body.len) == 0, "the body is JSON");
	T(rhas(&j, "input.0.role", "developer") &&
	  rhas(&j, "input.0.content", "be brief") &&
	  rhas(&j, "stream", "true") && rhas(&j, "store", "false") &&
	  rhas(&j, "prompt_cache_key", "0198-sess") &&
	  rhas(&j, "max_output_tokens", "32000") &&
	  rhas(&j, "reasoning.effort", "medium") &&
	  rhas(&j, "reasoning.summary", "auto") &&
	  rhas(&j, "include.0", "reasoning.encrypted_content"),
	  "store false, the cache key, the limit, the reasoning asked");
	T(rhas(&j, "tools.0.type", "function") &&
	  rhas(&j, "tools.0.name", "read") &&
	  rhas(&j, "tools.0.strict", "false") &&
	  rat(&j, "tools.0.parameters.properties.path") >= 0 &&
	  rat(&j, "tools.0.function") < 0, "tools are flat function tools");
	jsonfree(&j);

	/* another model of the same provider: reasoning, no item ids */
	bufreset(&body);
	q.model = "gpt-6-luna";
	wirebody(&q, &body);
	T(jsonparse(&j, body.p, body.len) == 0 &&
	  rhas(&j, "input.2.type", "reasoning") &&
	  rhas(&j, "input.4.type", "function_call") &&
	  rat(&j, "input.4.id") < 0 && rhas(&j, "input.4.call_id", "call_r1"),
	  "another model of the API: the reasoning, the call without its id");
	jsonfree(&j);
	buffree(&body);
	buffree(&want);
	buffree(&item);
	buffree(&log);
	free(m);
	wirefree(&w);
}

/* Another wire's answer goes back by pi's rules; a call without a
 * result gets one; thinking off asks for none. */
static void
testforeign(void)
{
	static char *msgs[] = {
		"{\"role\":\"user\",\"content\":\"hi\"}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
		"\"thinking\":\"hmm\",\"thinkingSignature\":\"c2ln\"},"
		"{\"type\":"
		"\"text\",\"text\":\"look\"},{\"type\":\"toolCall\",\"id\":"
		"\"toolu_01:x\",\"name\":\"read\","
		"\"arguments\":{\"path\":\"a\"}}"
		"],\"api\":\"anthropic-messages\",\"provider\":\"anthropic\","
		"\"model\":\"claude\",\"stopReason\":\"toolUse\"}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"toolu_01:x\","
		"\"toolName\":\"read\",\"content\":[{\"type\":\"text\","
		"\"text\":"
		"\"data\"}],\"isError\":false}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
		"\"text\":"
		"\"broken\"}],\"api\":\"openai-responses\",\"stopReason\":"
		"\"error\"}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\","
		"\"id\":\"call_9|fc_9\",\"name\":\"ls\",\"arguments\":{}}],"
		"\"api\":\"openai-responses\",\"provider\":\"openai\","
		"\"model\":"
		"\"gpt-6.1-sol\",\"stopReason\":\"toolUse\"}",
		"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
		"\"see\"},{\"type\":\"image\",\"data\":\"QUJD\",\"mimeType\":"
		"\"image/png\"}]}",
	};
	Buf body = { 0 };
	Wirereq q;
	Json j;

	rrequest(&q, msgs, LEN(msgs));
	q.level = LEVELXHIGH;
	wirebody(&q, &body);
	T(jsonparse(&j, body.p, body.len) == 0, "the body is JSON");
	T(rhas(&j, "input.1.content.0.type", "input_text") &&
	  rhas(&j, "input.1.content.0.text", "hi"),
	  "a user's text as input_text");
	T(rhas(&j, "input.2.type", "message") &&
	  rhas(&j, "input.2.content.0.text", "hmm") &&
	  rhas(&j, "input.3.content.0.text", "look"),
	  "another API's thinking goes back as text");
	T(rhas(&j, "input.4.type", "function_call") &&
	  rhas(&j, "input.4.call_id", "toolu_01_x") &&
	  rat(&j, "input.4.id") < 0,
	  "another API's call: its id made safe, no item id");
	T(rhas(&j, "input.5.call_id", "toolu_01_x") &&
	  rhas(&j, "input.5.output", "data"), "its result maps the same");
	T(rhas(&j, "input.6.type", "function_call") &&
	  rhas(&j, "input.6.id", "fc_9") &&
	  rhas(&j, "input.7.type", "function_call_output") &&
	  rhas(&j, "input.7.call_id", "call_9") &&
	  rhas(&j, "input.7.output", "No result provided"),
	  "a failed answer is left out; a call without result gets one");
	T(rhas(&j, "input.8.content.1.type", "input_image") &&
	  rhas(&j, "input.8.content.1.image_url",
	       "data:image/png;base64,QUJD"),
	  "an image as input_image, a data URL");
	T(rhas(&j, "reasoning.effort", "high"), "xhigh is high for THEFFORT");
	jsonfree(&j);
	bufreset(&body);
	q.level = LEVELOFF;
	q.think = THNONE;
	q.cachekey = NULL;
	q.ntools = 0;
	wirebody(&q, &body);
	T(jsonparse(&j, body.p, body.len) == 0 &&
	  rhas(&j, "input.0.role", "system") && rat(&j, "reasoning") < 0 &&
	  rat(&j, "include") < 0 && rat(&j, "prompt_cache_key") < 0 &&
	  rat(&j, "tools") < 0,
	  "thinking off: no reasoning, no include; no key, no tools");
	jsonfree(&j);
	buffree(&body);
}

/* A reasoning item that came without encrypted_content (the model
 * reasoned at -T off, nothing asked it to) cannot go back with store
 * false: the server would look its id up and answer 404.  It is left
 * out, and the call's item id, tied to it, with it. */
static void
testunencrypted(void)
{
	static char *msgs[] = {
		"{\"role\":\"user\",\"content\":\"hi\"}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
		"\"thinking\":\"\",\"thinkingSignature\":\"{\\\"id\\\":"
		"\\\"rs_u1\\\",\\\"type\\\":\\\"reasoning\\\",\\\"summary\\\":[]}\"},"
		"{\"type\":\"toolCall\",\"id\":\"call_u1|fc_u1\",\"name\":"
		"\"ls\",\"arguments\":{}}],\"api\":\"openai-responses\","
		"\"provider\":\"openai\",\"model\":\"gpt-6.1-sol\","
		"\"stopReason\":\"toolUse\"}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"call_u1|fc_u1\","
		"\"toolName\":\"ls\",\"content\":\"a.txt\",\"isError\":false}",
	};
	Buf body = { 0 };
	Wirereq q;
	Json j;

	rrequest(&q, msgs, LEN(msgs));
	q.level = LEVELOFF;
	wirebody(&q, &body);
	T(jsonparse(&j, body.p, body.len) == 0 &&
	  !strstr(bstr(&body), "rs_u1") &&
	  rhas(&j, "input.2.type", "function_call") &&
	  rhas(&j, "input.2.call_id", "call_u1") && rat(&j, "input.2.id") < 0,
	  "a reasoning item without encrypted_content is left out, and "
	  "its call's item id");
	jsonfree(&j);
	buffree(&body);
}

int
main(void)
{
	teststreams();
	testcut();
	testcutcall();
	testlate();
	testroundtrip();
	testforeign();
	testunencrypted();
	return tfail != 0;
}
