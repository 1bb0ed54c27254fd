/* See LICENSE file for copyright and license details. */
/* gemini.c: Google's Gemini (generateContent, streamed): the stream's
 * chunks in, pieces out; stored messages in, the request's body out,
 * as pi's google-generative-ai provider sends them.  No I/O. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "gemini.h"

/* The stream: each chunk a whole GenerateContentResponse, no [DONE];
 * candidates[0].content.parts hold text deltas (thought summaries marked
 * "thought": true) and whole functionCalls, any part may carry a
 * thoughtSignature, and the last chunk has the finishReason. */

/* A new part of the answer; NULL past a bound no answer reaches. */
static Wirepart *
geminiaddpart(Wire *w, int kind)
{
	Wirepart *p;

	if (w->nparts >= 4096)
		return NULL;
	w->parts = xrealloc(w->parts, (w->nparts + 1) * sizeof(*w->parts));
	p = &w->parts[w->nparts++];
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->from = p->to = kind == PIECETEXT ? w->text.len : w->think.len;
	return p;
}

/* A part's thoughtSignature (string token s): the last one of the parts
 * pi joins into one block is kept, as pi keeps it; whole or not at all
 * (a cut one would be refused), within maxkeep bytes for all. */
static void
geminisig(Wire *w, Wirepart *p, const Json *j, int s)
{
	Buf v = { 0 };

	if (!p || s < 0 || j->t[s].type != JSTR ||
	    j->t[s].end == j->t[s].start)
		return;
	jsonstrbuf(j, s, &v);
	w->sigs -= p->sig.len;
	bufreset(&p->sig);
	p->lost = w->sigs + v.len > w->maxkeep;
	if (!p->lost) {
		bufadd(&p->sig, v.p, v.len);
		w->sigs += v.len;
	}
	buffree(&v);
}

/* A text part: more of the last block of its kind, or a new one. */
static int
geminitext(Wire *w, const Json *j, int part, int text)
{
	Wirepart *p = w->nparts ? &w->parts[w->nparts - 1] : NULL;
	int thought, kind, rc;

	if (jsonbool(j, jsonget(j, part, "thought"), &thought) < 0)
		thought = 0;
	kind = thought ? PIECETHINK : PIECETEXT;
	if (!p || p->kind != kind)
		p = geminiaddpart(w, kind);
	rc = wirepiece(w, kind, j, text);
	geminisig(w, p, j, jsonget(j, part, "thoughtSignature"));
	return rc;
}

/* A functionCall part, whole.  Gemini gives no ids (the newest models
 * may): one missing or said twice is left empty, for agent to make up. */
static int
geminicall(Wire *w, const Json *j, int part, int fc)
{
	Wirecall *c;
	Wirepart *p;
	int a = jsonget(j, fc, "args"), k, i, rc;

	if (!(c = wirecallat(w, w->ncalls)))
		return 0;
	k = c - w->calls;
	wiresetstr(&c->id, j, jsonget(j, fc, "id"));
	for (i = 0; i < k && c->id.len; i++)
		if (!strcmp(bstr(&w->calls[i].id), bstr(&c->id)))
			bufreset(&c->id);
	wiresetstr(&c->name, j, jsonget(j, fc, "name"));
	if (a >= 0 && j->t[a].type == JOBJ)
		jsonraw(&c->args, j, a);
	else
		bufadds(&c->args, "{}");
	if ((p = geminiaddpart(w, PIECECALL))) {
		p->call = k;
		geminisig(w, p, j, jsonget(j, part, "thoughtSignature"));
	}
	if ((rc = wirecalldelta(w, k, (size_t)-1)))
		return rc;
	return wirecalldelta(w, k, 0);
}

static void
geminiusage(Wire *w, const Json *j, int u)
{
	long long c = 0, t = 0;

	if (u < 0 || j->t[u].type != JOBJ)
		return;
	wirecount(j, jsonget(j, u, "promptTokenCount"), &w->in);
	wirecount(j, jsonget(j, u, "cachedContentTokenCount"), &w->cached);
	wirecount(j, jsonget(j, u, "candidatesTokenCount"), &c);
	wirecount(j, jsonget(j, u, "thoughtsTokenCount"), &t);
	/* as pi counts: the thoughts are output too */
	w->out = c + t;
	w->reasoning = t;
}

