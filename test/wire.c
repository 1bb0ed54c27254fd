/* See LICENSE file for copyright and license details. */
/* wire.c: unit tests of the providers' wires: recorded streams give the
 * same answer at every split of their bytes, and request bodies hold what
 * each API wants, field by field. */
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

/* Streams */

/* What the pieces said, in order: T for text, H for thinking, C for a
 * call's arguments (C^ when the call has only begun). */
static int
logpiece(void *arg, int kind, const char *p, size_t n)
{
	Buf *log = arg;

	bufaddc(log, kind == PIECETEXT ? 'T' : kind == PIECETHINK ? 'H' : 'C');
	if (kind == PIECECALL && !p)
		bufaddc(log, '^');
	bufadd(log, p, n);
	bufaddc(log, '|');
	return 0;
}

/* Everything the wire made of a stream, as one text to compare. */
static void
outcome(Buf *log, const Wire *w)
{
	int i;

	bufaddf(log, "\ntext=%s\nthink=%s\nsig=%s\n", w->text.p ? w->text.p :
	        "", w->think.p ? w->think.p : "", w->sig.p ? w->sig.p : "");
	for (i = 0; i < w->ncalls; i++)
		bufaddf(log, "call %s %s %s\n", w->calls[i].id.p ?
		        w->calls[i].id.p : "", w->calls[i].name.p ?
		        w->calls[i].name.p : "", w->calls[i].args.p ?
		        w->calls[i].args.p : "");
	bufaddf(log, "finish=%s in=%lld out=%lld cached=%lld write=%lld "
	        "done=%d again=%d dropped=%d err=%s complete=%d\n", w->finish,
	        w->in, w->out, w->cached, w->cachewrite, w->done, w->again,
	        w->dropped, w->err.p ? w->err.p : "", wirecomplete(w));
}

/* Feed a stream in two parts split at k (k > n: byte by byte) and say
 * what came of it in out.  The wire is left for the caller to look at. */
static void
feed(int wire, const char *s, size_t n, size_t k, Wire *w, Buf *out)
{
	Sse sse;
	size_t i;
	int stop = 0;

	wireinit(w, wire, logpiece, out);
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
	outcome(out, w);
}

/* A stream gives one outcome at every split; returns the whole feed's,
 * with the wire in w. */
static void
splits(const char *name, int wire, const char *s, size_t n, Wire *w,
       Buf *whole)
{
	Buf b = { 0 };
	Wire v;
	size_t k, bad = 0;

	feed(wire, s, n, n, w, whole);
	for (k = 0; k <= n + 1; k++) {
		bufreset(&b);
		feed(wire, s, n, k, &v, &b);
		if (b.len != whole->len || memcmp(b.p, whole->p, b.len)) {
			if (!bad)
				printf("# %s split at %zu:\n%s\n# whole:\n%s\n",
				       name, k, b.p, whole->p);
			bad++;
		}
		wirefree(&v);
	}
	T(bad == 0, "%s: the same answer at each of %zu splits and byte by "
	  "byte (%zu differ)", name, n + 1, bad);
	buffree(&b);
}

static const char openaistream[] =
	"data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":"
	"\"assistant\",\"content\":\"\"}}]}\n\n"
	": keep-alive\n\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":"
	"\"Look at \\u00e9\"}}]}\n\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me "
	"\\ud83d\\ude00 read\"}}]}\r\n\r\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
	"\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{"
	"\"name\":\"read\",\"arguments\":\"\"}}]}}]}\n\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
	"\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\\\"a.\"}}]}}]}\n\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
	"\"index\":1,\"id\":\"call_2\",\"function\":{\"name\":\"ls\","
	"\"arguments\":\"{}\"}}]}}]}\n\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{"
	"\"index\":0,\"function\":{\"arguments\":\"txt\\\"}\"}}]}}]}\n\n"
	"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
	"\"tool_calls\"}]}\n\n"
	"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":120,"
	"\"completion_tokens\":30,\"prompt_tokens_details\":{"
	"\"cached_tokens\":100}}}\n\n"
	"data: [DONE]\n\n";

static const char anthropicstream[] =
	"event: message_start\n"
	"data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":"
	"{\"input_tokens\":10,\"cache_creation_input_tokens\":5,"
	"\"cache_read_input_tokens\":100,\"output_tokens\":1}}}\n\n"
	"event: ping\ndata: {\"type\":\"ping\"}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":0,"
	"\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"thinking_delta\",\"thinking\":\"The file \"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"thinking_delta\",\"thinking\":\"first.\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"signature_delta\",\"signature\":\"c2lnbmVk\"}}\n\n"
	"event: content_block_stop\n"
	"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":1,"
	"\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{"
	"\"type\":\"text_delta\",\"text\":\"Reading it.\"}}\n\n"
	"event: content_block_start\n"
	"data: {\"type\":\"content_block_start\",\"index\":2,"
	"\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\","
	"\"name\":\"read\",\"input\":{}}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{"
	"\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"pa\"}}\n\n"
	"event: content_block_delta\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{"
	"\"type\":\"input_json_delta\",\"partial_json\":\"th\\\": \\\"a\\\"}\"}}\n\n"
	"event: content_block_stop\n"
	"data: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
	"event: message_delta\n"
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
	"\"tool_use\"},\"usage\":{\"output_tokens\":42}}\n\n"
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

static int
is(const Buf *b, const char *s)
{
	return b->len == strlen(s) && !memcmp(b->p, s, b->len);
}

static void
testopenaistream(void)
{
	Buf log = { 0 };
	Wire w;

	splits("openai stream", OPENAI, openaistream,
	       sizeof(openaistream) - 1, &w, &log);
	T(is(&w.think, "Look at \xc3\xa9"), "openai: reasoning_content is "
	  "thinking");
	T(is(&w.text, "Let me \xf0\x9f\x98\x80 read"),
	  "openai: content is text, a surrogate pair joined");
	T(w.ncalls == 2 && is(&w.calls[0].id, "call_1") &&
	  is(&w.calls[0].name, "read") &&
	  is(&w.calls[0].args, "{\"path\":\"a.txt\"}") &&
	  is(&w.calls[1].id, "call_2") && is(&w.calls[1].args, "{}"),
	  "openai: calls joined by index, pieces interleaved");
	T(!strcmp(w.finish, "tool_calls") && w.in == 120 && w.out == 30 &&
	  w.cached == 100, "openai: finish and usage");
	T(w.done && wirecomplete(&w) && !w.err.len, "openai: [DONE] ends it");
	T(strstr(log.p, "HLook at \xc3\xa9|TLet me") != NULL,
	  "openai: pieces passed on in order");
	T(strstr(log.p, " read|C|C{\"path\":\"a.|C{}|Ctxt\"}|") != NULL,
	  "openai: each piece of a call's arguments passed on, the first "
	  "empty");
	wirefree(&w);
	buffree(&log);
}

static void
testanthropicstream(void)
{
	Buf log = { 0 };
	Wire w;

	splits("anthropic stream", ANTHROPIC, anthropicstream,
	       sizeof(anthropicstream) - 1, &w, &log);
	T(is(&w.think, "The file first.") && is(&w.sig, "c2lnbmVk"),
	  "anthropic: thinking and its signature");
	T(is(&w.text, "Reading it."), "anthropic: text");
	T(strstr(log.p, "TReading it.|C^|C{\"pa|Cth\": \"a\"}|") != NULL,
	  "anthropic: a call's start and its input's pieces passed on");
	T(w.ncalls == 1 && is(&w.calls[0].id, "toolu_1") &&
	  is(&w.calls[0].name, "read") &&
	  is(&w.calls[0].args, "{\"path\": \"a\"}"),
	  "anthropic: tool_use with its input joined");
	T(!strcmp(w.finish, "tool_calls") && w.in == 115 && w.cached == 100 &&
	  w.cachewrite == 5 && w.out == 42,
	  "anthropic: stop reason in OpenAI's words, usage with the cache");
	T(w.done && wirecomplete(&w), "anthropic: message_stop ends it");
	wirefree(&w);
	buffree(&log);
}

/* One stream, fed whole, into w. */
static void
run(int wire, const char *s, Wire *w)
{
	Buf log = { 0 };

	feed(wire, s, strlen(s), strlen(s), w, &log);
	buffree(&log);
}

static void
testerrors(void)
{
	Wire w;

	run(OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
	    "data: {\"error\":{\"message\":\"Server is busy\","
	    "\"type\":\"server_error\"}}\n\n", &w);
	T(is(&w.err, "Server is busy") && !wirecomplete(&w),
	  "openai: an error event says its message and ends the stream");
	wirefree(&w);
	run(ANTHROPIC, "event: error\ndata: {\"type\":\"error\",\"error\":{"
	    "\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
	    &w);
	T(is(&w.err, "Overloaded") && w.again,
	  "anthropic: overload before a word may be tried again");
	wirefree(&w);
	run(ANTHROPIC, anthropicstream, &w);
	wirefree(&w);
	run(OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
	    "data: {\"choices\": [tru\n\n", &w);
	T(w.err.p && strstr(w.err.p, "malformed JSON: {\"choices\": [tru"),
	  "a malformed event is named, with its start");
	wirefree(&w);
	run(OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
	    "data: {\"choices\": [{\"de", &w);
	T(w.err.p && strstr(w.err.p, "the stream ended before the answer"),
	  "an event cut by the end of the connection: the answer is "
	  "incomplete");
	wirefree(&w);
	run(OPENAI, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},"
	    "\"finish_reason\":\"stop\"}]}\n\n", &w);
	T(wirecomplete(&w), "openai: a finish_reason without [DONE] is whole");
	wirefree(&w);
	run(ANTHROPIC, "event: message_delta\ndata: {\"type\":\"message_delta\","
	    "\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n", &w);
	T(!wirecomplete(&w), "anthropic: no message_stop, not whole");
	wirefree(&w);
}

static int
stopat(void *arg, int kind, const char *p, size_t n)
{
	(void)kind;
	(void)p;
	(void)n;
	return ++*(int *)arg >= 2;
}

