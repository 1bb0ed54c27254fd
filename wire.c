/* See LICENSE file for copyright and license details. */
/* wire.c: the providers' wires, OpenAI chat completions (openai*) and
 * Anthropic messages (anthropic*): a request in, its JSON body out; the
 * stream's events in, deltas and the finished answer out.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

/* A form this long is sent from where it is kept, not copied. */
enum { SPANMIN = 64 };

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

/* A session entry (its type and line) as text for the summariser; a
 * tool result is cut after maxresult bytes. */
void
wireserialize(Buf *b, const char *type, const char *line,
              size_t maxresult)
{
	Json j;
	Buf t = { 0 }, calls = { 0 };
	int m, c, blk, ty;

	if (jsonparse(&j, line, strlen(line)) < 0)
		return;
	m = jsonget(&j, 0, "message");
	c = jsonget(&j, m, "content");
	if (!strcmp(type, "custom_message")) {
		wiretext(&t, &j, jsonget(&j, 0, "content"));
		bufaddf(b, "[User]: %s\n\n", bstr(&t));
	} else if (!strcmp(type, "branch_summary")) {
		jsonstrbuf(&j, jsonget(&j, 0, "summary"), &t);
		bufaddf(b, "[Summary of another branch]: %s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "bashExecution")) {
		jsonstrbuf(&j, jsonget(&j, m, "command"), &t);
		bufaddf(b, "[User ran]: %s\n", bstr(&t));
		bufreset(&t);
		jsonstrbuf(&j, jsonget(&j, m, "output"), &t);
		bufaddf(b, "%s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "user")) {
		wiretext(&t, &j, c);
		bufaddf(b, "[User]: %s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "toolResult")) {
		wiretext(&t, &j, c);
		bufadds(b, "[Tool result]: ");
		if (t.len > maxresult) {
			bufadd(b, t.p, utf8back(t.p, maxresult));
			bufaddf(b, "\n[... %zu more bytes]", t.len -
			        utf8back(t.p, maxresult));
		} else {
			bufadd(b, bstr(&t), t.len);
		}
		bufadds(b, "\n\n");
	}
	blk = jsoneq(&j, jsonget(&j, m, "role"), "assistant") ?
	      jsonat(&j, c, 0) : -1;
	for (; blk >= 0; blk = jsonnext(&j, blk)) {
		ty = jsonget(&j, blk, "type");
		bufreset(&t);
		if (jsoneq(&j, ty, "thinking")) {
			jsonstrbuf(&j, jsonget(&j, blk, "thinking"), &t);
			bufaddf(b, "[Assistant thinking]: %s\n\n", bstr(&t));
		} else if (jsoneq(&j, ty, "text")) {
			jsonstrbuf(&j, jsonget(&j, blk, "text"), &t);
			bufaddf(b, "[Assistant]: %s\n\n", bstr(&t));
		} else if (jsoneq(&j, ty, "toolCall")) {
			bufadds(&calls, calls.len ? "; " : "");
			jsonstrbuf(&j, jsonget(&j, blk, "name"), &calls);
			bufaddc(&calls, '(');
			jsonraw(&calls, &j, jsonget(&j, blk, "arguments"));
			bufaddc(&calls, ')');
		}
	}
	if (calls.len)
		bufaddf(b, "[Assistant tool calls]: %s\n\n", calls.p);
	buffree(&t);
	buffree(&calls);
	jsonfree(&j);
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
	for (i = 0; i < w->nparts; i++)
		buffree(&w->parts[i].sig);
	free(w->parts);
	buffree(&w->text);
	buffree(&w->think);
	buffree(&w->sig);
	buffree(&w->err);
	jsonfree(&w->json);
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
int
wiredelta(Wire *w, int kind, const char *p, size_t n)
{
	int rc;

	if (!n)
		return 0;
	rc = w->fn ? w->fn(w->arg, kind, p, n) : 0;
	keep(w, kind == WTEXT ? &w->text : &w->think, p, n);
	/* Anthropic's blocks come one after another: the last is this one */
	if (w->nparts && w->parts[w->nparts - 1].kind == kind)
		w->parts[w->nparts - 1].to = kind == WTEXT ? w->text.len :
		                             w->think.len;
	return rc;
}

/* A piece of call k's arguments, the bytes of args from off on; NULL when
 * the call has only begun. */
int
wirecalldelta(Wire *w, int k, size_t off)
{
	const Buf *a = &w->calls[k].args;

	if (!w->fn)
		return 0;
	w->call = k;
	return w->fn(w->arg, WCALL, off <= a->len ? bstr(a) + off : NULL,
	             off <= a->len ? a->len - off : 0);
}

/* The code point of a \uXXXX escape at s, or -1. */
static long
uesc(const char *s, size_t n)
{
	long v = 0;
	size_t i;

	if (n < 6 || s[0] != '\\' || s[1] != 'u')
		return -1;
	for (i = 2; i < 6; i++) {
		if (hexval((unsigned char)s[i]) < 0)
			return -1;
		v = v * 16 + hexval((unsigned char)s[i]);
	}
	return v;
}

/* String token i of a streamed piece, unescaped and passed on as kind:
 * wiredelta()'s value, 0 if i is no string.  Some servers split an emoji's
 * surrogate pair between two deltas: a high surrogate ending one waits
 * for the low one starting the next. */
int
wirepiece(Wire *w, int kind, const Json *j, int i)
{
	Json cut = *j;
	Jtok t;
	Buf out = { 0 };
	unsigned long c, hi = w->hi[kind];
	long v;
	int k, rc;

	if (i < 0 || i >= j->n || j->t[i].type != JSTR)
		return 0;
	t = j->t[i];
	if (t.end == t.start)	/* "" between the halves changes nothing */
		return 0;
	/* most pieces hold no escape: passed on as they stand, uncopied */
	if (!hi && !memchr(j->s + t.start, '\\', t.end - t.start))
		return wiredelta(w, kind, j->s + t.start, t.end - t.start);
	w->hi[kind] = 0;
	v = uesc(j->s + t.start, t.end - t.start);
	if (hi && v >= 0xdc00 && v <= 0xdfff) {
		c = 0x10000 + ((hi - 0xd800) << 10) + (v - 0xdc00);
		bufaddc(&out, 0xf0 | c >> 18);
		bufaddc(&out, 0x80 | (c >> 12 & 0x3f));
		bufaddc(&out, 0x80 | (c >> 6 & 0x3f));
		bufaddc(&out, 0x80 | (c & 0x3f));
		t.start += 6;
	} else if (hi) {
		bufadds(&out, "\xef\xbf\xbd");
	}
	v = t.end - t.start >= 6 ? uesc(j->s + t.end - 6, 6) : -1;
	/* an odd run of \ before it would make it text, not an escape */
	for (k = 0; v >= 0 && t.end - 6 - k > t.start &&
	     j->s[t.end - 7 - k] == '\\'; k++)
		;
	if (v >= 0xd800 && v <= 0xdbff && k % 2 == 0) {
		w->hi[kind] = v;
		t.end -= 6;
	}
	cut.t = &t;
	cut.n = 1;
	jsonstrbuf(&cut, 0, &out);
	rc = wiredelta(w, kind, out.p, out.len);
	buffree(&out);
	return rc;
}

/* A new part of an Anthropic answer, for block. */
Wirepart *
wireaddpart(Wire *w, int kind, int block)
{
	Wirepart *p;

	if (w->nparts >= 4096)	/* more blocks than any answer has */
		return NULL;
	w->parts = xrealloc(w->parts, (w->nparts + 1) * sizeof(*w->parts));
	p = &w->parts[w->nparts++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->block = block;
	p->from = p->to = kind == WTEXT ? w->text.len : w->think.len;
	return p;
}

/* Set b to string token i, unless it is missing or empty. */
void
wiresetstr(Buf *b, const Json *j, int i)
{
	if (i < 0 || j->t[i].type != JSTR || j->t[i].end == j->t[i].start)
		return;
	bufreset(b);
	jsonstrbuf(j, i, b);
}

Wirecall *
wirecallat(Wire *w, int idx)
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
int
wirebadevent(Wire *w, const char *data, size_t len)
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
int
wirecount(const Json *j, int i, long long *out)
{
	double v;

	if (jsonnum(j, i, &v) < 0 || !(v >= 0 && v < 1e15))
		return -1;
	*out = (long long)v;
	return 0;
}

/* OpenAI streams tool calls as pieces keyed by index: the id and name
 * come first, the arguments in fragments of a JSON text. */
static int
openaicalls(Wire *w, const Json *j, int arr)
{
	int k, tc, fn, v, rc = 0;
	size_t off;
	double idx;
	Wirecall *c;

	for (k = 0, tc = jsonat(j, arr, 0); tc >= 0;
	     k++, tc = jsonnext(j, tc)) {
		if (jsonnum(j, jsonget(j, tc, "index"), &idx) < 0)
			idx = k;
		if (!(idx >= 0 && idx < 1e9) || !(c = wirecallat(w, (int)idx)))
			continue;
		wiresetstr(&c->id, j, jsonget(j, tc, "id"));
		fn = jsonget(j, tc, "function");
		wiresetstr(&c->name, j, jsonget(j, fn, "name"));
		v = jsonget(j, fn, "arguments");
		off = c->args.len;
		if (v >= 0 && j->t[v].type == JOBJ) {
			bufreset(&c->args);
			jsonraw(&c->args, j, v);
			off = 0;
		} else {
			jsonstrbuf(j, v, &c->args);
		}
		rc |= wirecalldelta(w, c - w->calls, off);
	}
	return rc;
}

static void
openaiusage(Wire *w, const Json *j, int u)
{
	wirecount(j, jsonget(j, u, "prompt_tokens"), &w->in);
	wirecount(j, jsonget(j, u, "completion_tokens"), &w->out);
	wirecount(j, jsonget(j, jsonget(j, u, "prompt_tokens_details"),
	      "cached_tokens"), &w->cached);
}

/* The fields servers stream reasoning in; pi keeps the first that is
 * not empty, and its name, to send the reasoning back in it. */
static const char *const reasonfields[] = {
	"reasoning_content", "reasoning", "reasoning_text"
};

static int
openaievent(Wire *w, const char *data, size_t len)
{
	static const char *const top[] = { "error", "usage", "choices" };
	static const char *const choice[] = { "finish_reason", "delta" };
	/* reasonfields' first, in their order */
	static const char *const fields[] = {
		"reasoning_content", "reasoning", "reasoning_text",
		"content", "tool_calls"
	};
	Json *j = &w->json;
	int v[LEN(fields)], d, k, rc = 0;

	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		w->done = 1;
		return 0;
	}
	if (jsonreparse(j, data, len) < 0)
		return wirebadevent(w, data, len);
	/* each object's keys looked up in one walk over them */
	jsonkeys(j, 0, top, LEN(top), v);
	if (v[0] >= 0 && !jsonisnull(j, v[0])) {
		wireerror(&w->err, j, 0);
		return 1;
	}
	if (v[1] >= 0 && j->t[v[1]].type == JOBJ)
		openaiusage(w, j, v[1]);
	jsonkeys(j, jsonat(j, v[2], 0), choice, LEN(choice), v);
	if (v[0] >= 0 && j->t[v[0]].type == JSTR)
		snprintf(w->finish, sizeof(w->finish), "%.*s",
		         j->t[v[0]].end - j->t[v[0]].start,
		         j->s + j->t[v[0]].start);
	d = v[1];
	jsonkeys(j, d, fields, LEN(fields), v);
	for (k = 0; k < (int)LEN(reasonfields); k++) {
		if (v[k] < 0 || j->t[v[k]].type != JSTR ||
		    j->t[v[k]].end == j->t[v[k]].start)
			continue;
		if (!w->sig.len)
			bufadds(&w->sig, reasonfields[k]);
		rc |= wirepiece(w, WTHINK, j, v[k]);
		break;
	}
	rc |= wirepiece(w, WTEXT, j, v[3]);
	if (v[4] >= 0)
		rc |= openaicalls(w, j, v[4]);
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

	if (wirecount(j, jsonget(j, u, "input_tokens"), &v) == 0)
		in += v, got = 1;
	if (wirecount(j, jsonget(j, u, "cache_creation_input_tokens"), &v) == 0)
		in += v, w->cachewrite = v;
	if (wirecount(j, jsonget(j, u, "cache_read_input_tokens"), &v) == 0)
		in += v, w->cached = v;
	if (got)
		w->in = in;
	wirecount(j, jsonget(j, u, "output_tokens"), &w->out);
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

/* A signature or redacted data is kept whole or not at all (a cut one
 * would be refused), within maxkeep bytes for all the parts. */
void
wirekeepsig(Wire *w, Wirepart *p, const char *s, size_t n)
{
	if (p->lost)
		return;
	if (w->sigs + n > w->maxkeep) {
		w->sigs -= p->sig.len;
		buffree(&p->sig);
		p->lost = 1;
		return;
	}
	bufadd(&p->sig, s, n);
	w->sigs += n;
}

static int
anthropicstart(Wire *w, const Json *j, int block)
{
	int cb = jsonget(j, 0, "content_block"), t, rc = 0;
	Buf s = { 0 };
	Wirecall *c;
	Wirepart *p;

	t = jsonget(j, cb, "type");
	if (jsoneq(j, t, "tool_use") && (c = wirecallat(w, w->ncalls))) {
		c->block = block;
		wiresetstr(&c->id, j, jsonget(j, cb, "id"));
		wiresetstr(&c->name, j, jsonget(j, cb, "name"));
		rc = wirecalldelta(w, c - w->calls, (size_t)-1);
		if ((p = wireaddpart(w, WCALL, block)))
			p->call = w->ncalls - 1;
	} else if (jsoneq(j, t, "redacted_thinking")) {
		jsonstrbuf(j, jsonget(j, cb, "data"), &s);
		if ((p = wireaddpart(w, WREDACTED, block)))
			wirekeepsig(w, p, bstr(&s), s.len);
	} else if (jsoneq(j, t, "thinking")) {
		wireaddpart(w, WTHINK, block);
		rc = wirepiece(w, WTHINK, j, jsonget(j, cb, "thinking"));
	} else if (jsoneq(j, t, "text")) {
		wireaddpart(w, WTEXT, block);
		rc = wirepiece(w, WTEXT, j, jsonget(j, cb, "text"));
	}
	buffree(&s);
	return rc;
}

/* The part of the stream's block, if it is the last one begun. */
static Wirepart *
partof(Wire *w, int block, int kind)
{
	Wirepart *p = w->nparts ? &w->parts[w->nparts - 1] : NULL;

	return p && p->block == block && p->kind == kind ? p : NULL;
}

static int
anthropicdelta(Wire *w, const Json *j, int block)
{
	int d = jsonget(j, 0, "delta"), t = jsonget(j, d, "type"), rc = 0;
	Buf s = { 0 };
	Wirecall *c;
	Wirepart *p;
	size_t n;

	if (jsoneq(j, t, "text_delta")) {
		rc = wirepiece(w, WTEXT, j, jsonget(j, d, "text"));
	} else if (jsoneq(j, t, "thinking_delta")) {
		rc = wirepiece(w, WTHINK, j, jsonget(j, d, "thinking"));
	} else if (jsoneq(j, t, "signature_delta")) {
		jsonstrbuf(j, jsonget(j, d, "signature"), &s);
		if (w->sig.len + s.len <= w->maxkeep)
			bufadd(&w->sig, bstr(&s), s.len);
		if ((p = partof(w, block, WTHINK)))
			wirekeepsig(w, p, bstr(&s), s.len);
	} else if (jsoneq(j, t, "input_json_delta") &&
	           (c = callofblock(w, block))) {
		n = c->args.len;
		jsonstrbuf(j, jsonget(j, d, "partial_json"), &c->args);
		rc = wirecalldelta(w, c - w->calls, n);
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
	static const char *const top[] = { "type", "index" };
	Json *j = &w->json;
	double idx = -1;
	int v[LEN(top)], t;

	if (jsonreparse(j, data, len) < 0)
		return wirebadevent(w, data, len);
	jsonkeys(j, 0, top, LEN(top), v);
	t = v[0];
	if (jsonnum(j, v[1], &idx) < 0 || !(idx >= 0 && idx <= 1000))
		idx = -1;
	if (jsoneq(j, t, "error")) {
		wireerror(&w->err, j, 0);
		t = jsonget(j, jsonget(j, 0, "error"), "type");
		/* Anthropic reports overload this way, often before a word */
		w->again = !w->text.len && !w->think.len && !w->ncalls &&
		           (jsoneq(j, t, "overloaded_error") ||
		            jsoneq(j, t, "api_error") ||
		            jsoneq(j, t, "rate_limit_error"));
		return 1;
	}
	if (jsoneq(j, t, "message_start"))
		anthropicusage(w, j, jsonget(j, jsonget(j, 0, "message"),
		               "usage"));
	else if (jsoneq(j, t, "content_block_start"))
		return anthropicstart(w, j, (int)idx);
	else if (jsoneq(j, t, "content_block_delta"))
		return anthropicdelta(w, j, (int)idx);
	else if (jsoneq(j, t, "message_delta"))
		anthropicstop(w, j);
	else if (jsoneq(j, t, "message_stop"))
		w->done = 1;
	return 0;
}

/* One event of the stream (sse.c's callback shape): 0 to go on, 1 to
 * stop, with w->err saying why unless the callback asked. */
int
wireevent(void *arg, const char *event, const char *data, size_t len)
{
	Wire *w = arg;
	int rc;

	(void)event;	/* the data names its type too */
	if (w->wire == RESPONSES)
		rc = respevent(w, data, len);
	else if (w->wire == ANTHROPIC)
		rc = anthropicevent(w, data, len);
	else
		rc = openaievent(w, data, len);
	/* the tokens stay for the next event, unless a big one grew them */
	if (w->json.cap > 4096)
		jsonfree(&w->json);
	return rc;
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
	if (w->cut || !strcmp(w->finish, "length"))
		return "length";
	return "stop";
}

static void
storecall(Buf *b, const Wirecall *c)
{
	Json j;

	bufadds(b, "{\"type\":\"toolCall\",\"id\":");
	jsonesc(b, bstr(&c->id), c->id.len);
	bufadds(b, ",\"name\":");
	jsonesc(b, bstr(&c->name), c->name.len);
	bufadds(b, ",\"arguments\":");
	if (c->args.len && jsonparse(&j, c->args.p, c->args.len) == 0) {
		if (j.t[0].type == JOBJ)
			jsonraw(b, &j, 0);
		else
			bufadds(b, "{}");
		jsonfree(&j);
	} else {
		bufadds(b, "{}");
	}
	bufadds(b, "}");
}

static void
storethink(Buf *b, const char *p, size_t n, const Buf *sig)
{
	bufadds(b, "{\"type\":\"thinking\",\"thinking\":");
	jsonesc(b, p, n);
	if (sig->len) {
		bufadds(b, ",\"thinkingSignature\":");
		jsonesc(b, sig->p, sig->len);
	}
	bufadds(b, "}");
}

/* Whether the parts hold every byte of text and thinking: a stream
 * whose deltas came outside a block is stored merged instead. */
static int
whole(const Wire *w)
{
	size_t text = 0, think = 0;
	int i;

	for (i = 0; i < w->nparts; i++)
		if (w->parts[i].kind == WTEXT)
			text += w->parts[i].to - w->parts[i].from;
		else if (w->parts[i].kind == WTHINK)
			think += w->parts[i].to - w->parts[i].from;
	return w->nparts && text == w->text.len && think == w->think.len;
}

/* Anthropic's blocks one by one, in order, as pi stores them: redacted
 * thinking as thinking marked redacted, its data as the signature. */
static void
storeparts(Buf *b, const Wire *w)
{
	const Wirepart *p;
	int i, n = 0;

	for (i = 0; i < w->nparts; i++) {
		p = &w->parts[i];
		/* an empty Responses reasoning item still goes back */
		if ((p->kind != WREDACTED && p->kind != WCALL &&
		    p->to == p->from && !(w->wire == RESPONSES &&
		    p->kind == WTHINK && p->sig.len)) ||
		    (p->kind == WREDACTED && p->lost))
			continue;
		bufadds(b, n++ ? "," : "");
		if (p->kind == WTEXT) {
			bufadds(b, "{\"type\":\"text\",\"text\":");
			jsonesc(b, w->text.p + p->from, p->to - p->from);
			if (p->sig.len) {	/* Responses: the item */
				bufadds(b, ",\"textSignature\":");
				jsonesc(b, p->sig.p, p->sig.len);
			}
			bufadds(b, "}");
		} else if (p->kind == WTHINK) {
			storethink(b, bstr(&w->think) + p->from,
			           p->to - p->from, &p->sig);
		} else if (p->kind == WREDACTED) {
			bufadds(b, "{\"type\":\"thinking\",\"thinking\":"
			        "\"[Reasoning redacted]\","
			        "\"thinkingSignature\":");
			jsonesc(b, bstr(&p->sig), p->sig.len);
			bufadds(b, ",\"redacted\":true}");
		} else {
			storecall(b, &w->calls[p->call]);
		}
	}
}

/* The answer merged, thinking first: OpenAI's, or a stream whose
 * deltas came outside its blocks. */
static void
storemerged(Buf *b, const Wire *w)
{
	int i, n = 0;

	if (w->think.len) {
		storethink(b, w->think.p, w->think.len, &w->sig);
		n++;
	}
	if (w->text.len) {
		bufadds(b, n++ ? ",{" : "{");
		bufadds(b, "\"type\":\"text\",\"text\":");
		jsonesc(b, w->text.p, w->text.len);
		bufadds(b, "}");
	}
	for (i = 0; i < w->ncalls; i++) {
		bufadds(b, n++ ? "," : "");
		storecall(b, &w->calls[i]);
	}
}

/* The name pi gives the wire in a stored answer's "api". */
const char *
wireapi(int wire)
{
	if (wire == RESPONSES)
		return "openai-responses";
	return wire == ANTHROPIC ? "anthropic-messages" : "openai-completions";
}

/* The prices of model in a table of n rows, or NULL. */
const Price *
wireprice(const Price *p, size_t n, const char *model)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(p[i].model, model))
			return &p[i];
	return NULL;
}

/* What the answer cost in dollars, as pi counts it: input (without the
 * cache), output, cache read and cache write into c (or NULL), the total
 * returned; nothing without a price. */
double
wirecost(const Wire *w, double c[4])
{
	const Price *p = w->price;
	double own[4];

	c = c ? c : own;

	if (!p) {
		c[0] = c[1] = c[2] = c[3] = 0;
		return 0;
	}
	c[0] = (w->in - w->cached - w->cachewrite) * p->in / 1e6;
	c[1] = w->out * p->out / 1e6;
	c[2] = w->cached * p->cacheread / 1e6;
	c[3] = w->cachewrite * p->cachewrite / 1e6;
	return c[0] + c[1] + c[2] + c[3];
}

/* The answer as pi stores an assistant message; stop is NULL for a
 * finished answer, or "error" or "aborted" for what arrived of another. */
char *
wiremessage(const Wire *w, const char *provider, const char *model,
            const char *stop)
{
	Buf b = { 0 };
	double cost[4], total;

	bufadds(&b, "{\"role\":\"assistant\",\"content\":[");
	if (whole(w))
		storeparts(&b, w);
	else
		storemerged(&b, w);
	bufadds(&b, "],\"api\":");
	jsonescs(&b, wireapi(w->wire));
	bufadds(&b, ",\"provider\":");
	jsonescs(&b, provider);
	bufadds(&b, ",\"model\":");
	jsonescs(&b, model);
	total = wirecost(w, cost);
	bufaddf(&b, ",\"usage\":{\"input\":%lld,\"output\":%lld,"
	        "\"cacheRead\":%lld,\"cacheWrite\":%lld,\"totalTokens\":%lld,"
	        "\"cost\":{\"input\":%.10g,\"output\":%.10g,"
	        "\"cacheRead\":%.10g,\"cacheWrite\":%.10g,\"total\":%.10g}",
	        w->in - w->cached - w->cachewrite, w->out, w->cached,
	        w->cachewrite, w->in + w->out, cost[0], cost[1], cost[2],
	        cost[3], total);
	if (w->reasoning)	/* pi's too: a part of output */
		bufaddf(&b, ",\"reasoning\":%lld", w->reasoning);
	bufaddc(&b, '}');
	bufadds(&b, ",\"stopReason\":");
	jsonescs(&b, stop ? stop : stopreason(w));
	bufaddf(&b, ",\"timestamp\":%lld}", nowms());
	return bufdetach(&b);
}

/* A user's message as pi stores it: the text, then more content blocks
 * (each with its comma), or NULL. */
char *
wireuser(const char *text, size_t len, const Buf *more)
{
	Buf b = { 0 };

	bufadds(&b, "{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	        "\"text\":");
	jsonesc(&b, text, len);
	bufaddc(&b, '}');
	if (more)
		bufadd(&b, bstr(more), more->len);
	bufaddf(&b, "],\"timestamp\":%lld}", nowms());
	return bufdetach(&b);
}

/* A tool's result as pi stores it: the call's id and name, the text,
 * then more content blocks (an image read), or NULL. */
char *
wireresult(const Buf *id, const Buf *name, const Buf *text, int iserr,
           const Buf *more)
{
	Buf b = { 0 };

	bufadds(&b, "{\"role\":\"toolResult\",\"toolCallId\":");
	jsonesc(&b, bstr(id), id->len);
	bufadds(&b, ",\"toolName\":");
	jsonesc(&b, bstr(name), name->len);
	bufadds(&b, ",\"content\":[{\"type\":\"text\",\"text\":");
	jsonesc(&b, bstr(text), text->len);
	bufaddc(&b, '}');
	if (more)
		bufadd(&b, bstr(more), more->len);
	bufaddf(&b, "],\"isError\":%s,\"timestamp\":%lld}",
	        iserr ? "true" : "false", nowms());
	return bufdetach(&b);
}

/* A command the user ran in pi (!cmd), message m of j, as pi shows it to
 * the model: a user's message, or NULL when pi keeps it out. */
char *
wirebash(const Json *j, int m)
{
	Buf t = { 0 }, v = { 0 };
	double code;
	char *msg;
	int no;

	if (jsonbool(j, jsonget(j, m, "excludeFromContext"), &no) == 0 && no)
		return NULL;
	jsonstrbuf(j, jsonget(j, m, "command"), &v);
	bufadds(&t, "Ran `");
	bufadd(&t, bstr(&v), v.len);
	bufadds(&t, "`\n```\n");
	bufreset(&v);
	jsonstrbuf(j, jsonget(j, m, "output"), &v);
	bufadd(&t, bstr(&v), v.len);
	bufadds(&t, v.len && v.p[v.len - 1] != '\n' ? "\n```" : "```");
	if (jsonnum(j, jsonget(j, m, "exitCode"), &code) == 0 && code != 0 &&
	    code > -1e9 && code < 1e9)
		bufaddf(&t, "\n\nCommand exited with code %d", (int)code);
	if (jsonbool(j, jsonget(j, m, "cancelled"), &no) == 0 && no)
		bufadds(&t, "\n\n(command cancelled)");
	msg = wireuser(bstr(&t), t.len, NULL);
	buffree(&t);
	buffree(&v);
	return msg;
}

/* The request */

static const char *const levels[] = {
	"off", "minimal", "low", "medium", "high", "xhigh"
};

/* pi's thinking budgets in tokens, by level (xhigh as high) */
static const long budgets[] = { 0, 1024, 2048, 8192, 16384, 16384 };

/* A thinking level by name, or -1. */
int
wirelevel(const char *name)
{
	int i;

	for (i = 0; name && i < (int)LEN(levels); i++)
		if (!strcmp(name, levels[i]))
			return i;
	return -1;
}

const char *
wirelevelname(int level)
{
	return level > TOFF && level <= TXHIGH ? levels[level] : "off";
}

/* Whether Anthropic is asked to think, and adaptively: the request's
 * model has a part of its name in q->adaptive (pi: Opus and Sonnet 4.6
 * and later take only that). */
int
wirethinks(const Wirereq *q)
{
	return q->level > TOFF && q->level <= TXHIGH && q->think != THNONE;
}

static int
adaptive(const Wirereq *q)
{
	const char *p = q->adaptive, *m;
	size_t n;

	for (; p && *p; p += n + (p[n] == ',')) {
		n = strcspn(p, ",");
		for (m = q->model; n && *m; m++)
			if (!strncmp(m, p, n))
				return 1;
	}
	return 0;
}

/* The header pi adds when a model that thinks on a budget is offered
 * tools: thinking between the calls. */
const char *
wirebeta(const Wirereq *q)
{
	if (q->wire != ANTHROPIC || !wirethinks(q) || adaptive(q) || !q->ntools)
		return NULL;
	return "anthropic-beta: interleaved-thinking-2025-05-14";
}

/* OpenAI-compatible thinking fields: xhigh is high unless the provider
 * takes it. */
static void
openaithink(const Wirereq *q, Buf *b)
{
	int l = q->level;

	if (!wirethinks(q) || q->think == THBUDGET)
		return;
	if (l == TXHIGH && q->think != THXHIGH)
		l = THIGH;
	if (q->think == THROUTER)
		bufaddf(b, ",\"reasoning\":{\"effort\":\"%s\"}", levels[l]);
	else
		bufaddf(b, ",\"reasoning_effort\":\"%s\"", levels[l]);
}

/* Anthropic's thinking: adaptive with an effort, or a budget that
 * max_tokens holds on top of the answer.  Temperature, which thinking
 * refuses, is never sent. */
static void
anthropicthink(const Wirereq *q, Buf *b)
{
	static const char *effort[] = {
		"low", "low", "low", "medium", "high", "high"
	};

	if (!wirethinks(q))
		return;
	if (adaptive(q))
		bufaddf(b, ",\"thinking\":{\"type\":\"adaptive\",\"display\":"
		        "\"summarized\"},\"output_config\":{\"effort\":"
		        "\"%s\"}", effort[q->level]);
	else
		bufaddf(b, ",\"thinking\":{\"type\":\"enabled\","
		        "\"budget_tokens\":%ld,\"display\":\"summarized\"}",
		        budgets[q->level]);
}

/* Whether a stored answer goes back: a failed or interrupted one does
 * not. */
int
wireanswered(const Json *j)
{
	int stop = jsonget(j, 0, "stopReason");

	return !jsoneq(j, stop, "error") && !jsoneq(j, stop, "aborted");
}

/* The offered tools, each as open, name, description, the schema under
 * key, close: the two wires differ only in those. */
void
wiretooldefs(const Wirereq *q, Buf *b, const char *open,
             const char *key, const char *close)
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

void
wireformcall(Wireform *f, char *id)
{
	f->calls = xrealloc(f->calls, (f->ncalls + 1) * sizeof(*f->calls));
	f->calls[f->ncalls++] = id ? id : xstrdup("");
}

int
wireidchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* An id as OpenAI takes them, made as pi makes it: a compound id of the
 * responses API (call_x|fc_y, hundreds of bytes) becomes its call, in
 * [A-Za-z0-9_-]; none is over 40 bytes.  A call and its result map the
 * same. */
static void
openaiid(Buf *b, const char *id)
{
	char safe[41];
	size_t n = strcspn(id, "|"), i;

	if (!id[n]) {
		jsonesc(b, id, utf8back(id, MIN(n, 40)));
		return;
	}
	for (i = 0; i < n && i < 40; i++)
		safe[i] = wireidchar((unsigned char)id[i]) ? id[i] : '_';
	safe[i] = '\0';
	jsonescs(b, safe);
}

/* An answer's calls as chat completions' tool_calls. */
static void
openaitoolcalls(Wireform *f, Buf *b, const Json *j, int content)
{
	Buf args = { 0 };
	int blk, n = 0;
	char *id;

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		if (!jsoneq(j, jsonget(j, blk, "type"), "toolCall"))
			continue;
		bufadds(b, n++ ? ",{\"id\":" : ",\"tool_calls\":[{\"id\":");
		id = jsonstr(j, jsonget(j, blk, "id"));
		openaiid(b, id ? id : "");
		bufadds(b, ",\"type\":\"function\",\"function\":{\"name\":");
		jsonraw(b, j, jsonget(j, blk, "name"));
		bufadds(b, ",\"arguments\":");
		bufreset(&args);
		jsonraw(&args, j, jsonget(j, blk, "arguments"));
		jsonesc(b, args.p, args.len);
		bufadds(b, "}}");
		wireformcall(f, id);
	}
	if (n)
		bufaddc(b, ']');
	buffree(&args);
}

/* Images in a message's content, as pi stores them: {"type":"image",
 * "data":BASE64,"mimeType":TYPE}. */
int
wirehasimage(const Json *j, int content)
{
	int blk;

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		if (jsoneq(j, jsonget(j, blk, "type"), "image"))
			return 1;
	return 0;
}

/* A text part or block, its text from string token i. */
static void
textpart(Buf *b, const Json *j, int i)
{
	Buf v = { 0 };

	jsonstrbuf(j, i, &v);
	bufadds(b, "{\"type\":\"text\",\"text\":");
	jsonesc(b, bstr(&v), v.len);
	bufadds(b, "}");
	buffree(&v);
}

/* An image block as chat completions' image_url part, a data URI. */
static void
openaiimage(Buf *b, const Json *j, int blk)
{
	Buf url = { 0 };

	bufadds(&url, "data:");
	jsonstrbuf(j, jsonget(j, blk, "mimeType"), &url);
	bufadds(&url, ";base64,");
	jsonstrbuf(j, jsonget(j, blk, "data"), &url);
	bufadds(b, "{\"type\":\"image_url\",\"image_url\":{\"url\":");
	jsonesc(b, url.p, url.len);
	bufadds(b, "}}");
	buffree(&url);
}

/* A user message with images: its blocks as parts, each image as a data
 * URI or, for a model that takes none, a note in its place. */
static void
openaiparts(Buf *b, const Json *j, int content, int images)
{
	int blk, t, n = 0;

	bufadds(b, ",{\"role\":\"user\",\"content\":[");
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		if (!jsoneq(j, t, "text") && !jsoneq(j, t, "image"))
			continue;
		bufadds(b, n++ ? "," : "");
		if (jsoneq(j, t, "text"))
			textpart(b, j, jsonget(j, blk, "text"));
		else if (images)
			openaiimage(b, j, blk);
		else
			bufadds(b, "{\"type\":\"text\",\"text\":\"(image "
			        "omitted: model does not support images)\"}");
	}
	bufadds(b, "]}");
}

/* A result's images: chat completions takes none in a tool message, so
 * they go in a user message after the round's results, as pi sends
 * them; the parts wait in the form.  A model that takes none gets a
 * note. */
static void
openairesultimages(const Wirereq *q, Wireform *f, Buf *text,
                   const Json *j, int content)
{
	Buf parts = { 0 };
	int blk;

	if (!text->len)
		bufadds(text, "(see attached image)");
	if (!q->images) {
		bufadds(text, "\n(tool image omitted: model does not support "
		        "images)");
		return;
	}
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		if (!jsoneq(j, jsonget(j, blk, "type"), "image"))
			continue;
		bufaddc(&parts, ',');
		openaiimage(&parts, j, blk);
	}
	f->imglen = parts.len;
	f->imgs = bufdetach(&parts);
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

/* Whether string token i, as it stands, is what jsonesc writes of its
 * text: valid UTF-8, and only the escapes jsonesc uses (no \u, no \/).
 * Then it goes on the wire as it is, not unescaped and escaped again. */
static int
plain(const Json *j, int i)
{
	const char *p = j->s + j->t[i].start, *e = j->s + j->t[i].end;
	size_t k;

	while (p < e) {
		while (p < e && (unsigned char)*p < 0x80 && *p != '\\')
			p++;
		if (p == e)
			break;
		if (*p != '\\') {
			if (!(k = utf8seq(p, e - p)))
				return 0;
			p += k;
			continue;
		}
		switch (p[1]) {	/* validated: p[1] is there */
		case '"': case '\\': case 'b': case 'f': case 'n': case 'r':
		case 't':
			p += 2;
			break;
		default:
			return 0;
		}
	}
	return 1;
}

/* Whether the stored string s[n] may be white space only ("\t" and such
 * taken as escapes, so sometimes wrongly): the caller then looks at it
 * unescaped. */
static int
mayblank(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n && strchr(" \\tnr", s[k]); k++)
		;
	return k == n;
}

/* The text of content, as wiretext finds it, as a JSON string into b by
 * references to the message's own strings when they are big and plain
 * (each request sends them from there, and no copy is kept); 0 if it is
 * not so, nothing written. */
static int
refer(Wireform *f, Buf *b, const Json *j, int content)
{
	int str[64], n = 0, blk, v, k;
	size_t len = 0;

	if (content >= 0 && content < j->n && j->t[content].type == JSTR)
		str[n++] = content;
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		if (!jsoneq(j, jsonget(j, blk, "type"), "text") ||
		    (v = jsonget(j, blk, "text")) < 0 ||
		    j->t[v].type != JSTR)
			continue;
		if (n == LEN(str))
			return 0;
		str[n++] = v;
	}
	for (k = 0; k < n; k++)
		len += j->t[str[k]].end - j->t[str[k]].start;
	if (len < SPANMIN)
		return 0;
	for (k = 0; k < n; k++)
		if (!plain(j, str[k]))
			return 0;
	for (k = 0; k < n && mayblank(j->s + j->t[str[k]].start,
	     j->t[str[k]].end - j->t[str[k]].start); k++)
		;
	if (k == n)
		return 0;
	f->refs = xrealloc(f->refs, (f->nrefs + n) * sizeof(*f->refs));
	bufaddc(b, '"');
	for (k = 0; k < n; k++) {
		f->refs[f->nrefs].at = b->len;
		f->refs[f->nrefs].p = j->s + j->t[str[k]].start;
		f->refs[f->nrefs++].len = j->t[str[k]].end -
		                          j->t[str[k]].start;
	}
	bufaddc(b, '"');
	return 1;
}