/* A finish reason (string token v): STOP and MAX_TOKENS in OpenAI's
 * words; any other ends the answer as an error, said as Gemini says it
 * (the reason's name, its finishMessage), as pi ends it. */
static void
geministop(Wire *w, const Json *j, int cand, int v)
{
	static const char *const why[][2] = {
		{ "SAFETY", "the answer was stopped by the safety filters" },
		{ "RECITATION", "the answer was stopped as a recitation" },
		{ "PROHIBITED_CONTENT",
		  "the answer was stopped for prohibited content" },
		{ "BLOCKLIST", "the answer was stopped for a blocked term" },
		{ "SPII", "the answer was stopped for sensitive personal "
		  "information" },
		{ "MALFORMED_FUNCTION_CALL",
		  "the model made a malformed function call" },
	};
	size_t k;
	int m;

	if (jsoneq(j, v, "STOP")) {
		snprintf(w->finish, sizeof(w->finish), "%s",
		         w->ncalls ? "tool_calls" : "stop");
		return;
	}
	if (jsoneq(j, v, "MAX_TOKENS")) {
		snprintf(w->finish, sizeof(w->finish), "length");
		return;
	}
	snprintf(w->finish, sizeof(w->finish), "error");
	if (w->err.len)
		return;
	for (k = 0; k < LEN(why) && !jsoneq(j, v, why[k][0]); k++)
		;
	bufadds(&w->err, k < LEN(why) ? why[k][1] : "the model stopped");
	bufadds(&w->err, " (");
	jsonstrbuf(j, v, &w->err);
	bufadds(&w->err, ")");
	m = jsonget(j, cand, "finishMessage");
	if (m >= 0 && j->t[m].type == JSTR) {
		bufadds(&w->err, ": ");
		jsonstrbuf(j, m, &w->err);
	}
}

/* promptFeedback.blockReason (string token r): the prompt itself was
 * refused, before a word of answer. */
static int
geminiblocked(Wire *w, const Json *j, int fb, int r)
{
	int m = jsonget(j, fb, "blockReasonMessage");

	bufadds(&w->err, "the prompt was blocked (");
	jsonstrbuf(j, r, &w->err);
	bufadds(&w->err, ")");
	if (m >= 0 && j->t[m].type == JSTR) {
		bufadds(&w->err, ": ");
		jsonstrbuf(j, m, &w->err);
	}
	snprintf(w->finish, sizeof(w->finish), "error");
	return 1;
}

/* An error in the stream ({"error":{code, message, status}}): what may
 * pass is tried again, if nothing came. */
static int
geminierror(Wire *w, const Json *j, int e)
{
	int st = jsonget(j, e, "status");

	if (st >= 0 && j->t[st].type == JSTR) {
		jsonstrbuf(j, st, &w->err);
		bufadds(&w->err, ": ");
	}
	wireerror(&w->err, j, 0);
	w->again = !w->text.len && !w->think.len && !w->ncalls &&
	           (jsoneq(j, st, "UNAVAILABLE") ||
	            jsoneq(j, st, "RESOURCE_EXHAUSTED") ||
	            jsoneq(j, st, "INTERNAL"));
	return 1;
}

int
geminievent(Wire *w, const char *data, size_t len)
{
	static const char *const keys[] = {
		"candidates", "usageMetadata", "promptFeedback", "error"
	};
	Json *j = &w->json;
	int v[LEN(keys)], cand, parts, part, t, rc = 0;

	if (jsonreparse(j, data, len) < 0)
		return wirebadevent(w, data, len);
	jsonkeys(j, 0, keys, LEN(keys), v);
	if (v[3] >= 0)
		return geminierror(w, j, v[3]);
	geminiusage(w, j, v[1]);
	t = jsonget(j, v[2], "blockReason");
	if (t >= 0 && j->t[t].type == JSTR)
		return geminiblocked(w, j, v[2], t);
	cand = jsonat(j, v[0], 0);
	parts = jsonget(j, jsonget(j, cand, "content"), "parts");
	for (part = jsonat(j, parts, 0); part >= 0 && !rc;
	     part = jsonnext(j, part)) {
		if ((t = jsonget(j, part, "text")) >= 0 &&
		    j->t[t].type == JSTR)
			rc = geminitext(w, j, part, t);
		else if ((t = jsonget(j, part, "functionCall")) >= 0 &&
		         j->t[t].type == JOBJ)
			rc = geminicall(w, j, part, t);
	}
	if (rc)
		return rc;
	t = jsonget(j, cand, "finishReason");
	if (t >= 0 && j->t[t].type == JSTR)
		geministop(w, j, cand, t);
	return w->err.len ? 1 : 0;
}

