/* See LICENSE file for copyright and license details. */
/* responses.c: OpenAI's Responses wire: a request in, its JSON body out
 * (the whole conversation as input items, nothing kept by the server);
 * the stream's output items in, pieces and the answer's parts out, as pi
 * stores them.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "responses.h"

/* The stream: output items by output_index, one after another (they do
 * not interleave); each becomes a part of the answer.  A reasoning item
 * keeps its whole JSON from output_item.done (encrypted_content and all)
 * as its part's signature, to go back as it came; a message keeps its id
 * (and phase) as pi's textSignature; a call's id is call_id|item id. */

/* A new part of the answer for output item idx (anthropic.c has the
 * like for its blocks). */
static Wirepart *
respnewpart(Wire *w, int kind, int idx)
{
	Wirepart *p;

	if (w->nparts >= 4096)	/* more items than any answer has */
		return NULL;
	w->parts = xrealloc(w->parts, (w->nparts + 1) * sizeof(*w->parts));
	p = &w->parts[w->nparts++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->block = idx;
	p->from = p->to = kind == PIECETEXT ? w->text.len : w->think.len;
	return p;
}

/* A part's item (a reasoning item's JSON, a message's id) is kept whole
 * or not at all, within maxkeep bytes for all the parts: a cut one would
 * be refused when it goes back. */
static void
respsig(Wire *w, Wirepart *p, const char *s, size_t n)
{
	if (p->sig.len || w->sigs + n > w->maxkeep)
		return;
	bufadd(&p->sig, s, n);
	w->sigs += n;
}

/* The part of output item idx, if it is the last one begun. */
static Wirepart *
resppart(Wire *w, int idx)
{
	Wirepart *p = w->nparts ? &w->parts[w->nparts - 1] : NULL;

	return p && p->block == idx ? p : NULL;
}

static Wirecall *
respcall(Wire *w, int idx)
{
	int i;

	for (i = w->ncalls - 1; i >= 0; i--)
		if (w->calls[i].block == idx)
			return &w->calls[i];
	return NULL;
}

/* A call's id as pi keeps it: call_id|item id. */
static void
respcallid(Buf *b, const Json *j, int item)
{
	bufreset(b);
	jsonstrbuf(j, jsonget(j, item, "call_id"), b);
	if (!b->len)
		return;
	bufaddc(b, '|');
	if (jsonstrbuf(j, jsonget(j, item, "id"), b) < 0 ||
	    b->p[b->len - 1] == '|')
		b->p[--b->len] = '\0';
}

static int
respadded(Wire *w, const Json *j, int item, int idx)
{
	int t = jsonget(j, item, "type"), rc = 0;
	Wirecall *c;
	Wirepart *p;

	if (jsoneq(j, t, "reasoning")) {
		respnewpart(w, PIECETHINK, idx);
	} else if (jsoneq(j, t, "message")) {
		respnewpart(w, PIECETEXT, idx);
	} else if (jsoneq(j, t, "function_call") &&
	           (c = wirecallat(w, w->ncalls))) {
		c->block = idx;
		respcallid(&c->id, j, item);
		wiresetstr(&c->name, j, jsonget(j, item, "name"));
		jsonstrbuf(j, jsonget(j, item, "arguments"), &c->args);
		rc = wirecalldelta(w, c - w->calls, (size_t)-1);
		if ((p = respnewpart(w, PIECECALL, idx)))
			p->call = c - w->calls;
	}
	return rc;
}

/* pi's thinking is the summaries joined by a blank line. */
static int
respsummary(Wire *w, int idx)
{
	Wirepart *p = resppart(w, idx);

	if (!p || p->kind != PIECETHINK || p->to == p->from)
		return 0;
	return wiredelta(w, PIECETHINK, "\n\n", 2);
}

/* The texts of an item that arrived done without its deltas: the
 * summaries of a reasoning item, or a message's text and refusals. */
static int
resplate(Wire *w, const Json *j, int item, int kind)
{
	const char *arr = kind == PIECETHINK ? "summary" : "content";
	int k, v, rc = 0, n = 0;

	for (k = jsonat(j, jsonget(j, item, arr), 0); k >= 0;
	     k = jsonnext(j, k)) {
		v = jsonget(j, k, "text");
		if (v < 0)
			v = jsonget(j, k, "refusal");
		if (v < 0 || j->t[v].type != JSTR)
			continue;
		if (kind == PIECETHINK && n++)
			rc |= wiredelta(w, PIECETHINK, "\n\n", 2);
		rc |= wirepiece(w, kind, j, v);
	}
	return rc;
}

/* pi's textSignature: {"v":1,"id":ID} and the phase, if any. */
static void
resptextsig(Wire *w, Wirepart *p, const Json *j, int item)
{
	Buf s = { 0 };
	int id = jsonget(j, item, "id"), ph = jsonget(j, item, "phase");

	if (id < 0 || j->t[id].type != JSTR)
		return;
	bufadds(&s, "{\"v\":1,\"id\":");
	jsonraw(&s, j, id);
	if (ph >= 0 && j->t[ph].type == JSTR) {
		bufadds(&s, ",\"phase\":");
		jsonraw(&s, j, ph);
	}
	bufaddc(&s, '}');
	respsig(w, p, s.p, s.len);
	buffree(&s);
}

/* output_item.done: the finished item is what counts. */
static int
respdone(Wire *w, const Json *j, int item, int idx)
{
	int t = jsonget(j, item, "type"), rc = 0, kind;
	Wirepart *p;
	Wirecall *c;
	Buf raw = { 0 };
	size_t had;

	if (!resppart(w, idx))	/* no output_item.added came */
		rc = respadded(w, j, item, idx);
	if (jsoneq(j, t, "function_call") && (c = respcall(w, idx))) {
		had = c->args.len;
		if (jsonget(j, item, "arguments") >= 0) {
			bufreset(&c->args);
			jsonstrbuf(j, jsonget(j, item, "arguments"),
			           &c->args);
		}
		return !had && c->args.len ?
		       rc | wirecalldelta(w, c - w->calls, 0) : rc;
	}
	kind = jsoneq(j, t, "reasoning") ? PIECETHINK : PIECETEXT;
	if (!(p = resppart(w, idx)) || p->kind != kind || p->sig.len)
		return rc;
	if (p->to == p->from)
		rc |= resplate(w, j, item, kind);
	p = resppart(w, idx);	/* the deltas may have moved the parts */
	if (kind == PIECETEXT) {
		resptextsig(w, p, j, item);
	} else {
		jsonraw(&raw, j, item);
		respsig(w, p, raw.p, raw.len);
		buffree(&raw);
	}
	return rc;
}

static void
respusage(Wire *w, const Json *j, int u)
{
	if (u < 0 || j->t[u].type != JOBJ)
		return;
	wirecount(j, jsonget(j, u, "input_tokens"), &w->in);
	wirecount(j, jsonget(j, u, "output_tokens"), &w->out);
	wirecount(j, jsonget(j, jsonget(j, u, "input_tokens_details"),
	          "cached_tokens"), &w->cached);
	wirecount(j, jsonget(j, jsonget(j, u, "output_tokens_details"),
	          "reasoning_tokens"), &w->reasoning);
}

/* A cut answer's calls are not run: their arguments may be cut too. */
static void
respdropcalls(Wire *w)
{
	int i, n = 0;

	for (i = 0; i < w->nparts; i++)
		if (w->parts[i].kind != PIECECALL)
			w->parts[n++] = w->parts[i];
	w->nparts = n;
	for (i = 0; i < w->ncalls; i++) {
		buffree(&w->calls[i].id);
		buffree(&w->calls[i].name);
		buffree(&w->calls[i].args);
	}
	w->ncalls = 0;
}

/* response.completed or response.incomplete: the end, with the usage
 * and (when incomplete) why. */
static void
respend(Wire *w, const Json *j, int resp)
{
	int st = jsonget(j, resp, "status"), why;

	respusage(w, j, jsonget(j, resp, "usage"));
	w->done = 1;
	if (!jsoneq(j, jsonget(j, 0, "type"), "response.incomplete") &&
	    !jsoneq(j, st, "incomplete")) {
		snprintf(w->finish, sizeof(w->finish), "%s",
		         w->ncalls ? "tool_calls" : "stop");
		return;
	}
	w->cut = 1;
	respdropcalls(w);
	why = jsonget(j, jsonget(j, resp, "incomplete_details"), "reason");
	if (jsoneq(j, why, "max_output_tokens") || why < 0 ||
	    j->t[why].type != JSTR)
		snprintf(w->finish, sizeof(w->finish), "length");
	else
		snprintf(w->finish, sizeof(w->finish), "%.*s",
		         j->t[why].end - j->t[why].start,
		         j->s + j->t[why].start);
}

/* An error in the stream: the error event, flat ({code, message}) as
 * documented or nested ({error: {...}}) as recorded, or the error of a
 * failed response.  What may pass is tried again, if nothing came. */
static int
resperror(Wire *w, const Json *j, int e)
{
	static const char *const again[] = {
		"server_error", "rate_limit_exceeded", "server_is_overloaded"
	};
	int code = jsonget(j, e, "code"), k;

	/* a nested error's type stands for a null code; the flat event's
	 * type is "error" itself */
	if ((code < 0 || j->t[code].type != JSTR) && e > 0)
		code = jsonget(j, e, "type");
	if (code >= 0 && j->t[code].type == JSTR &&
	    j->t[code].end > j->t[code].start) {
		jsonstrbuf(j, code, &w->err);
		bufadds(&w->err, ": ");
	}
	if (jsonstrbuf(j, jsonget(j, e, "message"), &w->err) < 0)
		bufadds(&w->err, "the response failed");
	for (k = 0; k < (int)LEN(again); k++)
		w->again |= jsoneq(j, code, again[k]);
	w->again &= !w->text.len && !w->think.len && !w->ncalls;
	return 1;
}

int
respevent(Wire *w, const char *data, size_t len)
{
	/* the many deltas need only the first two */
	static const char *const keys[] = {
		"type", "delta", "output_index", "item", "response", "error",
		"arguments"
	};
	Json *j = &w->json;
	int v[LEN(keys)], t, idx;
	double x = -1;
	Wirecall *c;
	size_t n;

	if (jsonreparse(j, data, len) < 0)
		return wirebadevent(w, data, len);
	jsonkeys(j, 0, keys, 2, v);
	t = v[0];
	if (jsoneq(j, t, "response.output_text.delta") ||
	    jsoneq(j, t, "response.refusal.delta"))
		return wirepiece(w, PIECETEXT, j, v[1]);
	if (jsoneq(j, t, "response.reasoning_summary_text.delta") ||
	    jsoneq(j, t, "response.reasoning_text.delta"))
		return wirepiece(w, PIECETHINK, j, v[1]);
	jsonkeys(j, 0, keys, LEN(keys), v);
	if (jsonnum(j, v[2], &x) < 0 || !(x >= 0 && x <= 4096))
		x = -1;
	idx = (int)x;
	if (jsoneq(j, t, "response.function_call_arguments.delta")) {
		if (!(c = respcall(w, idx)))
			return 0;
		n = c->args.len;
		jsonstrbuf(j, v[1], &c->args);
		return wirecalldelta(w, c - w->calls, n);
	}
	if (jsoneq(j, t, "response.function_call_arguments.done")) {
		if ((c = respcall(w, idx)) && v[6] >= 0) {
			bufreset(&c->args);
			jsonstrbuf(j, v[6], &c->args);
		}
		return 0;
	}
	if (jsoneq(j, t, "response.reasoning_summary_part.added"))
		return respsummary(w, idx);
	if (jsoneq(j, t, "response.output_item.added") && idx >= 0)
		return respadded(w, j, v[3], idx);
	if (jsoneq(j, t, "response.output_item.done") && idx >= 0)
		return respdone(w, j, v[3], idx);
	if (jsoneq(j, t, "response.completed") ||
	    jsoneq(j, t, "response.incomplete"))
		respend(w, j, v[4]);
	else if (jsoneq(j, t, "response.failed"))
		return resperror(w, j, jsonget(j, v[4], "error"));
	else if (jsoneq(j, t, "error"))
		return resperror(w, j, v[5] >= 0 &&
		                 j->t[v[5]].type == JOBJ ? v[5] : 0);
	return 0;
}

/* The answer as pi stores it: its parts in their order, the text's with
 * textSignature; -1 when the parts do not hold every byte (deltas that
 * came outside an item): stored merged. */
int
respstore(Buf *b, const Wire *w)
{
	const Wirepart *p;
	size_t text = 0, think = 0;
	int i, n = 0;

	for (i = 0; i < w->nparts; i++)
		if (w->parts[i].kind == PIECETEXT)
			text += w->parts[i].to - w->parts[i].from;
		else if (w->parts[i].kind == PIECETHINK)
			think += w->parts[i].to - w->parts[i].from;
	if (!w->nparts || text != w->text.len || think != w->think.len)
		return -1;
	for (i = 0; i < w->nparts; i++) {
		p = &w->parts[i];
		/* a reasoning item with no summary still goes back */
		if ((p->kind == PIECETEXT && p->to == p->from) ||
		    (p->kind == PIECETHINK && p->to == p->from && !p->sig.len))
			continue;
		bufadds(b, n++ ? "," : "");
		if (p->kind == PIECETHINK) {
			wirestorethink(b, bstr(&w->think) + p->from,
			               p->to - p->from, &p->sig);
		} else if (p->kind == PIECECALL) {
			wirestorecall(b, &w->calls[p->call]);
		} else {
			bufadds(b, "{\"type\":\"text\",\"text\":");
			jsonesc(b, w->text.p + p->from, p->to - p->from);
			if (p->sig.len) {
				bufadds(b, ",\"textSignature\":");
				jsonesc(b, p->sig.p, p->sig.len);
			}
			bufaddc(b, '}');
		}
	}
	return 0;
}

/* The request: the system prompt, then each stored message as input
 * items, as pi sends them (section 3 of the reference): a user's text
 * and images; an answer's reasoning items as they came, its texts as
 * message items with their ids, its calls as function_call items; a
 * result as function_call_output.  An answer of another wire or provider
 * goes back by pi's rules: its thinking as text, its call ids made
 * safe, no item ids. */

/* The call_id half of a stored call id, as the Responses API takes it:
 * [A-Za-z0-9_-], at most 64 bytes, as pi makes it.  A call and its
 * result map the same. */
static void
respcallpart(Buf *b, const char *id)
{
	char safe[65];
	size_t n = strcspn(id, "|"), i;

	for (i = 0; i < n && i < 64; i++)
		safe[i] = wireidchar((unsigned char)id[i]) ? id[i] : '_';
	safe[i] = '\0';
	jsonescs(b, safe);
}

/* An image block as an input_image part, a data URL. */
static void
respimage(Buf *b, const Json *j, int blk)
{
	Buf url = { 0 };

	bufadds(&url, "data:");
	jsonstrbuf(j, jsonget(j, blk, "mimeType"), &url);
	bufadds(&url, ";base64,");
	jsonstrbuf(j, jsonget(j, blk, "data"), &url);
	bufadds(b, "{\"type\":\"input_image\",\"detail\":\"auto\","
	        "\"image_url\":");
	jsonesc(b, url.p, url.len);
	bufaddc(b, '}');
	buffree(&url);
}

/* Content as input parts: its texts and images, or a note in an image's
 * place for a model that takes none. */
static void
respparts(Buf *b, const Json *j, int content, int images)
{
	Buf t = { 0 };
	int blk, ty, n = 0;

	bufaddc(b, '[');
	if (content >= 0 && j->t[content].type == JSTR) {
		bufadds(b, "{\"type\":\"input_text\",\"text\":");
		jsonraw(b, j, content);
		bufaddc(b, '}');
		n++;
	}
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		ty = jsonget(j, blk, "type");
		if (!jsoneq(j, ty, "text") && !jsoneq(j, ty, "image"))
			continue;
		bufadds(b, n++ ? "," : "");
		if (jsoneq(j, ty, "image") && images) {
			respimage(b, j, blk);
			continue;
		}
		bufreset(&t);
		if (jsoneq(j, ty, "text"))
			jsonstrbuf(j, jsonget(j, blk, "text"), &t);
		else
			bufadds(&t, "(image omitted: model does not support "
			        "images)");
		bufadds(b, "{\"type\":\"input_text\",\"text\":");
		jsonesc(b, bstr(&t), t.len);
		bufaddc(b, '}');
	}
	bufaddc(b, ']');
	buffree(&t);
}