/* Whether a stored answer is the request's model's own, as pi tells:
 * the same API, provider and model.  Only its thinking goes back as
 * thinking, the rest as text. */
int
wireown(const Json *j, const Wirereq *q, const char *api)
{
	return jsoneq(j, jsonget(j, 0, "api"), api) &&
	       jsoneq(j, jsonget(j, 0, "model"), q->model) &&
	       (!q->provider ||
	        jsoneq(j, jsonget(j, 0, "provider"), q->provider));
}

/* The field a stored thinking block came in, from pi's signature. */
static const char *
reasonfield(const Json *j, int sig)
{
	int k;

	for (k = 0; k < (int)LEN(reasonfields); k++)
		if (jsoneq(j, sig, reasonfields[k]))
			return reasonfields[k];
	return NULL;
}

/* A stored answer as chat completions' assistant message, as pi sends
 * it: the text blocks joined; the model's own thinking in the field it
 * came in, another model's as text. */
static void
openaianswer(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 }, think = { 0 };
	const char *field = NULL;
	int content = jsonget(j, 0, "content"), blk, t, v, mine, red, n = 0;

	mine = wireown(j, q, "openai-completions");
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		v = jsonget(j, blk, "text");
		if (jsoneq(j, t, "text") && !blank(j, v))
			jsonstrbuf(j, v, &text);
		if (!jsoneq(j, t, "thinking") ||
		    blank(j, v = jsonget(j, blk, "thinking")) ||
		    (!jsonbool(j, jsonget(j, blk, "redacted"), &red) && red))
			continue;
		if (!mine) {
			jsonstrbuf(j, v, &text);
			continue;
		}
		if (!n++)	/* the first block's field, as pi does */
			field = reasonfield(j, jsonget(j, blk,
			                    "thinkingSignature"));
		bufadds(&think, think.len ? "\n" : "");
		jsonstrbuf(j, v, &think);
	}
	bufadds(b, ",{\"role\":\"assistant\",\"content\":");
	if (text.len)
		jsonesc(b, text.p, text.len);
	else
		bufadds(b, "null");
	if (field) {
		bufaddf(b, ",\"%s\":", field);
		jsonesc(b, think.p, think.len);
	}
	openaitoolcalls(f, b, j, content);
	bufadds(b, "}");
	if (!text.len && !f->ncalls)
		bufreset(b);
	buffree(&text);
	buffree(&think);
}

