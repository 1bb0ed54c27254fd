/* See LICENSE file for copyright and license details. */
/* agent.c: main, flags, the line interface, approvals, the turn loop, the
 * provider adapters (OpenAI chat completions, Anthropic messages) and the
 * context built from the session. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "agent.h"

enum { OPENAI, ANTHROPIC };	/* the wires a provider may speak */

typedef struct {
	const char *name;
	int wire;
	const char *url;	/* base URL, without the endpoint */
	const char *keyenv;	/* variable holding the key; NULL: none needed */
	const char *model;	/* default model; NULL: -m is required */
	long context;		/* context window, tokens */
	long maxout;		/* output tokens asked for */
	const char *maxfield;	/* the request field naming maxout */
} Provider;

#include "config.h"

typedef struct {
	char **v;		/* messages as pi stores them: JSON texts */
	size_t n, cap;
} Msgs;

typedef struct {
	Buf id, name, args;	/* arguments arrive in pieces */
	int block;		/* Anthropic: the content block it came in */
} Call;

/* What one model call streamed back. */
typedef struct {
	Buf text, think;	/* kept for the conversation, up to maxkeep */
	Buf sig;		/* Anthropic: the thinking block's signature */
	Call *calls;
	int ncalls;
	char finish[32];	/* finish_reason */
	long long in, out, cached;	/* in counts the cache too */
	long long cachewrite;
	int done;		/* data: [DONE] seen */
	int atend;		/* the connection closed: events are flushed */
	int again;		/* an error in the stream that a retry may mend */
	int overflow;		/* the provider says the context is too long */
	int dropped;		/* calls past maxcalls were left out */
	Buf err;		/* an error body, or an error from the stream */
	Http *http;
	Sse sse;
	struct Agent *a;
} Reply;

typedef struct Agent {
	const Provider *prov;
	const char *model, *url;
	char *key;
	int quiet, yes;
	int json;		/* -j: events on stdout instead of text */
	int silent;		/* an answer for us, not the user: a summary */
	long maxout;		/* output tokens asked for */
	size_t compactat;	/* msgs before this have pre-compaction usage */
	const Tool *offer[LEN(tools)];
	int noffer;
	int always[LEN(tools)];	/* 'a' answered: no more asking */
	Httpclient *http;
	Toolenv tenv;
	const char **scrub;
	Msgs msgs;		/* the context: the session's branch */
	Session sess;
	int modelnoted;		/* a model_change is on the branch */
	int ioerr;		/* the session file could not be written */
	char *system;
	int color;
	int ttyout;		/* stdout is read by a person: end lines */
	int ttyesc;		/* stdout is a terminal: the answer's control
				 * characters are shown, not obeyed */
	int lastc;		/* last byte written to stdout, -1 none */
	int thinking;		/* thinking is being shown on stderr */
	int textseen;		/* stdout has text from an earlier message */
	int nids;		/* ids made up for calls that came without */
	long long turnin, turnout, turncached;
} Agent;

extern char **environ;

static int compact(Agent *a, const char *why, const char *focus);
static long contexttokens(const Agent *a);
static long reserve(const Agent *a);

static volatile sig_atomic_t intr;	/* SIGINT came: stop the turn */
static volatile sig_atomic_t toolpg;	/* the running bash group, or 0 */
static volatile sig_atomic_t quitsig;	/* SIGTERM or SIGHUP came: stop the
					 * turn, then leave */

/* A signal stops the turn: the tool group gets TERM, a grace, then
 * KILL, and the session is synced on the way out; after SIGTERM or
 * SIGHUP we then leave.  A second Ctrl-C does not wait.  A second TERM
 * does not hurry us: timeout(1) and process managers send it to the
 * whole group, so it often comes twice. */
static void
onsignal(int sig)
{
	if (sig != SIGINT) {
		quitsig = sig;
	} else if (intr) {
		if (toolpg > 0)
			kill(-toolpg, SIGKILL);
		_exit(128 + (quitsig ? quitsig : sig));
	}
	intr = 1;
}

/* The exit status: 128 and the signal when one asked us to quit. */
static int
status(int rc)
{
	return quitsig ? 128 + quitsig : rc;
}

static void
usage(void)
{
	fputs("usage: agent [-cnqyjv] [-s file] [-f file] [-P provider] "
	      "[-m model] [-t tools] [prompt ...]\n", stderr);
	exit(2);
}

static const char *
color(Agent *a, const char *code)
{
	return a->color ? code : "";
}

static const char *
bstr(const Buf *b)
{
	return b->p ? b->p : "";
}

/* Text from the model, made safe for a terminal: control characters
 * (an escape sequence could hide what is asked) shown as \xNN, newlines
 * and tabs kept unless oneline. */
static void
safetext(Buf *b, const char *s, size_t n, int oneline)
{
	Buf v = { 0 };
	size_t i;
	unsigned char c, d;

	utf8repair(&v, s, n);
	for (i = 0; i < v.len; i++) {
		c = v.p[i];
		d = i + 1 < v.len ? (unsigned char)v.p[i + 1] : 0;
		if (c == '\n' || c == '\t')
			bufaddc(b, oneline ? ' ' : c);
		else if (c < 0x20 || c == 0x7f)
			bufaddf(b, "\\x%02x", c);
		else if (c == 0xc2 && d >= 0x80 && d <= 0x9f)
			bufaddf(b, "\\u%04x", d), i++;	/* C1 controls */
		else
			bufaddc(b, c);
	}
	buffree(&v);
}

static void
msgadd(Msgs *m, char *json)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 16;
		m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
	}
	m->v[m->n++] = json;
}

/* A message joins the context and, at once, the session file. */
static void
record(Agent *a, char *json)
{
	Buf f = { 0 };

	bufadds(&f, "\"message\":");
	bufadds(&f, json);
	if (sessappend(&a->sess, "message", f.p) < 0)
		a->ioerr = 1;
	buffree(&f);
	msgadd(&a->msgs, json);
}

/* The session says which model answered, as pi's do, when it changes. */
static void
notemodel(Agent *a)
{
	Buf f = { 0 };

	if (a->modelnoted)
		return;
	bufadds(&f, "\"provider\":");
	jsonescs(&f, a->prov->name);
	bufadds(&f, ",\"modelId\":");
	jsonescs(&f, a->model);
	if (sessappend(&a->sess, "model_change", f.p) < 0)
		a->ioerr = 1;
	buffree(&f);
	a->modelnoted = 1;
}

static void
msgsfree(Msgs *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		free(m->v[i]);
	free(m->v);
}

/* Text to stdout at once.  A reader that went away ends us quietly. */
static void
out(Agent *a, const char *p, size_t n)
{
	int err;

	if (!n)
		return;
	if (writeall(1, p, n) < 0) {
		err = errno;
		toolcleanup(&a->tenv);
		if (err == EPIPE)
			exit(0);
		errno = err;
		die("write stdout:");
	}
	a->lastc = (unsigned char)p[n - 1];
}

/* -j: one event a line on stdout, as pi's json mode writes them; fields
 * is a JSON fragment or NULL. */
static void
emit(Agent *a, const char *type, const char *fields)
{
	Buf b = { 0 };

	if (!a->json)
		return;
	bufadds(&b, "{\"type\":");
	jsonescs(&b, type);
	if (fields && *fields) {
		bufaddc(&b, ',');
		bufadds(&b, fields);
	}
	bufadds(&b, "}\n");
	out(a, b.p, b.len);
	buffree(&b);
}

/* -j: a message's start and end, for a message that is whole at once. */
static void
emitmsg(Agent *a, const char *json, int start)
{
	Buf f = { 0 };

	if (!a->json)
		return;
	bufadds(&f, "\"message\":");
	bufadds(&f, json);
	if (start)
		emit(a, "message_start", f.p);
	emit(a, "message_end", f.p);
	buffree(&f);
}

/* -j: the end of an answer that failed before any of it came. */
static void
emitfailed(Agent *a, const char *stop)
{
	Buf f = { 0 };

	bufaddf(&f, "\"message\":{\"role\":\"assistant\",\"content\":[],"
	        "\"stopReason\":\"%s\"}", stop);
	emit(a, "message_end", f.p);
	buffree(&f);
}

/* -j: a piece of the answer as it streams. */
static void
emitdelta(Agent *a, const char *kind, const char *p, size_t n)
{
	Buf f = { 0 };

	bufaddf(&f, "\"assistantMessageEvent\":{\"type\":\"%s\","
	        "\"delta\":", kind);
	jsonesc(&f, p, n);
	bufadds(&f, "}");
	emit(a, "message_update", f.p);
	buffree(&f);
}

/* Before a trace or a message on a terminal: finish the answer's line. */
static void
endline(Agent *a)
{
	if (a->ttyout && a->textseen && a->lastc != '\n')
		out(a, "\n", 1);
}

static void
endthinking(Agent *a)
{
	if (a->thinking)
		fprintf(stderr, "%s\n", color(a, "\033[0m"));
	a->thinking = 0;
}

/* Keep up to maxkeep bytes of a streamed text, never cutting a character:
 * the rest was shown but is not remembered. */
static void
keep(Buf *b, const char *p, size_t n)
{
	size_t room;

	if (b->len >= maxkeep)
		return;
	room = maxkeep - b->len;
	if (n > room)
		n = utf8back(p, room);
	bufadd(b, p, n);
}

static void
showtext(Reply *r, const char *p, size_t n)
{
	Agent *a = r->a;
	Buf show = { 0 };
	int first = !r->text.len;

	if (!n)
		return;
	keep(&r->text, p, n);
	if (a->silent)
		return;
	if (a->json) {
		emitdelta(a, "text_delta", p, n);
		return;
	}
	endthinking(a);
	if (first && a->textseen && a->lastc != '\n')
		out(a, "\n", 1);
	if (a->ttyesc) {
		/* a model could hide lines, or set the window title and
		 * the clipboard (OSC 0, OSC 52) */
		safetext(&show, p, n, 0);
		out(a, show.p, show.len);
		buffree(&show);
	} else {
		out(a, p, n);
	}
	a->textseen = 1;
}