/* A message item of an answer's text; id from the block's textSignature
 * ({"v":1,"id":..,"phase":..}, or the id alone as pi wrote it once), or
 * one made from the text, as the API wants one. */
static void
resptext(Buf *b, const Json *j, int blk, int text)
{
	Json s;
	Buf sig = { 0 }, id = { 0 }, phase = { 0 };
	unsigned long h = 5381;
	int k;

	jsonstrbuf(j, jsonget(j, blk, "textSignature"), &sig);
	if (sig.len && sig.p[0] == '{' && jsonparse(&s, sig.p, sig.len) == 0) {
		jsonstrbuf(&s, jsonget(&s, 0, "id"), &id);
		jsonstrbuf(&s, jsonget(&s, 0, "phase"), &phase);
		jsonfree(&s);
	} else if (sig.len) {
		bufadd(&id, sig.p, sig.len);
	}
	if (!id.len || id.len > 64) {
		bufreset(&id);
		for (k = j->t[text].start; k < j->t[text].end; k++)
			h = h * 33 + (unsigned char)j->s[k];
		bufaddf(&id, "msg_%08lx", h & 0xffffffffUL);
	}
	bufadds(b, ",{\"type\":\"message\",\"role\":\"assistant\","
	        "\"content\":[{\"type\":\"output_text\",\"text\":");
	jsonraw(b, j, text);
	bufadds(b, ",\"annotations\":[]}],\"status\":\"completed\",\"id\":");
	jsonesc(b, id.p, id.len);
	if (phase.len) {
		bufadds(b, ",\"phase\":");
		jsonesc(b, phase.p, phase.len);
	}
	bufaddc(b, '}');
	buffree(&sig);
	buffree(&id);
	buffree(&phase);
}