static void
testlimits(void)
{
	Wire w;
	Buf s = { 0 };
	Sse sse;
	int i, calls = 0;

	for (i = 0; i < 5; i++)
		bufaddf(&s, "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{"
		        "\"index\":%d,\"id\":\"c%d\",\"function\":{\"name\":"
		        "\"ls\"}}]}}]}\n\n", i, i);
	wireinit(&w, OPENAI, NULL, NULL);
	w.maxcalls = 3;
	sseinit(&sse, wireevent, &w);
	ssefeed(&sse, s.p, s.len);
	T(w.ncalls == 3 && w.dropped, "maxcalls: the calls past it dropped, "
	  "and that is said");
	ssefree(&sse);
	wirefree(&w);

	wireinit(&w, OPENAI, NULL, NULL);
	w.maxkeep = 4;
	sseinit(&sse, wireevent, &w);
	bufreset(&s);
	bufadds(&s, "data: {\"choices\":[{\"delta\":{\"content\":"
	        "\"ab\\u00e9cd\"}}]}\n\n");
	ssefeed(&sse, s.p, s.len);
	T(is(&w.text, "ab\xc3\xa9"), "maxkeep: text kept up to it, whole "
	  "characters only");
	ssefree(&sse);
	wirefree(&w);

	wireinit(&w, OPENAI, stopat, &calls);
	sseinit(&sse, wireevent, &w);
	bufreset(&s);
	for (i = 0; i < 4; i++)
		bufadds(&s, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n");
	for (i = 0; i < 4 && !ssefeed(&sse, s.p + i * (s.len / 4), s.len / 4);
	     i++)
		;
	T(i == 1 && calls == 2, "a callback that asks to stop stops the "
	  "stream");
	ssefree(&sse);
	wirefree(&w);
	buffree(&s);
}

/* A recorded stream from test/data: the same at every split, and whole.
 * A fixture that is missing is a failure. */
static void
testfile(const char *path, int wire, const char *want)
{
	Buf b = { 0 }, log = { 0 };
	Wire w;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || readall(fd, &b, 1 << 20) != 0) {
		T(0, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	splits(path, wire, b.p, b.len, &w, &log);
	T(strstr(log.p, want) != NULL, "%s: the outcome holds %s", path, want);
	wirefree(&w);
	buffree(&log);
	buffree(&b);
}

/* Requests */

/* The token at a dotted path of keys and indices ("messages.1.role"),
 * or -1. */
static int
at(const Json *j, const char *path)
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

/* Whether the string or raw token at path is s. */
static int
has(const Json *j, const char *path, const char *s)
{
	int i = at(j, path);
	Buf v = { 0 };
	int ok;

	if (i < 0)
		return 0;
	if (j->t[i].type == JSTR)
		jsonstrbuf(j, i, &v);
	else
		jsonraw(&v, j, i);
	ok = v.len == strlen(s) && !memcmp(v.p, s, v.len);
	buffree(&v);
	return ok;
}

static int
count(const Json *j, const char *path)
{
	int i = at(j, path);

	return i < 0 ? -1 : j->t[i].size;
}

static const Wiretool tool = {
	"read", "Read a file",
	"{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}"
};

static char *convo[] = {
	"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}",
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
	"\"thinking\":\"hmm\",\"thinkingSignature\":\"sig1\"},{\"type\":"
	"\"text\",\"text\":\"let me look\"},{\"type\":\"toolCall\",\"id\":"
	"\"call_1|fc_x\",\"name\":\"read\",\"arguments\":{\"path\":\"a\"}}],"
	"\"api\":\"anthropic-messages\",\"model\":\"m1\",\"stopReason\":"
	"\"toolUse\"}",
	"{\"role\":\"toolResult\",\"toolCallId\":\"call_1|fc_x\",\"toolName\":"
	"\"read\",\"content\":[{\"type\":\"text\",\"text\":\"data\"}],"
	"\"isError\":false}",
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":"
	"\"partial\"}],\"stopReason\":\"aborted\"}",
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":"
	"\"c2\",\"name\":\"ls\",\"arguments\":{}}],\"stopReason\":\"toolUse\"}",
	"{\"role\":\"user\",\"content\":\"next\"}",
};

static void
request(Wirereq *q, int wire, const char *model)
{
	memset(q, 0, sizeof(*q));
	q->wire = wire;
	q->model = model;
	q->system = "be brief";
	q->msgs = convo;
	q->nmsgs = LEN(convo);
	q->tools = &tool;
	q->ntools = 1;
	q->maxout = 4096;
	q->maxfield = "max_completion_tokens";
}

static void
testopenaibody(void)
{
	Wirereq q;
	Buf b = { 0 };
	Json j;

	request(&q, OPENAI, "gpt");
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0, "openai body: valid JSON");
	T(has(&j, "model", "gpt") && has(&j, "stream", "true") &&
	  has(&j, "stream_options.include_usage", "true") &&
	  has(&j, "max_completion_tokens", "4096"),
	  "openai body: model, stream with usage, the row's max field");
	T(count(&j, "messages") == 7, "openai body: 7 messages (%d)",
	  count(&j, "messages"));
	T(has(&j, "messages.0.role", "system") &&
	  has(&j, "messages.0.content", "be brief"),
	  "openai body: the system prompt first");
	T(has(&j, "messages.1.role", "user") &&
	  has(&j, "messages.1.content", "hi"), "openai body: user text");
	T(has(&j, "messages.2.role", "assistant") &&
	  has(&j, "messages.2.content", "hmmlet me look") &&
	  has(&j, "messages.2.tool_calls.0.id", "call_1") &&
	  has(&j, "messages.2.tool_calls.0.type", "function") &&
	  has(&j, "messages.2.tool_calls.0.function.name", "read") &&
	  has(&j, "messages.2.tool_calls.0.function.arguments",
	      "{\"path\":\"a\"}") &&
	  at(&j, "messages.2.reasoning_content") < 0,
	  "openai body: an answer's text and calls, arguments as a string, "
	  "another model's thinking as text, pi's id of a compound one");
	T(has(&j, "messages.3.role", "tool") &&
	  has(&j, "messages.3.tool_call_id", "call_1") &&
	  has(&j, "messages.3.content", "data"),
	  "openai body: a result names its call");
	T(has(&j, "messages.4.content", "null") &&
	  has(&j, "messages.4.tool_calls.0.id", "c2"),
	  "openai body: an aborted answer left out; calls alone, content "
	  "null");
	T(has(&j, "messages.5.role", "tool") &&
	  has(&j, "messages.5.tool_call_id", "c2") &&
	  has(&j, "messages.5.content", "No result provided"),
	  "openai body: a call with no result gets one before what follows");
	T(has(&j, "messages.6.content", "next"),
	  "openai body: user content as a plain string");
	T(has(&j, "tools.0.type", "function") &&
	  has(&j, "tools.0.function.name", "read") &&
	  has(&j, "tools.0.function.description", "Read a file") &&
	  has(&j, "tools.0.function.parameters.type", "object"),
	  "openai body: the tool with its schema as parameters");
	jsonfree(&j);
	bufreset(&b);
	q.ntools = 0;
	q.nmsgs = 0;
	q.maxfield = NULL;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 && at(&j, "tools") < 0 &&
	  has(&j, "max_tokens", "4096") && count(&j, "messages") == 1,
	  "openai body: no tools, no field named: max_tokens");
	jsonfree(&j);
	buffree(&b);
}

static void
testanthropicbody(void)
{
	Wirereq q;
	Buf b = { 0 };
	Json j;

	request(&q, ANTHROPIC, "m1");
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0, "anthropic body: valid JSON");
	T(has(&j, "model", "m1") && has(&j, "max_tokens", "4096") &&
	  has(&j, "stream", "true") && at(&j, "max_completion_tokens") < 0,
	  "anthropic body: model, max_tokens, stream");
	T(has(&j, "system.0.type", "text") &&
	  has(&j, "system.0.text", "be brief") &&
	  has(&j, "system.0.cache_control.type", "ephemeral"),
	  "anthropic body: the system prompt as a cached block");
	T(count(&j, "messages") == 5, "anthropic body: 5 messages (%d)",
	  count(&j, "messages"));
	T(has(&j, "messages.0.role", "user") &&
	  has(&j, "messages.0.content.0.text", "hi"),
	  "anthropic body: user text as a block");
	T(has(&j, "messages.1.role", "assistant") &&
	  has(&j, "messages.1.content.0.type", "thinking") &&
	  has(&j, "messages.1.content.0.thinking", "hmm") &&
	  has(&j, "messages.1.content.0.signature", "sig1") &&
	  has(&j, "messages.1.content.1.text", "let me look") &&
	  has(&j, "messages.1.content.2.type", "tool_use") &&
	  has(&j, "messages.1.content.2.id", "call_1_fc_x") &&
	  has(&j, "messages.1.content.2.input.path", "a"),
	  "anthropic body: own signed thinking, text, tool_use with a safe "
	  "id");
	T(has(&j, "messages.2.role", "user") &&
	  has(&j, "messages.2.content.0.type", "tool_result") &&
	  has(&j, "messages.2.content.0.tool_use_id", "call_1_fc_x") &&
	  has(&j, "messages.2.content.0.content", "data") &&
	  at(&j, "messages.2.content.0.is_error") < 0,
	  "anthropic body: the result in a user message, the same id");
	T(has(&j, "messages.3.content.0.id", "c2") &&
	  count(&j, "messages.3.content") == 1,
	  "anthropic body: an aborted answer left out");
	T(has(&j, "messages.4.content.0.tool_use_id", "c2") &&
	  has(&j, "messages.4.content.0.is_error", "true") &&
	  has(&j, "messages.4.content.0.content", "No result provided") &&
	  has(&j, "messages.4.content.1.text", "next") &&
	  has(&j, "messages.4.content.1.cache_control.type", "ephemeral") &&
	  at(&j, "messages.4.content.0.cache_control") < 0,
	  "anthropic body: a missing result and the next words in one user "
	  "message, the last block cached");
	T(has(&j, "tools.0.name", "read") &&
	  has(&j, "tools.0.input_schema.type", "object"),
	  "anthropic body: the tool with its input_schema");
	jsonfree(&j);
	bufreset(&b);
	request(&q, ANTHROPIC, "m2");
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  has(&j, "messages.1.content.0.type", "text") &&
	  has(&j, "messages.1.content.0.text", "hmm") &&
	  has(&j, "messages.1.content.1.text", "let me look") &&
	  at(&j, "messages.1.content.0.signature") < 0,
	  "anthropic body: thinking signed by another model goes as text");
	jsonfree(&j);
	buffree(&b);
}

