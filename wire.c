/* See LICENSE file for copyright and license details. */
/* wire.c: the providers' wires, OpenAI chat completions (openai*) and
 * Anthropic messages (anthropic*): a request in, its JSON body out; the
 * stream's events in, deltas and the finished answer out.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* Text of a message's content: a string, or the text blocks joined. */
void
wiretext(Buf *b, const Json *j, int content)
{
	int blk;

	if (jsonstrbuf(j, content, b) == 0)
		return;
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		if (jsoneq(j, jsonget(j, blk, "type"), "text"))
			jsonstrbuf(j, jsonget(j, blk, "text"), b);
}

/* The message of an error object, or of a body holding one. */
void
wireerror(Buf *out, const Json *j, int i)
{
	int e = jsonget(j, i, "error");

	if (e >= 0 && j->t[e].type == JSTR) {
		jsonstrbuf(j, e, out);
		return;
	}
	if (e < 0)
		e = i;
	if (jsonstrbuf(j, jsonget(j, e, "message"), out) == 0)
		return;
	if (jsonstrbuf(j, jsonget(j, e, "detail"), out) == 0)
		return;
	jsonraw(out, j, e);
}

/* Whether an error says the request is over the context window, in the
 * words of the providers we know of (OpenAI, Anthropic, llama.cpp, vLLM,
 * Ollama, LM Studio, OpenRouter). */
int
wireoverflow(int status, const char *err, size_t len)
{
	static const char *said[] = {
		"context_length_exceeded", "context length", "context window",
		"prompt is too long", "too many tokens", "maximum context",
		"exceeds the available context", "reduce the length",
		"input is too long",
	};
	char *low;
	size_t i;
	int hit = 0;

	if (status != 400 && status != 413)
		return 0;
	low = xstrndup(err ? err : "", err ? len : 0);
	for (i = 0; low[i]; i++)
		low[i] = low[i] >= 'A' && low[i] <= 'Z' ? low[i] + 32 : low[i];
	for (i = 0; i < LEN(said) && !hit; i++)
		hit = strstr(low, said[i]) != NULL;
	free(low);
	return hit || status == 413;
}

/* The stream */

void
wireinit(Wire *w, int wire, Wirefn fn, void *arg)
{
	memset(w, 0, sizeof(*w));
	w->wire = wire;
	w->fn = fn;
	w->arg = arg;
	w->maxcalls = 128;
	w->maxkeep = 1 << 20;
}

void
wirefree(Wire *w)
{
	int i;

	for (i = 0; i < w->ncalls; i++) {
		buffree(&w->calls[i].id);
		buffree(&w->calls[i].name);
		buffree(&w->calls[i].args);
	}
	free(w->calls);
	buffree(&w->text);
	buffree(&w->think);
	buffree(&w->sig);
	buffree(&w->err);
	memset(w, 0, sizeof(*w));
}

/* Keep up to maxkeep bytes of a streamed text, never cutting a character:
 * the rest was passed on but is not remembered. */
static void
keep(const Wire *w, Buf *b, const char *p, size_t n)
{
	size_t room;

	if (b->len >= w->maxkeep)
		return;
	room = w->maxkeep - b->len;
	if (n > room)
		n = utf8back(p, room);
	bufadd(b, p, n);
}

/* A piece of text or thinking: passed on, then kept.  Nonzero: the
 * callback asks to stop. */
static int
delta(Wire *w, int kind, const char *p, size_t n)
{
	int rc;

	if (!n)
		return 0;
	rc = w->fn ? w->fn(w->arg, kind, p, n) : 0;
	keep(w, kind == WTEXT ? &w->text : &w->think, p, n);
	return rc;
}

/* Set b to string token i, unless it is missing or empty. */
static void
setstr(Buf *b, const Json *j, int i)
{
	if (i < 0 || j->t[i].type != JSTR || j->t[i].end == j->t[i].start)
		return;
	bufreset(b);
	jsonstrbuf(j, i, b);
}

static Wirecall *
callat(Wire *w, int idx)
{
	if (idx < 0)
		return NULL;
	if (idx >= w->maxcalls) {
		w->dropped = 1;
		return NULL;
	}
	if (idx >= w->ncalls) {
		w->calls = xrealloc(w->calls, (idx + 1) * sizeof(*w->calls));
		memset(w->calls + w->ncalls, 0,
		       (idx + 1 - w->ncalls) * sizeof(*w->calls));
		w->ncalls = idx + 1;
	}
	return &w->calls[idx];
}