/* The answer, as pi stores it */

/* The blocks in order, each with its part's thoughtSignature where pi
 * keeps it: textSignature, thinkingSignature, a call's
 * thoughtSignature; -1 when the parts do not hold them all. */
int
geministore(Buf *b, const Wire *w)
{
	const Wirepart *p;
	int i, n = 0;

	if (!wirewhole(w))
		return -1;
	for (i = 0; i < w->nparts; i++) {
		p = &w->parts[i];
		if (p->kind != PIECECALL && p->to == p->from && !p->sig.len)
			continue;
		bufadds(b, n++ ? "," : "");
		if (p->kind == PIECETHINK) {
			wirestorethink(b, bstr(&w->think) + p->from,
			               p->to - p->from, &p->sig);
			continue;
		}
		if (p->kind == PIECETEXT) {
			bufadds(b, "{\"type\":\"text\",\"text\":");
			jsonesc(b, bstr(&w->text) + p->from, p->to - p->from);
			bufaddc(b, '}');
		} else {
			wirestorecall(b, &w->calls[p->call]);
		}
		if (p->sig.len) {
			b->p[--b->len] = '\0';	/* its closing brace */
			bufadds(b, p->kind == PIECETEXT ? ",\"textSignature\":"
			        : ",\"thoughtSignature\":");
			jsonesc(b, p->sig.p, p->sig.len);
			bufaddc(b, '}');
		}
	}
	return 0;
}

/* The request */

/* How a model takes thinking, by its name as pi tells: 'p' a Gemini 3
 * Pro, 'f' a Gemini 3 Flash (both a thinkingLevel), 'b' a Gemini 2.5 (a
 * thinkingBudget), 0 another. */
static int
geminigen(const char *m)
{
	const char *s = strstr(m, "gemini-3");

	if (!s)
		return strstr(m, "gemini-2.5") ? 'b' : 0;
	s += 8;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			;
	if (!strncmp(s, "-pro", 4))
		return 'p';
	return strncmp(s, "-flash", 6) ? 0 : 'f';
}

/* Whether a tool result's images go inside its functionResponse: Gemini
 * 3 and later take them there; older Geminis get them in a user content
 * of their own. */
static int
geminimultimodal(const char *m)
{
	if (strncmp(m, "gemini-", 7))
		return 1;
	m += 7;
	if (!strncmp(m, "live-", 5))
		m += 5;
	return !(*m >= '0' && *m <= '2' && (m[1] < '0' || m[1] > '9'));
}

/* generationConfig's thinkingConfig, pi's: a level for Gemini 3 (Pro
 * knows LOW and HIGH alone), pi's budgets for 2.5, -1 (the model's own
 * choice) for the rest; xhigh and max as high.  Off asks Gemini 3 for
 * its least (it cannot stop thinking), 2.5 for none (but 2.5 Pro, which
 * refuses it), and nothing of the rest. */
static void
geminithink(const Wirereq *q, Buf *b)
{
	static const char *const pro[] = {
		"", "LOW", "LOW", "HIGH", "HIGH", "HIGH", "HIGH"
	};
	static const char *const flash[] = {
		"", "MINIMAL", "LOW", "MEDIUM", "HIGH", "HIGH", "HIGH"
	};
	static const long budget[] = {
		0, 128, 2048, 8192, 24576, 24576, 24576
	};
	int g = geminigen(q->model), l = q->level;
	long n = -1;

	if (q->think == THNONE)
		return;
	if (!wirethinks(q)) {
		if (g == 'p' || g == 'f')
			bufaddf(b, ",\"thinkingConfig\":{\"thinkingLevel\":"
			        "\"%s\"}", g == 'p' ? "LOW" : "MINIMAL");
		else if (g == 'b' && !strstr(q->model, "2.5-pro"))
			bufadds(b, ",\"thinkingConfig\":{\"thinkingBudget\":0}");
		return;
	}
	bufadds(b, ",\"thinkingConfig\":{\"includeThoughts\":true,");
	if (g == 'p' || g == 'f') {
		bufaddf(b, "\"thinkingLevel\":\"%s\"}",
		        g == 'p' ? pro[l] : flash[l]);
		return;
	}
	if (g == 'b') {
		n = budget[l];
		if (strstr(q->model, "2.5-pro") && l >= LEVELHIGH)
			n = 32768;
		else if (strstr(q->model, "flash-lite") && l == LEVELMINIMAL)
			n = 512;
	}
	bufaddf(b, "\"thinkingBudget\":%ld}", n);
}