#define PNG "{\"type\":\"image\",\"data\":\"iVBORw0K\",\"mimeType\":" \
            "\"image/png\"}"
static char *imgconvo[] = {
	"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
	"\"see\"}," PNG "]}",
	"{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\","
	"\"id\":\"c1\",\"name\":\"read\",\"arguments\":{}},{\"type\":"
	"\"toolCall\",\"id\":\"c2\",\"name\":\"read\",\"arguments\":{}}],"
	"\"stopReason\":\"toolUse\"}",
	"{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"content\":["
	"{\"type\":\"text\",\"text\":\"Read image file [image/png]\"},"
	PNG "],\"isError\":false}",
	"{\"role\":\"toolResult\",\"toolCallId\":\"c2\",\"content\":["
	PNG "],\"isError\":false}",
	"{\"role\":\"user\",\"content\":\"next\"}",
};

/* Images from the user and from results, on both wires, for a model
 * that takes them and for one that does not. */
static void
testimagebody(void)
{
	Wirereq q;
	Buf b = { 0 };
	Json j;

	request(&q, OPENAI, "gpt");
	q.msgs = imgconvo;
	q.nmsgs = LEN(imgconvo);
	q.images = 1;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 && count(&j, "messages") == 7,
	  "openai images: valid, 7 messages");
	T(has(&j, "messages.1.content.0.type", "text") &&
	  has(&j, "messages.1.content.0.text", "see") &&
	  has(&j, "messages.1.content.1.type", "image_url") &&
	  has(&j, "messages.1.content.1.image_url.url",
	      "data:image/png;base64,iVBORw0K"),
	  "openai images: the user's as a data URI part");
	T(has(&j, "messages.3.role", "tool") &&
	  has(&j, "messages.3.content", "Read image file [image/png]") &&
	  has(&j, "messages.4.role", "tool") &&
	  has(&j, "messages.4.content", "(see attached image)"),
	  "openai images: the results' text, or a word for an image alone");
	T(has(&j, "messages.5.role", "user") &&
	  has(&j, "messages.5.content.0.text",
	      "Attached image(s) from tool result:") &&
	  has(&j, "messages.5.content.1.image_url.url",
	      "data:image/png;base64,iVBORw0K") &&
	  has(&j, "messages.5.content.2.type", "image_url") &&
	  count(&j, "messages.5.content") == 3 &&
	  has(&j, "messages.6.content", "next"),
	  "openai images: the results' images in one user message after "
	  "them, as pi sends them");
	jsonfree(&j);
	bufreset(&b);
	q.images = 0;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 && count(&j, "messages") == 6 &&
	  has(&j, "messages.1.content.1.text",
	      "(image omitted: model does not support images)") &&
	  has(&j, "messages.3.content", "Read image file [image/png]\n"
	      "(tool image omitted: model does not support images)") &&
	  !strstr(b.p, "iVBORw0K"),
	  "openai images: a model without them gets notes");
	jsonfree(&j);
	bufreset(&b);
	request(&q, ANTHROPIC, "m1");
	q.msgs = imgconvo;
	q.nmsgs = LEN(imgconvo);
	q.images = 1;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 && count(&j, "messages") == 3,
	  "anthropic images: valid, 3 messages");
	T(has(&j, "messages.0.content.0.text", "see") &&
	  has(&j, "messages.0.content.1.type", "image") &&
	  has(&j, "messages.0.content.1.source.type", "base64") &&
	  has(&j, "messages.0.content.1.source.media_type", "image/png") &&
	  has(&j, "messages.0.content.1.source.data", "iVBORw0K"),
	  "anthropic images: the user's as an image block");
	T(has(&j, "messages.2.content.0.type", "tool_result") &&
	  has(&j, "messages.2.content.0.content.0.text",
	      "Read image file [image/png]") &&
	  has(&j, "messages.2.content.0.content.1.source.data", "iVBORw0K") &&
	  count(&j, "messages.2.content.0.content") == 2 &&
	  has(&j, "messages.2.content.1.content.0.type", "image") &&
	  count(&j, "messages.2.content.1.content") == 1 &&
	  has(&j, "messages.2.content.2.text", "next") &&
	  has(&j, "messages.2.content.2.cache_control.type", "ephemeral"),
	  "anthropic images: image blocks in the tool results");
	jsonfree(&j);
	bufreset(&b);
	q.images = 0;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  has(&j, "messages.0.content.1.text",
	      "(image omitted: model does not support images)") &&
	  has(&j, "messages.2.content.1.content.0.type", "text") &&
	  !strstr(b.p, "iVBORw0K"),
	  "anthropic images: a model without them gets notes");
	jsonfree(&j);
	buffree(&b);
}

/* Bodies made from kept forms are the bodies made afresh, on both wires,
 * and a change of model or wire remakes what depends on it. */
static void
testforms(void)
{
	Wireform forms[LEN(convo)];
	Buf fresh = { 0 }, kept = { 0 };
	Wirereq q;
	size_t i;
	int round, same = 1;
	static const struct { int wire; const char *model; } runs[] = {
		{ ANTHROPIC, "m1" }, { ANTHROPIC, "m1" }, { ANTHROPIC, "m2" },
		{ OPENAI, "m2" }, { OPENAI, "m2" }, { ANTHROPIC, "m1" },
	};

	memset(forms, 0, sizeof(forms));
	for (round = 0; round < (int)LEN(runs); round++) {
		request(&q, runs[round].wire, runs[round].model);
		bufreset(&fresh);
		wirebody(&q, &fresh);
		q.forms = forms;
		bufreset(&kept);
		wirebody(&q, &kept);
		same &= fresh.len == kept.len && !memcmp(fresh.p, kept.p,
		                                         fresh.len);
	}
	T(same, "forms: kept ones give the bodies made afresh, across "
	  "models and wires");
	T(wireformfor(&forms[1], &q) && forms[1].ncalls == 1 &&
	  !strcmp(forms[1].calls[0], "call_1|fc_x") &&
	  forms[2].kind == FORMRESULT && !strcmp(forms[2].result, "call_1|fc_x"),
	  "forms: an answer's calls and a result's call are kept");
	for (i = 0; i < LEN(convo); i++)
		wireformfree(&forms[i]);
	buffree(&fresh);
	buffree(&kept);
}

/* The body of msgs[n] on wire, its forms kept in f; with spans, in
 * spans joined. */
static void
refbody(int wire, char **msgs, size_t n, Wireform *f, int spans, Buf *out)
{
	Wirebody wb;
	Wirereq q;
	size_t i;

	memset(&q, 0, sizeof(q));
	q.wire = wire;
	q.model = "m";
	q.system = "be brief";
	q.msgs = msgs;
	q.nmsgs = n;
	q.forms = f;
	q.maxout = 100;
	bufreset(out);
	if (!spans) {
		wirebody(&q, out);
		return;
	}
	wirespans(&q, &wb);
	for (i = 0; i < wb.n; i++)
		bufadd(out, wb.v[i].p, wb.v[i].len);
	wirebodyfree(&wb);
}

/* A big text goes on the wire from its message when it stands there as
 * jsonesc writes it, else unescaped and escaped again: the bodies are
 * the same byte for byte either way, on both wires. */
static void
testrefs(void)
{
	static const struct {
		const char *raw;	/* a piece of a stored string */
		int plain;		/* sent as it stands */
	} piece[] = {
		{ "\\\"quoted\\\"", 1 }, { "back\\\\slash", 1 },
		{ "\\n\\t\\r\\b\\f", 1 }, { "\xc3\xa9\xe2\x98\x83\xf0\x9f\x98\x80", 1 },
		{ "del\x7f", 1 }, { "a\\/b", 0 }, { "\\u00e9", 0 },
		{ "\\ud800 lone high", 0 }, { "lone low \\udc00", 0 },
		{ "\\ud83d\\ude00 a pair", 0 }, { "\\ud83d split \\ude00", 0 },
		{ "\\u0001 control", 1 }, { "\\u001f\\u007f", 0 },
		{ "\\u001b[31mred\\u001b[0m", 1 }, { "\\u001B", 0 },
		{ "\\u000a", 0 }, { "\\u0000 nul", 1 },
		{ "bad \xff byte", 0 }, { "\xed\xa0\x80 surrogate", 0 },
		{ "cut \xe2\x98", 0 },
	};
	static const char *shape[] = {
		"{\"role\":\"user\",\"content\":\"%s%s\"}",
		"{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
		"\"%s\"},{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"%s\"}]}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":"
		"\"read\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"},"
		"{\"type\":\"text\",\"text\":\"%s\"}],\"isError\":true}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":"
		"\"read\",\"content\":\"%s%s\",\"isError\":false}",
	};
	Buf fill = { 0 }, copy = { 0 }, a = { 0 }, b = { 0 }, c = { 0 };
	Buf m1 = { 0 }, m2 = { 0 };
	Wireform f1, f2;
	char *msgs[1];
	size_t i, k;
	int w, same = 1, used = 1, spans = 1;

	while (fill.len < 5000)
		bufadds(&fill, "some text of a file ");
	/* the same text, one letter written as an escape: copied */
	bufadds(&copy, fill.p);
	copy.p[0] = '\0';
	copy.len = 0;
	bufadds(&copy, "\\u0073");
	bufadds(&copy, fill.p + 1);
	for (i = 0; i < LEN(piece); i++)
	for (k = 0; k < LEN(shape); k++)
	for (w = 0; w < 2; w++) {
		bufreset(&m1);
		bufreset(&m2);
		bufaddf(&m1, shape[k], fill.p, piece[i].raw);
		bufaddf(&m2, shape[k], copy.p, piece[i].raw);
		memset(&f1, 0, sizeof(f1));
		memset(&f2, 0, sizeof(f2));
		msgs[0] = m1.p;
		refbody(w ? ANTHROPIC : OPENAI, msgs, 1, &f1, 0, &a);
		refbody(w ? ANTHROPIC : OPENAI, msgs, 1, &f1, 1, &c);
		msgs[0] = m2.p;
		refbody(w ? ANTHROPIC : OPENAI, msgs, 1, &f2, 0, &b);
		if (a.len != b.len || memcmp(a.p, b.p, a.len) ||
		    c.len != a.len || memcmp(a.p, c.p, a.len)) {
			same = 0;
			printf("# %zu %zu %d:\n# %s\n# %s\n", i, k, w,
			       a.p + a.len - 60, b.p + b.len - 60);
		}
		spans &= c.len == a.len && !memcmp(a.p, c.p, a.len);
		/* a user message with an image is copied */
		used &= !f2.nrefs && (k == 1 ? !f1.nrefs :
		        !f1.nrefs == !piece[i].plain);
		wireformfree(&f1);
		wireformfree(&f2);
	}
	T(same, "refs: a text sent from its message is byte for byte the "
	  "text copied, on both wires");
	T(spans, "refs: in spans, the same");
	T(used, "refs: only plain texts are sent from their messages");
	buffree(&fill);
	buffree(&copy);
	buffree(&a);
	buffree(&b);
	buffree(&c);
	buffree(&m1);
	buffree(&m2);
}