/* A reasoning item kept in a thinking block's signature, sent as it
 * is; 0 if the signature holds none.  One without encrypted_content (the
 * model reasoned unasked, at -T off) cannot go back: with store false
 * the server looks its id up and answers 404 "Item with id 'rs_...' not
 * found" (vercel/ai#7543). */
static int
respreasoning(Buf *b, const Json *j, int blk)
{
	Json s;
	Buf sig = { 0 };
	int ok, enc;

	jsonstrbuf(j, jsonget(j, blk, "thinkingSignature"), &sig);
	ok = sig.len && jsonparse(&s, sig.p, sig.len) == 0;
	if (ok) {
		enc = jsonget(&s, 0, "encrypted_content");
		ok = s.t[0].type == JOBJ &&
		     jsoneq(&s, jsonget(&s, 0, "type"), "reasoning") &&
		     enc >= 0 && s.t[enc].type == JSTR &&
		     s.t[enc].end > s.t[enc].start;
		jsonfree(&s);
	}
	if (ok) {
		bufaddc(b, ',');
		bufadd(b, sig.p, sig.len);
	}
	buffree(&sig);
	return ok;
}

static void
respcalled(Wireform *f, Buf *b, const Json *j, int blk, int mine)
{
	Buf args = { 0 };
	char *id = jsonstr(j, jsonget(j, blk, "id")), *item;

	if (!id)
		id = xstrdup("");
	bufadds(b, ",{\"type\":\"function_call\"");
	/* the item id is tied to the reasoning before it: only the same
	 * model's goes back */
	if (mine && (item = strchr(id, '|')) && item[1]) {
		bufadds(b, ",\"id\":");
		jsonescs(b, item + 1);
	}
	bufadds(b, ",\"call_id\":");
	respcallpart(b, id);
	bufadds(b, ",\"name\":");
	jsonraw(b, j, jsonget(j, blk, "name"));
	bufadds(b, ",\"arguments\":");
	jsonraw(&args, j, jsonget(j, blk, "arguments"));
	jsonesc(b, args.p ? args.p : "{}", args.p ? args.len : 2);
	bufaddc(b, '}');
	buffree(&args);
	wireformcall(f, id);
}

