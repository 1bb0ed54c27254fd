/* See LICENSE file for copyright and license details. */
/* anthropic.c: Anthropic's messages: the stream's events in, pieces
 * out; stored messages in, the request's body out.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "anthropic.h"

/* The stream */

/* A new part of an Anthropic answer, for block. */
static Wirepart *
addpart(Wire *w, int kind, int block)
{
	Wirepart *p;

	if (w->nparts >= 4096)	/* more blocks than any answer has */
		return NULL;
	w->parts = xrealloc(w->parts, (w->nparts + 1) * sizeof(*w->parts));
	p = &w->parts[w->nparts++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->block = block;
	p->from = p->to = kind == PIECETEXT ? w->text.len : w->think.len;
	return p;
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
	if (wirecount(j, jsonget(j, u, "cache_creation_input_tokens"),
	    &v) == 0)
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
static void
keepsig(Wire *w, Wirepart *p, const char *s, size_t n)
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
		if ((p = addpart(w, PIECECALL, block)))
			p->call = w->ncalls - 1;
	} else if (jsoneq(j, t, "redacted_thinking")) {
		jsonstrbuf(j, jsonget(j, cb, "data"), &s);
		if ((p = addpart(w, PIECEREDACTED, block)))
			keepsig(w, p, bstr(&s), s.len);
	} else if (jsoneq(j, t, "thinking")) {
		addpart(w, PIECETHINK, block);
		rc = wirepiece(w, PIECETHINK, j, jsonget(j, cb, "thinking"));
	} else if (jsoneq(j, t, "text")) {
		addpart(w, PIECETEXT, block);
		rc = wirepiece(w, PIECETEXT, j, jsonget(j, cb, "text"));
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
		rc = wirepiece(w, PIECETEXT, j, jsonget(j, d, "text"));
	} else if (jsoneq(j, t, "thinking_delta")) {
		rc = wirepiece(w, PIECETHINK, j, jsonget(j, d, "thinking"));
	} else if (jsoneq(j, t, "signature_delta")) {
		jsonstrbuf(j, jsonget(j, d, "signature"), &s);
		if (w->sig.len + s.len <= w->maxkeep)
			bufadd(&w->sig, bstr(&s), s.len);
		if ((p = partof(w, block, PIECETHINK)))
			keepsig(w, p, bstr(&s), s.len);
	} else if (jsoneq(j, t, "input_json_delta") &&
	           (c = callofblock(w, block))) {
		n = c->args.len;
		jsonstrbuf(j, jsonget(j, d, "partial_json"), &c->args);
		rc = wirecalldelta(w, c - w->calls, n);
	}
	buffree(&s);
	return rc;
}

/* A stop that is a failure, said in w->err: a refusal (HTTP 200, its
 * category in stop_details), or an answer that filled the context
 * window.  The answer then ends as an error, as pi ends it. */
static void
anthropicfailed(Wire *w, const Json *j, int d, int v)
{
	int sd = jsonget(j, d, "stop_details"), c;

	if (sd < 0)
		sd = jsonget(j, 0, "stop_details");
	c = jsonget(j, sd, "category");
	if (jsoneq(j, v, "refusal")) {
		bufadds(&w->err, "the model refused to answer");
		if (c >= 0 && j->t[c].type == JSTR) {
			bufadds(&w->err, " (");
			jsonstrbuf(j, c, &w->err);
			bufadds(&w->err, ")");
		}
	} else {
		bufadds(&w->err, "the answer filled the model's context "
		        "window (model_context_window_exceeded)");
	}
}

/* The stop reason, in OpenAI's words (finish_reason). */
static void
anthropicstop(Wire *w, const Json *j)
{
	int d = jsonget(j, 0, "delta"), v = jsonget(j, d, "stop_reason");

	if (jsoneq(j, v, "tool_use")) {
		snprintf(w->finish, sizeof(w->finish), "tool_calls");
	} else if (jsoneq(j, v, "max_tokens")) {
		snprintf(w->finish, sizeof(w->finish), "length");
	} else if (jsoneq(j, v, "refusal") ||
	           jsoneq(j, v, "model_context_window_exceeded")) {
		snprintf(w->finish, sizeof(w->finish), "error");
		if (!w->err.len)
			anthropicfailed(w, j, d, v);
	} else if (v >= 0 && !jsonisnull(j, v)) {
		snprintf(w->finish, sizeof(w->finish), "stop");
	}
	if ((v = jsonget(j, 0, "usage")) >= 0)
		anthropicusage(w, j, v);
}