/* A request of the three messages msgs, their forms kept in forms (made
 * empty). */
static void
threemsgs(Wirereq *q, int wire, char **msgs, Wireform *forms)
{
	memset(forms, 0, 3 * sizeof(*forms));
	memset(q, 0, sizeof(*q));
	q->wire = wire;
	q->model = "m";
	q->system = "be brief";
	q->msgs = msgs;
	q->nmsgs = 3;
	q->forms = forms;
	q->maxout = 100;
}

/* A body in spans is the body joined, its big forms not copied but
 * pointed at, on both wires. */
static void
testspans(void)
{
	Buf big = { 0 }, joined = { 0 }, whole = { 0 };
	Wireform forms[3];
	Wirebody wb;
	Wirereq q;
	char *msgs[3];
	size_t i;
	int w, same = 1, kept = 0;

	bufadds(&big, "{\"role\":\"user\",\"content\":\"");
	while (big.len < 20000)
		bufadds(&big, "a long question ");
	bufadds(&big, "\"}");
	msgs[0] = msgs[2] = big.p;
	msgs[1] = "{\"role\":\"user\",\"content\":\"short\"}";
	for (w = 0; w < 2; w++) {
		threemsgs(&q, w ? ANTHROPIC : OPENAI, msgs, forms);
		bufreset(&whole);
		wirebody(&q, &whole);
		wirespans(&q, &wb);
		bufreset(&joined);
		for (i = 0; i < wb.n; i++) {
			bufadd(&joined, wb.v[i].p, wb.v[i].len);
			/* the form, or the message's text it refers to */
			kept += wb.v[i].p == forms[0].text ||
			        wb.v[i].p == forms[2].text ||
			        (wb.v[i].p > big.p &&
			         wb.v[i].p < big.p + big.len);
		}
		same &= joined.len == whole.len && wb.len == whole.len &&
		        !memcmp(joined.p, whole.p, whole.len);
		wirebodyfree(&wb);
		for (i = 0; i < 3; i++)
			wireformfree(&forms[i]);
	}
	T(same, "spans: joined, they are the body, on both wires");
	T(kept == 4, "spans: the big forms are sent from where they are "
	  "kept, on both wires (%d of 4)", kept);
	buffree(&big);
	buffree(&joined);
	buffree(&whole);
}

/* Whether q's body, its messages known plain (Wirereq's msgplain), is
 * body, made without. */
static int
sameplain(const Wirereq *q, const Buf *body)
{
	static const unsigned char plain[] = { 1, 1, 1 };
	Wireform forms[3];
	Wirereq p = *q;
	Buf b = { 0 };
	size_t i;
	int same;

	memset(forms, 0, sizeof(forms));
	p.forms = forms;
	p.msgplain = plain;
	wirebody(&p, &b);
	same = b.len == body->len && !memcmp(b.p, body->p, b.len);
	for (i = 0; i < LEN(forms); i++)
		wireformfree(&forms[i]);
	buffree(&b);
	return same;
}

/* A big tool result is sent from the message itself, as it stands
 * there, on every wire: a resumed session's results from its mapped
 * lines.  Gemini joins several texts with newlines: those are copied. */
static void
testresultrefs(void)
{
	static const int wires[] = { OPENAI, ANTHROPIC, RESPONSES, GEMINI };
	static const char *names[] = { "OpenAI", "Anthropic", "Responses",
	                               "Gemini" };
	Buf one = { 0 }, two = { 0 }, whole = { 0 };
	Wireform forms[3];
	Wirebody wb;
	Wirereq q;
	char *msgs[3];
	size_t i, k;
	int w, from, joined;

	msgs[0] = "{\"role\":\"user\",\"content\":\"read it\"}";
	msgs[1] = "{\"role\":\"assistant\",\"content\":[{\"type\":"
	          "\"toolCall\",\"id\":\"c1\",\"name\":\"read\","
	          "\"arguments\":{\"path\":\"a.c\"}}],\"stopReason\":"
	          "\"toolUse\"}";
	bufadds(&one, "{\"role\":\"toolResult\",\"toolCallId\":\"c1\","
	        "\"toolName\":\"read\",\"content\":[{\"type\":\"text\","
	        "\"text\":\"");
	bufadds(&two, one.p);
	for (k = 0; k < 200; k++)
		bufadds(&one, "\\tsum += v[i];\\n");
	bufadds(&two, "first\"},{\"type\":\"text\",\"text\":\"second");
	for (k = 0; k < 200; k++)
		bufadds(&two, " line");
	bufadds(&one, "\"}],\"isError\":false}");
	bufadds(&two, "\"}],\"isError\":false}");
	for (w = 0; w < (int)LEN(wires); w++) {
		for (k = 0; k < 2; k++) {
			msgs[2] = k ? two.p : one.p;
			threemsgs(&q, wires[w], msgs, forms);
			wirespans(&q, &wb);
			bufreset(&whole);
			for (from = 0, i = 0; i < wb.n; i++) {
				bufadd(&whole, wb.v[i].p, wb.v[i].len);
				from |= wb.v[i].p > msgs[2] &&
				        wb.v[i].p < msgs[2] + strlen(msgs[2]);
			}
			joined = memfind(whole.p, whole.len,
			                 "first\\nsecond line") != NULL;
			if (!k)
				T(from, "result refs: %s sends a big result "
				  "from the message", names[w]);
			if (!k)
				T(sameplain(&q, &whole), "result refs: %s's "
				  "body the same when the message is known "
				  "plain", names[w]);
			else if (wires[w] == GEMINI)
				T(!from && joined, "result refs: Gemini "
				  "joins two texts with a newline");
			wirebodyfree(&wb);
			for (i = 0; i < 3; i++)
				wireformfree(&forms[i]);
		}
	}
	buffree(&one);
	buffree(&two);
	buffree(&whole);
}

static void
testmessage(void)
{
	Wire w;
	Json j;
	char *m;

	run(ANTHROPIC, anthropicstream, &w);
	m = wiremessage(&w, "anthropic", "m1", NULL);
	T(jsonparse(&j, m, strlen(m)) == 0, "message: valid JSON");
	T(has(&j, "role", "assistant") &&
	  has(&j, "content.0.type", "thinking") &&
	  has(&j, "content.0.thinkingSignature", "c2lnbmVk") &&
	  has(&j, "content.1.text", "Reading it.") &&
	  has(&j, "content.2.type", "toolCall") &&
	  has(&j, "content.2.arguments.path", "a") &&
	  has(&j, "api", "anthropic-messages") &&
	  has(&j, "stopReason", "toolUse") && has(&j, "usage.input", "10") &&
	  has(&j, "usage.cacheRead", "100") && has(&j, "usage.output", "42"),
	  "message: stored as pi stores an answer");
	jsonfree(&j);
	free(m);
	m = wiremessage(&w, "anthropic", "m1", "aborted");
	T(strstr(m, "\"stopReason\":\"aborted\"") != NULL,
	  "message: what arrived of an aborted answer says so");
	free(m);
	wirefree(&w);
}

/* Thinking levels: each on each wire gives its fields, off none. */
static void
testlevels(void)
{
	static const char *effort[] = {
		NULL, "minimal", "low", "medium", "high", "high"
	};
	static const char *adaptive[] = {
		NULL, "low", "low", "medium", "high", "high"
	};
	static const long budget[] = { 0, 1024, 2048, 8192, 16384, 16384 };
	Wirereq q;
	Buf b = { 0 }, v = { 0 };
	Json j;
	int l, ok[8] = { 0 }, i;

	T(wirelevel("off") == LEVELOFF && wirelevel("xhigh") == LEVELXHIGH &&
	  wirelevel("max") == LEVELMAX && wirelevel("huge") < 0 &&
	  wirelevel(NULL) < 0 && !strcmp(wirelevelname(LEVELMEDIUM), "medium") &&
	  !strcmp(wirelevelname(LEVELMAX), "max"),
	  "levels: pi's names (max as pi 1.5's), and no others");
	for (l = LEVELOFF; l <= LEVELXHIGH; l++) {
		request(&q, OPENAI, "gpt");
		q.level = l;
		q.think = THEFFORT;
		bufreset(&b);
		wirebody(&q, &b);
		jsonparse(&j, b.p, b.len);
		ok[0] += l ? has(&j, "reasoning_effort", effort[l]) &&
		        at(&j, "reasoning") < 0 :
		        at(&j, "reasoning_effort") < 0;
		jsonfree(&j);
		q.think = THXHIGH;
		bufreset(&b);
		wirebody(&q, &b);
		jsonparse(&j, b.p, b.len);
		ok[1] += l ? has(&j, "reasoning_effort", l == LEVELXHIGH ?
		        "xhigh" : l == LEVELMINIMAL ? "low" : effort[l]) :
		        at(&j, "reasoning_effort") < 0;
		jsonfree(&j);
		q.think = THROUTER;
		bufreset(&b);
		wirebody(&q, &b);
		jsonparse(&j, b.p, b.len);
		ok[2] += l ? has(&j, "reasoning.effort", effort[l]) &&
		        at(&j, "reasoning_effort") < 0 :
		        at(&j, "reasoning") < 0;
		jsonfree(&j);
		q.think = THNONE;
		bufreset(&b);
		wirebody(&q, &b);
		jsonparse(&j, b.p, b.len);
		ok[3] += at(&j, "reasoning") < 0 &&
		         at(&j, "reasoning_effort") < 0;
		jsonfree(&j);

		request(&q, ANTHROPIC, "claude-sonnet-4-5");
		q.level = l;
		q.think = THANTHROPIC;
		q.thinkas = TKBUDGET;
		bufreset(&b);
		wirebody(&q, &b);
		jsonparse(&j, b.p, b.len);
		bufreset(&v);
		bufaddf(&v, "%ld", budget[l]);
		ok[4] += l ? has(&j, "thinking.type", "enabled") &&
		        has(&j, "thinking.budget_tokens", v.p) &&
		        at(&j, "thinking.display") < 0 &&
		        at(&j, "output_config") < 0 &&
		        at(&j, "temperature") < 0 :
		        at(&j, "thinking") < 0;
		bufreset(&v);
		bufaddf(&v, "%ld", 4096 + budget[l]);
		ok[5] += has(&j, "max_tokens", v.p) &&
		         !!wirebeta(&q) == (l != LEVELOFF) &&
		         (!l || !strcmp(wirebeta(&q), "anthropic-beta: "
		                        "interleaved-thinking-2025-05-14"));
		jsonfree(&j);
		q.model = "claude-sonnet-4-6-20260101";
		q.thinkas = TKHIGH;
		bufreset(&b);
		wirebody(&q, &b);
		jsonparse(&j, b.p, b.len);
		ok[6] += (l ? has(&j, "thinking.type", "adaptive") &&
		         has(&j, "output_config.effort", adaptive[l]) &&
		         at(&j, "thinking.budget_tokens") < 0 :
		         at(&j, "thinking") < 0 &&
		         at(&j, "output_config") < 0) &&
		         has(&j, "max_tokens", "4096") && !wirebeta(&q);
		jsonfree(&j);
		q.ntools = 0;
		q.model = "claude-sonnet-4-5";
		q.thinkas = TKBUDGET;
		ok[7] += !wirebeta(&q);
	}
	for (i = 0; i < 8; i++)
		if (ok[i] != LEVELXHIGH + 1)
			printf("# levels: case %d right at %d of 6\n", i,
			       ok[i]);
	T(ok[0] == 6, "levels: openai reasoning_effort, xhigh as high, off "
	  "none");
	T(ok[1] == 6, "levels: openai reasoning_effort, xhigh kept and "
	  "minimal as low where the row says (GPT-6)");
	T(ok[2] == 6, "levels: openrouter's reasoning.effort, off none");
	T(ok[3] == 6, "levels: a provider that takes none gets none");
	T(ok[4] == 6, "levels: anthropic thinking on pi's budgets, "
	  "no display, no temperature; off none");
	T(ok[5] == 6, "levels: anthropic max_tokens above the budget, "
	  "the interleaved-thinking beta with tools");
	T(ok[6] == 6, "levels: adaptive models get adaptive thinking and "
	  "an effort, no beta");
	T(ok[7] == 6, "levels: no beta without tools");
	buffree(&b);
	buffree(&v);
}