/* One stored message in the chat completions form: a message of its
 * own, with its comma. */
static void
openaiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 };
	int role = jsonget(j, 0, "role"), content = jsonget(j, 0, "content");

	f->kind = jsoneq(j, role, "toolResult") ? WFRESULT : WFOTHER;
	if (jsoneq(j, role, "user") && wirehasimage(j, content)) {
		openaiparts(b, j, content, q->images);
	} else if (jsoneq(j, role, "user")) {
		bufadds(b, ",{\"role\":\"user\",\"content\":");
		if (!refer(f, b, j, content)) {
			wiretext(&text, j, content);
			jsonesc(b, bstr(&text), text.len);
		}
		bufadds(b, "}");
	} else if (jsoneq(j, role, "assistant") && wireanswered(j)) {
		openaianswer(f, b, j, q);
	} else if (f->kind == WFRESULT) {
		f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		openaiid(b, f->result ? f->result : "");
		bufadds(b, ",\"content\":");
		if (wirehasimage(j, content)) {
			wiretext(&text, j, content);
			openairesultimages(q, f, &text, j, content);
			jsonesc(b, bstr(&text), text.len);
		} else if (!refer(f, b, j, content)) {
			wiretext(&text, j, content);
			jsonesc(b, bstr(&text), text.len);
		}
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
		safe[i] = wireidchar((unsigned char)id[i]) ? id[i] : '_';
	safe[i] = '\0';
	jsonescs(b, i ? safe : "_");
}