int
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

/* Bedrock's chunk: {"bytes": the base64 of one event of Anthropic's
 * stream as its data, "p": padding}; ask.c took it from AWS's frame. */
int
anthropicbedrock(Wire *w, const char *data, size_t len)
{
	Buf b64 = { 0 }, ev = { 0 };
	int rc;

	if (jsonreparse(&w->json, data, len) < 0)
		return wirebadevent(w, data, len);
	if (jsonstrbuf(&w->json, jsonget(&w->json, 0, "bytes"), &b64) < 0 ||
	    b64dec(&ev, bstr(&b64), b64.len) < 0) {
		bufadds(&w->err, "Bedrock sent a chunk without its bytes: ");
		utf8repair(&w->err, data, MIN(len, 200));
		rc = 1;
	} else {
		rc = anthropicevent(w, bstr(&ev), ev.len);
	}
	buffree(&b64);
	buffree(&ev);
	return rc;
}

/* The answer, as pi stores it */

/* Anthropic's blocks one by one, in order, as pi stores them: redacted
 * thinking as thinking marked redacted, its data as the signature; -1
 * when the parts do not hold them all. */
int
anthropicstore(Buf *b, const Wire *w)
{
	const Wirepart *p;
	int i, n = 0;

	if (!wirewhole(w))
		return -1;
	for (i = 0; i < w->nparts; i++) {
		p = &w->parts[i];
		/* thinking with no text but its signature is kept */
		if ((p->kind == PIECETEXT && p->to == p->from) ||
		    (p->kind == PIECETHINK && p->to == p->from && !p->sig.len) ||
		    (p->kind == PIECEREDACTED && p->lost))
			continue;
		bufadds(b, n++ ? "," : "");
		if (p->kind == PIECETEXT) {
			bufadds(b, "{\"type\":\"text\",\"text\":");
			jsonesc(b, w->text.p + p->from, p->to - p->from);
			bufadds(b, "}");
		} else if (p->kind == PIECETHINK) {
			wirestorethink(b, bstr(&w->think) + p->from,
			               p->to - p->from, &p->sig);
		} else if (p->kind == PIECEREDACTED) {
			bufadds(b, "{\"type\":\"thinking\",\"thinking\":"
			        "\"[Reasoning redacted]\","
			        "\"thinkingSignature\":");
			jsonesc(b, bstr(&p->sig), p->sig.len);
			bufadds(b, ",\"redacted\":true}");
		} else {
			wirestorecall(b, &w->calls[p->call]);
		}
	}
	return 0;
}

/* The request */

/* pi's thinking budgets in tokens, by level (xhigh and max as high) */
static const long budgets[] = { 0, 1024, 2048, 8192, 16384, 16384, 16384 };

/* Whether the model thinks on a budget of tokens (the older ones). */
static int
anthropicbudget(const Wirereq *q)
{
	return wirethinks(q) && q->thinkas == TKBUDGET;
}

/* The header pi adds when a model that thinks on a budget is offered
 * tools: thinking between the calls.  Adaptive thinking interleaves of
 * itself: it gets no beta header at all. */
const char *
anthropicbeta(const Wirereq *q)
{
	if (!anthropicbudget(q) || !q->ntools)
		return NULL;
	return "anthropic-beta: interleaved-thinking-2025-05-14";
}

/* Anthropic's thinking, as the model takes it (models-now.md, late
 * 2026): adaptive, the levels as efforts (minimal as low; xhigh and max
 * as high on the models that take no more); or, on the older models, a
 * budget that max_tokens holds on top of the answer.  Off sends nothing,
 * but "disabled" to a model that thinks unless told, and nothing to one
 * that always thinks (disabled is a 400 there).  No sampling parameter
 * is ever sent: thinking refuses them, the newest models refuse any.
 * The effort, for output_config, or NULL. */