/* The body of q as JSON in j (the caller frees j), b its text. */
static void
bodyof(const Wirereq *q, Buf *b, Json *j)
{
	bufreset(b);
	wirebody(q, b);
	if (jsonparse(j, b->p, b->len) < 0) {
		printf("# not JSON: %s\n", b->p);
		jsonparse(j, "{}", 2);
	}
}

/* No sampling parameter in a body: the newest Claude refuses them. */
static int
nosampling(const Json *j)
{
	return at(j, "temperature") < 0 && at(j, "top_p") < 0 &&
	       at(j, "top_k") < 0;
}

/* Anthropic's thinking as each kind of model takes it (models-now.md,
 * late 2026), at every level -T has. */
static void
testclaude(void)
{
	static const char *effort[] = {
		NULL, "low", "low", "medium", "high", "xhigh", "max"
	};
	static const char *high[] = {
		NULL, "low", "low", "medium", "high", "high", "high"
	};
	static const long budget[] = {
		0, 1024, 2048, 8192, 16384, 16384, 16384
	};
	Wirereq q;
	Buf b = { 0 }, v = { 0 };
	Json j;
	int l, ok[6] = { 0 };

	for (l = LEVELOFF; l <= LEVELMAX; l++) {
		request(&q, ANTHROPIC, "claude-haiku-4-5");
		q.think = THANTHROPIC;
		q.thinkas = TKBUDGET;
		q.level = l;
		bodyof(&q, &b, &j);
		bufreset(&v);
		bufaddf(&v, "%ld", 4096 + budget[l]);
		ok[0] += (l ? has(&j, "thinking.type", "enabled") &&
		          at(&j, "output_config") < 0 &&
		          !strcmp(wirebeta(&q), "anthropic-beta: "
		                  "interleaved-thinking-2025-05-14") :
		          at(&j, "thinking") < 0 && !wirebeta(&q)) &&
		         has(&j, "max_tokens", v.p) && nosampling(&j);
		if (l) {
			bufreset(&v);
			bufaddf(&v, "%ld", budget[l]);
			ok[0] -= !has(&j, "thinking.budget_tokens", v.p);
		}
		jsonfree(&j);
		q.model = "claude-opus-4-8";
		q.thinkas = TKADAPTIVE;
		bodyof(&q, &b, &j);
		ok[1] += (l ? has(&j, "thinking.type", "adaptive") &&
		          has(&j, "thinking.display", "summarized") &&
		          has(&j, "output_config.effort", effort[l]) &&
		          at(&j, "thinking.budget_tokens") < 0 :
		          at(&j, "thinking") < 0 &&
		          at(&j, "output_config") < 0) &&
		         has(&j, "max_tokens", "4096") && !wirebeta(&q) &&
		         nosampling(&j);
		jsonfree(&j);
		q.model = "claude-opus-4-6";
		q.thinkas = TKHIGH;
		bodyof(&q, &b, &j);
		ok[2] += l ? has(&j, "output_config.effort", high[l]) :
		         at(&j, "thinking") < 0;
		jsonfree(&j);
		q.model = "claude-sonnet-5";
		q.thinkas = TKOMITTED;
		bodyof(&q, &b, &j);
		ok[3] += (l ? has(&j, "output_config.effort", effort[l]) &&
		          has(&j, "thinking.type", "adaptive") :
		          has(&j, "thinking", "{\"type\":\"disabled\"}") &&
		          at(&j, "output_config") < 0) && !wirebeta(&q);
		jsonfree(&j);
		q.model = "claude-fable-5";
		q.thinkas = TKALWAYS;
		bodyof(&q, &b, &j);
		ok[4] += (l ? has(&j, "output_config.effort", effort[l]) &&
		          has(&j, "thinking.type", "adaptive") :
		          at(&j, "thinking") < 0 &&
		          at(&j, "output_config") < 0) && !wirebeta(&q) &&
		         nosampling(&j);
		jsonfree(&j);
		/* a provider row that takes no thinking sends none */
		q.think = THNONE;
		q.thinkas = TKADAPTIVE;
		bodyof(&q, &b, &j);
		ok[5] += at(&j, "thinking") < 0 && at(&j, "output_config") < 0;
		jsonfree(&j);
	}
	T(ok[0] == 7, "claude: a budget model, pi's budgets on top of "
	  "max_tokens (max as high), the interleaved beta, off none");
	T(ok[1] == 7, "claude: an adaptive model, minimal and low as low, "
	  "xhigh and max as they are, no beta, off none");
	T(ok[2] == 7, "claude: a 4.6 model, xhigh and max as high");
	T(ok[3] == 7, "claude: Sonnet 5 at off: thinking disabled, as it "
	  "thinks when the field is left out");
	T(ok[4] == 7, "claude: Fable 5 at off: no thinking field at all");
	T(ok[5] == 7, "claude: a row that takes none: none");
	buffree(&b);
	buffree(&v);
}