/* An event that is not JSON stops the stream: a last one cut short by
 * the connection's end means the answer is incomplete. */
static int
badevent(Wire *w, const char *data, size_t len)
{
	if (w->atend) {
		bufadds(&w->err, "the stream ended before the answer was "
		        "complete");
	} else {
		bufadds(&w->err, "the provider sent malformed JSON: ");
		utf8repair(&w->err, data, MIN(len, 200));
	}
	return 1;
}

/* A count from the network: no cast of what does not fit. */
static int
count(const Json *j, int i, long long *out)
{
	double v;

	if (jsonnum(j, i, &v) < 0 || !(v >= 0 && v < 1e15))
		return -1;
	*out = (long long)v;
	return 0;
}

/* OpenAI streams tool calls as pieces keyed by index: the id and name
 * come first, the arguments in fragments of a JSON text. */
static void
openaicalls(Wire *w, const Json *j, int arr)
{
	int k, tc, fn, v;
	double idx;
	Wirecall *c;

	for (k = 0, tc = jsonat(j, arr, 0); tc >= 0;
	     k++, tc = jsonnext(j, tc)) {
		if (jsonnum(j, jsonget(j, tc, "index"), &idx) < 0)
			idx = k;
		if (!(idx >= 0 && idx < 1e9) || !(c = callat(w, (int)idx)))
			continue;
		setstr(&c->id, j, jsonget(j, tc, "id"));
		fn = jsonget(j, tc, "function");
		setstr(&c->name, j, jsonget(j, fn, "name"));
		v = jsonget(j, fn, "arguments");
		if (v >= 0 && j->t[v].type == JOBJ) {
			bufreset(&c->args);
			jsonraw(&c->args, j, v);
		} else {
			jsonstrbuf(j, v, &c->args);
		}
	}
}

static void
openaiusage(Wire *w, const Json *j, int u)
{
	count(j, jsonget(j, u, "prompt_tokens"), &w->in);
	count(j, jsonget(j, u, "completion_tokens"), &w->out);
	count(j, jsonget(j, jsonget(j, u, "prompt_tokens_details"),
	      "cached_tokens"), &w->cached);
}

static int
openaievent(Wire *w, const char *data, size_t len)
{
	Json j;
	Buf s = { 0 };
	int ch, d, v, rc = 0;

	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		w->done = 1;
		return 0;
	}
	if (jsonparse(&j, data, len) < 0)
		return badevent(w, data, len);
	if ((v = jsonget(&j, 0, "error")) >= 0 && !jsonisnull(&j, v)) {
		wireerror(&w->err, &j, 0);
		jsonfree(&j);
		return 1;
	}
	if ((v = jsonget(&j, 0, "usage")) >= 0 && j.t[v].type == JOBJ)
		openaiusage(w, &j, v);
	ch = jsonat(&j, jsonget(&j, 0, "choices"), 0);
	if ((v = jsonget(&j, ch, "finish_reason")) >= 0 && j.t[v].type == JSTR)
		snprintf(w->finish, sizeof(w->finish), "%.*s",
		         j.t[v].end - j.t[v].start, j.s + j.t[v].start);
	d = jsonget(&j, ch, "delta");
	if (jsonstrbuf(&j, jsonget(&j, d, "reasoning_content"), &s) == 0 ||
	    jsonstrbuf(&j, jsonget(&j, d, "reasoning"), &s) == 0)
		rc |= delta(w, WTHINK, s.p, s.len);
	bufreset(&s);
	if (jsonstrbuf(&j, jsonget(&j, d, "content"), &s) == 0)
		rc |= delta(w, WTEXT, s.p, s.len);
	if ((v = jsonget(&j, d, "tool_calls")) >= 0)
		openaicalls(w, &j, v);
	buffree(&s);
	jsonfree(&j);
	return rc;
}

/* Anthropic's stream: content blocks by index (thinking with its
 * signature, text, tool_use whose input arrives as partial_json), usage
 * in message_start and message_delta, and an error event at any time. */