static const char *
anthropicthink(const Wirereq *q, Buf *b)
{
	static const char *const effort[] = {
		"", "low", "low", "medium", "high", "xhigh", "max"
	};
	int l = q->level;

	/* Bedrock's Claude Sonnet 5 thinks whatever it is told (its model
	 * card, June 2026): disabled is not sent there */
	if (!wirethinks(q)) {
		if (q->thinkas == TKOMITTED && q->wire != BEDROCK)
			bufadds(b, ",\"thinking\":{\"type\":\"disabled\"}");
		return NULL;
	}
	if (anthropicbudget(q)) {
		/* no display: these models summarize unasked, and a field
		 * their thinking does not know could be refused */
		bufaddf(b, ",\"thinking\":{\"type\":\"enabled\","
		        "\"budget_tokens\":%ld}", budgets[l]);
		return NULL;
	}
	if (q->thinkas == TKHIGH && l > LEVELHIGH)
		l = LEVELHIGH;
	bufadds(b, ",\"thinking\":{\"type\":\"adaptive\",\"display\":"
	        "\"summarized\"}");
	return effort[l];
}

/* output_config: adaptive thinking's effort, and -o's schema as
 * structured outputs take it (generally available, no beta header). */
static void
anthropicoutput(const Wirereq *q, Buf *b, const char *effort)
{
	if (!effort && !q->schema)
		return;
	bufadds(b, ",\"output_config\":{");
	if (effort)
		bufaddf(b, "\"effort\":\"%s\"%s", effort,
		        q->schema ? "," : "");
	if (q->schema)
		bufaddf(b, "\"format\":{\"type\":\"json_schema\","
		        "\"schema\":%s}", q->schema);
	bufaddc(b, '}');
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
		if (!mine || wireblank(j, sig))
			return;
		bufadds(b, b->len ? "," : "");
		bufadds(b, "{\"type\":\"redacted_thinking\",\"data\":");
		jsonraw(b, j, sig);
		bufadds(b, "}");
		return;
	}
	/* an empty one with its signature (display omitted) goes back too */
	if (wireblank(j, v) && (!mine || wireblank(j, sig)))
		return;
	bufadds(b, b->len ? "," : "");
	if (mine && !wireblank(j, sig)) {
		bufadds(b, "{\"type\":\"thinking\",\"thinking\":");
		if (v >= 0 && j->t[v].type == JSTR)
			jsonraw(b, j, v);
		else
			bufadds(b, "\"\"");
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
		           !wireblank(j, v = jsonget(j, blk, "text"))) {
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
		if (jsoneq(j, t, "text") && !wireblank(j, v)) {
			bufadds(b, b->len > start ? "," : "");
			wiretextpart(b, j, v);
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
	if (wirerefer(f, b, j, content))
		return;
	jsontext(&text, j, content);
	jsonesc(b, bstr(&text), text.len);
	buffree(&text);
}

/* One stored message for Anthropic: a user's words or a result as a
 * block of a user message (its closing brace left off), an answer as an
 * assistant message. */
void
anthropicform(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 };
	int role = jsonget(j, 0, "role"), content = jsonget(j, 0, "content");
	int iserr;

	if (jsoneq(j, role, "user") && wirehasimage(j, content)) {
		f->kind = FORMUSER;
		anthropicblocks(b, j, content, q->images);
	} else if (jsoneq(j, role, "user")) {
		f->kind = FORMUSER;
		bufadds(b, "{\"type\":\"text\",\"text\":");
		if (wirerefer(f, b, j, content))
			return;
		jsontext(&text, j, content);
		if (strspn(bstr(&text), " \t\r\n") == text.len) {
			bufreset(&text);
			bufadds(&text, "(empty)");
		}
		jsonesc(b, text.p, text.len);
	} else if (jsoneq(j, role, "assistant") && wireanswered(j)) {
		f->kind = FORMANSWER;
		anthropicassistant(f, b, j, q);
	} else if (jsoneq(j, role, "toolResult")) {
		f->kind = FORMRESULT;
		f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
		anthropicresult(b, f->result ? f->result : "");
		anthropiccontent(f, b, j, content, q->images);
		if (jsonbool(j, jsonget(j, 0, "isError"), &iserr) < 0)
			iserr = 0;
		bufadds(b, iserr ? ",\"is_error\":true" : "");
	}
	buffree(&text);
}