/* Which row of a table of models a name finds. */
static void
testmodels(void)
{
	static const Model m[] = {
		{ "claude-sonnet-5", 1000000, 0, TKOMITTED, 1.3 },
		{ "claude-sonnet-4-5", 200000, 0, TKBUDGET, 1 },
		{ "claude", 0, 0, TKADAPTIVE, 1.3 },
	};

	T(wiremodel(m, LEN(m), "claude-sonnet-5") == &m[0] &&
	  wiremodel(m, LEN(m), "anthropic/claude-sonnet-5") == &m[0] &&
	  wiremodel(m, LEN(m), "claude-sonnet-4-5-20250929") == &m[1] &&
	  wiremodel(m, LEN(m), "anthropic/claude-sonnet-4.5") == &m[1] &&
	  wiremodel(m, LEN(m), "claude-opus-9") == &m[2] &&
	  wiremodel(m, LEN(m), "gpt-6.1-sol") == NULL &&
	  wiremodel(m, LEN(m), NULL) == NULL,
	  "models: by a part of the name, '.' as '-', the first row");
	T(wiremodel(m, LEN(m), "global.anthropic.claude-sonnet-5") == &m[0] &&
	  wiremodel(m, LEN(m), "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	  == &m[1], "models: Bedrock's ids find Claude's rows");
}

/* Prices of Bedrock's ids: the Claude model's inside them. */
static void
testbedrockprice(void)
{
	static const Price p[] = {
		{ "claude-sonnet-5", 3, 15, 0.3, 3.75 },
		{ "claude-sonnet-4-5", 3, 15, 0.3, 3.75 },
		{ "claude-opus-4-6", 5, 25, 0.5, 6.25 },
	};

	T(wireprice(p, LEN(p), "global.anthropic.claude-sonnet-5") == &p[0] &&
	  wireprice(p, LEN(p), "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	  == &p[1] &&
	  wireprice(p, LEN(p), "anthropic.claude-opus-4-6-v1") == &p[2] &&
	  !wireprice(p, LEN(p), "eu.anthropic.claude-sonnet-4") &&
	  !wireprice(p, LEN(p), "anthropic/claude-sonnet-5"),
	  "cost: a Bedrock id priced as its Claude model, no other");
}

/* Bedrock's body: Anthropic's, the version for the model and stream
 * fields; the beta in it, not in a header; the same messages. */
static void
testbedrockbody(void)
{
	Wirereq q;
	Buf a = { 0 }, b = { 0 };
	Json j;
	const char *h[4];
	size_t sys;

	request(&q, BEDROCK, "us.anthropic.claude-sonnet-4-5-20250929-v1:0");
	q.think = THANTHROPIC;
	q.thinkas = TKBUDGET;
	q.level = LEVELHIGH;
	bodyof(&q, &b, &j);
	T(has(&j, "anthropic_version", "bedrock-2023-05-31") &&
	  at(&j, "model") < 0 && at(&j, "stream") < 0 &&
	  has(&j, "max_tokens", "20480") &&
	  has(&j, "anthropic_beta.0", "interleaved-thinking-2025-05-14") &&
	  has(&j, "thinking.type", "enabled"),
	  "bedrock body: the version, no model or stream, the beta inside");
	T(wireheaders(&q, NULL, NULL, &a, h) == 0,
	  "bedrock: no version or beta header, no key header without a key");
	jsonfree(&j);
	sys = strstr(b.p, ",\"system\"") ? (size_t)(strstr(b.p, ",\"system\"") -
	     b.p) : 0;
	q.wire = ANTHROPIC;
	bufreset(&a);
	wirebody(&q, &a);
	T(sys && strstr(a.p, ",\"system\"") &&
	  !strcmp(b.p + sys, strstr(a.p, ",\"system\"")),
	  "bedrock body: from the system prompt on, Anthropic's own");
	q.wire = BEDROCK;
	q.thinkas = TKOMITTED;
	q.level = LEVELOFF;
	bodyof(&q, &b, &j);
	T(at(&j, "thinking") < 0, "bedrock body: off sends Sonnet 5 no "
	  "thinking field (Bedrock's always thinks)");
	jsonfree(&j);
	buffree(&a);
	buffree(&b);
}

/* Bedrock's chunk: the event base64'd in it goes to Anthropic's reader;
 * a chunk without it is an error. */
static void
testbedrockchunk(void)
{
	static const char ev[] = "{\"type\":\"content_block_delta\","
	    "\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
	    "\"caf\u00e9\"}}";
	Buf c = { 0 };
	Wire w;

	wireinit(&w, BEDROCK, NULL, NULL);
	bufadds(&c, "{\"bytes\":\"");
	b64enc(&c, ev, strlen(ev));
	bufadds(&c, "\",\"p\":\"abcd\"}");
	T(wireevent(&w, "chunk", c.p, c.len) == 0 && is(&w.text, "caf\303\251"),
	  "bedrock chunk: the event inside read as Anthropic's");
	T(wireevent(&w, "chunk", "{\"bytes\":\"e30\"}", 15) == 0,
	  "bedrock chunk: unpadded base64");
	T(wireevent(&w, "chunk", "{\"p\":\"x\"}", 9) == 1 &&
	  strstr(bstr(&w.err), "without its bytes"),
	  "bedrock chunk: no bytes, an error");
	wirefree(&w);
	wireinit(&w, BEDROCK, NULL, NULL);
	T(wireevent(&w, "chunk", "{\"bytes\":\"!!\"}", 14) == 1 &&
	  wireevent(&w, "chunk", "{\"bytes", 8) == 1,
	  "bedrock chunk: bad base64, bad JSON: errors");
	wirefree(&w);
	buffree(&c);
}

/* Bedrock's URL: the model URI-encoded in the path. */
static void
testbedrockurl(void)
{
	Wirereq q = { 0 };
	Buf u = { 0 };

	q.wire = BEDROCK;
	q.model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
	wireurl(&u, "https://bedrock-runtime.us-east-1.amazonaws.com", NULL, &q);
	T(!strcmp(bstr(&u), "https://bedrock-runtime.us-east-1.amazonaws.com/"
	  "model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/"
	  "invoke-with-response-stream"), "bedrock: the URL, ':' as %%3A: %s",
	  bstr(&u));
	bufreset(&u);
	q.model = "arn:aws:bedrock:us-east-1:1:inference-profile/x y";
	wireurl(&u, "http://h", NULL, &q);
	T(!strcmp(bstr(&u), "http://h/model/arn%3Aaws%3Abedrock%3Aus-east-1"
	  "%3A1%3Ainference-profile%2Fx%20y/invoke-with-response-stream"),
	  "bedrock: an ARN's '/' encoded too: %s", bstr(&u));
	buffree(&u);
}

/* Where the cache marks go: Anthropic's system, last tool and last user
 * block, an hour with cachehour; OpenRouter's Claude the same, in chat
 * completions' parts; nothing for any other model there. */
static void
testcache(void)
{
	static const char mark[] = "{\"type\":\"ephemeral\"}";
	static const char hour[] = "{\"type\":\"ephemeral\",\"ttl\":\"1h\"}";
	static const Wiretool two[] = {
		{ "read", "Read a file", "{\"type\":\"object\"}" },
		{ "ls", "List", "{\"type\":\"object\"}" },
	};
	Wirereq q;
	Buf b = { 0 };
	Json j;
	int n;

	request(&q, ANTHROPIC, "claude-sonnet-5");
	q.tools = two;
	q.ntools = 2;
	bodyof(&q, &b, &j);
	n = count(&j, "messages");
	T(has(&j, "system.0.cache_control", mark) &&
	  at(&j, "tools.0.cache_control") < 0 &&
	  has(&j, "tools.1.cache_control", mark) &&
	  has(&j, "tools.1.name", "ls") &&
	  n > 0 && count(&j, "tools") == 2 &&
	  strstr(b.p, "\"text\":\"next\",\"cache_control\":") != NULL,
	  "cache: anthropic marks the system prompt, the last tool and the "
	  "last user block");
	jsonfree(&j);
	q.cachehour = 1;
	bodyof(&q, &b, &j);
	T(has(&j, "system.0.cache_control", hour) &&
	  has(&j, "tools.1.cache_control", hour) &&
	  strstr(b.p, "\"text\":\"next\",\"cache_control\":{\"type\":"
	         "\"ephemeral\",\"ttl\":\"1h\"}") != NULL,
	  "cache: cachehour makes each mark an hour's");
	jsonfree(&j);

	request(&q, OPENAI, "anthropic/claude-sonnet-5");
	q.think = THROUTER;
	q.tools = two;
	q.ntools = 2;
	bodyof(&q, &b, &j);
	n = count(&j, "messages");
	T(has(&j, "messages.0.content.0.text", "be brief") &&
	  has(&j, "messages.0.content.0.cache_control", mark) &&
	  has(&j, "tools.1.cache_control", mark) &&
	  has(&j, "tools.1.function.name", "ls") &&
	  at(&j, "tools.0.cache_control") < 0 && n > 1,
	  "cache: openrouter's claude gets the system prompt and the last "
	  "tool marked");
	bufreset(&b);
	bufaddf(&b, "messages.%d.content.0.cache_control", n - 1);
	T(has(&j, b.p, mark) && (b.len = 0, bufaddf(&b, "messages.%d.content"
	  ".0.text", n - 1), has(&j, b.p, "next")),
	  "cache: openrouter's claude gets the last user block marked, as a "
	  "text part");
	jsonfree(&j);
	q.model = "openai/gpt-6.1-sol";
	bodyof(&q, &b, &j);
	T(!strstr(b.p, "cache_control") &&
	  has(&j, "messages.0.content", "be brief"),
	  "cache: openrouter's other models get no marks");
	jsonfree(&j);
	q.model = "claude-sonnet-5";
	q.think = THEFFORT;
	bodyof(&q, &b, &j);
	T(!strstr(b.p, "cache_control"), "cache: chat completions elsewhere "
	  "gets no marks");
	jsonfree(&j);
	/* the last message a tool result: its content marked */
	request(&q, OPENAI, "anthropic/claude-opus-4.8");
	q.think = THROUTER;
	q.nmsgs = 3;
	bodyof(&q, &b, &j);
	n = count(&j, "messages");
	bufreset(&b);
	bufaddf(&b, "messages.%d.content.0.cache_control", n - 1);
	T(has(&j, b.p, mark) && (b.len = 0, bufaddf(&b, "messages.%d.role",
	  n - 1), has(&j, b.p, "tool")),
	  "cache: openrouter's claude: a last tool result marked");
	jsonfree(&j);
	buffree(&b);
}

/* display omitted: thinking blocks stream with no text but a signature,
 * and go back unchanged, empty text and all. */
static const char omitstream[] =
	"data: {\"type\":\"message_start\",\"message\":{\"usage\":"
	"{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":0,"
	"\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"signature_delta\",\"signature\":\"RW1wdHk=\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":1,"
	"\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{"
	"\"type\":\"text_delta\",\"text\":\"done\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
	"\"end_turn\"},\"usage\":{\"output_tokens\":5}}\n\n"
	"data: {\"type\":\"message_stop\"}\n\n";

static void
testomitted(void)
{
	Wire w;
	Wirereq q;
	Buf b = { 0 };
	Json j;
	char *msgs[2];

	run(ANTHROPIC, omitstream, &w);
	msgs[0] = "{\"role\":\"user\",\"content\":\"hi\"}";
	msgs[1] = wiremessage(&w, "anthropic", "claude-fable-5", NULL);
	T(strstr(msgs[1], "{\"type\":\"thinking\",\"thinking\":\"\","
	         "\"thinkingSignature\":\"RW1wdHk=\"}") != NULL,
	  "omitted: an empty thinking block is stored with its signature");
	request(&q, ANTHROPIC, "claude-fable-5");
	q.msgs = msgs;
	q.nmsgs = 2;
	q.think = THANTHROPIC;
	q.thinkas = TKALWAYS;
	bodyof(&q, &b, &j);
	T(has(&j, "messages.1.content.0", "{\"type\":\"thinking\","
	      "\"thinking\":\"\",\"signature\":\"RW1wdHk=\"}") &&
	  has(&j, "messages.1.content.1.text", "done"),
	  "omitted: it goes back unchanged, empty text and all");
	jsonfree(&j);
	q.model = "claude-opus-4-8";
	bodyof(&q, &b, &j);
	T(has(&j, "messages.1.content.0.text", "done") &&
	  count(&j, "messages.1.content") == 1,
	  "omitted: another model's empty thinking is left out");
	jsonfree(&j);
	free(msgs[1]);
	wirefree(&w);
	buffree(&b);
}

/* A refusal and an answer over the context window: failures, said. */
static void
teststops(void)
{
	static const char refusal[] =
		"data: {\"type\":\"message_start\",\"message\":{\"usage\":"
		"{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
		"data: {\"type\":\"content_block_start\",\"index\":0,"
		"\"content_block\":{\"type\":\"text\",\"text\":\"I\"}}\n\n"
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
		"\"refusal\",\"stop_details\":{\"type\":\"refusal\","
		"\"category\":\"cyber\"}},\"usage\":{\"output_tokens\":2}}\n\n"
		"data: {\"type\":\"message_stop\"}\n\n";
	static const char window[] =
		"data: {\"type\":\"message_start\",\"message\":{\"usage\":"
		"{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
		"\"model_context_window_exceeded\"},\"usage\":"
		"{\"output_tokens\":2}}\n\n"
		"data: {\"type\":\"message_stop\"}\n\n";
	Wire w;

	run(ANTHROPIC, refusal, &w);
	T(!wirecomplete(&w) && w.done && strstr(bstr(&w.err), "refused") &&
	  strstr(bstr(&w.err), "(cyber)") && w.out == 2,
	  "stops: a refusal is a failure that says so, with its category");
	wirefree(&w);
	run(ANTHROPIC, window, &w);
	T(!wirecomplete(&w) &&
	  strstr(bstr(&w.err), "model_context_window_exceeded") &&
	  strstr(bstr(&w.err), "context window"),
	  "stops: model_context_window_exceeded is a failure that says so");
	wirefree(&w);
}

/* thinking, redacted_thinking, text, thinking, tool_use: stored in that
 * order, and sent back so, signatures and data byte for byte. */
static const char blockstream[] =
	"event: message_start\n"
	"data: {\"type\":\"message_start\",\"message\":{\"usage\":"
	"{\"input_tokens\":10,\"output_tokens\":1}}}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":0,"
	"\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"thinking_delta\",\"thinking\":\"first \\ud83c\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"thinking_delta\",\"thinking\":\"\\udf89 thought\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
	"\"type\":\"signature_delta\",\"signature\":\"U2lnT25l+/=\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":1,"
	"\"content_block\":{\"type\":\"redacted_thinking\",\"data\":"
	"\"RWRhY3RlZA\\u003d\\u003d\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":1}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":2,"
	"\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{"
	"\"type\":\"text_delta\",\"text\":\"Let me see.\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":2}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":3,"
	"\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{"
	"\"type\":\"thinking_delta\",\"thinking\":\"second\"}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{"
	"\"type\":\"signature_delta\",\"signature\":\"U2lnVHdv\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":3}\n\n"
	"data: {\"type\":\"content_block_start\",\"index\":4,"
	"\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\","
	"\"name\":\"read\",\"input\":{}}}\n\n"
	"data: {\"type\":\"content_block_delta\",\"index\":4,\"delta\":{"
	"\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\":"
	"\\\"a\\\"}\"}}\n\n"
	"data: {\"type\":\"content_block_stop\",\"index\":4}\n\n"
	"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
	"\"tool_use\"},\"usage\":{\"output_tokens\":42}}\n\n"
	"data: {\"type\":\"message_stop\"}\n\n";