static void
anthropicusage(Wire *w, const Json *j, int u)
{
	long long in = 0, v;
	int got = 0;

	if (count(j, jsonget(j, u, "input_tokens"), &v) == 0)
		in += v, got = 1;
	if (count(j, jsonget(j, u, "cache_creation_input_tokens"), &v) == 0)
		in += v, w->cachewrite = v;
	if (count(j, jsonget(j, u, "cache_read_input_tokens"), &v) == 0)
		in += v, w->cached = v;
	if (got)
		w->in = in;
	count(j, jsonget(j, u, "output_tokens"), &w->out);
}

static Wirecall *
callofblock(Wire *w, int block)
{
	int i;

	for (i = 0; i < w->ncalls; i++)
		if (w->calls[i].block == block)
			return &w->calls[i];
	return NULL;
}

static int
anthropicstart(Wire *w, const Json *j, int block)
{
	int cb = jsonget(j, 0, "content_block"), rc = 0;
	Buf s = { 0 };
	Wirecall *c;

	if (jsoneq(j, jsonget(j, cb, "type"), "tool_use") &&
	    (c = callat(w, w->ncalls))) {
		c->block = block;
		setstr(&c->id, j, jsonget(j, cb, "id"));
		setstr(&c->name, j, jsonget(j, cb, "name"));
	} else if (jsonstrbuf(j, jsonget(j, cb, "text"), &s) == 0) {
		rc = delta(w, WTEXT, s.p, s.len);
	}
	buffree(&s);
	return rc;
}

static int
anthropicdelta(Wire *w, const Json *j, int block)
{
	int d = jsonget(j, 0, "delta"), t = jsonget(j, d, "type"), rc = 0;
	Buf s = { 0 };
	Wirecall *c;

	if (jsoneq(j, t, "text_delta")) {
		jsonstrbuf(j, jsonget(j, d, "text"), &s);
		rc = delta(w, WTEXT, bstr(&s), s.len);
	} else if (jsoneq(j, t, "thinking_delta")) {
		jsonstrbuf(j, jsonget(j, d, "thinking"), &s);
		rc = delta(w, WTHINK, bstr(&s), s.len);
	} else if (jsoneq(j, t, "signature_delta")) {
		jsonstrbuf(j, jsonget(j, d, "signature"), &w->sig);
	} else if (jsoneq(j, t, "input_json_delta") &&
	           (c = callofblock(w, block))) {
		jsonstrbuf(j, jsonget(j, d, "partial_json"), &c->args);
	}
	buffree(&s);
	return rc;
}

/* The stop reason, in OpenAI's words (finish_reason). */
static void
anthropicstop(Wire *w, const Json *j)
{
	int d = jsonget(j, 0, "delta"), v = jsonget(j, d, "stop_reason");

	if (jsoneq(j, v, "tool_use"))
		snprintf(w->finish, sizeof(w->finish), "tool_calls");
	else if (jsoneq(j, v, "max_tokens"))
		snprintf(w->finish, sizeof(w->finish), "length");
	else if (jsoneq(j, v, "refusal"))
		snprintf(w->finish, sizeof(w->finish), "refusal");
	else if (v >= 0 && !jsonisnull(j, v))
		snprintf(w->finish, sizeof(w->finish), "stop");
	if ((v = jsonget(j, 0, "usage")) >= 0)
		anthropicusage(w, j, v);
}

static int
anthropicevent(Wire *w, const char *data, size_t len)
{
	Json j;
	double idx = -1;
	int t, rc = 0;

	if (jsonparse(&j, data, len) < 0)
		return badevent(w, data, len);
	t = jsonget(&j, 0, "type");
	if (jsonnum(&j, jsonget(&j, 0, "index"), &idx) < 0 ||
	    !(idx >= 0 && idx <= 1000))
		idx = -1;
	if (jsoneq(&j, t, "error")) {
		wireerror(&w->err, &j, 0);
		t = jsonget(&j, jsonget(&j, 0, "error"), "type");
		/* Anthropic reports overload this way, often before a word */
		w->again = !w->text.len && !w->think.len && !w->ncalls &&
		           (jsoneq(&j, t, "overloaded_error") ||
		            jsoneq(&j, t, "api_error") ||
		            jsoneq(&j, t, "rate_limit_error"));
		jsonfree(&j);
		return 1;
	}
	if (jsoneq(&j, t, "message_start"))
		anthropicusage(w, &j, jsonget(&j, jsonget(&j, 0, "message"),
		               "usage"));
	else if (jsoneq(&j, t, "content_block_start"))
		rc = anthropicstart(w, &j, (int)idx);
	else if (jsoneq(&j, t, "content_block_delta"))
		rc = anthropicdelta(w, &j, (int)idx);
	else if (jsoneq(&j, t, "message_delta"))
		anthropicstop(w, &j);
	else if (jsoneq(&j, t, "message_stop"))
		w->done = 1;
	jsonfree(&j);
	return rc;
}