/* Anthropic's messages, from the forms: the results of one round go back
 * as tool_result blocks of a single user message, and a user message may
 * hold several blocks, so one stays open for more.  Written straight
 * into the body, the big texts in spans (wb): the cache mark goes after
 * the last user block, whose number is counted first (anthropiclast). */
typedef struct {
	const Wirereq *q;
	Buf *b;
	int nmsg;		/* messages written */
	int open;		/* a user message is open */
	int nblk;		/* blocks in it */
	size_t blocks;		/* user blocks written, */
	size_t last;		/* of which the last, cache marked */
	Wireowed o;
} Anthropic;

/* A block of the open user message, opening one if need be; f's text
 * is the block but its closing brace, its big texts sent from where they
 * are with wb. */
static void
anthropicblock(Anthropic *a, const Wireform *f, Wirebody *wb)
{
	if (!a->open) {
		bufadds(a->b, a->nmsg++ ? "," : "");
		bufadds(a->b, "{\"role\":\"user\",\"content\":[");
		a->open = 1;
		a->nblk = 0;
	}
	bufadds(a->b, a->nblk++ ? "," : "");
	wireputform(wb, a->b, f);
	if (++a->blocks == a->last)
		wirecache(a->q, a->b);
	bufaddc(a->b, '}');
}

/* How many user blocks anthropicbody writes: its own, and one for each
 * call left without a result, before the next message and at the end. */
static size_t
anthropiclast(const Wirereq *q, const Wireform *f)
{
	Wireowed o = { 0 };
	size_t i, n = 0;

	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind == FORMUSER || f[i].kind == FORMANSWER) {
			n += o.n;
			o.n = 0;
		}
		if (f[i].kind == FORMANSWER)
			wireowedadd(&o, &f[i]);
		n += f[i].kind == FORMUSER || (f[i].kind == FORMRESULT &&
		     wireowedpaid(&o, f[i].result));
	}
	n += o.n;
	free(o.id);
	return n;
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
		anthropicblock(a, &f, NULL);	/* r is reused */
	}
	a->o.n = 0;
	buffree(&r);
}

void
anthropicbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb)
{
	Anthropic a = { 0 };
	size_t i;

	/* Bedrock and Vertex: the model is in the URL, the version in the
	 * body; Bedrock's stream is its endpoint, its beta in the body */
	if (q->wire == BEDROCK) {
		bufadds(b, "{\"anthropic_version\":\"bedrock-2023-05-31\"");
	} else if (q->wire == VERTEX) {
		bufadds(b, "{\"anthropic_version\":\"vertex-2023-10-16\"");
	} else {
		bufadds(b, "{\"model\":");
		jsonescs(b, q->model);
	}
	bufaddf(b, ",\"max_tokens\":%ld", q->maxout +
	        (anthropicbudget(q) ? budgets[q->level] : 0));
	if (q->wire != BEDROCK)
		bufadds(b, ",\"stream\":true");
	else if (anthropicbeta(q))
		bufaddf(b, ",\"anthropic_beta\":[\"%s\"]",
		        strchr(anthropicbeta(q), ' ') + 1);
	anthropicoutput(q, b, anthropicthink(q, b));
	/* as pi marks them: the prompt, the tools, and the conversation up
	 * to its last user block are cached */
	bufadds(b, ",\"system\":[{\"type\":\"text\",\"text\":");
	jsonescs(b, q->system);
	wirecache(q, b);
	bufadds(b, "}]");
	wiretools(q, b, "{", "input_schema", "}", 1);
	bufadds(b, ",\"messages\":[");
	a.q = q;
	a.b = b;
	a.last = anthropiclast(q, f);
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind == FORMUSER) {
			anthropicowed(&a);
			anthropicblock(&a, &f[i], wb);
		} else if (f[i].kind == FORMANSWER) {
			anthropicowed(&a);
			anthropicclose(&a);
			if (f[i].len) {
				bufadds(b, a.nmsg++ ? "," : "");
				wireputform(wb, b, &f[i]);
			}
			wireowedadd(&a.o, &f[i]);
		} else if (f[i].kind == FORMRESULT &&
		           wireowedpaid(&a.o, f[i].result)) {
			anthropicblock(&a, &f[i], wb);	/* else refused */
		}
	}
	anthropicowed(&a);
	anthropicclose(&a);
	free(a.o.id);
	bufadds(b, "]}");
}