/* Whether string token i is a thoughtSignature Google takes: base64,
 * its length a multiple of 4 (pi sends no other). */
static int
geminib64(const Json *j, int i)
{
	const char *s;
	int n, k, pad = 0;
	char c;

	if (i < 0 || j->t[i].type != JSTR)
		return 0;
	s = j->s + j->t[i].start;
	n = j->t[i].end - j->t[i].start;
	if (!n || n % 4)
		return 0;
	for (k = 0; k < n; k++) {
		c = s[k];
		if (c == '=' && k >= n - 2)
			pad = 1;
		else if (pad || !((c >= 'A' && c <= 'Z') ||
		         (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		         c == '+' || c == '/'))
			return 0;
	}
	return 1;
}

/* A part's thoughtSignature, from string token sig, when it goes. */
static void
geminiputsig(Buf *b, const Json *j, int sig, int mine)
{
	if (!mine || !geminib64(j, sig))
		return;
	bufadds(b, ",\"thoughtSignature\":");
	jsonraw(b, j, sig);
}

/* An answer's call: the part, and the call it opens, kept as its id and
 * then its name after the id's NUL (a result owed to it needs the name:
 * Gemini matches results to calls by name). */
static void
geminifc(Wireform *f, Buf *b, const Json *j, int blk, int mine)
{
	int v = jsonget(j, blk, "arguments");
	char *id = jsonstr(j, jsonget(j, blk, "id"));
	char *name = jsonstr(j, jsonget(j, blk, "name")), *both;
	size_t n;

	bufadds(b, "{\"functionCall\":{\"name\":");
	jsonescs(b, name ? name : "");
	bufadds(b, ",\"args\":");
	if (v >= 0 && j->t[v].type == JOBJ)
		jsonraw(b, j, v);
	else
		bufadds(b, "{}");
	bufaddc(b, '}');
	geminiputsig(b, j, jsonget(j, blk, "thoughtSignature"), mine);
	bufaddc(b, '}');
	n = id ? strlen(id) : 0;
	both = xmalloc(n + (name ? strlen(name) : 0) + 2);
	memcpy(both, id ? id : "", n + 1);
	strcpy(both + n + 1, name ? name : "");
	wireformcall(f, both);
	free(id);
	free(name);
}

/* A stored answer as a "model" content, its blocks in order as pi sends
 * them: thinking as thought parts to the model that thought it, as text
 * to another; the signatures to their own model alone. */
static void
geminimodel(Wireform *f, Buf *out, const Json *j, const Wirereq *q)
{
	Buf parts = { 0 }, *b = &parts;
	int content = jsonget(j, 0, "content"), blk, t, v, red;
	int mine = wireown(j, q, "google-generative-ai");

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		if (jsoneq(j, t, "toolCall")) {
			bufadds(b, b->len ? "," : "");
			geminifc(f, b, j, blk, mine);
			continue;
		}
		if (jsoneq(j, t, "text"))
			v = jsonget(j, blk, "text");
		else if (jsoneq(j, t, "thinking") &&
		         (jsonbool(j, jsonget(j, blk, "redacted"), &red) < 0 ||
		          !red || mine))
			v = jsonget(j, blk, "thinking");
		else
			continue;
		if (wireblank(j, v))
			continue;
		bufadds(b, b->len ? "," : "");
		bufadds(b, jsoneq(j, t, "thinking") && mine ?
		        "{\"thought\":true,\"text\":" : "{\"text\":");
		jsonraw(b, j, v);
		geminiputsig(b, j, jsonget(j, blk, jsoneq(j, t, "text") ?
		             "textSignature" : "thinkingSignature"), mine);
		bufaddc(b, '}');
	}
	if (parts.len) {
		bufadds(out, "{\"role\":\"model\",\"parts\":[");
		bufadd(out, parts.p, parts.len);
		bufadds(out, "]}");
	}
	buffree(&parts);
}