/* One event of the stream (sse.c's callback shape): 0 to go on, 1 to
 * stop, with w->err saying why unless the callback asked. */
int
wireevent(void *arg, const char *event, const char *data, size_t len)
{
	Wire *w = arg;

	(void)event;	/* the data names its type too */
	return w->wire == ANTHROPIC ? anthropicevent(w, data, len) :
	       openaievent(w, data, len);
}

/* Whether the stream told the whole answer: Anthropic always ends with
 * message_stop, OpenAI with [DONE], though some servers end with a
 * finish_reason alone. */
int
wirecomplete(const Wire *w)
{
	return !w->err.len &&
	       (w->done || (w->finish[0] && w->wire == OPENAI));
}

static const char *
stopreason(const Wire *w)
{
	if (w->ncalls)
		return "toolUse";
	if (!strcmp(w->finish, "length"))
		return "length";
	return "stop";
}

/* The answer as pi stores an assistant message; stop is NULL for a
 * finished answer, or "error" or "aborted" for what arrived of another. */
char *
wiremessage(const Wire *w, const char *provider, const char *model,
            const char *stop)
{
	Buf b = { 0 };
	Json j;
	int i, first = 1;
	const Wirecall *c;

	bufadds(&b, "{\"role\":\"assistant\",\"content\":[");
	if (w->think.len) {
		bufadds(&b, "{\"type\":\"thinking\",\"thinking\":");
		jsonesc(&b, w->think.p, w->think.len);
		if (w->sig.len) {
			bufadds(&b, ",\"thinkingSignature\":");
			jsonesc(&b, w->sig.p, w->sig.len);
		}
		bufadds(&b, "}");
		first = 0;
	}
	if (w->text.len) {
		bufadds(&b, first ? "{" : ",{");
		bufadds(&b, "\"type\":\"text\",\"text\":");
		jsonesc(&b, w->text.p, w->text.len);
		bufadds(&b, "}");
		first = 0;
	}
	for (i = 0; i < w->ncalls; i++) {
		c = &w->calls[i];
		bufadds(&b, first ? "{" : ",{");
		bufadds(&b, "\"type\":\"toolCall\",\"id\":");
		jsonesc(&b, bstr(&c->id), c->id.len);
		bufadds(&b, ",\"name\":");
		jsonesc(&b, bstr(&c->name), c->name.len);
		bufadds(&b, ",\"arguments\":");
		if (c->args.len && jsonparse(&j, c->args.p, c->args.len) == 0) {
			if (j.t[0].type == JOBJ)
				jsonraw(&b, &j, 0);
			else
				bufadds(&b, "{}");
			jsonfree(&j);
		} else {
			bufadds(&b, "{}");
		}
		bufadds(&b, "}");
		first = 0;
	}
	bufadds(&b, "],\"api\":");
	jsonescs(&b, w->wire == ANTHROPIC ? "anthropic-messages" :
	         "openai-completions");
	bufadds(&b, ",\"provider\":");
	jsonescs(&b, provider);
	bufadds(&b, ",\"model\":");
	jsonescs(&b, model);
	bufaddf(&b, ",\"usage\":{\"input\":%lld,\"output\":%lld,"
	        "\"cacheRead\":%lld,\"cacheWrite\":%lld,\"totalTokens\":%lld,"
	        "\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,"
	        "\"cacheWrite\":0,\"total\":0}}",
	        w->in - w->cached - w->cachewrite, w->out, w->cached,
	        w->cachewrite, w->in + w->out);
	bufadds(&b, ",\"stopReason\":");
	jsonescs(&b, stop ? stop : stopreason(w));
	bufaddf(&b, ",\"timestamp\":%lld}", nowms());
	return bufdetach(&b);
}