static void
showthink(Reply *r, const char *p, size_t n)
{
	Agent *a = r->a;
	Buf show = { 0 };

	if (!n)
		return;
	if (a->silent) {
		;
	} else if (a->json) {
		emitdelta(a, "thinking_delta", p, n);
	} else if (!a->quiet) {
		if (!a->thinking)
			fputs(color(a, "\033[2m"), stderr);
		a->thinking = 1;
		safetext(&show, p, n, 0);
		fwrite(show.p, 1, show.len, stderr);
		buffree(&show);
	}
	keep(&r->think, p, n);
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

static Call *
callat(Reply *r, int idx)
{
	if (idx < 0)
		return NULL;
	if (idx >= maxcalls) {
		r->dropped = 1;
		return NULL;
	}
	if (idx >= r->ncalls) {
		r->calls = xrealloc(r->calls, (idx + 1) * sizeof(*r->calls));
		memset(r->calls + r->ncalls, 0,
		       (idx + 1 - r->ncalls) * sizeof(*r->calls));
		r->ncalls = idx + 1;
	}
	return &r->calls[idx];
}

/* OpenAI streams tool calls as pieces keyed by index: the id and name
 * come first, the arguments in fragments of a JSON text. */
static void
openaicalls(Reply *r, const Json *j, int arr)
{
	int k, tc, fn, v;
	double idx;
	Call *c;

	for (k = 0, tc = jsonat(j, arr, 0); tc >= 0;
	     k++, tc = jsonnext(j, tc)) {
		if (jsonnum(j, jsonget(j, tc, "index"), &idx) < 0)
			idx = k;
		if (!(idx >= 0 && idx < 1e9) || !(c = callat(r, (int)idx)))
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
openaiusage(Reply *r, const Json *j, int u)
{
	double v;

	/* counts from the network: no cast of what does not fit */
	if (jsonnum(j, jsonget(j, u, "prompt_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		r->in = v;
	if (jsonnum(j, jsonget(j, u, "completion_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		r->out = v;
	if (jsonnum(j, jsonget(j, jsonget(j, u, "prompt_tokens_details"),
	                       "cached_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		r->cached = v;
}

/* The message of an error object, or of a body holding one. */
static void
errortext(Buf *out, const Json *j, int i)
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

/* An event that is not JSON stops the stream: a last one cut short by
 * the connection's end means the answer is incomplete. */
static int
badevent(Reply *r, const char *data, size_t len)
{
	if (r->atend) {
		bufadds(&r->err, "the stream ended before the answer was "
		        "complete");
	} else {
		bufadds(&r->err, "the provider sent malformed JSON: ");
		utf8repair(&r->err, data, MIN(len, 200));
	}
	return 1;
}

static int
openaievent(void *arg, const char *event, const char *data, size_t len)
{
	Reply *r = arg;
	Json j;
	Buf s = { 0 };
	int ch, d, v;

	(void)event;
	if (intr)
		return 1;	/* a long event stream stops at once */
	if (len == 6 && !memcmp(data, "[DONE]", 6)) {
		r->done = 1;
		return 0;
	}
	if (jsonparse(&j, data, len) < 0)
		return badevent(r, data, len);
	if ((v = jsonget(&j, 0, "error")) >= 0 && !jsonisnull(&j, v)) {
		errortext(&r->err, &j, 0);
		jsonfree(&j);
		return 1;
	}
	if ((v = jsonget(&j, 0, "usage")) >= 0 && j.t[v].type == JOBJ)
		openaiusage(r, &j, v);
	ch = jsonat(&j, jsonget(&j, 0, "choices"), 0);
	if ((v = jsonget(&j, ch, "finish_reason")) >= 0 && j.t[v].type == JSTR)
		snprintf(r->finish, sizeof(r->finish), "%.*s",
		         j.t[v].end - j.t[v].start, j.s + j.t[v].start);
	d = jsonget(&j, ch, "delta");
	if (jsonstrbuf(&j, jsonget(&j, d, "reasoning_content"), &s) == 0 ||
	    jsonstrbuf(&j, jsonget(&j, d, "reasoning"), &s) == 0)
		showthink(r, s.p, s.len);
	bufreset(&s);
	if (jsonstrbuf(&j, jsonget(&j, d, "content"), &s) == 0)
		showtext(r, s.p, s.len);
	if ((v = jsonget(&j, d, "tool_calls")) >= 0)
		openaicalls(r, &j, v);
	buffree(&s);
	jsonfree(&j);
	return 0;
}

/* Anthropic's stream: content blocks by index (thinking with its
 * signature, text, tool_use whose input arrives as partial_json), usage
 * in message_start and message_delta, and an error event at any time. */
static void
anthropicusage(Reply *r, const Json *j, int u)
{
	double v, in = 0;
	int got = 0;

	if (jsonnum(j, jsonget(j, u, "input_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		in += v, got = 1;
	if (jsonnum(j, jsonget(j, u, "cache_creation_input_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		in += v, r->cachewrite = v;
	if (jsonnum(j, jsonget(j, u, "cache_read_input_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		in += v, r->cached = v;
	if (got)
		r->in = in;
	if (jsonnum(j, jsonget(j, u, "output_tokens"), &v) == 0 &&
	    v >= 0 && v < 1e15)
		r->out = v;
}

static Call *
callofblock(Reply *r, int block)
{
	int i;

	for (i = 0; i < r->ncalls; i++)
		if (r->calls[i].block == block)
			return &r->calls[i];
	return NULL;
}

static void
anthropicstart(Reply *r, const Json *j, int block)
{
	int cb = jsonget(j, 0, "content_block");
	Buf s = { 0 };
	Call *c;

	if (jsoneq(j, jsonget(j, cb, "type"), "tool_use") &&
	    (c = callat(r, r->ncalls))) {
		c->block = block;
		setstr(&c->id, j, jsonget(j, cb, "id"));
		setstr(&c->name, j, jsonget(j, cb, "name"));
	} else if (jsonstrbuf(j, jsonget(j, cb, "text"), &s) == 0) {
		showtext(r, s.p, s.len);
	}
	buffree(&s);
}

static void
anthropicdelta(Reply *r, const Json *j, int block)
{
	int d = jsonget(j, 0, "delta"), t = jsonget(j, d, "type");
	Buf s = { 0 };
	Call *c;

	if (jsoneq(j, t, "text_delta")) {
		jsonstrbuf(j, jsonget(j, d, "text"), &s);
		showtext(r, bstr(&s), s.len);
	} else if (jsoneq(j, t, "thinking_delta")) {
		jsonstrbuf(j, jsonget(j, d, "thinking"), &s);
		showthink(r, bstr(&s), s.len);
	} else if (jsoneq(j, t, "signature_delta")) {
		jsonstrbuf(j, jsonget(j, d, "signature"), &r->sig);
	} else if (jsoneq(j, t, "input_json_delta") &&
	           (c = callofblock(r, block))) {
		jsonstrbuf(j, jsonget(j, d, "partial_json"), &c->args);
	}
	buffree(&s);
}

static void
anthropicstop(Reply *r, const Json *j)
{
	int d = jsonget(j, 0, "delta"), v = jsonget(j, d, "stop_reason");

	if (jsoneq(j, v, "tool_use"))
		snprintf(r->finish, sizeof(r->finish), "tool_calls");
	else if (jsoneq(j, v, "max_tokens"))
		snprintf(r->finish, sizeof(r->finish), "length");
	else if (jsoneq(j, v, "refusal"))
		snprintf(r->finish, sizeof(r->finish), "refusal");
	else if (v >= 0 && !jsonisnull(j, v))
		snprintf(r->finish, sizeof(r->finish), "stop");
	if ((v = jsonget(j, 0, "usage")) >= 0)
		anthropicusage(r, j, v);
}

static int
anthropicevent(void *arg, const char *event, const char *data, size_t len)
{
	Reply *r = arg;
	Json j;
	double idx = -1;
	int t;

	(void)event;	/* the data names its type too */
	if (intr)
		return 1;
	if (jsonparse(&j, data, len) < 0)
		return badevent(r, data, len);
	t = jsonget(&j, 0, "type");
	if (jsonnum(&j, jsonget(&j, 0, "index"), &idx) < 0 ||
	    !(idx >= 0 && idx <= 1000))
		idx = -1;
	if (jsoneq(&j, t, "error")) {
		errortext(&r->err, &j, 0);
		t = jsonget(&j, jsonget(&j, 0, "error"), "type");
		/* Anthropic reports overload this way, often before a word */
		r->again = !r->text.len && !r->think.len && !r->ncalls &&
		           (jsoneq(&j, t, "overloaded_error") ||
		            jsoneq(&j, t, "api_error") ||
		            jsoneq(&j, t, "rate_limit_error"));
		jsonfree(&j);
		return 1;
	}
	if (jsoneq(&j, t, "message_start"))
		anthropicusage(r, &j, jsonget(&j, jsonget(&j, 0, "message"),
		               "usage"));
	else if (jsoneq(&j, t, "content_block_start"))
		anthropicstart(r, &j, (int)idx);
	else if (jsoneq(&j, t, "content_block_delta"))
		anthropicdelta(r, &j, (int)idx);
	else if (jsoneq(&j, t, "message_delta"))
		anthropicstop(r, &j);
	else if (jsoneq(&j, t, "message_stop"))
		r->done = 1;
	jsonfree(&j);
	return 0;
}

/* Whether a 2xx answer is what was asked for: an event stream in no
 * encoding we cannot read.  None named is taken for one: some local
 * servers name none. */
static int
isstream(const Http *h)
{
	return (!h->ctype[0] ||
	        !strncasecmp(h->ctype, "text/event-stream", 17)) &&
	       (!h->encoding[0] || !strcasecmp(h->encoding, "identity"));
}

static int
onbody(void *arg, const char *p, size_t n)
{
	Reply *r = arg;
	int rc;

	if (intr)
		return 1;
	/* an error, or a body that is not a stream: its start is kept to
	 * say what came */
	if (r->http->status / 100 != 2 || !isstream(r->http)) {
		if (r->err.len < maxerrbody)
			bufadd(&r->err, p, MIN(n, maxerrbody - r->err.len));
		return 0;
	}
	if ((rc = ssefeed(&r->sse, p, n)) == SSEBIG)
		bufaddf(&r->err, "an event in the stream is over %zu bytes",
		        maxevent);
	return rc;
}

static void
replyinit(Reply *r, Agent *a, Http *h)
{
	memset(r, 0, sizeof(*r));
	r->a = a;
	r->http = h;
	sseinit(&r->sse, a->prov->wire == ANTHROPIC ? anthropicevent :
	        openaievent, r);
	r->sse.max = maxevent;
}

static void
replyfree(Reply *r)
{
	int i;

	for (i = 0; i < r->ncalls; i++) {
		buffree(&r->calls[i].id);
		buffree(&r->calls[i].name);
		buffree(&r->calls[i].args);
	}
	free(r->calls);
	buffree(&r->text);
	buffree(&r->think);
	buffree(&r->sig);
	buffree(&r->err);
	ssefree(&r->sse);
}

/* Text of a message's content: a string, or the text blocks joined. */
static void
contenttext(Buf *b, const Json *j, int content)
{
	int blk;

	if (jsonstrbuf(j, content, b) == 0)
		return;
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		if (jsoneq(j, jsonget(j, blk, "type"), "text"))
			jsonstrbuf(j, jsonget(j, blk, "text"), b);
}

typedef struct {
	char **id;		/* tool calls still owed a result */
	int n;
} Pending;

static void
pendingdrop(Pending *p, const char *id)
{
	int i;

	for (i = 0; i < p->n; i++) {
		if (!strcmp(p->id[i], id)) {
			free(p->id[i]);
			p->id[i] = p->id[--p->n];
			return;
		}
	}
}

/* A call left without a result (an interrupted turn) still needs one, or
 * the provider refuses the whole request. */
static void
pendingflush(Buf *b, Pending *p)
{
	int i;

	for (i = 0; i < p->n; i++) {
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		jsonescs(b, p->id[i]);
		bufadds(b, ",\"content\":\"No result provided\"}");
		free(p->id[i]);
	}
	p->n = 0;
}

static void
openaiassistant(Buf *b, const Json *j, Pending *p)
{
	Buf text = { 0 }, args = { 0 };
	int content, blk, ncalls = 0;

	content = jsonget(j, 0, "content");
	contenttext(&text, j, content);
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		ncalls += jsoneq(j, jsonget(j, blk, "type"), "toolCall");
	if (!text.len && !ncalls)
		goto done;
	bufadds(b, ",{\"role\":\"assistant\",\"content\":");
	if (text.len)
		jsonesc(b, text.p, text.len);
	else
		bufadds(b, "null");
	if (ncalls) {
		bufadds(b, ",\"tool_calls\":[");
		p->id = xrealloc(p->id, (p->n + ncalls) * sizeof(*p->id));
		ncalls = 0;
		for (blk = jsonat(j, content, 0); blk >= 0;
		     blk = jsonnext(j, blk)) {
			if (!jsoneq(j, jsonget(j, blk, "type"), "toolCall"))
				continue;
			bufadds(b, ncalls++ ? ",{\"id\":" : "{\"id\":");
			jsonraw(b, j, jsonget(j, blk, "id"));
			bufadds(b, ",\"type\":\"function\",\"function\":{\"name\":");
			jsonraw(b, j, jsonget(j, blk, "name"));
			bufadds(b, ",\"arguments\":");
			bufreset(&args);
			jsonraw(&args, j, jsonget(j, blk, "arguments"));
			jsonesc(b, args.p, args.len);
			bufadds(b, "}}");
			if (!(p->id[p->n] = jsonstr(j, jsonget(j, blk, "id"))))
				p->id[p->n] = xstrdup("");
			p->n++;
		}
		bufadds(b, "]");
	}
	bufadds(b, "}");
done:
	buffree(&text);
	buffree(&args);
}

/* One stored message in the chat completions form. */
static void
openaimsg(Buf *b, const char *msg, Pending *p)
{
	Json j;
	Buf text = { 0 };
	char *id;
	int role, stop;

	if (jsonparse(&j, msg, strlen(msg)) < 0) {
		warn("a stored message is not valid JSON: left out");
		return;
	}
	role = jsonget(&j, 0, "role");
	if (!jsoneq(&j, role, "toolResult"))
		pendingflush(b, p);
	if (jsoneq(&j, role, "user")) {
		contenttext(&text, &j, jsonget(&j, 0, "content"));
		bufadds(b, ",{\"role\":\"user\",\"content\":");
		jsonesc(b, text.p ? text.p : "", text.len);
		bufadds(b, "}");
	} else if (jsoneq(&j, role, "assistant")) {
		/* a failed or interrupted answer is not sent again */
		stop = jsonget(&j, 0, "stopReason");
		if (!jsoneq(&j, stop, "error") && !jsoneq(&j, stop, "aborted"))
			openaiassistant(b, &j, p);
	} else if (jsoneq(&j, role, "toolResult")) {
		id = jsonstr(&j, jsonget(&j, 0, "toolCallId"));
		contenttext(&text, &j, jsonget(&j, 0, "content"));
		bufadds(b, ",{\"role\":\"tool\",\"tool_call_id\":");
		jsonescs(b, id ? id : "");
		bufadds(b, ",\"content\":");
		jsonesc(b, text.p ? text.p : "", text.len);
		bufadds(b, "}");
		if (id)
			pendingdrop(p, id);
		free(id);
	}
	buffree(&text);
	jsonfree(&j);
}

/* The offered tools, each as open, name, description, the schema under
 * key, close: the two wires differ only in those. */
static void
tooldefs(Agent *a, Buf *b, const char *open, const char *key,
         const char *close)
{
	int k;

	if (!a->noffer)
		return;
	bufadds(b, ",\"tools\":[");
	for (k = 0; k < a->noffer; k++) {
		bufadds(b, k ? "," : "");
		bufadds(b, open);
		bufadds(b, "\"name\":");
		jsonescs(b, a->offer[k]->name);
		bufadds(b, ",\"description\":");
		jsonescs(b, a->offer[k]->desc);
		bufaddf(b, ",\"%s\":%s", key, a->offer[k]->schema);
		bufadds(b, close);
	}
	bufadds(b, "]");
}

static void
openaibody(Agent *a, Buf *b)
{
	Pending p = { 0 };
	size_t i;

	bufadds(b, "{\"model\":");
	jsonescs(b, a->model);
	bufadds(b, ",\"messages\":[{\"role\":\"system\",\"content\":");
	jsonescs(b, a->system);
	bufadds(b, "}");
	for (i = 0; i < a->msgs.n; i++)
		openaimsg(b, a->msgs.v[i], &p);
	pendingflush(b, &p);
	free(p.id);
	bufadds(b, "],\"stream\":true,"
	        "\"stream_options\":{\"include_usage\":true}");
	bufaddf(b, ",\"%s\":%ld", a->prov->maxfield, a->maxout);
	tooldefs(a, b, "{\"type\":\"function\",\"function\":{",
	         "parameters", "}}");
	bufadds(b, "}");
}

/* Anthropic's messages, built from the stored ones: the results of one
 * round go back as tool_result blocks of a single user message, and a
 * user message may hold several blocks, so one stays open for more. */
typedef struct {
	Buf *b;
	const char *model;	/* whose thinking may go back signed */
	int nmsg;		/* messages written */
	int open;		/* a user message is open */
	int nblk;		/* blocks in it */
	size_t cachepos;	/* where the last user block ends, or 0 */
	Pending p;
} Abody;

/* Start a block of the open user message, opening one if need be. */
static void
ablock(Abody *o)
{
	if (!o->open) {
		bufadds(o->b, o->nmsg++ ? "," : "");
		bufadds(o->b, "{\"role\":\"user\",\"content\":[");
		o->open = 1;
		o->nblk = 0;
	}
	bufadds(o->b, o->nblk++ ? "," : "");
}

/* End a user block: remember where, for the cache mark. */
static void
ablockend(Abody *o)
{
	o->cachepos = o->b->len;
	bufaddc(o->b, '}');
}

static void
aclose(Abody *o)
{
	if (o->open)
		bufadds(o->b, "]}");
	o->open = 0;
}

/* An id as Anthropic takes them: [A-Za-z0-9_-]{1,64}.  Ids from other
 * providers (call_x|fc_y, functions.f:0) map the same way everywhere. */
static void
anthid(Buf *b, const char *id)
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

static void
aresult(Abody *o, const char *id, const char *text, size_t len, int iserr)
{
	ablock(o);
	bufadds(o->b, "{\"type\":\"tool_result\",\"tool_use_id\":");
	anthid(o->b, id);
	bufadds(o->b, ",\"content\":");
	jsonesc(o->b, text, len);
	bufadds(o->b, iserr ? ",\"is_error\":true" : "");
	ablockend(o);
}

/* Calls left without a result still need one, first thing after them. */
static void
apending(Abody *o)
{
	int i;

	for (i = 0; i < o->p.n; i++) {
		aresult(o, o->p.id[i], "No result provided", 18, 1);
		free(o->p.id[i]);
	}
	o->p.n = 0;
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
atooluse(Abody *o, Buf *b, const Json *j, int blk)
{
	int v = jsonget(j, blk, "arguments");
	char *id = jsonstr(j, jsonget(j, blk, "id"));

	bufadds(b, b->len ? "," : "");
	bufadds(b, "{\"type\":\"tool_use\",\"id\":");
	anthid(b, id ? id : "");
	bufadds(b, ",\"name\":");
	jsonraw(b, j, jsonget(j, blk, "name"));
	bufadds(b, ",\"input\":");
	if (v >= 0 && j->t[v].type == JOBJ)
		jsonraw(b, j, v);
	else
		bufadds(b, "{}");
	bufadds(b, "}");
	o->p.id = xrealloc(o->p.id, (o->p.n + 1) * sizeof(*o->p.id));
	o->p.id[o->p.n++] = id ? id : xstrdup("");
}

/* A stored answer as Anthropic's assistant message.  Thinking goes back
 * only signed, and only to the model that signed it: a signature from
 * elsewhere (pi keeps OpenAI's field name there) would be refused. */
static void
aassistant(Abody *o, const Json *j)
{
	Buf blocks = { 0 }, *b = &blocks;
	int content = jsonget(j, 0, "content"), blk, t, sig, v, own;

	own = jsoneq(j, jsonget(j, 0, "api"), "anthropic-messages") &&
	      jsoneq(j, jsonget(j, 0, "model"), o->model);
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
			atooluse(o, b, j, blk);
		}
	}
	if (blocks.len) {
		bufadds(o->b, o->nmsg++ ? "," : "");
		bufadds(o->b, "{\"role\":\"assistant\",\"content\":[");
		bufadd(o->b, blocks.p, blocks.len);
		bufadds(o->b, "]}");
	}
	buffree(&blocks);
}

static void
anthropicmsg(Abody *o, const char *msg)
{
	Json j;
	Buf text = { 0 };
	char *id;
	int role, stop, iserr;

	if (jsonparse(&j, msg, strlen(msg)) < 0) {
		warn("a stored message is not valid JSON: left out");
		return;
	}
	role = jsonget(&j, 0, "role");
	if (jsoneq(&j, role, "user")) {
		apending(o);
		contenttext(&text, &j, jsonget(&j, 0, "content"));
		if (strspn(bstr(&text), " \t\r\n") == text.len) {
			bufreset(&text);
			bufadds(&text, "(empty)");
		}
		ablock(o);
		bufadds(o->b, "{\"type\":\"text\",\"text\":");
		jsonesc(o->b, text.p, text.len);
		ablockend(o);
	} else if (jsoneq(&j, role, "assistant")) {
		stop = jsonget(&j, 0, "stopReason");
		if (!jsoneq(&j, stop, "error") && !jsoneq(&j, stop, "aborted")) {
			apending(o);
			aclose(o);
			aassistant(o, &j);
		}
	} else if (jsoneq(&j, role, "toolResult")) {
		id = jsonstr(&j, jsonget(&j, 0, "toolCallId"));
		contenttext(&text, &j, jsonget(&j, 0, "content"));
		if (jsonbool(&j, jsonget(&j, 0, "isError"), &iserr) < 0)
			iserr = 0;
		aresult(o, id ? id : "", bstr(&text), text.len, iserr);
		if (id)
			pendingdrop(&o->p, id);
		free(id);
	}
	buffree(&text);
	jsonfree(&j);
}

static void
anthropicbody(Agent *a, Buf *b)
{
	static const char cache[] = ",\"cache_control\":{\"type\":\"ephemeral\"}";
	Buf msgs = { 0 };
	Abody o = { 0 };
	size_t i;

	o.b = &msgs;
	o.model = a->model;
	for (i = 0; i < a->msgs.n; i++)
		anthropicmsg(&o, a->msgs.v[i]);
	apending(&o);
	aclose(&o);
	free(o.p.id);
	bufadds(b, "{\"model\":");
	jsonescs(b, a->model);
	bufaddf(b, ",\"max_tokens\":%ld,\"stream\":true", a->maxout);
	/* the prompt is cached, and the conversation up to its last turn */
	bufadds(b, ",\"system\":[{\"type\":\"text\",\"text\":");
	jsonescs(b, a->system);
	bufadds(b, cache);
	bufadds(b, "}]");
	tooldefs(a, b, "{", "input_schema", "}");
	bufadds(b, ",\"messages\":[");
	if (o.cachepos) {
		bufadd(b, msgs.p, o.cachepos);
		bufadds(b, cache);
		bufadd(b, msgs.p + o.cachepos, msgs.len - o.cachepos);
	} else {
		bufadd(b, bstr(&msgs), msgs.len);
	}
	bufadds(b, "]}");
	buffree(&msgs);
}

/* Whether an error says the request is over the context window, in the
 * words of the providers we know of (OpenAI, Anthropic, llama.cpp, vLLM,
 * Ollama, LM Studio, OpenRouter). */
static int
overflowed(int status, const Buf *err)
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
	low = xstrndup(bstr(err), err->len);
	for (i = 0; low[i]; i++)
		low[i] = low[i] >= 'A' && low[i] <= 'Z' ? low[i] + 32 : low[i];
	for (i = 0; i < LEN(said) && !hit; i++)
		hit = strstr(low, said[i]) != NULL;
	free(low);
	return hit || status == 413;
}

/* How long to wait before trying a failed request again, in ms; -1: do not
 * try again, -2: the server asks for a wait longer than retrymax. */
static long
retrydelay(const Http *h, const Reply *r, int attempt)
{
	long delay;

	if (intr || attempt >= maxattempts)
		return -1;
	if (r->again)
		;	/* an overload said in the stream, before the answer */
	else if (h->status && h->status != 429 && h->status != 500 &&
	    h->status != 502 && h->status != 503 && h->status != 504 &&
	    h->status != 529)
		return -1;
	/* no answer: only a connection lost before a byte of it may
	 * pass; a bad host name or certificate will not be better next
	 * time */
	else if (!h->status && !h->transient)
		return -1;
	if (h->retryafter > retrymax)
		return -2;
	if (h->retryafter >= 0)
		return h->retryafter * 1000;
	delay = (long)retrybase << (attempt - 1);
	return delay - rand() % (delay / 4 + 1);
}

/* Sleep ms, or less if interrupted. */
static void
sleepms(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	while (!intr && nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Say why a request failed, in one line on stderr; what the server said
 * is made safe for the terminal first. */
static void
failure(Agent *a, Reply *r, Http *h, int rc)
{
	Json j;
	Buf msg = { 0 }, safe = { 0 };
	const char *name = a->prov->name;
	int ok = h->status / 100 == 2;

	endthinking(a);
	endline(a);
	if ((!ok || !isstream(h)) && r->err.len &&
	    jsonparse(&j, r->err.p, r->err.len) == 0) {
		errortext(&msg, &j, 0);
		jsonfree(&j);
	} else {
		bufadd(&msg, bstr(&r->err), MIN(r->err.len, 300));
	}
	safetext(&safe, bstr(&msg), MIN(msg.len, 1000), 1);
	bufgrow(&safe, 0);
	if (rc < 0 && intr)
		warn("interrupted");
	else if (ok && h->encoding[0] && !isstream(h))
		warn("%s: the answer came %s-encoded, which agent does not "
		     "decode", name, h->encoding);
	else if (ok && !isstream(h))
		warn("%s: HTTP %d sent %s, not an event stream: %s", name,
		     h->status, h->ctype, safe.len ? safe.p : "(no body)");
	else if (ok && r->err.len)
		warn("%s: %s", name, safe.p);
	else if (rc < 0 && ok)
		warn("%s: the answer broke off: %s", name, h->err);
	else if (h->status / 100 == 3)
		warn("%s: HTTP %d, moved to %s: check the base URL", name,
		     h->status, h->location[0] ? h->location : "(nowhere)");
	else if (h->status)
		warn("%s: HTTP %d: %s", name, h->status, safe.len ? safe.p :
		     rc < 0 ? h->err : "(no message)");
	else if (rc < 0)
		warn("%s: %s", name, h->err);
	else
		warn("%s: the stream ended before the answer was complete",
		     name);
	buffree(&msg);
	buffree(&safe);
}

/* An overload said in the stream, to be tried again: the server's words
 * made safe for the terminal. */
static void
againmsg(Agent *a, const Reply *r, long delay)
{
	Buf safe = { 0 };

	safetext(&safe, bstr(&r->err), MIN(r->err.len, 1000), 1);
	warn("%s: %s, retrying in %.1f s", a->prov->name, bstr(&safe),
	     delay / 1000.0);
	buffree(&safe);
}

/* POST the conversation and stream the answer into r, trying again what
 * may succeed on a second try.  0 on success, -1 with the reason said. */
static int
ask(Agent *a, Reply *r, Http *h)
{
	Buf body = { 0 }, auth = { 0 }, url = { 0 };
	const char *headers[5];
	int attempt, rc, n = 0;
	long delay;

	if (a->prov->wire == ANTHROPIC) {
		anthropicbody(a, &body);
		bufaddf(&url, "%s/messages", a->url);
		if (a->key)
			bufaddf(&auth, "x-api-key: %s", a->key);
		headers[n++] = "anthropic-version: 2023-06-01";
	} else {
		openaibody(a, &body);
		bufaddf(&url, "%s/chat/completions", a->url);
		if (a->key)
			bufaddf(&auth, "Authorization: Bearer %s", a->key);
	}
	if (a->key)
		headers[n++] = auth.p;
	headers[n++] = "Content-Type: application/json";
	headers[n++] = "Accept: text/event-stream";
	headers[n] = NULL;
	for (attempt = 1;; attempt++) {
		memset(h, 0, sizeof(*h));
		h->method = "POST";
		h->url = url.p;
		h->headers = headers;
		h->body = body.p;
		h->bodylen = body.len;
		h->fn = onbody;
		h->arg = r;
		replyinit(r, a, h);
		rc = httpdo(a->http, h);
		if (rc == 0 && h->status / 100 == 2 && isstream(h)) {
			r->atend = 1;
			sseend(&r->sse);
			/* Anthropic always ends with message_stop; some
			 * OpenAI servers end with finish_reason alone */
			if (!r->err.len && (r->done || (r->finish[0] &&
			    a->prov->wire == OPENAI)))
				break;
		}
		if ((delay = retrydelay(h, r, attempt)) < 0) {
			r->overflow = overflowed(h->status, &r->err);
			failure(a, r, h, rc);
			if (delay == -2)
				warn("the server asks for a wait of %ld s: "
				     "giving up", h->retryafter);
			rc = -1;
			break;
		}
		if (r->again)
			againmsg(a, r, delay);
		else if (h->status)
			warn("%s: HTTP %d, retrying in %.1f s", a->prov->name,
			     h->status, delay / 1000.0);
		else
			warn("%s: %s, retrying in %.1f s", a->prov->name,
			     h->err, delay / 1000.0);
		replyfree(r);
		sleepms(delay);
	}
	endthinking(a);
	buffree(&body);
	buffree(&auth);
	buffree(&url);
	return rc;
}

static const char *
stopreason(const Reply *r)
{
	if (r->ncalls)
		return "toolUse";
	if (!strcmp(r->finish, "length"))
		return "length";
	return "stop";
}

/* The answer as pi stores an assistant message; stop is NULL for a
 * finished answer, or "error" or "aborted" for what arrived of another. */
static char *
assistantjson(Agent *a, Reply *r, const char *stop)
{
	Buf b = { 0 };
	Json j;
	int i, first = 1;
	Call *c;

	bufadds(&b, "{\"role\":\"assistant\",\"content\":[");
	if (r->think.len) {
		bufadds(&b, "{\"type\":\"thinking\",\"thinking\":");
		jsonesc(&b, r->think.p, r->think.len);
		if (r->sig.len) {
			bufadds(&b, ",\"thinkingSignature\":");
			jsonesc(&b, r->sig.p, r->sig.len);
		}
		bufadds(&b, "}");
		first = 0;
	}
	if (r->text.len) {
		bufadds(&b, first ? "{" : ",{");
		bufadds(&b, "\"type\":\"text\",\"text\":");
		jsonesc(&b, r->text.p, r->text.len);
		bufadds(&b, "}");
		first = 0;
	}
	for (i = 0; i < r->ncalls; i++) {
		c = &r->calls[i];
		bufadds(&b, first ? "{" : ",{");
		bufadds(&b, "\"type\":\"toolCall\",\"id\":");
		jsonesc(&b, c->id.p ? c->id.p : "", c->id.len);
		bufadds(&b, ",\"name\":");
		jsonesc(&b, c->name.p ? c->name.p : "", c->name.len);
		bufadds(&b, ",\"arguments\":");
		if (c->args.len && jsonparse(&j, c->args.p, c->args.len) == 0 &&
		    j.t[0].type == JOBJ)
			jsonraw(&b, &j, 0);
		else
			bufadds(&b, "{}");
		if (c->args.len)
			jsonfree(&j);
		bufadds(&b, "}");
		first = 0;
	}
	bufadds(&b, "],\"api\":");
	jsonescs(&b, a->prov->wire == ANTHROPIC ? "anthropic-messages" :
	         "openai-completions");
	bufadds(&b, ",\"provider\":");
	jsonescs(&b, a->prov->name);
	bufadds(&b, ",\"model\":");
	jsonescs(&b, a->model);
	bufaddf(&b, ",\"usage\":{\"input\":%lld,\"output\":%lld,"
	        "\"cacheRead\":%lld,\"cacheWrite\":%lld,\"totalTokens\":%lld,"
	        "\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,"
	        "\"cacheWrite\":0,\"total\":0}}",
	        r->in - r->cached - r->cachewrite, r->out, r->cached,
	        r->cachewrite, r->in + r->out);
	bufadds(&b, ",\"stopReason\":");
	jsonescs(&b, stop ? stop : stopreason(r));
	bufaddf(&b, ",\"timestamp\":%lld}", nowms());
	return bufdetach(&b);
}

static char *
userjson(const char *text, size_t len)
{
	Buf b = { 0 };

	bufadds(&b, "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":");
	jsonesc(&b, text, len);
	bufaddf(&b, "}],\"timestamp\":%lld}", nowms());
	return bufdetach(&b);
}

static char *
resultjson(Call *c, const char *text, size_t len, int iserr)
{
	Buf b = { 0 };

	bufadds(&b, "{\"role\":\"toolResult\",\"toolCallId\":");
	jsonesc(&b, c->id.p, c->id.len);
	bufadds(&b, ",\"toolName\":");
	jsonesc(&b, c->name.p ? c->name.p : "", c->name.len);
	bufadds(&b, ",\"content\":[{\"type\":\"text\",\"text\":");
	jsonesc(&b, text, len);
	bufaddf(&b, "}],\"isError\":%s,\"timestamp\":%lld}",
	        iserr ? "true" : "false", nowms());
	return bufdetach(&b);
}

/* What a call works on: its command, path or pattern, cut to max bytes
 * (0: whole) and made safe for the terminal. */
static void
summary(Buf *b, const Json *j, int args, size_t max)
{
	static const char *keys[] = { "command", "path", "pattern" };
	Buf v = { 0 }, safe = { 0 };
	size_t i;

	for (i = 0; i < LEN(keys) && !v.len; i++)
		jsonstrbuf(j, jsonget(j, args, keys[i]), &v);
	safetext(&safe, v.p ? v.p : "", v.len, max > 0);
	if (max && safe.len > max) {
		bufadd(b, safe.p, utf8back(safe.p, max - 3));
		bufadds(b, "...");
	} else {
		bufadd(b, safe.p ? safe.p : "", safe.len);
	}
	bufgrow(b, 0);
	buffree(&v);
	buffree(&safe);
}

/* Ask on the terminal whether a call may run: 1 yes, 0 no, -1 no terminal. */
static int
approve(Agent *a, int ti, const char *what)
{
	char c, first = 0;
	int fd;

	if (a->yes || a->always[ti])
		return 1;
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	dprintf(fd, "%sagent: allow %s %s? [y/n/a] %s", color(a, "\033[1m"),
	        tools[ti].name, what, color(a, "\033[0m"));
	/* the whole answer line, so none of it is left to be read later */
	while (read(fd, &c, 1) == 1 && c != '\n')
		if (!first && c != ' ')
			first = c;
	close(fd);
	if (first == 'a' || first == 'A')
		a->always[ti] = 1;
	return first == 'y' || first == 'Y' || a->always[ti];
}

static int
toolindex(Agent *a, const char *name)
{
	int k;

	for (k = 0; k < a->noffer; k++)
		if (!strcmp(a->offer[k]->name, name))
			return a->offer[k] - tools;
	return -1;
}

static void
traceend(Agent *a, int iserr, const Buf *res)
{
	Buf safe = { 0 };
	size_t lines = 0, k, eol;

	if (a->quiet)
		return;
	if (iserr) {
		/* the last line says most: "Command exited with code 2";
		 * it may hold a path or output the model chose */
		for (eol = res->len; eol > 0 && res->p[eol - 1] == '\n'; eol--)
			;
		for (k = eol; k > 0 && res->p[k - 1] != '\n'; k--)
			;
		safetext(&safe, res->p ? res->p + k : "",
		         utf8back(res->p ? res->p + k : "", MIN(eol - k, 200)),
		         1);
		fprintf(stderr, " %s-> %.*s%s\n", color(a, "\033[31m"),
		        (int)safe.len, bstr(&safe), color(a, "\033[0m"));
		buffree(&safe);
		return;
	}
	for (k = 0; k < res->len; k++)
		lines += res->p[k] == '\n';
	if (res->len && res->p[res->len - 1] != '\n')
		lines++;
	fprintf(stderr, " %s-> %zu line%s%s\n", color(a, "\033[2m"), lines,
	        lines == 1 ? "" : "s", color(a, "\033[0m"));
}

/* Whether a call may run; if not, why, in res. */
static int
mayrun(Agent *a, Call *c, int ti, Json *j, Buf *res)
{
	Buf what = { 0 };
	int ok;

	if (ti < 0) {
		bufaddf(res, "Tool %s not found", bstr(&c->name));
		return 0;
	}
	if (jsonparse(j, c->args.len ? c->args.p : "{}",
	              c->args.len ? c->args.len : 2) < 0) {
		bufadds(res, "The arguments are not valid JSON: ");
		utf8repair(res, c->args.p, MIN(c->args.len, 500));
		return 0;
	}
	if (j->t[0].type != JOBJ) {
		bufadds(res, "The arguments must be a JSON object");
		return 0;
	}
	if (!tools[ti].approve)
		return 1;
	summary(&what, j, 0, 0);
	ok = approve(a, ti, what.p);
	buffree(&what);
	if (ok < 0)
		bufadds(res, "Not run: there is no terminal to ask the user for "
		        "approval (the user can allow tools with -y).");
	else if (!ok)
		bufadds(res, "The user did not allow this call.");
	return ok > 0;
}

/* -j: a tool call starting (with its arguments) or ending (with its
 * result). */
static void
emitcall(Agent *a, Call *c, const char *type, const Json *args,
         const Buf *res, int iserr)
{
	Buf f = { 0 };

	if (!a->json)
		return;
	bufadds(&f, "\"toolCallId\":");
	jsonesc(&f, bstr(&c->id), c->id.len);
	bufadds(&f, ",\"toolName\":");
	jsonesc(&f, bstr(&c->name), c->name.len);
	if (res) {
		bufadds(&f, ",\"result\":{\"content\":[{\"type\":\"text\","
		        "\"text\":");
		jsonesc(&f, bstr(res), res->len);
		bufaddf(&f, "}]},\"isError\":%s", iserr ? "true" : "false");
	} else {
		bufadds(&f, ",\"args\":");
		if (args)
			jsonraw(&f, args, 0);
		else
			bufadds(&f, "{}");
	}
	emit(a, type, f.p);
	buffree(&f);
}

/* Run one call; its result, success or error, joins the conversation. */
static void
runcall(Agent *a, Call *c)
{
	Buf res = { 0 }, what = { 0 };
	Json j = { 0 };
	int ti, iserr = 1, ok;

	ti = toolindex(a, bstr(&c->name));
	ok = mayrun(a, c, ti, &j, &res);
	if (ok)
		summary(&what, &j, 0, 70);
	else if (ti < 0)
		safetext(&what, bstr(&c->name), c->name.len, 1);
	bufgrow(&what, 0);
	if (!a->quiet)
		fprintf(stderr, "%s%s%s %s", color(a, "\033[36m"),
		        ti >= 0 ? tools[ti].name : "tool", color(a, "\033[0m"),
		        what.p);
	emitcall(a, c, "tool_execution_start", ok ? &j : NULL, NULL, 0);
	if (ok)
		iserr = tools[ti].fn(&a->tenv, &j, 0, &res) != 0;
	traceend(a, iserr, &res);
	emitcall(a, c, "tool_execution_end", NULL, &res, iserr);
	record(a, resultjson(c, bstr(&res), res.len, iserr));
	emitmsg(a, a->msgs.v[a->msgs.n - 1], 1);
	jsonfree(&j);
	buffree(&res);
	buffree(&what);
}

static void
showusage(Agent *a)
{
	if (a->quiet || (!a->turnin && !a->turnout))
		return;
	fprintf(stderr, "%stokens: %lld in (%lld cached), %lld out%s\n",
	        color(a, "\033[2m"), a->turnin, a->turncached, a->turnout,
	        color(a, "\033[0m"));
}

/* One user message and the model rounds it sets off: 0 done, 1 failed,
 * 130 interrupted. */
static int
turn(Agent *a, const char *text, size_t len)
{
	Reply r;
	Http h;
	const char *stop;
	int round, i, rc = 1, compacted = 0;

	intr = quitsig != 0;	/* a quit stays asked for */
	a->ioerr = 0;
	a->turnin = a->turnout = a->turncached = 0;
	notemodel(a);
	emit(a, "agent_start", NULL);
	if (autocompact && a->msgs.n &&
	    contexttokens(a) > a->prov->context - reserve(a))
		compact(a, "threshold", NULL);
	record(a, userjson(text, len));
	for (round = 0; round < maxrounds; round++) {
		emit(a, "turn_start", NULL);
		if (!round && !compacted)
			emitmsg(a, a->msgs.v[a->msgs.n - 1], 1);
		emit(a, "message_start",
		     "\"message\":{\"role\":\"assistant\",\"content\":[]}");
		if (ask(a, &r, &h) < 0) {
			stop = intr ? "aborted" : "error";
			if (r.text.len || r.think.len || r.ncalls) {
				record(a, assistantjson(a, &r, stop));
				emitmsg(a, a->msgs.v[a->msgs.n - 1], 0);
			} else {
				emitfailed(a, stop);
			}
			emit(a, "turn_end", NULL);
			if (r.overflow && autocompact && !compacted &&
			    compact(a, "overflow", NULL) == 0) {
				/* once: the same question on a shorter context */
				replyfree(&r);
				compacted = 1;
				round--;
				continue;
			}
			replyfree(&r);
			rc = intr ? 130 : 1;
			goto done;
		}
		a->turnin += r.in;
		a->turnout += r.out;
		a->turncached += r.cached;
		/* a call must have an id for its result to name */
		for (i = 0; i < r.ncalls; i++)
			if (!r.calls[i].id.len)
				bufaddf(&r.calls[i].id, "call_%d_%04x%04x",
				        ++a->nids, rand() & 0xffff,
				        rand() & 0xffff);
		if (r.dropped)
			warn("the answer holds more than %d tool calls: the "
			     "rest are left out", maxcalls);
		record(a, assistantjson(a, &r, NULL));
		emitmsg(a, a->msgs.v[a->msgs.n - 1], 0);
		if (!r.ncalls) {
			rc = 0;
			if (!strcmp(r.finish, "length")) {
				warn("the answer was cut short: the output "
				     "token limit was reached");
				rc = 1;
			} else if (!strcmp(r.finish, "refusal")) {
				warn("the model refused to answer");
				rc = 1;
			}
			emit(a, "turn_end", NULL);
			replyfree(&r);
			goto done;
		}
		endline(a);
		for (i = 0; i < r.ncalls && !intr; i++)
			runcall(a, &r.calls[i]);
		emit(a, "turn_end", NULL);
		replyfree(&r);
		if (intr) {
			endline(a);
			warn("interrupted");
			rc = 130;
			goto done;
		}
	}
	warn("stopped after %d model calls in one turn", maxrounds);
done:
	emit(a, "agent_end", NULL);
	endline(a);
	showusage(a);
	if (sesssync(&a->sess) < 0)
		a->ioerr = 1;
	return rc == 0 && a->ioerr ? 1 : rc;
}

/* Read all of a piped stdin, up to maxstdin bytes. */
static void
readstdin(Buf *b)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR && !intr)
			continue;
		if (n < 0 && intr)
			exit(status(130));
		if (n < 0)
			die("read stdin:");
		if (n == 0)
			break;
		if (b->len + n > maxstdin) {
			warn("stdin is over %zu bytes: the rest is not attached",
			     maxstdin);
			bufadd(b, buf, maxstdin - b->len);
			break;
		}
		bufadd(b, buf, n);
	}
}

static int
oneshot(Agent *a, char **words)
{
	Buf msg = { 0 }, in = { 0 };
	int rc;

	for (; *words; words++) {
		bufadds(&msg, *words);
		if (words[1])
			bufaddc(&msg, ' ');
	}
	if (!isatty(0)) {
		readstdin(&in);
		if (in.len) {
			bufadds(&msg, "\n\n");
			bufadd(&msg, in.p, in.len);
		}
	}
	rc = turn(a, msg.p, msg.len);
	buffree(&msg);
	buffree(&in);
	return rc;
}

/* A /command typed in line mode: 1 to go on, 0 to quit. */
static int
command(Agent *a, const char *line)
{
	if (!strcmp(line, "/quit") || !strcmp(line, "/exit"))
		return 0;
	if (!strcmp(line, "/help")) {
		fputs("/help     this list\n"
		      "/session  the session file\n"
		      "/compact [focus]  summarise the older conversation\n"
		      "/quit     leave (also /exit, Ctrl-D)\n", stderr);
		return 1;
	}
	if (!strncmp(line, "/compact", 8) && (!line[8] || line[8] == ' ')) {
		a->ioerr = 0;
		compact(a, "manual", line[8] ? line + 9 : NULL);
		if (sesssync(&a->sess) < 0 || a->ioerr)
			warn("the compaction is not saved in the session file");
		return 1;
	}
	if (!strcmp(line, "/session")) {
		fprintf(stderr, "%s\n", a->sess.path ? a->sess.path :
		        "no session file (-n)");
		return 1;
	}
	warn("unknown command: %s (try /help)", line);
	return 1;
}

/* Each line of stdin is a message; a line ending in \ goes on. */
static int
linemode(Agent *a)
{
	Buf msg = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int tty = isatty(0), rc = 0, r;

	for (;;) {
		if (tty)
			fputs(msg.len ? ". " : "> ", stderr);
		intr = quitsig != 0;
		n = getline(&line, &cap, stdin);
		if (n < 0) {
			if (errno == EINTR && intr) {
				rc = 130;
				break;
			}
			if (ferror(stdin))
				die("read stdin:");
			break;
		}
		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n && line[n - 1] == '\\') {
			bufadd(&msg, line, n - 1);
			bufaddc(&msg, '\n');
			continue;
		}
		bufadd(&msg, line, n);
		if (!msg.len)
			continue;
		if (msg.p[0] == '/' && !memchr(msg.p, '\n', msg.len)) {
			r = command(a, msg.p);
			bufreset(&msg);
			if (!r)
				break;
			continue;
		}
		r = turn(a, msg.p, msg.len);
		if (r)
			rc = r == 130 ? rc : 1;
		bufreset(&msg);
		if (quitsig)
			break;
	}
	free(line);
	buffree(&msg);
	return rc;
}

/* A user message holding intro, text and outro, as pi puts summaries
 * into the context. */
static char *
summaryjson(const char *intro, const char *text, const char *outro)
{
	Buf t = { 0 };
	char *json;

	bufadds(&t, intro);
	bufadds(&t, text);
	bufadds(&t, outro);
	json = userjson(t.p, t.len);
	buffree(&t);
	return json;
}

/* A command the user ran in pi (!cmd), as pi shows it to the model. */
static void
bashmsg(Agent *a, const Json *j, int m)
{
	Buf t = { 0 }, v = { 0 };
	double code;
	int no;

	if (jsonbool(j, jsonget(j, m, "excludeFromContext"), &no) == 0 && no)
		return;
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
	msgadd(&a->msgs, userjson(t.p, t.len));
	buffree(&t);
	buffree(&v);
}

/* The message an entry puts into the context, if any. */
static void
entrymsg(Agent *a, const Entry *e)
{
	Json j;
	Buf b = { 0 };
	char *v, *w;
	int k = -1;

	if (jsonparse(&j, e->line, strlen(e->line)) < 0)
		return;
	if (!strcmp(e->type, "message") && (k = jsonget(&j, 0, "message")) >= 0 &&
	    jsoneq(&j, jsonget(&j, k, "role"), "bashExecution")) {
		bashmsg(a, &j, k);
	} else if (!strcmp(e->type, "message") && k >= 0) {
		jsonraw(&b, &j, k);
		msgadd(&a->msgs, bufdetach(&b));
	} else if (!strcmp(e->type, "branch_summary")) {
		v = jsonstr(&j, jsonget(&j, 0, "summary"));
		msgadd(&a->msgs, summaryjson("The following is a summary of a "
		       "branch that this conversation came back from:\n\n"
		       "<summary>\n", v ? v : "", "\n</summary>"));
		free(v);
	} else if (!strcmp(e->type, "custom_message")) {
		contenttext(&b, &j, jsonget(&j, 0, "content"));
		msgadd(&a->msgs, userjson(bstr(&b), b.len));
	} else if (!strcmp(e->type, "model_change")) {
		v = jsonstr(&j, jsonget(&j, 0, "provider"));
		w = jsonstr(&j, jsonget(&j, 0, "modelId"));
		a->modelnoted = v && w && !strcmp(v, a->prov->name) &&
		                !strcmp(w, a->model);
		free(v);
		free(w);
	}
	buffree(&b);
	jsonfree(&j);
}

/* The context of a session: the messages on its branch.  After a
 * compaction its summary stands for what came before the first entry it
 * kept, as pi builds it. */
static void
loadcontext(Agent *a)
{
	const Entry **path;
	size_t n, i, start = 0, comp = (size_t)-1;
	Json j;
	char *sum, *kept;

	n = sessbranch(&a->sess, &path);
	for (i = 0; i < n; i++)
		if (!strcmp(path[i]->type, "compaction"))
			comp = i;
	if (comp != (size_t)-1 &&
	    jsonparse(&j, path[comp]->line, strlen(path[comp]->line)) == 0) {
		sum = jsonstr(&j, jsonget(&j, 0, "summary"));
		kept = jsonstr(&j, jsonget(&j, 0, "firstKeptEntryId"));
		msgadd(&a->msgs, summaryjson("The conversation history before "
		       "this point was compacted into the following summary:"
		       "\n\n<summary>\n", sum ? sum : "", "\n</summary>"));
		for (start = comp + 1, i = 0; kept && i < comp; i++)
			if (!strcmp(path[i]->id, kept))
				start = i;
		free(sum);
		free(kept);
		jsonfree(&j);
	}
	for (i = start; i < n; i++) {
		if (i == comp)
			a->compactat = a->msgs.n;
		else
			entrymsg(a, path[i]);
	}
	free(path);
}

/* The tokens kept free for the answer, and those of recent conversation
 * kept whole: config.h's, made to fit a small window. */
static long
reserve(const Agent *a)
{
	return MAX(reservetokens, a->maxout);
}

static long
keepbudget(const Agent *a)
{
	return MIN(keeptokens, MAX(a->prov->context - reserve(a), 0) / 2);
}

/* About four bytes a token: estimates for what has no usage yet. */
static long
estimate(size_t bytes)
{
	return (long)(bytes / 4);
}

/* The tokens the context holds: the usage of the last answer, and an
 * estimate of what came after it. */
static long
contexttokens(const Agent *a)
{
	Json j;
	double v;
	long tail = 0, got = -1;
	size_t i;
	int stop;

	for (i = a->msgs.n; i-- > 0 && got < 0; ) {
		if (i >= a->compactat &&
		    jsonparse(&j, a->msgs.v[i], strlen(a->msgs.v[i])) == 0) {
			stop = jsonget(&j, 0, "stopReason");
			if (jsoneq(&j, jsonget(&j, 0, "role"), "assistant") &&
			    !jsoneq(&j, stop, "error") &&
			    !jsoneq(&j, stop, "aborted") &&
			    jsonnum(&j, jsonget(&j, jsonget(&j, 0, "usage"),
			            "totalTokens"), &v) == 0 && v > 0 && v < 1e12)
				got = (long)v;
			jsonfree(&j);
		}
		if (got < 0)
			tail += estimate(strlen(a->msgs.v[i]));
	}
	return (got < 0 ? 0 : got) + tail;
}

/* The role of a message entry, or NULL; to be freed. */
static char *
entryrole(const Entry *e)
{
	Json j;
	char *role;

	if (strcmp(e->type, "message") || jsonparse(&j, e->line,
	    strlen(e->line)) < 0)
		return NULL;
	role = jsonstr(&j, jsonget(&j, jsonget(&j, 0, "message"), "role"));
	jsonfree(&j);
	return role;
}

/* The conversation can be cut before what a user or the assistant said
 * (pi's own kinds too), never between a call and its result. */
static int
cutpoint(const Entry *e)
{
	char *role;
	int ok;

	if (!strcmp(e->type, "custom_message") ||
	    !strcmp(e->type, "branch_summary"))
		return 1;
	role = entryrole(e);
	ok = role && (!strcmp(role, "user") || !strcmp(role, "assistant") ||
	              !strcmp(role, "bashExecution"));
	free(role);
	return ok;
}

/* Whether an entry puts anything into the context. */
static int
incontext(const Entry *e)
{
	return !strcmp(e->type, "message") ||
	       !strcmp(e->type, "custom_message") ||
	       !strcmp(e->type, "branch_summary");
}

/* A message entry as text for the summariser. */
static void
serialize(Buf *b, const Entry *e)
{
	Json j;
	Buf t = { 0 }, calls = { 0 };
	int m, c, blk, ty;

	if (jsonparse(&j, e->line, strlen(e->line)) < 0)
		return;
	m = jsonget(&j, 0, "message");
	c = jsonget(&j, m, "content");
	if (!strcmp(e->type, "custom_message")) {
		contenttext(&t, &j, jsonget(&j, 0, "content"));
		bufaddf(b, "[User]: %s\n\n", bstr(&t));
	} else if (!strcmp(e->type, "branch_summary")) {
		jsonstrbuf(&j, jsonget(&j, 0, "summary"), &t);
		bufaddf(b, "[Summary of another branch]: %s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "bashExecution")) {
		jsonstrbuf(&j, jsonget(&j, m, "command"), &t);
		bufaddf(b, "[User ran]: %s\n", bstr(&t));
		bufreset(&t);
		jsonstrbuf(&j, jsonget(&j, m, "output"), &t);
		bufaddf(b, "%s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "user")) {
		contenttext(&t, &j, c);
		bufaddf(b, "[User]: %s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "toolResult")) {
		contenttext(&t, &j, c);
		bufadds(b, "[Tool result]: ");
		if (t.len > maxresultsummary) {
			bufadd(b, t.p, utf8back(t.p, maxresultsummary));
			bufaddf(b, "\n[... %zu more bytes]", t.len -
			        utf8back(t.p, maxresultsummary));
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

/* Ask the model for a summary of conv, silently, with the summariser's
 * prompt and no tools; the summary goes to out. */
static int
summarize(Agent *a, const Buf *conv, const char *prev, const char *focus,
          Buf *out)
{
	Msgs saved = a->msgs;
	char *system = a->system;
	int noffer = a->noffer, rc;
	Buf p = { 0 };
	Reply r;
	Http h;

	bufadds(&p, "<conversation>\n");
	bufadd(&p, bstr(conv), conv->len);
	bufadds(&p, "</conversation>\n\n");
	if (prev)
		bufaddf(&p, "<previous-summary>\n%s\n</previous-summary>\n\n",
		        prev);
	bufadds(&p, summaryask);
	if (focus && *focus)
		bufaddf(&p, "\n\nAdditional focus: %s", focus);
	memset(&a->msgs, 0, sizeof(a->msgs));
	msgadd(&a->msgs, userjson(p.p, p.len));
	a->system = xstrdup(summaryprompt);
	a->noffer = 0;
	a->silent = 1;
	a->maxout = reserve(a) * 4 / 5;
	rc = ask(a, &r, &h);
	a->maxout = a->prov->maxout;
	a->silent = 0;
	a->noffer = noffer;
	if (rc == 0 && !strcmp(r.finish, "length")) {
		warn("the summary was cut short by the output token limit");
		rc = -1;
	}
	free(a->system);
	a->system = system;
	msgsfree(&a->msgs);
	a->msgs = saved;
	if (rc == 0)
		bufadd(out, bstr(&r.text), r.text.len);
	replyfree(&r);
	buffree(&p);
	return rc == 0 && out->len ? 0 : -1;
}

/* Replace the older part of the conversation by a summary: a compaction
 * entry, as pi writes them; nothing is deleted.  The last keeptokens stay
 * as they are.  0 done, -1 not. */
static int
compact(Agent *a, const char *why, const char *focus)
{
	const Entry **path;
	long n, k, cut, from = 0, last = -1, acc = 0;
	long before = contexttokens(a);
	Buf conv = { 0 }, sum = { 0 }, f = { 0 };
	char *prev = NULL, *kept = NULL, *firstkept = NULL;
	Json j;
	int rc = -1;

	n = (long)sessbranch(&a->sess, &path);
	for (k = 0; k < n; k++)
		if (!strcmp(path[k]->type, "compaction"))
			last = k;
	if (last >= 0 && jsonparse(&j, path[last]->line,
	    strlen(path[last]->line)) == 0) {
		prev = jsonstr(&j, jsonget(&j, 0, "summary"));
		kept = jsonstr(&j, jsonget(&j, 0, "firstKeptEntryId"));
		jsonfree(&j);
		for (from = last + 1, k = 0; kept && k < last; k++)
			if (!strcmp(path[k]->id, kept))
				from = k;
	}
	for (k = n - 1; k > from; k--) {
		if (incontext(path[k]))
			acc += estimate(strlen(path[k]->line));
		if (acc >= keepbudget(a))
			break;
	}
	k = MAX(k, from);	/* an empty branch */
	for (cut = k; cut < n && !cutpoint(path[cut]); cut++)
		;
	if (cut == n)
		for (cut = k; cut > from && !cutpoint(path[cut]); cut--)
			;
	for (k = from; k < cut; k++)
		if (k != last && incontext(path[k]))
			serialize(&conv, path[k]);
	if (acc < keepbudget(a) || cut <= from || !conv.len) {
		if (!a->quiet)
			warn("nothing to compact: the conversation is short");
		goto done;
	}
	/* the summariser's window is the model's: the oldest part goes */
	if (conv.len > (size_t)(a->prov->context - reserve(a)) * 3) {
		k = conv.len - (a->prov->context - reserve(a)) * 3;
		bufreset(&sum);
		bufadds(&sum, "[... the oldest part of the conversation left out]\n");
		bufadd(&sum, conv.p + k, conv.len - k);
		bufreset(&conv);
		bufadd(&conv, sum.p, sum.len);
		bufreset(&sum);
	}
	k = cut;
	firstkept = xstrdup(path[k]->id);
	if (!a->quiet)
		warn("compacting the conversation (%s, about %ld tokens)", why,
		     before);
	bufaddf(&f, "\"reason\":\"%s\"", why);
	emit(a, "compaction_start", f.p);
	bufreset(&f);
	if (summarize(a, &conv, prev, focus, &sum) < 0) {
		warn("compaction failed: the conversation is kept whole");
		bufaddf(&f, "\"reason\":\"%s\",\"aborted\":%s,"
		        "\"errorMessage\":\"no summary\"", why,
		        intr ? "true" : "false");
		emit(a, "compaction_end", f.p);
		goto done;
	}
	bufadds(&f, "\"summary\":");
	jsonesc(&f, sum.p, sum.len);
	bufadds(&f, ",\"firstKeptEntryId\":");
	jsonescs(&f, firstkept);
	bufaddf(&f, ",\"tokensBefore\":%ld", before);
	free(path);
	path = NULL;	/* the append may move the entries */
	if (sessappend(&a->sess, "compaction", f.p) < 0)
		a->ioerr = 1;
	msgsfree(&a->msgs);
	memset(&a->msgs, 0, sizeof(a->msgs));
	loadcontext(a);
	bufreset(&f);
	bufaddf(&f, "\"reason\":\"%s\",\"result\":{\"summary\":", why);
	jsonesc(&f, sum.p, sum.len);
	bufadds(&f, ",\"firstKeptEntryId\":");
	jsonescs(&f, firstkept);
	bufaddf(&f, ",\"tokensBefore\":%ld},\"aborted\":false", before);
	emit(a, "compaction_end", f.p);
	rc = 0;
done:
	free(path);
	free(prev);
	free(kept);
	free(firstkept);
	buffree(&conv);
	buffree(&sum);
	buffree(&f);
	return rc;
}

/* Where sessions live: AGENT_SESSION_DIR, or under the XDG data home. */
static char *
sessionbase(void)
{
	Buf b = { 0 };
	const char *v;

	if ((v = getenv("AGENT_SESSION_DIR")) && *v)
		bufadds(&b, v);
	else if ((v = getenv("XDG_DATA_HOME")) && *v)
		bufaddf(&b, "%s/agent/sessions", v);
	else if ((v = getenv("HOME")) && *v)
		bufaddf(&b, "%s/.local/share/agent/sessions", v);
	else
		return NULL;
	return bufdetach(&b);
}

/* -n: none, -c: the latest of this directory, -s: that file (made if it
 * is not there), -f: a new one holding a copy of that file's branch;
 * otherwise a new one. */
static void
opensession(Agent *a, int mode, const char *file)
{
	char cwd[4096], *base, *dir = NULL, *latest;
	Session from;

	if (!getcwd(cwd, sizeof(cwd)))
		die("getcwd:");
	if (mode != 'n' && !(base = sessionbase())) {
		warn("no HOME and no AGENT_SESSION_DIR: no session file");
		mode = 'n';
	}
	if (mode == 'n') {
		sessnew(&a->sess, NULL, cwd);
		return;
	}
	dir = sessdir(base, cwd);
	free(base);
	if (mode == 'c' && (latest = sesslatest(dir))) {
		if (sessload(&a->sess, latest) < 0)
			exit(1);
		free(latest);
	} else if (mode == 's') {
		/* a file that is not there, or empty, becomes a new session */
		if (sessload(&a->sess, file) < 0 && errno != ENOENT)
			exit(1);
		if (!a->sess.head) {
			sessnew(&a->sess, dir, cwd);
			free(a->sess.path);
			a->sess.path = xstrdup(file);
		}
	} else if (mode == 'f') {
		/* the file forked from is only read */
		if (sessread(&from, file) < 0 && errno == ENOENT)
			die("-f %s: no such session file", file);
		else if (!from.head)
			exit(1);
		if (sessfork(&a->sess, &from, file, dir, cwd) < 0)
			exit(1);
		sessfree(&from);
	} else {
		sessnew(&a->sess, dir, cwd);
	}
	free(dir);
	loadcontext(a);
}

static const Provider *
findprovider(const char *name)
{
	size_t i;

	for (i = 0; i < LEN(providers); i++)
		if (!strcmp(providers[i].name, name))
			return &providers[i];
	return NULL;
}

/* -t: a comma-separated list of tool names, empty for none. */
static void
offertools(Agent *a, const char *list)
{
	char *s, *p, *name;
	size_t i;

	a->noffer = 0;
	if (!list) {
		for (i = 0; i < LEN(tools); i++)
			a->offer[a->noffer++] = &tools[i];
		return;
	}
	s = xstrdup(list);
	for (p = s; (name = strtok(p, ", ")); p = NULL) {
		for (i = 0; i < LEN(tools) && strcmp(tools[i].name, name); i++)
			;
		if (i == LEN(tools)) {
			warn("-t: no tool named %s", name);
			usage();
		}
		if (toolindex(a, name) < 0)
			a->offer[a->noffer++] = &tools[i];
	}
	free(s);
}

/* Append up to max bytes of a file; -1 with errno if it cannot be read. */
static int
addfile(Buf *b, const char *path, size_t max)
{
	char buf[8192];
	size_t n, got = 0;
	FILE *f;
	int err;

	if (!(f = fopen(path, "r")))
		return -1;
	while (got < max &&
	       (n = fread(buf, 1, MIN(sizeof(buf), max - got), f))) {
		bufadd(b, buf, n);
		got += n;
	}
	if (got == max && fgetc(f) != EOF)
		bufaddf(b, "\n[cut at %zu bytes]", max);
	err = ferror(f) ? errno : 0;
	fclose(f);
	errno = err;
	return err ? -1 : 0;
}

/* A file of instructions we trust: a regular file of ours or root's, not
 * one that another user left in a shared directory such as /tmp. */
static int
trusted(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       (st.st_uid == getuid() || st.st_uid == 0) &&
	       access(path, R_OK) == 0;
}

/* The project instructions from cwd up to the root, outermost first. */
static void
addcontext(Buf *b, const char *cwd)
{
	char dir[4096], path[4200], *found[128], *slash;
	int n = 0, k;

	snprintf(dir, sizeof(dir), "%s", cwd);
	while (n < (int)LEN(found)) {
		for (k = 0; contextfiles[k]; k++) {
			snprintf(path, sizeof(path), "%s/%s",
			         strcmp(dir, "/") ? dir : "", contextfiles[k]);
			if (trusted(path)) {
				found[n++] = xstrdup(path);
				break;
			}
		}
		if (!(slash = strrchr(dir, '/')) || !strcmp(dir, "/"))
			break;
		if (slash == dir)
			dir[1] = '\0';	/* up to the root */
		else
			*slash = '\0';
	}
	if (n)
		bufadds(b, "\n\n# Project instructions\n\nThe user's "
		        "instructions for this project, from these files:");
	while (n-- > 0) {
		bufaddf(b, "\n\n## %s\n\n", found[n]);
		if (addfile(b, found[n], maxcontext) < 0)
			warn("%s:", found[n]);
		free(found[n]);
	}
}

static void
buildsystem(Agent *a)
{
	Buf b = { 0 };
	char date[32], cwd[4096];
	time_t now = time(NULL);
	int k;

	bufadds(&b, sysprompt);
	if (a->noffer) {
		bufadds(&b, "\n\nTools: ");
		for (k = 0; k < a->noffer; k++)
			bufaddf(&b, "%s%s", k ? ", " : "", a->offer[k]->name);
		bufadds(&b, ".");
	}
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	addcontext(&b, cwd);
	strftime(date, sizeof(date), "%Y-%m-%d", localtime(&now));
	bufaddf(&b, "\n\nCurrent date: %s\nCurrent working directory: %s",
	        date, cwd);
	a->system = bufdetach(&b);
}

/* Keys must never reach a tool: the bash tool drops these variables. */
static void
buildscrub(Agent *a)
{
	size_t i, n = 0;

	a->scrub = xcalloc(LEN(providers) + LEN(secretenv) + 2,
	                   sizeof(*a->scrub));
	a->scrub[n++] = "AGENT_API_KEY";
	for (i = 0; i < LEN(providers); i++)
		if (providers[i].keyenv)
			a->scrub[n++] = providers[i].keyenv;
	for (i = 0; secretenv[i]; i++)
		a->scrub[n++] = secretenv[i];
	a->scrub[n] = NULL;
}

/* No key may reach a tool, and the one that bash runs could read ours in
 * /proc/PID/environ, which shows the environment we started with: blank
 * the values there (the key was copied), and keep other processes of the
 * user out of our memory. */
static void
hidesecrets(const char *const *names)
{
	char **e, *eq;
	size_t k;

	for (e = environ; *e; e++) {
		if (!(eq = strchr(*e, '=')))
			continue;
		for (k = 0; names[k]; k++)
			if (strlen(names[k]) == (size_t)(eq - *e) &&
			    !memcmp(*e, names[k], eq - *e))
				memset(eq + 1, 0, strlen(eq + 1));
	}
#ifdef __linux__
	prctl(PR_SET_DUMPABLE, 0);
#endif
}

/* Whether two descriptors write to one file, as with 2>&1. */
static int
samefile(int fd1, int fd2)
{
	struct stat s1, s2;

	return fstat(fd1, &s1) == 0 && fstat(fd2, &s2) == 0 &&
	       s1.st_dev == s2.st_dev && s1.st_ino == s2.st_ino;
}

static void
setup(Agent *a, const char *pname, const char *model, const char *toollist)
{
	const char *v;
	long timeout = readtimeout;
	struct sigaction sa;
	Url u;

	if (!pname)
		pname = getenv("AGENT_PROVIDER");
	a->prov = pname && *pname ? findprovider(pname) : &providers[0];
	if (!a->prov) {
		warn("no provider named %s in config.h", pname);
		usage();
	}
	if (!model || !*model)
		model = getenv("AGENT_MODEL");
	a->model = model && *model ? model : a->prov->model;
	if (!a->model)
		die("%s: no model: use -m or AGENT_MODEL", a->prov->name);
	v = getenv("AGENT_BASE_URL");
	a->url = v && *v ? v : a->prov->url;
	v = getenv("AGENT_API_KEY");
	if ((!v || !*v) && a->prov->keyenv)
		v = getenv(a->prov->keyenv);
	a->key = v && *v ? xstrdup(v) : NULL;
	if (!a->key && a->prov->keyenv)
		die("%s: no API key: set %s or AGENT_API_KEY", a->prov->name,
		    a->prov->keyenv);
	if ((v = httpurl(&u, a->url)))
		die("%s: %s", a->url, v);
	if ((v = getenv("AGENT_TIMEOUT")) && atol(v) > 0)
		timeout = MIN(atol(v), 1000000);
	offertools(a, toollist);
	buildsystem(a);
	buildscrub(a);
	hidesecrets(a->scrub);
	a->maxout = a->prov->maxout;
	a->tenv.maxlines = maxlines;
	a->tenv.maxbytes = maxbytes;
	a->tenv.greplinemax = greplinemax;
	a->tenv.greplimit = greplimit;
	a->tenv.findlimit = findlimit;
	a->tenv.lslimit = lslimit;
	a->tenv.bashtimeout = bashtimeout;
	a->tenv.killgrace = killgrace;
	a->tenv.maxedit = maxedit;
	a->tenv.maxlog = maxlog;
	a->tenv.shells = shells;
	a->tenv.scrubenv = a->scrub;
	a->tenv.intr = &intr;
	a->tenv.pgid = &toolpg;
	a->http = httpnew(cafiles, conntimeout * 1000, timeout * 1000,
	                  maxhead, &intr);
	a->ttyesc = isatty(1);
	a->ttyout = a->ttyesc || samefile(1, 2);
	a->color = isatty(2) && !getenv("NO_COLOR");
	a->lastc = -1;
	srand(time(NULL) ^ getpid());

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = onsignal;	/* no SA_RESTART: reads see EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

int
main(int argc, char *argv[])
{
	Agent a;
	const char *pname = NULL, *model = NULL, *toollist = NULL;
	const char *file = NULL;
	int c, rc, mode = 0;

	setlocale(LC_CTYPE, "");
	memset(&a, 0, sizeof(a));
	while ((c = getopt(argc, argv, "cnqyjvs:f:P:m:t:")) != -1) {
		switch (c) {
		case 'c': case 'n': case 's': case 'f':
			if (mode && mode != c)
				usage();	/* one session choice */
			mode = c;
			file = optarg;
			break;
		case 'q': a.quiet = 1; break;
		case 'y': a.yes = 1; break;
		case 'v':
			if (puts("agent " VERSION) == EOF || fflush(stdout))
				die("write stdout:");
			return 0;
		case 'P': pname = optarg; break;
		case 'm': model = optarg; break;
		case 't': toollist = optarg; break;
		case 'j': a.json = 1; break;
		default:
			usage();
		}
	}
	setup(&a, pname, model, toollist);
	opensession(&a, mode, file);
	if (intr)	/* during a long load */
		exit(status(130));
	if (a.json) {
		/* events only on stdout, the session's header first */
		a.ttyout = a.ttyesc = 0;
		out(&a, a.sess.head, strlen(a.sess.head));
		out(&a, "\n", 1);
	}
	rc = optind < argc ? oneshot(&a, argv + optind) : linemode(&a);
	rc = status(rc);
	sessfree(&a.sess);
	httpfree(a.http);
	msgsfree(&a.msgs);
	free(a.system);
	free(a.scrub);
	free(a.key);
	toolcleanup(&a.tenv);
	return rc;
}