/* An image block as an inlineData part. */
static void
geminiimage(Buf *b, const Json *j, int blk)
{
	bufadds(b, "{\"inlineData\":{\"mimeType\":");
	jsonraw(b, j, jsonget(j, blk, "mimeType"));
	bufadds(b, ",\"data\":");
	jsonraw(b, j, jsonget(j, blk, "data"));
	bufadds(b, "}}");
}

/* A user message's content as parts: its texts as they are and its
 * images, or for a model that takes none, pi's note in their place. */
static void
geminiparts(Buf *b, const Json *j, int content, int images)
{
	size_t start = b->len;
	int blk, t;

	if (content >= 0 && j->t[content].type == JSTR) {
		bufadds(b, "{\"text\":");
		jsonraw(b, j, content);
		bufaddc(b, '}');
		return;
	}
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		t = jsonget(j, blk, "type");
		if (!jsoneq(j, t, "text") && !jsoneq(j, t, "image"))
			continue;
		bufadds(b, b->len > start ? "," : "");
		if (jsoneq(j, t, "image") && images) {
			geminiimage(b, j, blk);
		} else if (jsoneq(j, t, "image")) {
			bufadds(b, "{\"text\":\"(image omitted: model does "
			        "not support images)\"}");
		} else {
			bufadds(b, "{\"text\":");
			jsonraw(b, j, jsonget(j, blk, "text"));
			bufaddc(b, '}');
		}
	}
}

/* A result's images as inlineData parts, each after a comma. */
static void
geminiresultimages(Buf *b, const Json *j, int content)
{
	int blk;

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		if (!jsoneq(j, jsonget(j, blk, "type"), "image"))
			continue;
		bufaddc(b, ',');
		geminiimage(b, j, blk);
	}
}

/* A tool result as a functionResponse part, as pi sends it: its texts
 * joined by newlines as output (error, if it failed), its images inside
 * it for Gemini 3, else (f->imgs) in a user content after it. */
static void
geminiresult(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	Buf text = { 0 }, im = { 0 };
	int content = jsonget(j, 0, "content"), blk, err, img, n = 0;

	f->result = jsonstr(j, jsonget(j, 0, "toolCallId"));
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		n += jsoneq(j, jsonget(j, blk, "type"), "text");
	img = q->images && wirehasimage(j, content);
	if (jsonbool(j, jsonget(j, 0, "isError"), &err) < 0)
		err = 0;
	bufadds(b, "{\"functionResponse\":{\"name\":");
	jsonraw(b, j, jsonget(j, 0, "toolName"));
	bufaddf(b, ",\"response\":{\"%s\":", err ? "error" : "output");
	/* one text is sent from the message itself, as it stands there;
	 * several go joined by newlines */
	if (img || n > 1 || !wirerefer(f, b, j, content)) {
		if (jsonstrbuf(j, content, &text) < 0)
			for (blk = jsonat(j, content, 0); blk >= 0;
			     blk = jsonnext(j, blk)) {
				if (!jsoneq(j, jsonget(j, blk, "type"), "text"))
					continue;
				bufadds(&text, blk == jsonat(j, content, 0) ?
				        "" : "\n");
				jsonstrbuf(j, jsonget(j, blk, "text"), &text);
			}
		jsonescs(b, text.len || !img ? bstr(&text) :
		         "(see attached image)");
	}
	bufaddc(b, '}');
	if (img && geminimultimodal(q->model)) {
		bufadds(b, ",\"parts\":[");
		geminiresultimages(&im, j, content);
		bufadds(b, im.p + 1);
		bufaddc(b, ']');
	} else if (img) {
		bufadds(&im, "{\"role\":\"user\",\"parts\":[{\"text\":"
		        "\"Tool result image:\"}");
		geminiresultimages(&im, j, content);
		bufadds(&im, "]}");
		f->imglen = im.len;
		f->imgs = bufdetach(&im);
	}
	bufadds(b, "}}");
	buffree(&text);
	buffree(&im);
}