/* The request */

/* Whether a stored answer goes back: a failed or interrupted one does
 * not. */
static int
answered(const Json *j)
{
	int stop = jsonget(j, 0, "stopReason");

	return !jsoneq(j, stop, "error") && !jsoneq(j, stop, "aborted");
}

/* The offered tools, each as open, name, description, the schema under
 * key, close: the two wires differ only in those. */
static void
tooldefs(const Wirereq *q, Buf *b, const char *open, const char *key,
         const char *close)
{
	int k;

	if (!q->ntools)
		return;
	bufadds(b, ",\"tools\":[");
	for (k = 0; k < q->ntools; k++) {
		bufadds(b, k ? "," : "");
		bufadds(b, open);
		bufadds(b, "\"name\":");
		jsonescs(b, q->tools[k].name);
		bufadds(b, ",\"description\":");
		jsonescs(b, q->tools[k].desc);
		bufaddf(b, ",\"%s\":%s", key, q->tools[k].schema);
		bufadds(b, close);
	}
	bufadds(b, "]");
}

/* Each stored message becomes a form once: its wire text, and the calls
 * it opens or the one its result closes.  A request then costs the bytes
 * it copies, not a parse of the whole history; the order of calls and
 * results is settled when the forms are put together. */

static void
formcall(Wireform *f, char *id)
{
	f->calls = xrealloc(f->calls, (f->ncalls + 1) * sizeof(*f->calls));
	f->calls[f->ncalls++] = id ? id : xstrdup("");
}

/* An answer's calls as chat completions' tool_calls. */
static void
openaitoolcalls(Wireform *f, Buf *b, const Json *j, int content)
{
	Buf args = { 0 };
	int blk, n = 0;

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		if (!jsoneq(j, jsonget(j, blk, "type"), "toolCall"))
			continue;
		bufadds(b, n++ ? ",{\"id\":" : ",\"tool_calls\":[{\"id\":");
		jsonraw(b, j, jsonget(j, blk, "id"));
		bufadds(b, ",\"type\":\"function\",\"function\":{\"name\":");
		jsonraw(b, j, jsonget(j, blk, "name"));
		bufadds(b, ",\"arguments\":");
		bufreset(&args);
		jsonraw(&args, j, jsonget(j, blk, "arguments"));
		jsonesc(b, args.p, args.len);
		bufadds(b, "}}");
		formcall(f, jsonstr(j, jsonget(j, blk, "id")));
	}
	if (n)
		bufaddc(b, ']');
	buffree(&args);
}

/* One stored message in the chat completions form: a message of its
 * own, with its comma. */
static void
openaiform(Wireform *f, Buf *b, const Json *j)
{
	Buf text = { 0 };
	int role = jsonget(j, 0, "role"), content = jsonget(j, 0, "content");

	f->kind = jsoneq(j, role, "toolResult") ? WFRESULT : WFOTHER;
	wiretext(&text, j, content);
	if (jsoneq(j, role, "user")) {
		bufadds(b, ",{\"role\":\"user\",\"content\":");
		jsonesc(b, bstr(&text), text.len);
		bufadds(b, "}");
	} else if (jsoneq(j, role, "assistant") && answered(j)) {
		bufadds(b, ",{\"role\":\"assistant\",\"content\":");
		if (text.len)
			jsonesc(b, text.p, text.len);
		else
			bufadds(b, "null");
		openaitoolcalls(f, b, j, content);
		bufadds(b, "}");
		if (!text.len && !f->ncalls)
			bufreset(b);
	} else if (f->kind == WFRESULT) {
		f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		jsonescs(b, f->result ? f->result : "");
		bufadds(b, ",\"content\":");
		jsonesc(b, bstr(&text), text.len);
		bufadds(b, "}");
	}
	buffree(&text);
}

/* An id as Anthropic takes them: [A-Za-z0-9_-]{1,64}.  Ids from other
 * providers (call_x|fc_y, functions.f:0) map the same way everywhere. */