static void
testblocks(void)
{
	Buf log = { 0 }, b = { 0 };
	Wire w;
	Wirereq q;
	Json j;
	Sse sse;
	char *m, *msgs[2];

	splits("blocks stream", ANTHROPIC, blockstream,
	       sizeof(blockstream) - 1, &w, &log);
	T(strstr(log.p, "Hfirst |H\xf0\x9f\x8e\x89 thought|") != NULL,
	  "surrogates: a pair split between two deltas is one character");
	m = wiremessage(&w, "anthropic", "m1", NULL);
	T(jsonparse(&j, m, strlen(m)) == 0 && count(&j, "content") == 5 &&
	  has(&j, "content.0.type", "thinking") &&
	  has(&j, "content.0.thinking", "first \xf0\x9f\x8e\x89 thought") &&
	  has(&j, "content.0.thinkingSignature", "U2lnT25l+/=") &&
	  has(&j, "content.1.type", "thinking") &&
	  has(&j, "content.1.redacted", "true") &&
	  has(&j, "content.1.thinking", "[Reasoning redacted]") &&
	  has(&j, "content.1.thinkingSignature", "RWRhY3RlZA==") &&
	  has(&j, "content.2.text", "Let me see.") &&
	  has(&j, "content.3.thinking", "second") &&
	  has(&j, "content.3.thinkingSignature", "U2lnVHdv") &&
	  has(&j, "content.4.type", "toolCall") &&
	  has(&j, "content.4.id", "toolu_9") &&
	  has(&j, "content.4.arguments.path", "a"),
	  "blocks: stored in order, as pi stores them");
	jsonfree(&j);
	msgs[0] = "{\"role\":\"user\",\"content\":\"go\"}";
	msgs[1] = m;
	request(&q, ANTHROPIC, "m1");
	q.msgs = msgs;
	q.nmsgs = 2;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  count(&j, "messages.1.content") == 5 &&
	  has(&j, "messages.1.content.0.type", "thinking") &&
	  has(&j, "messages.1.content.0.thinking",
	      "first \xf0\x9f\x8e\x89 thought") &&
	  has(&j, "messages.1.content.0.signature", "U2lnT25l+/=") &&
	  has(&j, "messages.1.content.1.type", "redacted_thinking") &&
	  has(&j, "messages.1.content.1.data", "RWRhY3RlZA==") &&
	  has(&j, "messages.1.content.2.type", "text") &&
	  has(&j, "messages.1.content.3.type", "thinking") &&
	  has(&j, "messages.1.content.3.signature", "U2lnVHdv") &&
	  has(&j, "messages.1.content.4.type", "tool_use") &&
	  has(&j, "messages.1.content.4.id", "toolu_9"),
	  "blocks: sent back in order, signatures and data unchanged");
	T(strstr(b.p, "\"signature\":\"U2lnT25l+/=\"") &&
	  strstr(b.p, "\"data\":\"RWRhY3RlZA==\""),
	  "blocks: signature and data byte-equal in the body");
	jsonfree(&j);
	bufreset(&b);
	q.provider = "anthropic";
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  has(&j, "messages.1.content.0.signature", "U2lnT25l+/="),
	  "blocks: the same provider's");
	jsonfree(&j);
	bufreset(&b);
	q.provider = "proxy";
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  count(&j, "messages.1.content") == 4 &&
	  has(&j, "messages.1.content.0.type", "text") &&
	  !strstr(b.p, "U2lnT25l"), "blocks: to the same model through "
	  "another provider thinking is text, as pi sends it");
	q.provider = NULL;
	jsonfree(&j);
	bufreset(&b);
	q.model = "m2";
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  count(&j, "messages.1.content") == 4 &&
	  has(&j, "messages.1.content.0.type", "text") &&
	  has(&j, "messages.1.content.2.text", "second") &&
	  !strstr(b.p, "redacted") && !strstr(b.p, "U2lnVHdv"),
	  "blocks: to another model thinking is text, redacted left out");
	jsonfree(&j);
	free(m);
	wirefree(&w);
	/* over maxkeep in all, a signature or data is dropped, not cut */
	wireinit(&w, ANTHROPIC, NULL, NULL);
	w.maxkeep = 20;
	sseinit(&sse, wireevent, &w);
	ssefeed(&sse, blockstream, sizeof(blockstream) - 1);
	sseend(&sse);
	m = wiremessage(&w, "anthropic", "m1", NULL);
	T(w.nparts == 5 && !w.parts[0].lost && w.parts[1].lost &&
	  !w.parts[1].sig.len && is(&w.parts[3].sig, "U2lnVHdv") &&
	  jsonparse(&j, m, strlen(m)) == 0 && !strstr(m, "redacted") &&
	  count(&j, "content") == 4, "blocks: signatures kept whole within "
	  "the bound, or not at all");
	jsonfree(&j);
	free(m);
	ssefree(&sse);
	wirefree(&w);
	buffree(&b);
	buffree(&log);
}

/* Surrogate pairs split between OpenAI deltas, and escapes that only
 * look like one. */
static const char surrogates[] =
	"data: {\"choices\":[{\"delta\":{\"content\":\"party \\ud83c\"}}]}\n\n"
	"data: {\"choices\":[{\"delta\":{\"content\":\"\"}}]}\n\n"
	"data: {\"choices\":[{\"delta\":{\"content\":\"\\udf89!\"}}]}\n\n"
	"data: {\"choices\":[{\"delta\":{\"content\":\"a\\\\ud83c\"}}]}\n\n"
	"data: {\"choices\":[{\"delta\":{\"content\":\"\\ud83c\"}}]}\n\n"
	"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\n"
	"data: {\"choices\":[{\"delta\":{\"reasoning\":\"x\"},"
	"\"finish_reason\":\"stop\"}]}\n\n"
	"data: [DONE]\n\n";

static void
testsurrogates(void)
{
	Buf log = { 0 };
	Wire w;
	char *m;

	splits("surrogates", OPENAI, surrogates, sizeof(surrogates) - 1, &w,
	       &log);
	T(is(&w.text, "party \xf0\x9f\x8e\x89!a\\ud83c\xef\xbf\xbd" "b"),
	  "surrogates: joined across deltas, an empty one between; an "
	  "escaped \\ is text; a lone one is U+FFFD");
	m = wiremessage(&w, "p", "m", NULL);
	T(strstr(m, "\"thinkingSignature\":\"reasoning\"") != NULL,
	  "openai: the field reasoning came in is kept, as pi keeps it");
	free(m);
	wirefree(&w);
	buffree(&log);
}

/* A call whose arguments stream past maxargs: held no more than that
 * and a piece, marked over, stored with none; the next call whole. */
static void
testbigargs(void)
{
	static const char head[] = "{\"choices\":[{\"index\":0,\"delta\":"
	    "{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":"
	    "\"function\",\"function\":{\"name\":\"write\",\"arguments\":"
	    "\"\"}}]}}]}";
	static const char piece[] = "{\"choices\":[{\"index\":0,\"delta\":"
	    "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
	    "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}]}}]}";
	static const char next[] = "{\"choices\":[{\"index\":0,\"delta\":"
	    "{\"tool_calls\":[{\"index\":1,\"id\":\"c2\",\"type\":"
	    "\"function\",\"function\":{\"name\":\"ls\",\"arguments\":"
	    "\"{}\"}}]}}]}";
	Wire w;
	Buf b = { 0 };
	size_t most = 0;
	int i;

	wireinit(&w, OPENAI, NULL, NULL);
	w.maxargs = 200;
	wireevent(&w, "", head, strlen(head));
	for (i = 0; i < 100; i++) {
		wireevent(&w, "", piece, strlen(piece));
		most = MAX(most, w.calls[0].args.len);
	}
	wireevent(&w, "", next, strlen(next));
	T(w.ncalls == 2 && w.calls[0].over && most <= 250 &&
	  !w.calls[1].over && is(&w.calls[1].args, "{}"),
	  "arguments past maxargs: held no more, the call marked: %zu", most);
	wirestorecall(&b, &w.calls[0]);
	T(strstr(b.p, "\"arguments\":{}") != NULL,
	  "arguments past maxargs: stored as none");
	buffree(&b);
	wirefree(&w);
}