/* A stored answer as its items, in their order. */
static void
respanswer(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	int content = jsonget(j, 0, "content"), blk, ty, v, red, mine, same;

	mine = wireown(j, q, "openai-responses");
	same = jsoneq(j, jsonget(j, 0, "api"), "openai-responses") &&
	       (!q->provider ||
	        jsoneq(j, jsonget(j, 0, "provider"), q->provider));
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		ty = jsonget(j, blk, "type");
		if (jsoneq(j, ty, "toolCall")) {
			respcalled(f, b, j, blk, mine);
			continue;
		}
		if (jsoneq(j, ty, "thinking")) {
			/* a call's item id is tied to the reasoning
			 * before it: without it, none */
			if (same) {
				if (!respreasoning(b, j, blk))
					mine = 0;
				continue;
			}
			if (!jsonbool(j, jsonget(j, blk, "redacted"), &red) &&
			    red)
				continue;
			v = jsonget(j, blk, "thinking");
		} else if (jsoneq(j, ty, "text")) {
			v = jsonget(j, blk, "text");
		} else {
			continue;
		}
		if (v >= 0 && j->t[v].type == JSTR &&
		    j->t[v].end > j->t[v].start)
			resptext(b, j, blk, v);
	}
}

static void
respresult(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 };
	int content = jsonget(j, 0, "content");
	int img = wirehasimage(j, content);

	f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
	bufadds(b, ",{\"type\":\"function_call_output\",\"call_id\":");
	respcallpart(b, f->result ? f->result : "");
	bufadds(b, ",\"output\":");
	if (img && q->images) {
		respparts(b, j, content, 1);
	} else if (img || !wirerefer(f, b, j, content)) {
		jsontext(&text, j, content);
		if (img)
			bufadds(&text, "\n(tool image omitted: model does not "
			        "support images)");
		jsonesc(b, bstr(&text), text.len);
	}
	bufaddc(b, '}');
	buffree(&text);
}