static void
anthropicid(Buf *b, const char *id)
{
	char safe[65];
	size_t i;

	for (i = 0; id[i] && i < 64; i++)
		safe[i] = (id[i] >= 'a' && id[i] <= 'z') ||
		          (id[i] >= 'A' && id[i] <= 'Z') ||
		          (id[i] >= '0' && id[i] <= '9') || id[i] == '-' ?
		          id[i] : '_';
	safe[i] = '\0';
	jsonescs(b, i ? safe : "_");
}

/* A tool_result block, but its closing brace: a cache mark may go
 * before it. */
static void
anthropicresult(Buf *b, const char *id, const char *text, size_t len,
                int iserr)
{
	bufadds(b, "{\"type\":\"tool_result\",\"tool_use_id\":");
	anthropicid(b, id);
	bufadds(b, ",\"content\":");
	jsonesc(b, text, len);
	bufadds(b, iserr ? ",\"is_error\":true" : "");
}

/* Whether string token i holds nothing but white space: Anthropic refuses
 * such text blocks. */
static int
blank(const Json *j, int i)
{
	Buf v = { 0 };
	size_t k;

	if (jsonstrbuf(j, i, &v) < 0)
		return 1;
	for (k = 0; k < v.len && strchr(" \t\r\n", v.p[k]); k++)
		;
	k = k == v.len;
	buffree(&v);
	return k;
}

static void
anthropictooluse(Wireform *f, Buf *b, const Json *j, int blk)
{
	int v = jsonget(j, blk, "arguments");
	char *id = jsonstr(j, jsonget(j, blk, "id"));

	bufadds(b, b->len ? "," : "");
	bufadds(b, "{\"type\":\"tool_use\",\"id\":");
	anthropicid(b, id ? id : "");
	bufadds(b, ",\"name\":");
	jsonraw(b, j, jsonget(j, blk, "name"));
	bufadds(b, ",\"input\":");
	if (v >= 0 && j->t[v].type == JOBJ)
		jsonraw(b, j, v);
	else
		bufadds(b, "{}");
	bufadds(b, "}");
	formcall(f, id);
}

/* A stored answer as Anthropic's assistant message.  Thinking goes back
 * only signed, and only to the model that signed it: a signature from
 * elsewhere (pi keeps OpenAI's field name there) would be refused. */
static void
anthropicassistant(Wireform *f, Buf *out, const Json *j, const char *model)
{
	Buf blocks = { 0 }, *b = &blocks;
	int content = jsonget(j, 0, "content"), blk, t, sig, v, own;

	own = jsoneq(j, jsonget(j, 0, "api"), "anthropic-messages") &&
	      jsoneq(j, jsonget(j, 0, "model"), model);
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		sig = jsonget(j, blk, "thinkingSignature");
		if (jsoneq(j, t, "thinking") && own && !blank(j, sig)) {
			bufadds(b, b->len ? "," : "");
			bufadds(b, "{\"type\":\"thinking\",\"thinking\":");
			jsonraw(b, j, jsonget(j, blk, "thinking"));
			bufadds(b, ",\"signature\":");
			jsonraw(b, j, sig);
			bufadds(b, "}");
		} else if (jsoneq(j, t, "text") &&
		           !blank(j, v = jsonget(j, blk, "text"))) {
			bufadds(b, b->len ? "," : "");
			bufadds(b, "{\"type\":\"text\",\"text\":");
			jsonraw(b, j, v);
			bufadds(b, "}");
		} else if (jsoneq(j, t, "toolCall")) {
			anthropictooluse(f, b, j, blk);
		}
	}
	if (blocks.len) {
		bufadds(out, "{\"role\":\"assistant\",\"content\":[");
		bufadd(out, blocks.p, blocks.len);
		bufadds(out, "]}");
	}
	buffree(&blocks);
}

/* One stored message for Anthropic: a user's words or a result as a
 * block of a user message (its closing brace left off), an answer as an
 * assistant message. */