/* One stored message for Gemini: a user's words as a user content, an
 * answer as a model content, a result as a functionResponse part (the
 * body puts a round's results in one user content). */
void
geminiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q)
{
	int role = jsonget(j, 0, "role"), content = jsonget(j, 0, "content");
	size_t start;

	if (jsoneq(j, role, "user")) {
		bufadds(b, "{\"role\":\"user\",\"parts\":[");
		start = b->len;
		geminiparts(b, j, content, q->images);
		if (b->len == start) {	/* pi sends no empty content */
			bufreset(b);
			return;
		}
		f->kind = FORMUSER;
		bufadds(b, "]}");
	} else if (jsoneq(j, role, "assistant") && wireanswered(j)) {
		f->kind = FORMANSWER;
		geminimodel(f, b, j, q);
	} else if (jsoneq(j, role, "toolResult")) {
		f->kind = FORMRESULT;
		geminiresult(f, b, j, q);
	}
}

/* The contents, from the forms: the results of a round, and those owed,
 * go back as parts of one user content, which stays open for more. */
typedef struct {
	Buf *b;
	int n;			/* contents written */
	int open;		/* a user content of results is open */
	Wireowed o;
} Gemini;

static void
geminiclose(Gemini *g)
{
	if (g->open)
		bufadds(g->b, "]}");
	g->open = 0;
}

/* A part of the open user content of results, opening one if need be. */
static void
geminiopen(Gemini *g)
{
	if (g->open) {
		bufaddc(g->b, ',');
		return;
	}
	bufadds(g->b, g->n++ ? "," : "");
	bufadds(g->b, "{\"role\":\"user\",\"parts\":[");
	g->open = 1;
}

/* A whole content. */
static void
geminicontent(Gemini *g, const char *p, size_t n)
{
	geminiclose(g);
	bufadds(g->b, g->n++ ? "," : "");
	bufadd(g->b, p, n);
}

/* Calls left without a result get one, as pi gives them. */
static void
geminiowed(Gemini *g)
{
	int i;

	for (i = 0; i < g->o.n; i++) {
		geminiopen(g);
		bufadds(g->b, "{\"functionResponse\":{\"name\":");
		jsonescs(g->b, g->o.id[i] + strlen(g->o.id[i]) + 1);
		bufadds(g->b, ",\"response\":{\"error\":\"No result "
		        "provided\"}}}");
	}
	g->o.n = 0;
}

void
geminibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb)
{
	Gemini g = { 0 };
	Buf t = { 0 };
	size_t i;

	g.b = b;
	bufadds(b, "{\"contents\":[");
	for (i = 0; i < q->nmsgs; i++) {
		if (f[i].kind == FORMUSER || f[i].kind == FORMANSWER) {
			geminiowed(&g);
			if (f[i].len)
				geminicontent(&g, f[i].text, f[i].len);
			if (f[i].kind == FORMANSWER)
				wireowedadd(&g.o, &f[i]);
		} else if (f[i].kind == FORMRESULT &&
		           wireowedpaid(&g.o, f[i].result)) {
			geminiopen(&g);	/* else of no call before it */
			wireputform(wb, b, &f[i]);
			if (f[i].imgs)
				geminicontent(&g, f[i].imgs, f[i].imglen);
		}
	}
	geminiowed(&g);
	geminiclose(&g);
	free(g.o.id);
	bufadds(b, "],\"systemInstruction\":{\"parts\":[{\"text\":");
	jsonescs(b, q->system);
	bufadds(b, "}]}");
	/* parametersJsonSchema takes JSON Schema whole, as pi sends it:
	 * parameters would take only OpenAPI's subset */
	wiretools(q, &t, "{", "parametersJsonSchema", "}", 0);
	if (t.len) {
		bufadds(b, ",\"tools\":[{\"functionDeclarations\":");
		bufadds(b, t.p + strlen(",\"tools\":"));
		bufadds(b, "}]");
	}
	buffree(&t);
	bufadds(b, ",\"generationConfig\":{");
	bufaddf(b, "\"maxOutputTokens\":%ld", q->maxout);
	geminithink(q, b);
	bufadds(b, "}}");
}