/* One stored message as input items, each with its comma. */
void
respform(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	int role = jsonget(j, 0, "role");

	f->kind = jsoneq(j, role, "toolResult") ? FORMRESULT : FORMOTHER;
	if (jsoneq(j, role, "user")) {
		bufadds(b, ",{\"role\":\"user\",\"content\":");
		respparts(b, j, jsonget(j, 0, "content"), q->images);
		bufaddc(b, '}');
	} else if (jsoneq(j, role, "assistant") && wireanswered(j)) {
		respanswer(f, b, j, q);
	} else if (f->kind == FORMRESULT) {
		respresult(f, b, j, q);
	}
}

/* A call left without a result (an interrupted turn) still needs one:
 * the API refuses a call without its output. */
static void
respowed(Buf *b, Wireowed *o)
{
	int i;

	for (i = 0; i < o->n; i++) {
		bufadds(b, ",{\"type\":\"function_call_output\",\"call_id\":");
		respcallpart(b, o->id[i]);
		bufadds(b, ",\"output\":\"No result provided\"}");
	}
	o->n = 0;
}

/* Reasoning effort: xhigh and max are high, or, where the provider
 * takes xhigh (GPT-6), xhigh, and minimal low: GPT-6 Astra and 6.1 Sol
 * refuse none and minimal (models-now.md).  With it, the summaries (the
 * only thinking shown) and the encrypted reasoning, to go back with the
 * items since nothing is stored. */