static void
anthropicform(Wireform *f, Buf *b, const Json *j, const char *model)
{
	Buf text = { 0 };
	int role = jsonget(j, 0, "role"), iserr;

	if (jsoneq(j, role, "user")) {
		f->kind = WFUSER;
		wiretext(&text, j, jsonget(j, 0, "content"));
		if (strspn(bstr(&text), " \t\r\n") == text.len) {
			bufreset(&text);
			bufadds(&text, "(empty)");
		}
		bufadds(b, "{\"type\":\"text\",\"text\":");
		jsonesc(b, text.p, text.len);
	} else if (jsoneq(j, role, "assistant") && answered(j)) {
		f->kind = WFANSWER;
		anthropicassistant(f, b, j, model);
	} else if (jsoneq(j, role, "toolResult")) {
		f->kind = WFRESULT;
		f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
		wiretext(&text, j, jsonget(j, 0, "content"));
		if (jsonbool(j, jsonget(j, 0, "isError"), &iserr) < 0)
			iserr = 0;
		anthropicresult(b, f->result ? f->result : "", bstr(&text),
		                text.len, iserr);
	}
	buffree(&text);
}

void
wireformfree(Wireform *f)
{
	int i;

	for (i = 0; i < f->ncalls; i++)
		free(f->calls[i]);
	free(f->calls);
	free(f->result);
	free(f->text);
	free(f->model);
	memset(f, 0, sizeof(*f));
}

/* The form of stored message msg for this request: the one kept in f if
 * it was made for this wire and model, else made now. */
static void
form(const Wirereq *q, const char *msg, Wireform *f)
{
	Json j;
	Buf b = { 0 };

	if (f->text && f->wire == q->wire &&
	    (q->wire != ANTHROPIC || !strcmp(f->model, q->model)))
		return;
	wireformfree(f);
	f->wire = q->wire;
	f->model = xstrdup(q->model);
	f->kind = WFNONE;
	/* each was made from parsed JSON */
	if (jsonparse(&j, msg, strlen(msg)) == 0) {
		if (q->wire == ANTHROPIC)
			anthropicform(f, &b, &j, q->model);
		else
			openaiform(f, &b, &j);
		jsonfree(&j);
	}
	f->len = b.len;
	f->text = b.p ? bufdetach(&b) : xstrdup("");
}

/* The calls still owed a result, as the forms are put together. */
typedef struct {
	const char **id;
	int n, cap;
} Owed;

static void
owe(Owed *o, const Wireform *f)
{
	int i;

	for (i = 0; i < f->ncalls; i++) {
		if (o->n == o->cap) {
			o->cap = o->cap ? o->cap * 2 : 16;
			o->id = xrealloc(o->id, o->cap * sizeof(*o->id));
		}
		o->id[o->n++] = f->calls[i];
	}
}

static void
paid(Owed *o, const char *id)
{
	int i;

	for (i = 0; id && i < o->n; i++) {
		if (!strcmp(o->id[i], id)) {
			o->id[i] = o->id[--o->n];
			return;
		}
	}
}

/* A call left without a result (an interrupted turn) still needs one, or
 * the provider refuses the whole request. */
static void
openaiowed(Buf *b, Owed *o)
{
	int i;

	for (i = 0; i < o->n; i++) {
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		jsonescs(b, o->id[i]);
		bufadds(b, ",\"content\":\"No result provided\"}");
	}
	o->n = 0;
}

static void
openaibody(const Wirereq *q, Wireform *f, Buf *b)
{
	Owed o = { 0 };
	size_t i;

	bufadds(b, "{\"model\":");
	jsonescs(b, q->model);
	bufadds(b, ",\"messages\":[{\"role\":\"system\",\"content\":");
	jsonescs(b, q->system);
	bufadds(b, "}");
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind != WFRESULT && f[i].kind != WFNONE)
			openaiowed(b, &o);
		bufadd(b, f[i].text, f[i].len);
		owe(&o, &f[i]);
		if (f[i].kind == WFRESULT)
			paid(&o, f[i].result);
	}
	openaiowed(b, &o);
	free(o.id);
	bufadds(b, "],\"stream\":true,"
	        "\"stream_options\":{\"include_usage\":true}");
	bufaddf(b, ",\"%s\":%ld", q->maxfield ? q->maxfield : "max_tokens",
	        q->maxout);
	tooldefs(q, b, "{\"type\":\"function\",\"function\":{",
	         "parameters", "}}");
	bufadds(b, "}");
}