/* A result of no call before it (a compaction that kept it alone, a
 * file put together by hand) is left out on every wire: each API
 * refuses the request whole.  One with its call still goes. */
static void
testorphan(void)
{
	static const struct { int wire; const char *model, *res; } w[] = {
		{ OPENAI, "gpt-4o", "\"tool_call_id\"" },
		{ RESPONSES, "gpt-5", "function_call_output" },
		{ ANTHROPIC, "claude-sonnet-4-5", "tool_result" },
		{ GEMINI, "gemini-2.5-pro", "functionResponse" },
		{ BEDROCK, "anthropic.claude-sonnet-4-5", "tool_result" },
	};
	char *msgs[] = {
		"{\"role\":\"user\",\"content\":\"summary\"}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"c1\",\"toolName\":"
		"\"read\",\"content\":[{\"type\":\"text\",\"text\":"
		"\"ORPHAN\"}]}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\","
		"\"id\":\"c2\",\"name\":\"read\",\"arguments\":{}}],"
		"\"stopReason\":\"toolUse\"}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"c2\",\"toolName\":"
		"\"read\",\"content\":[{\"type\":\"text\",\"text\":"
		"\"PAIRED\"}]}",
		"{\"role\":\"toolResult\",\"toolCallId\":\"c2\",\"toolName\":"
		"\"read\",\"content\":[{\"type\":\"text\",\"text\":"
		"\"TWICE\"}]}",
		"{\"role\":\"user\",\"content\":\"next\"}",
	};
	Wirereq q;
	Buf b = { 0 };
	Json j;
	const char *s;
	size_t i;
	int n;

	for (i = 0; i < LEN(w); i++) {
		request(&q, w[i].wire, w[i].model);
		q.msgs = msgs;
		q.nmsgs = LEN(msgs);
		bufreset(&b);
		wirebody(&q, &b);
		for (n = 0, s = b.p; (s = strstr(s, w[i].res)); s++)
			n++;
		T(jsonparse(&j, b.p, b.len) == 0 && !strstr(b.p, "ORPHAN") &&
		  !strstr(b.p, "TWICE") && strstr(b.p, "PAIRED") && n == 1,
		  "orphan result left out, the paired one sent: wire %d",
		  w[i].wire);
		jsonfree(&j);
	}
	buffree(&b);
}

/* A pi session's compound ids (OpenAI's responses API) on chat
 * completions: at most 40 bytes, call and result the same. */
static void
testids(void)
{
	Buf id = { 0 }, call = { 0 }, res = { 0 }, b = { 0 };
	Wirereq q;
	Json j;
	char *msgs[4];
	int i, ci, ri;

	bufadds(&id, "call_AbC123|fc_");
	while (id.len < 400)
		bufadds(&id, "Zm9v+YmFy/=");
	bufaddf(&call, "{\"role\":\"assistant\",\"content\":[{\"type\":"
	        "\"toolCall\",\"id\":\"%s\",\"name\":\"read\",\"arguments\":"
	        "{}}],\"api\":\"openai-responses\",\"model\":\"gpt-5\","
	        "\"stopReason\":\"toolUse\"}", id.p);
	bufaddf(&res, "{\"role\":\"toolResult\",\"toolCallId\":\"%s\","
	        "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}", id.p);
	msgs[0] = "{\"role\":\"user\",\"content\":\"go\"}";
	msgs[1] = call.p;
	msgs[2] = res.p;
	msgs[3] = call.p;	/* a call left without a result */
	request(&q, OPENAI, "gpt-5");
	q.msgs = msgs;
	q.nmsgs = 4;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0, "ids: valid JSON");
	ci = at(&j, "messages.2.tool_calls.0.id");
	ri = at(&j, "messages.3.tool_call_id");
	T(has(&j, "messages.2.tool_calls.0.id", "call_AbC123") &&
	  has(&j, "messages.3.tool_call_id", "call_AbC123") &&
	  has(&j, "messages.5.tool_call_id", "call_AbC123") && ci > 0 &&
	  ri > 0, "ids: a 400-byte compound id goes as its call, result "
	  "and owed result matching");
	jsonfree(&j);
	bufreset(&id);
	bufadds(&id, "c+");
	for (i = 0; i < 50; i++)
		bufaddc(&id, 'a' + i % 26);
	bufadds(&id, "|fc");
	bufreset(&call);
	bufaddf(&call, "{\"role\":\"assistant\",\"content\":[{\"type\":"
	        "\"toolCall\",\"id\":\"%s\",\"name\":\"read\",\"arguments\":"
	        "{}}],\"stopReason\":\"toolUse\"}", id.p);
	bufreset(&res);
	bufaddf(&res, "{\"role\":\"toolResult\",\"toolCallId\":\"%s\","
	        "\"content\":\"ok\"}", id.p);
	msgs[1] = call.p;
	msgs[2] = res.p;
	q.nmsgs = 3;
	bufreset(&b);
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  (ci = at(&j, "messages.2.tool_calls.0.id")) > 0 &&
	  j.t[ci].end - j.t[ci].start == 40 && !memcmp(j.s + j.t[ci].start,
	  "c_abc", 5) && (ri = at(&j, "messages.3.tool_call_id")) > 0 &&
	  j.t[ri].end - j.t[ri].start == 40 && !memcmp(j.s + j.t[ci].start,
	  j.s + j.t[ri].start, 40), "ids: made safe and cut to 40 bytes, "
	  "the same for call and result");
	jsonfree(&j);
	buffree(&id);
	buffree(&call);
	buffree(&res);
	buffree(&b);
}

/* The model's own thinking goes back in the field it came in. */
static void
testreasoning(void)
{
	Wirereq q;
	Buf b = { 0 };
	Json j;
	char *msgs[] = {
		"{\"role\":\"user\",\"content\":\"go\"}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"thinking\","
		"\"thinking\":\"a\",\"thinkingSignature\":"
		"\"reasoning_content\"},{\"type\":\"thinking\",\"thinking\":"
		"\"b\"},{\"type\":\"text\","
		"\"text\":\"done\"}],\"api\":\"openai-completions\","
		"\"model\":\"ds\",\"stopReason\":\"stop\"}",
	};

	request(&q, OPENAI, "ds");
	q.msgs = msgs;
	q.nmsgs = 2;
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  has(&j, "messages.2.reasoning_content", "a\nb") &&
	  has(&j, "messages.2.content", "done"),
	  "reasoning: the model's own sent back in its field, as pi does");
	jsonfree(&j);
	bufreset(&b);
	q.model = "other";
	wirebody(&q, &b);
	T(jsonparse(&j, b.p, b.len) == 0 &&
	  at(&j, "messages.2.reasoning_content") < 0 &&
	  has(&j, "messages.2.content", "abdone"),
	  "reasoning: another model's as text");
	jsonfree(&j);
	buffree(&b);
}

/* Costs as pi counts them, with the numbers pi gave for this usage. */
static void
testcost(void)
{
	static const Price prices[] = {
		{ "other", 1, 1, 1, 1 }, { "m1", 3, 15, 0.3, 3.75 },
	};
	Wire w;
	Json j;
	double c[4];
	char *m;

	T(wireprice(prices, LEN(prices), "m1") == &prices[1] &&
	  !wireprice(prices, LEN(prices), "m"), "cost: prices by model");
	wireinit(&w, ANTHROPIC, NULL, NULL);
	w.in = 4000000;
	w.cached = 2000000;
	w.cachewrite = 1000000;
	w.out = 100000;
	T(wirecost(&w, c) == 0 && c[0] == 0 && c[3] == 0,
	  "cost: nothing without a price");
	w.price = &prices[1];
	m = wiremessage(&w, "anthropic", "m1", NULL);
	T(jsonparse(&j, m, strlen(m)) == 0 &&
	  has(&j, "usage.input", "1000000") &&
	  has(&j, "usage.cost.input", "3") &&
	  has(&j, "usage.cost.output", "1.5") &&
	  has(&j, "usage.cost.cacheRead", "0.6") &&
	  has(&j, "usage.cost.cacheWrite", "3.75") &&
	  has(&j, "usage.cost.total", "8.85") &&
	  has(&j, "usage.totalTokens", "4100000"),
	  "cost: each part and the total in the stored answer: %s",
	  strstr(m, "\"usage\""));
	jsonfree(&j);
	free(m);
	wirefree(&w);
}

static void
testoverflow(void)
{
	T(wireoverflow(400, "This model's maximum context length is 8192", 43),
	  "overflow: OpenAI's words");
	T(wireoverflow(400, "prompt is too long: 210000 tokens", 33),
	  "overflow: Anthropic's words");
	T(wireoverflow(413, "", 0), "overflow: any 413");
	T(!wireoverflow(400, "bad request", 11), "overflow: not any 400");
	T(!wireoverflow(500, "context length", 14), "overflow: not a 500");
}

int
main(void)
{
	testopenaistream();
	testanthropicstream();
	testerrors();
	testlimits();
	testopenaibody();
	testanthropicbody();
	testforms();
	testspans();
	testresultrefs();
	testrefs();
	testimagebody();
	testcost();
	testmessage();
	testlevels();
	testclaude();
	testmodels();
	testbedrockprice();
	testbedrockurl();
	testbedrockbody();
	testbedrockchunk();
	testcache();
	testomitted();
	teststops();
	testblocks();
	testsurrogates();
	testids();
	testorphan();
	testbigargs();
	testreasoning();
	testoverflow();
	testfile("test/data/openai-text.sse", OPENAI, "complete=1");
	testfile("test/data/openai-toolcall.sse", OPENAI, "finish=tool_calls");
	testfile("test/data/openai-error.sse", OPENAI, "complete=0");
	testfile("test/data/anthropic-text.sse", ANTHROPIC, "complete=1");
	testfile("test/data/anthropic-toolcall.sse", ANTHROPIC,
	         "finish=tool_calls");
	testfile("test/data/anthropic-error.sse", ANTHROPIC, "again=1");
	return tfail != 0;
}
