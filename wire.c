/* See LICENSE file for copyright and license details. */
/* wire.c: what the providers' wires share: the dispatch on the wire,
 * the stream's pieces and the answer as pi stores it, prices, thinking
 * levels, the stored messages' forms and the body put together from
 * them.  Each wire has a room of its own: openai.c (chat completions),
 * anthropic.c (messages), responses.c (OpenAI's Responses), gemini.c
 * (Google's generateContent); Bedrock's is anthropic.c's.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "openai.h"
#include "anthropic.h"
#include "responses.h"
#include "gemini.h"

/* A form this long is sent from where it is kept, not copied (the
 * request body in spans, Wirebody).  Kept for speed alone: in make bench,
 * "resume 20 MB + prompt" takes 134 ms and 28 MB with it, 287 ms and
 * 62 MB without; "line mode, 800 messages" 87 ms of CPU against 121. */
enum { SPANMIN = 64 };

/* What differs between the wires, by kind (OPENAI, ANTHROPIC,
 * RESPONSES, GEMINI, BEDROCK): a new wire is one row here and a room of
 * its own. */
typedef struct {
	const char *api;	/* pi's name for it, stored with answers */
	const char *path;	/* its endpoint under the base URL, %s the
				 * model */
	const char *auth;	/* the key's header, %s the key */
	const char *version;	/* a header every request has, or NULL */
	int (*event)(Wire *w, const char *data, size_t len);
	void (*form)(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
	void (*body)(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
	const char *(*beta)(const Wirereq *q);	/* a header, or NULL */
	/* the answer's content in its order, or -1: merged, thinking first */
	int (*store)(Buf *b, const Wire *w);
	int spans;		/* its body may be sent in spans */
	int finishends;		/* a finish reason alone may end it */
} Wireops;

static const Wireops wires[] = {
	[OPENAI] = { "openai-completions", "chat/completions",
	             "Authorization: Bearer %s", NULL,
	             openaievent, openaiform, openaibody, NULL, NULL, 1, 1 },
	[ANTHROPIC] = { "anthropic-messages", "messages", "x-api-key: %s",
	                "anthropic-version: 2023-06-01",
	                anthropicevent, anthropicform, anthropicbody,
	                anthropicbeta, anthropicstore, 1, 0 },
	[RESPONSES] = { "openai-responses", "responses",
	                "Authorization: Bearer %s", NULL,
	                respevent, respform, respbody, NULL, respstore, 1, 0 },
	/* the stream ends with a finishReason: no [DONE] */
	[GEMINI] = { "google-generative-ai",
	             "models/%s:streamGenerateContent?alt=sse",
	             "x-goog-api-key: %s", NULL,
	             geminievent, geminiform, geminibody, NULL, geministore,
	             1, 1 },
	/* Anthropic's messages through Bedrock's
	 * InvokeModelWithResponseStream: each event in a chunk of AWS's
	 * event-stream, the version and beta in the body; the key, when
	 * there is one, a Bedrock API key (else ask.c signs with SigV4) */
	[BEDROCK] = { "anthropic-messages",
	              "model/%s/invoke-with-response-stream",
	              "Authorization: Bearer %s", NULL,
	              anthropicbedrock, anthropicform, anthropicbody, NULL,
	              anthropicstore, 1, 0 },
	/* Anthropic's messages, streamed as Anthropic streams them, but the
	 * model in the URL and the version in the body (anthropicbody):
	 * Vertex's streamRawPredict */
	[VERTEX] = { "anthropic-messages", "%s:streamRawPredict",
	             "Authorization: Bearer %s", NULL,
	             anthropicevent, anthropicform, anthropicbody,
	             anthropicbeta, anthropicstore, 1, 0 },
};

/* The row of a wire kind; an unknown one is OpenAI's, as it was. */
static const Wireops *
wireops(int wire)
{
	return &wires[wire >= 0 && wire < (int)LEN(wires) ? wire : OPENAI];
}

/* The name pi gives the wire in a stored answer's "api". */
const char *
wireapi(int wire)
{
	return wireops(wire)->api;
}

/* The request's URL into url: the wire's endpoint under the provider's
 * base URL, with the model's name where the endpoint has it, URI-encoded
 * (Bedrock's ids hold ':', its ARNs '/'; Gemini's names need none); then
 * the base URL's query (an Azure deployment's ?api-version=...) and the
 * provider row's (query, or NULL), after the endpoint's own. */
void
wireurl(Buf *url, const char *base, const char *query, const Wirereq *q)
{
	size_t n = strcspn(base, "?"), path;
	Buf m = { 0 };
	const char *s;

	bufadd(url, base, n);
	bufaddc(url, '/');
	path = url->len;
	for (s = q->model; *s; s++)
		if (wireidchar((unsigned char)*s) || *s == '.' || *s == '~')
			bufaddc(&m, *s);
		else
			bufaddf(&m, "%%%02X", (unsigned char)*s);
	bufaddf(url, wireops(q->wire)->path, bstr(&m));
	buffree(&m);
	if (base[n] && base[n + 1]) {
		bufaddc(url, strchr(url->p + path, '?') ? '&' : '?');
		bufadds(url, base + n + 1);
	}
	if (query && *query) {
		bufaddc(url, strchr(url->p + path, '?') ? '&' : '?');
		bufadds(url, query);
	}
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
	w->maxargs = (size_t)16 << 20;	/* a write of a big file */
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
keepstreamed(const Wire *w, Buf *b, const char *p, size_t n)
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
	keepstreamed(w, kind == PIECETEXT ? &w->text : &w->think, p, n);
	/* Anthropic's blocks come one after another: the last is this one */
	if (w->nparts && w->parts[w->nparts - 1].kind == kind)
		w->parts[w->nparts - 1].to = kind == PIECETEXT ? w->text.len :
		                             w->think.len;
	return rc;
}

/* A piece of call k's arguments, the bytes of args from off on; NULL when
 * the call has only begun.  Past maxargs they are dropped, held no more,
 * and the call is not run. */
int
wirecalldelta(Wire *w, int k, size_t off)
{
	Wirecall *c = &w->calls[k];
	const Buf *a = &c->args;

	if (c->over || a->len > w->maxargs) {
		c->over = 1;	/* not run: held no more */
		bufreset(&c->args);
		return 0;
	}
	if (!w->fn)
		return 0;
	w->call = k;
	return w->fn(w->arg, PIECECALL, off <= a->len ? bstr(a) + off : NULL,
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

/* One event of the stream (sse.c's callback shape): 0 to go on, 1 to
 * stop, with w->err saying why unless the callback asked. */
int
wireevent(void *arg, const char *event, const char *data, size_t len)
{
	Wire *w = arg;
	int rc;

	(void)event;	/* the data names its type too */
	rc = wireops(w->wire)->event(w, data, len);
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
	       (w->done || (w->finish[0] && wireops(w->wire)->finishends));
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

void
wirestorecall(Buf *b, const Wirecall *c)
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

void
wirestorethink(Buf *b, const char *p, size_t n, const Buf *sig)
{
	bufadds(b, "{\"type\":\"thinking\",\"thinking\":");
	jsonesc(b, p, n);
	if (sig->len) {
		bufadds(b, ",\"thinkingSignature\":");
		jsonesc(b, sig->p, sig->len);
	}
	bufadds(b, "}");
}

/* The answer merged, thinking first: OpenAI's, or a stream whose
 * deltas came outside its blocks. */
static void
storemerged(Buf *b, const Wire *w)
{
	int i, n = 0;

	if (w->think.len) {
		wirestorethink(b, w->think.p, w->think.len, &w->sig);
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
		wirestorecall(b, &w->calls[i]);
	}
}

/* Whether the answer's parts hold every byte of its text and thinking
 * (the wires that keep blocks, Anthropic's and Gemini's): a stream whose
 * deltas came outside a block is stored merged instead. */
int
wirewhole(const Wire *w)
{
	size_t text = 0, think = 0;
	int i;

	for (i = 0; i < w->nparts; i++)
		if (w->parts[i].kind == PIECETEXT)
			text += w->parts[i].to - w->parts[i].from;
		else if (w->parts[i].kind == PIECETHINK)
			think += w->parts[i].to - w->parts[i].from;
	return w->nparts && text == w->text.len && think == w->think.len;
}

/* The prices of model in a table of n rows, or NULL.  Vertex's
 * version after an '@' (claude-opus-4-8@20261001) is not looked at.  A
 * Bedrock id takes the row of Anthropic's name inside it: global.
 * anthropic.claude-sonnet-5 and us.anthropic.claude-sonnet-4-5-20250929-
 * v1:0 are priced as claude-sonnet-5 and claude-sonnet-4-5. */
const Price *
wireprice(const Price *p, size_t n, const char *model)
{
	const char *s;
	size_t i, len = strcspn(model, "@");

	for (i = 0; i < n; i++)
		if (!strncmp(p[i].model, model, len) && !p[i].model[len])
			return &p[i];
	if (!(s = strstr(model, "anthropic.")))
		return NULL;
	s += 10;
	len = strcspn(s, ":");
	if (len > 3 && !strncmp(s + len - 3, "-v", 2) &&
	    s[len - 1] >= '0' && s[len - 1] <= '9')
		len -= 3;
	if (len > 9 && s[len - 9] == '-' &&
	    strspn(s + len - 8, "0123456789") >= 8)
		len -= 9;	/* a date: claude-sonnet-4-5-20250929 */
	for (i = 0; i < n; i++)
		if (strlen(p[i].model) == len && !strncmp(p[i].model, s, len))
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
	if (!wireops(w->wire)->store || wireops(w->wire)->store(&b, w) < 0)
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

/* The request */

/* pi's names, max as pi 1.5 has it */
static const char *const levels[] = {
	"off", "minimal", "low", "medium", "high", "xhigh", "max"
};

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
	return level > LEVELOFF && level <= LEVELMAX ? levels[level] : "off";
}

/* Whether string s holds part, '.' and '-' taken as the same, so that
 * OpenRouter's claude-opus-4.7 is Anthropic's claude-opus-4-7. */
static int
haspart(const char *s, const char *part)
{
	size_t i;

	for (; *s; s++) {
		for (i = 0; part[i] && (s[i] == part[i] ||
		     (strchr(".-", s[i]) && strchr(".-", part[i]))); i++)
			;
		if (!part[i])
			return 1;
	}
	return 0;
}

/* The first row of a table of n models that has a part of model's
 * name, or NULL. */
const Model *
wiremodel(const Model *m, size_t n, const char *model)
{
	size_t i;

	for (i = 0; model && i < n; i++)
		if (*m[i].part && haspart(model, m[i].part))
			return &m[i];
	return NULL;
}

/* Whether the model is asked to think. */
int
wirethinks(const Wirereq *q)
{
	return q->level > LEVELOFF && q->level <= LEVELMAX && q->think != THNONE;
}

/* A cache mark, Anthropic's cache_control, before the closing brace of
 * what it marks: five minutes, or with cachehour an hour, whose writes
 * cost twice the input price rather than 1.25 times. */
void
wirecache(const Wirereq *q, Buf *b)
{
	bufadds(b, ",\"cache_control\":{\"type\":\"ephemeral\"");
	bufadds(b, q->cachehour ? ",\"ttl\":\"1h\"}" : "}");
}

/* A header the request needs, or NULL. */
const char *
wirebeta(const Wirereq *q)
{
	const Wireops *o = wireops(q->wire);

	return o->beta ? o->beta(q) : NULL;
}

/* One header line, p to end, into b (ended by a NUL), with key in
 * place of the first {key}; its offset in at[*n].  1 if it took the
 * key, 0 if it has no {key}, -1 (and nothing added) when it has one
 * and there is no key. */
static int
wirehdrline(Buf *b, size_t *at, int *n, const char *p, const char *end,
            const char *key)
{
	const char *k;

	for (k = p; k + 5 <= end && memcmp(k, "{key}", 5); k++)
		;
	if (k + 5 <= end && !key)
		return -1;
	at[(*n)++] = b->len;
	if (k + 5 <= end) {
		bufadd(b, p, k - p);
		bufadds(b, key);
		bufadd(b, k + 5, end - k - 5);
	} else {
		bufadd(b, p, end - p);
	}
	bufaddc(b, '\0');
	return k + 5 <= end;
}

/* The request's headers into h (room for WIREHDRS), their text made in
 * b: the wire's version and beta, the provider row's extra lines (extra,
 * '\n' between them, or NULL), and the key in the wire's own header,
 * unless an extra line took it in its {key}, as Azure's api-key does.
 * A line whose {key} has no key is left out.  Their number. */
int
wireheaders(const Wirereq *q, const char *key, const char *extra, Buf *b,
            const char **h)
{
	const Wireops *o = wireops(q->wire);
	const char *e, *nl;
	size_t at[WIREHDRS];
	int n = 0, i, took = 0;

	if (o->version)
		wirehdrline(b, at, &n, o->version, strchr(o->version, 0), NULL);
	if (wirebeta(q))
		wirehdrline(b, at, &n, wirebeta(q), strchr(wirebeta(q), 0),
		            NULL);
	for (e = extra; e && *e && n < WIREHDRS - 1; e = *nl ? nl + 1 : nl) {
		nl = e + strcspn(e, "\n");
		if (nl > e && wirehdrline(b, at, &n, e, nl, key) > 0)
			took = 1;
	}
	if (key && !took) {
		at[n++] = b->len;
		bufaddf(b, o->auth, key);
		bufaddc(b, '\0');
	}
	for (i = 0; i < n; i++)
		h[i] = b->p + at[i];
	return n;
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
 * key, close: the two wires differ only in those.  With mark, the last
 * carries a cache mark before its closing brace, as pi puts it there:
 * the tools are the same each request. */
void
wiretools(const Wirereq *q, Buf *b, const char *open, const char *key,
          const char *close, int mark)
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
		if (mark && k == q->ntools - 1) {
			bufadd(b, close, strlen(close) - 1);
			wirecache(q, b);
			bufaddc(b, '}');
		} else {
			bufadds(b, close);
		}
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
void
wiretextpart(Buf *b, const Json *j, int i)
{
	Buf v = { 0 };

	jsonstrbuf(j, i, &v);
	bufadds(b, "{\"type\":\"text\",\"text\":");
	jsonesc(b, bstr(&v), v.len);
	bufadds(b, "}");
	buffree(&v);
}

/* Whether string token i holds nothing but white space: Anthropic refuses
 * such text blocks. */
int
wireblank(const Json *j, int i)
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
 * text: valid UTF-8, and only the escapes jsonesc uses (no \/, \u only
 * for a control character, in lower case).
 * Then it goes on the wire as it is, not unescaped and escaped again. */
static int
plain(const Json *j, int i)
{
	const unsigned long one = ~0UL / 0xff, high = one * 0x80;
	const char *p = j->s + j->t[i].start, *e = j->s + j->t[i].end;
	unsigned long w, b;
	size_t k;

	while (p < e) {
		/* a word at a time while it is ASCII without a backslash:
		 * big tool results are looked at here on every resume */
		for (; e - p >= (long)sizeof(w); p += sizeof(w)) {
			memcpy(&w, p, sizeof(w));
			b = w ^ one * '\\';
			if ((w | ((b - one) & ~b)) & high)
				break;
		}
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
		case 'u':
			/* a control character as jsonesc writes it (and pi):
			 * terminal colours in a tool's output are \u001b */
			if (e - p < 6 || p[2] != '0' || p[3] != '0' ||
			    (p[4] != '0' && p[4] != '1') ||
			    !strchr("0123456789abcdef", p[5]) ||
			    (p[4] == '0' && strchr("89acd", p[5])))
				return 0;	/* \n and such go short */
			p += 6;
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

/* The text of content, as jsontext finds it, as a JSON string into b by
 * references to the message's own strings when they are big and plain
 * (each request sends them from there, and no copy is kept); 0 if it is
 * not so, nothing written. */
int
wirerefer(Wireform *f, Buf *b, const Json *j, int content)
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
	for (k = 0; !j->plain && k < n; k++)
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
	free(f->env);
	memset(f, 0, sizeof(*f));
}

/* Stored user message msg with the text env as a block of its own
 * before its content, a string or a list. */
static char *
withenv(const char *msg, size_t len, const char *env)
{
	Json j = { 0 };
	Buf b = { 0 };
	int c;
	size_t at, end;

	if (jsonparseknown(&j, msg, len) < 0 ||
	    (c = jsonget(&j, 0, "content")) < 0 ||
	    (j.t[c].type != JSTR && j.t[c].type != JARR)) {
		jsonfree(&j);
		return xstrndup(msg, len);
	}
	at = j.t[c].start - (j.t[c].type == JSTR);
	end = j.t[c].end + (j.t[c].type == JSTR);
	bufadd(&b, msg, at);
	bufadds(&b, "[{\"type\":\"text\",\"text\":");
	jsonescs(&b, env);
	bufaddc(&b, '}');
	if (j.t[c].type == JSTR) {
		bufadds(&b, ",{\"type\":\"text\",\"text\":");
		bufadd(&b, msg + at, end - at);
		bufadds(&b, "}]");
	} else {
		if (j.t[c].size)
			bufaddc(&b, ',');
		bufadd(&b, msg + at + 1, end - at - 1);	/* after its [ */
	}
	bufadd(&b, msg + end, len - end);
	jsonfree(&j);
	return bufdetach(&b);
}

/* The length of message i of q. */
static size_t
msglen(const Wirereq *q, size_t i)
{
	return q->msglens ? q->msglens[i] : strlen(q->msgs[i]);
}

/* The index of the first user message, which env goes before; nmsgs if
 * none. */
static size_t
firstuser(const Wirereq *q)
{
	Jmember m = { "role", -1, 0, 0 };
	const char *s;
	size_t i;

	for (i = 0; q->env && i < q->nmsgs; i++) {
		s = q->msgs[i];
		if (jsonmembers(s, msglen(q, i), &m, 1) == 0 && m.at &&
		    m.len == 6 && !memcmp(s + m.at, "\"user\"", 6))
			return i;
	}
	return q->nmsgs;
}

/* What a form is made for (the wire, the model and the provider) in one
 * number, FNV-1a's hash of them: a long history's forms keep no copy of
 * the names each.  0xff, which UTF-8 never has, parts the names. */
static unsigned long long
formkey(const Wirereq *q)
{
	const unsigned long long prime = 1099511628211ULL;
	unsigned long long h = 14695981039346656037ULL;
	const char *s[2];
	int i;

	s[0] = q->model;
	s[1] = q->provider ? q->provider : "";
	h = (h ^ (unsigned)q->wire) * prime;
	h = (h ^ !q->provider) * prime;
	for (i = 0; i < 2; i++) {
		for (; *s[i]; s[i]++)
			h = (h ^ (unsigned char)*s[i]) * prime;
		h = (h ^ 0xff) * prime;
	}
	return h;
}

/* Whether form f was made for request q. */
int
wireformfor(const Wireform *f, const Wirereq *q)
{
	return f->text && f->key == formkey(q);
}

/* The form of stored message msg for this request: the one kept in f if
 * it was made for this wire and model, else made now.  Keeping them is
 * for speed alone: in make bench, "line mode, 800 messages" takes 87 ms
 * of CPU with them and 476 without (each request would parse and write
 * out the whole history again). */
static void
formfor(const Wirereq *q, size_t i, Wireform *f, int env,
        unsigned long long key)
{
	const char *msg = q->msgs[i];
	size_t len = msglen(q, i);
	Json j;
	Buf b = { 0 };

	if (f->text && f->key == key && !f->env == !env)
		return;
	wireformfree(f);
	if (env) {
		msg = f->env = withenv(msg, len, q->env);
		len = strlen(msg);
	}
	f->key = key;
	f->kind = FORMNONE;
	/* each was made from parsed JSON, or checked when it was read */
	if (jsonparseknown(&j, msg, len) == 0) {
		j.plain = !env && q->msgplain && q->msgplain[i];
		wireops(q->wire)->form(f, &b, &j, q);
		jsonfree(&j);
	}
	f->len = b.len;
	/* kept as long as the message: at its size, not the buffer's */
	f->text = b.p ? xrealloc(bufdetach(&b), f->len + 1) : xstrdup("");
}

void
wireowedadd(Wireowed *o, const Wireform *f)
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

int
wireowedpaid(Wireowed *o, const char *id)
{
	int i;

	for (i = 0; id && i < o->n; i++) {
		if (!strcmp(o->id[i], id)) {
			o->id[i] = o->id[--o->n];
			return 1;
		}
	}
	return 0;
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
putformtext(Wirebody *wb, Buf *b, const char *p, size_t n)
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
		putformtext(wb, b, f->text + at, f->refs[k].at - at);
		putformtext(wb, b, f->refs[k].p, f->refs[k].len);
		at = f->refs[k].at;
	}
	putformtext(wb, b, f->text + at, f->len - at);
}

void
wireforms(const Wirereq *q, void (*made)(void *arg, size_t i), void *arg)
{
	size_t i, env = firstuser(q);
	unsigned long long key = formkey(q);

	for (i = 0; q->forms && i < q->nmsgs; i++) {
		formfor(q, i, &q->forms[i], i == env, key);
		made(arg, i);
	}
}

/* The request's JSON body, appended to b.  The forms of q->forms are
 * made where missing and kept for the next request; without them, they
 * are made for this one alone. */
static void
makebody(const Wirereq *q, Buf *b, Wirebody *wb)
{
	Wireform *f = q->forms ? q->forms :
	              xcalloc(q->nmsgs, sizeof(*f));
	size_t i, n = 0, env = firstuser(q);
	unsigned long long key = formkey(q);
	int k;

	for (i = 0; i < q->nmsgs; i++) {
		formfor(q, i, &f[i], i == env, key);
		n += f[i].len + 1;
		for (k = 0; k < f[i].nrefs; k++)
			n += f[i].refs[k].len;
	}
	/* room for them all at once: a long history is not copied again
	 * and again as the body doubles */
	if (!wireops(q->wire)->spans)
		wb = NULL;
	if (!wb)
		bufgrow(b, n);
	wireops(q->wire)->body(q, f, b, wb);
	if (!q->forms) {
		for (i = 0; i < q->nmsgs; i++)
			wireformfree(&f[i]);
		free(f);
	}
}

void
wirebody(const Wirereq *q, Buf *b)
{
	makebody(q, b, NULL);
}

/* The body as wirebody makes it, in spans for one write after another:
 * the big forms of q->forms are not copied.
 * Without q->forms, the forms die with the call: the body is joined. */
void
wirespans(const Wirereq *q, Wirebody *wb)
{
	size_t i, at = 0;

	memset(wb, 0, sizeof(*wb));
	makebody(q, &wb->glue, q->forms ? wb : NULL);
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