/* A tool_result block up to its content, which comes next, then its
 * is_error, but not its closing brace: a cache mark may go before it. */
static void
anthropicresult(Buf *b, const char *id)
{
	bufadds(b, "{\"type\":\"tool_result\",\"tool_use_id\":");
	anthropicid(b, id);
	bufadds(b, ",\"content\":");
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
	wireformcall(f, id);
}

/* A thinking block of a stored answer, as pi sends it back: whole to
 * the model that signed it, redacted thinking with its data; unsigned or
 * another model's thinking as text, redacted as nothing.  A signature
 * from elsewhere (pi keeps OpenAI's field name there) would be refused. */
static void
anthropicthought(Buf *b, const Json *j, int blk, int mine)
{
	int v = jsonget(j, blk, "thinking"), sig, red;

	sig = jsonget(j, blk, "thinkingSignature");
	if (!jsonbool(j, jsonget(j, blk, "redacted"), &red) && red) {
		if (!mine || blank(j, sig))
			return;
		bufadds(b, b->len ? "," : "");
		bufadds(b, "{\"type\":\"redacted_thinking\",\"data\":");
		jsonraw(b, j, sig);
		bufadds(b, "}");
		return;
	}
	if (blank(j, v))
		return;
	bufadds(b, b->len ? "," : "");
	if (mine && !blank(j, sig)) {
		bufadds(b, "{\"type\":\"thinking\",\"thinking\":");
		jsonraw(b, j, v);
		bufadds(b, ",\"signature\":");
		jsonraw(b, j, sig);
	} else {
		bufadds(b, "{\"type\":\"text\",\"text\":");
		jsonraw(b, j, v);
	}
	bufadds(b, "}");
}