static void
respthink(const Wirereq *q, Buf *b)
{
	int l = q->level;

	if (!wirethinks(q))
		return;
	if (l >= LEVELXHIGH)
		l = q->think == THXHIGH ? LEVELXHIGH : LEVELHIGH;
	if (l == LEVELMINIMAL && q->think == THXHIGH)
		l = LEVELLOW;
	bufaddf(b, ",\"reasoning\":{\"effort\":\"%s\",\"summary\":\"auto\"},"
	        "\"include\":[\"reasoning.encrypted_content\"]",
	        wirelevelname(l));
}

/* The body in pi's order of fields. */
void
respbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb)
{
	Wireowed o = { 0 };
	size_t i;

	bufadds(b, "{\"model\":");
	jsonescs(b, q->model);
	/* pi: a reasoning model's instructions are the developer's */
	bufaddf(b, ",\"input\":[{\"role\":\"%s\",\"content\":",
	        q->think != THNONE ? "developer" : "system");
	jsonescs(b, q->system);
	bufaddc(b, '}');
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind == FORMRESULT && !wireowedpaid(&o, f[i].result))
			continue;	/* of no call before it: refused */
		if (f[i].kind != FORMRESULT && f[i].kind != FORMNONE)
			respowed(b, &o);
		wireputform(wb, b, &f[i]);
		wireowedadd(&o, &f[i]);
	}
	respowed(b, &o);
	free(o.id);
	bufadds(b, "],\"stream\":true");
	if (q->cachekey) {
		bufadds(b, ",\"prompt_cache_key\":");
		jsonescs(b, q->cachekey);
	}
	bufaddf(b, ",\"store\":false,\"max_output_tokens\":%ld", q->maxout);
	if (q->schema)
		bufaddf(b, ",\"text\":{\"format\":{\"type\":\"json_schema\","
		        "\"name\":\"answer\",\"schema\":%s,\"strict\":%s}}",
		        q->schema, q->strict ? "true" : "false");
	wiretools(q, b, "{\"type\":\"function\",", "parameters",
	          ",\"strict\":false}", 0);
	respthink(q, b);
	bufaddc(b, '}');
}