/* Anthropic's messages, from the forms: the results of one round go back
 * as tool_result blocks of a single user message, and a user message may
 * hold several blocks, so one stays open for more. */
typedef struct {
	Buf *b;
	int nmsg;		/* messages written */
	int open;		/* a user message is open */
	int nblk;		/* blocks in it */
	size_t cachepos;	/* where the last user block ends, or 0 */
	Owed o;
} Anthropic;

/* A block of the open user message, opening one if need be; text is
 * the block but its closing brace. */
static void
anthropicblock(Anthropic *a, const char *text, size_t len)
{
	if (!a->open) {
		bufadds(a->b, a->nmsg++ ? "," : "");
		bufadds(a->b, "{\"role\":\"user\",\"content\":[");
		a->open = 1;
		a->nblk = 0;
	}
	bufadds(a->b, a->nblk++ ? "," : "");
	bufadd(a->b, text, len);
	a->cachepos = a->b->len;
	bufaddc(a->b, '}');
}

static void
anthropicclose(Anthropic *a)
{
	if (a->open)
		bufadds(a->b, "]}");
	a->open = 0;
}

/* Calls left without a result still need one, first thing after them. */
static void
anthropicowed(Anthropic *a)
{
	Buf r = { 0 };
	int i;

	for (i = 0; i < a->o.n; i++) {
		bufreset(&r);
		anthropicresult(&r, a->o.id[i], "No result provided", 18, 1);
		anthropicblock(a, r.p, r.len);
	}
	a->o.n = 0;
	buffree(&r);
}

static void
anthropicbody(const Wirereq *q, Wireform *f, Buf *b)
{
	static const char cache[] = ",\"cache_control\":{\"type\":\"ephemeral\"}";
	Buf msgs = { 0 };
	Anthropic a = { 0 };
	size_t i;

	a.b = &msgs;
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind == WFUSER) {
			anthropicowed(&a);
			anthropicblock(&a, f[i].text, f[i].len);
		} else if (f[i].kind == WFANSWER) {
			anthropicowed(&a);
			anthropicclose(&a);
			if (f[i].len) {
				bufadds(&msgs, a.nmsg++ ? "," : "");
				bufadd(&msgs, f[i].text, f[i].len);
			}
			owe(&a.o, &f[i]);
		} else if (f[i].kind == WFRESULT) {
			anthropicblock(&a, f[i].text, f[i].len);
			paid(&a.o, f[i].result);
		}
	}
	anthropicowed(&a);
	anthropicclose(&a);
	free(a.o.id);
	bufadds(b, "{\"model\":");
	jsonescs(b, q->model);
	bufaddf(b, ",\"max_tokens\":%ld,\"stream\":true", q->maxout);
	/* the prompt is cached, and the conversation up to its last turn */
	bufadds(b, ",\"system\":[{\"type\":\"text\",\"text\":");
	jsonescs(b, q->system);
	bufadds(b, cache);
	bufadds(b, "}]");
	tooldefs(q, b, "{", "input_schema", "}");
	bufadds(b, ",\"messages\":[");
	if (a.cachepos) {
		bufadd(b, msgs.p, a.cachepos);
		bufadds(b, cache);
		bufadd(b, msgs.p + a.cachepos, msgs.len - a.cachepos);
	} else {
		bufadd(b, bstr(&msgs), msgs.len);
	}
	bufadds(b, "]}");
	buffree(&msgs);
}

/* The request's JSON body, appended to b.  The forms of q->forms are
 * made where missing and kept for the next request; without them, they
 * are made for this one alone. */
void
wirebody(const Wirereq *q, Buf *b)
{
	Wireform *f = q->forms ? q->forms :
	              xcalloc(q->nmsgs, sizeof(*f));
	size_t i, n = 0;

	for (i = 0; i < q->nmsgs; i++) {
		form(q, q->msgs[i], &f[i]);
		n += f[i].len + 1;
	}
	/* room for them all at once: a long history is not copied again
	 * and again as the body doubles */
	bufgrow(b, n);
	if (q->wire == ANTHROPIC)
		anthropicbody(q, f, b);
	else
		openaibody(q, f, b);
	if (!q->forms) {
		for (i = 0; i < q->nmsgs; i++)
			wireformfree(&f[i]);
		free(f);
	}
}