/* A stored answer as Anthropic's assistant message, its blocks in their
 * order. */
static void
anthropicassistant(Wireform *f, Buf *out, const Json *j,
                   const Wirereq *q)
{
	Buf blocks = { 0 }, *b = &blocks;
	int content = jsonget(j, 0, "content"), blk, t, v;
	int mine = wireown(j, q, "anthropic-messages");
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		if (jsoneq(j, t, "thinking")) {
			anthropicthought(b, j, blk, mine);
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

/* Content with images as Anthropic's blocks, each but the last closed:
 * text that is not blank, and each image, or for a model that takes
 * none, a note in its place. */
static void
anthropicblocks(Buf *b, const Json *j, int content, int images)
{
	size_t start = b->len;
	int blk, t, v;

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		v = jsonget(j, blk, "text");
		if (jsoneq(j, t, "text") && !blank(j, v)) {
			bufadds(b, b->len > start ? "," : "");
			textpart(b, j, v);
		} else if (jsoneq(j, t, "image") && images) {
			bufadds(b, b->len > start ? "," : "");
			bufadds(b, "{\"type\":\"image\",\"source\":{\"type\":"
			        "\"base64\",\"media_type\":");
			jsonraw(b, j, jsonget(j, blk, "mimeType"));
			bufadds(b, ",\"data\":");
			jsonraw(b, j, jsonget(j, blk, "data"));
			bufadds(b, "}}");
		} else if (jsoneq(j, t, "image")) {
			bufadds(b, b->len > start ? "," : "");
			bufadds(b, "{\"type\":\"text\",\"text\":\"(image "
			        "omitted: model does not support images)\"}");
		}
	}
	if (b->len > start)
		b->p[--b->len] = '\0';	/* the last brace */
}

/* A result's content as a JSON text: its text as a string, or with
 * images, blocks. */
static void
anthropiccontent(Wireform *f, Buf *b, const Json *j, int content,
                 int images)
{
	Buf text = { 0 };
	size_t start = b->len;

	if (wirehasimage(j, content)) {
		bufaddc(b, '[');
		anthropicblocks(b, j, content, images);
		bufadds(b, b->len > start + 1 ? "}]" : "]");
		return;
	}
	if (refer(f, b, j, content))
		return;
	wiretext(&text, j, content);
	jsonesc(b, bstr(&text), text.len);
	buffree(&text);
}

/* One stored message for Anthropic: a user's words or a result as a
 * block of a user message (its closing brace left off), an answer as an
 * assistant message. */
static void
anthropicform(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 };
	int role = jsonget(j, 0, "role"), content = jsonget(j, 0, "content");
	int iserr;

	if (jsoneq(j, role, "user") && wirehasimage(j, content)) {
		f->kind = WFUSER;
		anthropicblocks(b, j, content, q->images);
	} else if (jsoneq(j, role, "user")) {
		f->kind = WFUSER;
		bufadds(b, "{\"type\":\"text\",\"text\":");
		if (refer(f, b, j, content))
			return;
		wiretext(&text, j, content);
		if (strspn(bstr(&text), " \t\r\n") == text.len) {
			bufreset(&text);
			bufadds(&text, "(empty)");
		}
		jsonesc(b, text.p, text.len);
	} else if (jsoneq(j, role, "assistant") && wireanswered(j)) {
		f->kind = WFANSWER;
		anthropicassistant(f, b, j, q);
	} else if (jsoneq(j, role, "toolResult")) {
		f->kind = WFRESULT;
		f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
		anthropicresult(b, f->result ? f->result : "");
		anthropiccontent(f, b, j, content, q->images);
		if (jsonbool(j, jsonget(j, 0, "isError"), &iserr) < 0)
			iserr = 0;
		bufadds(b, iserr ? ",\"is_error\":true" : "");
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
	free(f->imgs);
	free(f->text);
	free(f->refs);
	free(f->model);
	free(f->provider);
	memset(f, 0, sizeof(*f));
}

/* The form of stored message msg for this request: the one kept in f if
 * it was made for this wire and model, else made now. */
static void
form(const Wirereq *q, const char *msg, Wireform *f)
{
	Json j;
	Buf b = { 0 };

	if (f->text && f->wire == q->wire && !strcmp(f->model, q->model) &&
	    !f->provider == !q->provider &&
	    (!q->provider || !strcmp(f->provider, q->provider)))
		return;
	wireformfree(f);
	f->wire = q->wire;
	f->model = xstrdup(q->model);
	f->provider = q->provider ? xstrdup(q->provider) : NULL;
	f->kind = WFNONE;
	/* each was made from parsed JSON, or checked when it was read */
	if (jsonparseknown(&j, msg, strlen(msg)) == 0) {
		if (q->wire == ANTHROPIC)
			anthropicform(f, &b, &j, q);
		else if (q->wire == RESPONSES)
			respform(f, &b, &j, q);
		else
			openaiform(f, &b, &j, q);
		jsonfree(&j);
	}
	f->len = b.len;
	f->text = b.p ? bufdetach(&b) : xstrdup("");
}

void
wireowe(Wireowed *o, const Wireform *f)
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

void
wirepaid(Wireowed *o, const char *id)
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
openaiowed(Buf *b, Wireowed *o)
{
	int i;

	for (i = 0; i < o->n; i++) {
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		openaiid(b, o->id[i]);
		bufadds(b, ",\"content\":\"No result provided\"}");
	}
	o->n = 0;
}

/* The images of the results before, in one user message. */
static void
openaiattach(Buf *b, Buf *parts)
{
	if (!parts->len)
		return;
	bufadds(b, ",{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	        "\"text\":\"Attached image(s) from tool result:\"}");
	bufadd(b, parts->p, parts->len);
	bufadds(b, "]}");
	bufreset(parts);
}

/* A span of wb: the glue up to end, or p itself. */
static void
span(Wirebody *wb, const char *p, size_t n)
{
	if (wb->n == wb->cap) {
		wb->cap = wb->cap ? wb->cap * 2 : 64;
		wb->v = xrealloc(wb->v, wb->cap * sizeof(*wb->v));
	}
	wb->v[wb->n].p = p;
	wb->v[wb->n++].len = n;
}

/* A form's text into the body: copied into b, or with wb, a big one
 * left where it is kept. */
static void
put(Wirebody *wb, Buf *b, const char *p, size_t n)
{
	if (!wb || n < SPANMIN) {
		bufadd(b, p, n);
		return;
	}
	span(wb, NULL, b->len);
	span(wb, p, n);
}

/* A form into the body: its own text and the message's texts it
 * refers to, in order. */
void
wireputform(Wirebody *wb, Buf *b, const Wireform *f)
{
	size_t at = 0;
	int k;

	for (k = 0; k < f->nrefs; k++) {
		put(wb, b, f->text + at, f->refs[k].at - at);
		put(wb, b, f->refs[k].p, f->refs[k].len);
		at = f->refs[k].at;
	}
	put(wb, b, f->text + at, f->len - at);
}

static void
openaibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb)
{
	Wireowed o = { 0 };
	Buf imgs = { 0 };
	size_t i;

	bufadds(b, "{\"model\":");
	jsonescs(b, q->model);
	bufadds(b, ",\"messages\":[{\"role\":\"system\",\"content\":");
	jsonescs(b, q->system);
	bufadds(b, "}");
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind != WFRESULT && f[i].kind != WFNONE) {
			openaiowed(b, &o);
			openaiattach(b, &imgs);
		}
		wireputform(wb, b, &f[i]);
		wireowe(&o, &f[i]);
		if (f[i].kind == WFRESULT)
			wirepaid(&o, f[i].result);
		if (f[i].imgs)
			bufadd(&imgs, f[i].imgs, f[i].imglen);
	}
	openaiowed(b, &o);
	openaiattach(b, &imgs);
	buffree(&imgs);
	free(o.id);
	bufadds(b, "],\"stream\":true,"
	        "\"stream_options\":{\"include_usage\":true}");
	bufaddf(b, ",\"%s\":%ld", q->maxfield ? q->maxfield : "max_tokens",
	        q->maxout);
	openaithink(q, b);
	wiretooldefs(q, b, "{\"type\":\"function\",\"function\":{",
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
	Wireowed o;
} Anthropic;

