/* See LICENSE file for copyright and license details. */
/* openai.c: OpenAI's chat completions, the wire of every compatible
 * server: the stream's events in, pieces out; stored messages in, the
 * request's body out.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "openai.h"

/* The stream */

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

int
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
		rc |= wirepiece(w, PIECETHINK, j, v[k]);
		break;
	}
	rc |= wirepiece(w, PIECETEXT, j, v[3]);
	if (v[4] >= 0)
		rc |= openaicalls(w, j, v[4]);
	return rc;
}

/* OpenAI-compatible thinking fields: xhigh and max are high, or, where
 * the provider takes xhigh (GPT-6), xhigh, and minimal low: GPT-6 Astra
 * and 6.1 Sol refuse none and minimal (models-now.md). */
static void
openaithink(const Wirereq *q, Buf *b)
{
	int l = q->level;

	if (!wirethinks(q) || q->think == THANTHROPIC)
		return;
	if (l >= LEVELXHIGH)
		l = q->think == THXHIGH ? LEVELXHIGH : LEVELHIGH;
	if (l == LEVELMINIMAL && q->think == THXHIGH)
		l = LEVELLOW;
	if (q->think == THROUTER)
		bufaddf(b, ",\"reasoning\":{\"effort\":\"%s\"}",
		        wirelevelname(l));
	else
		bufaddf(b, ",\"reasoning_effort\":\"%s\"", wirelevelname(l));
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
			wiretextpart(b, j, jsonget(j, blk, "text"));
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
		if (jsoneq(j, t, "text") && !wireblank(j, v))
			jsonstrbuf(j, v, &text);
		if (!jsoneq(j, t, "thinking") ||
		    wireblank(j, v = jsonget(j, blk, "thinking")) ||
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
void
openaiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 };
	int role = jsonget(j, 0, "role"), content = jsonget(j, 0, "content");

	f->kind = jsoneq(j, role, "toolResult") ? FORMRESULT : FORMOTHER;
	if (jsoneq(j, role, "user") && wirehasimage(j, content)) {
		openaiparts(b, j, content, q->images);
	} else if (jsoneq(j, role, "user")) {
		bufadds(b, ",{\"role\":\"user\",\"content\":");
		f->mark = b->len;
		if (!wirerefer(f, b, j, content)) {
			jsontext(&text, j, content);
			jsonesc(b, bstr(&text), text.len);
		}
		bufadds(b, "}");
	} else if (jsoneq(j, role, "assistant") && wireanswered(j)) {
		openaianswer(f, b, j, q);
	} else if (f->kind == FORMRESULT) {
		f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		openaiid(b, f->result ? f->result : "");
		bufadds(b, ",\"content\":");
		f->mark = b->len;
		if (wirehasimage(j, content)) {
			jsontext(&text, j, content);
			openairesultimages(q, f, &text, j, content);
			jsonesc(b, bstr(&text), text.len);
		} else if (!wirerefer(f, b, j, content)) {
			jsontext(&text, j, content);
			jsonesc(b, bstr(&text), text.len);
		}
		bufadds(b, "}");
	}
	buffree(&text);
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

/* Whether the request carries cache marks: OpenRouter passes them on to
 * Claude models, which cache nothing without them (models-now.md). */
static int
openaimarks(const Wirereq *q)
{
	return q->think == THROUTER && strstr(q->model, "claude");
}

/* Form f with its content, a string, as a text part with a cache mark,
 * as pi marks the last user block for OpenRouter's Claude. */
static void
openaimarked(const Wirereq *q, Buf *b, const Wireform *f)
{
	Buf t = { 0 };

	wireputform(NULL, &t, f);
	bufadd(b, t.p, f->mark);
	bufadds(b, "[{\"type\":\"text\",\"text\":");
	bufadd(b, t.p + f->mark, t.len - f->mark - 1);
	wirecache(q, b);
	bufadds(b, "}]}");
	buffree(&t);
}

/* The system prompt, marked for the cache where it takes marks. */
static void
openaisystem(const Wirereq *q, Buf *b, int marks)
{
	bufadds(b, ",\"messages\":[{\"role\":\"system\",\"content\":");
	if (marks)
		bufadds(b, "[{\"type\":\"text\",\"text\":");
	jsonescs(b, q->system);
	if (marks) {
		wirecache(q, b);
		bufadds(b, "}]");
	}
	bufadds(b, "}");
}

void
openaibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb)
{
	Wireowed o = { 0 };
	Buf imgs = { 0 };
	size_t i, last = q->nmsgs;
	int marks = openaimarks(q);

	bufadds(b, "{\"model\":");
	jsonescs(b, q->model);
	openaisystem(q, b, marks);
	for (i = 0; marks && i < q->nmsgs; i++)
		if (f[i].mark && f[i].len)
			last = i;
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind == FORMRESULT && !wireowedpaid(&o, f[i].result))
			continue;	/* of no call before it: refused */
		if (f[i].kind != FORMRESULT && f[i].kind != FORMNONE) {
			openaiowed(b, &o);
			openaiattach(b, &imgs);
		}
		if (i == last)
			openaimarked(q, b, &f[i]);
		else
			wireputform(wb, b, &f[i]);
		wireowedadd(&o, &f[i]);
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
	if (q->schema)
		bufaddf(b, ",\"response_format\":{\"type\":\"json_schema\","
		        "\"json_schema\":{\"name\":\"answer\",\"schema\":%s,"
		        "\"strict\":%s}}", q->schema,
		        q->strict ? "true" : "false");
	wiretools(q, b, "{\"type\":\"function\",\"function\":{",
	          "parameters", "}}", marks);
	bufadds(b, "}");
}