/* A block of the open user message, opening one if need be; f's text
 * is the block but its closing brace. */
static void
anthropicblock(Anthropic *a, const Wireform *f)
{
	if (!a->open) {
		bufadds(a->b, a->nmsg++ ? "," : "");
		bufadds(a->b, "{\"role\":\"user\",\"content\":[");
		a->open = 1;
		a->nblk = 0;
	}
	bufadds(a->b, a->nblk++ ? "," : "");
	wireputform(NULL, a->b, f);
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
	Wireform f = { 0 };
	int i;

	for (i = 0; i < a->o.n; i++) {
		bufreset(&r);
		anthropicresult(&r, a->o.id[i]);
		bufadds(&r, "\"No result provided\",\"is_error\":true");
		f.text = r.p;
		f.len = r.len;
		anthropicblock(a, &f);
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
			anthropicblock(&a, &f[i]);
		} else if (f[i].kind == WFANSWER) {
			anthropicowed(&a);
			anthropicclose(&a);
			if (f[i].len) {
				bufadds(&msgs, a.nmsg++ ? "," : "");
				wireputform(NULL, &msgs, &f[i]);
			}
			wireowe(&a.o, &f[i]);
		} else if (f[i].kind == WFRESULT) {
			anthropicblock(&a, &f[i]);
			wirepaid(&a.o, f[i].result);
		}
	}
	anthropicowed(&a);
	anthropicclose(&a);
	free(a.o.id);
	bufadds(b, "{\"model\":");
	jsonescs(b, q->model);
	bufaddf(b, ",\"max_tokens\":%ld,\"stream\":true", q->maxout +
	        (wirethinks(q) && !adaptive(q) ? budgets[q->level] : 0));
	anthropicthink(q, b);
	/* the prompt is cached, and the conversation up to its last turn */
	bufadds(b, ",\"system\":[{\"type\":\"text\",\"text\":");
	jsonescs(b, q->system);
	bufadds(b, cache);
	bufadds(b, "}]");
	wiretooldefs(q, b, "{", "input_schema", "}");
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
static void
body(const Wirereq *q, Buf *b, Wirebody *wb)
{
	Wireform *f = q->forms ? q->forms :
	              xcalloc(q->nmsgs, sizeof(*f));
	size_t i, n = 0;
	int k;

	for (i = 0; i < q->nmsgs; i++) {
		form(q, q->msgs[i], &f[i]);
		n += f[i].len + 1;
		for (k = 0; k < f[i].nrefs; k++)
			n += f[i].refs[k].len;
	}
	/* room for them all at once: a long history is not copied again
	 * and again as the body doubles */
	if (!wb || q->wire == ANTHROPIC)
		bufgrow(b, n);
	if (q->wire == ANTHROPIC)
		anthropicbody(q, f, b);
	else if (q->wire == RESPONSES)
		respbody(q, f, b, wb);
	else
		openaibody(q, f, b, wb);
	if (!q->forms) {
		for (i = 0; i < q->nmsgs; i++)
			wireformfree(&f[i]);
		free(f);
	}
}

void
wirebody(const Wirereq *q, Buf *b)
{
	body(q, b, NULL);
}

/* The body as wirebody makes it, in spans for one write after another:
 * the big forms of q->forms are not copied (Anthropic's are, for now).
 * Without q->forms, the forms die with the call: the body is joined. */
void
wirespans(const Wirereq *q, Wirebody *wb)
{
	size_t i, at = 0;

	memset(wb, 0, sizeof(*wb));
	body(q, &wb->glue, q->forms ? wb : NULL);
	span(wb, NULL, wb->glue.len);
	/* the glue's ends become pointers now that it has stopped moving */
	for (i = 0; i < wb->n; i++) {
		if (!wb->v[i].p) {
			wb->v[i].p = wb->glue.p + at;
			at = wb->v[i].len;
			wb->v[i].len -= wb->v[i].p - wb->glue.p;
		}
		wb->len += wb->v[i].len;
	}
}

void
wirebodyfree(Wirebody *wb)
{
	buffree(&wb->glue);
	free(wb->v);
	memset(wb, 0, sizeof(*wb));
}
