/* See LICENSE file for copyright and license details. */
/* events.c: what a run shows on stdout: the answer as text (narration and
 * thinking going to stderr, with the tool calls' traces and the usage),
 * or pi's json-mode events (-j, and -r's events), one JSON object a line.
 * Deltas carry the piece alone, never a copy of the whole message as pi
 * 0.x did: that made the output grow with the square of the answer. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "events.h"

enum { THROTTLE = 100 };	/* ms between tool_execution_updates, as pi */

/* Text */

static const char *
colorif(const Events *e, const char *code)
{
	return e->color ? code : "";
}

/* Bytes to stdout: at once, or with the rest of the read being parsed. */
void
evwrite(Events *e, const char *p, size_t n)
{
	if (!n)
		return;
	bufadd(&e->pending, p, n);
	e->lastc = (unsigned char)p[n - 1];
	if (!e->hold)
		evflush(e);
}

/* What evwrite() holds, to stdout.  A reader that went away (EPIPE)
 * ends the run quietly, another failure with a word: the turn is
 * stopped and agent.c, seeing quit, syncs the session, cleans up and
 * leaves.  Nothing more is written. */
void
evflush(Events *e)
{
	if (!e->pending.len || (e->quit && *e->quit == SIGPIPE)) {
		bufreset(&e->pending);
		return;
	}
	if (writeall(1, e->pending.p, e->pending.len) < 0) {
		if (errno != EPIPE) {
			warn("write stdout:");
			e->failed = 1;
		}
		if (e->quit)
			*e->quit = SIGPIPE;
		if (e->intr)
			*e->intr = 1;
	}
	bufreset(&e->pending);
}

/* Before a trace or a message on a terminal: finish the answer's line. */
void
evendline(Events *e)
{
	if (e->ttyout && e->textseen && e->lastc != '\n')
		evwrite(e, "\n", 1);
}

void
evendthinking(Events *e)
{
	if (e->thinking)
		fprintf(stderr, "%s\n", colorif(e, "\033[0m"));
	e->thinking = 0;
}

/* A message begins: on a terminal its text streams to stdout; otherwise
 * it is held until it is known to be the final answer. */
void
evtextstart(Events *e)
{
	e->textto = (e->ttyesc || e->on) && !e->noanswer ? EVOUT : EVHOLD;
	e->began = 0;
	bufreset(&e->held);
}

/* Text of the answer to stdout; a later message's starts a line. */
static void
answer(Events *e, const char *p, size_t n)
{
	Buf show = { 0 };

	if (!n)
		return;
	if (!e->began && e->textseen && e->lastc != '\n')
		evwrite(e, "\n", 1);
	e->began = e->textseen = 1;
	if (e->ttyesc) {
		/* a model could hide lines, or set the window title and
		 * the clipboard (OSC 0, OSC 52) */
		safetext(&show, p, n, 0);
		evwrite(e, show.p, show.len);
		buffree(&show);
	} else {
		evwrite(e, p, n);
	}
}

/* Text of a message that calls tools, stdout being no terminal: it is
 * narration, for stderr with the trace. */
static void
narrate(Events *e, const char *p, size_t n)
{
	Buf show = { 0 };

	if (e->quiet || !n)
		return;
	evflush(e);
	safetext(&show, p, n, 0);
	fwrite(show.p, 1, show.len, stderr);
	buffree(&show);
	e->narrated = (unsigned char)p[n - 1];
}

/* The text held goes where it is now known to belong, EVOUT or EVERR;
 * the rest of the message's goes there too. */
void
evsettle(Events *e, int to)
{
	if (e->textto == EVHOLD && to == EVERR)
		narrate(e, e->held.p, e->held.len);
	else if (e->textto == EVHOLD && !e->noanswer)
		answer(e, e->held.p, e->held.len);
	bufreset(&e->held);
	e->textto = to;
}

/* The end of a message's text: held text is the answer; narration ends
 * its line. */
void
evtextdone(Events *e)
{
	evsettle(e, EVOUT);
	if (e->narrated && e->narrated != '\n')
		fputc('\n', stderr);
	e->narrated = 0;
}

void
evtext(Events *e, const char *p, size_t n)
{
	evendthinking(e);
	if (e->textto == EVERR) {
		narrate(e, p, n);
	} else if (e->textto == EVHOLD) {
		/* bounded: past maxhold it streams to stdout; with -o,
		 * where it is never shown, to stderr as narration would */
		bufadd(&e->held, p, n);
		if (e->held.len > e->maxhold)
			evsettle(e, e->noanswer ? EVERR : EVOUT);
	} else {
		answer(e, p, n);
	}
}

void
evthink(Events *e, const char *p, size_t n)
{
	Buf show = { 0 };

	if (e->quiet)
		return;
	evflush(e);	/* the text before it goes first */
	if (!e->thinking)
		fputs(colorif(e, "\033[2m"), stderr);
	e->thinking = 1;
	safetext(&show, p, n, 0);
	fwrite(show.p, 1, show.len, stderr);
	buffree(&show);
}

/* A tool call's trace on stderr: the tool and what it works on... */
void
evshowcall(Events *e, const char *name, const char *what)
{
	if (e->quiet)
		return;
	bufreset(&e->shown);
	bufaddf(&e->shown, "%s%s%s %s", colorif(e, "\033[36m"), name,
	        colorif(e, "\033[0m"), what);
	fputs(e->shown.p, stderr);
	e->traceopen = 1;
}

/* The call's line, broken by another, begins again before its end. */
static void
evshowagain(Events *e)
{
	if (e->traceopen == 2)
		fputs(bstr(&e->shown), stderr);
	e->traceopen = 0;
}

/* ...or its line ends there, its result to come later: tasks that run
 * side by side, whose children's calls are traced meanwhile. */
void
evshowwait(Events *e)
{
	if (e->quiet)
		return;
	evshowagain(e);
	fputs(" ...\n", stderr);
}

/* ...and, on the same line, how it went: what it changed (change, as
 * "+3 -1"), the lines of its result, or the last line of an error. */
void
evshowresult(Events *e, int iserr, const Buf *res, const char *change)
{
	Buf safe = { 0 };
	size_t lines = 0, k, eol;

	if (e->quiet)
		return;
	evshowagain(e);
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
		fprintf(stderr, " %s-> %.*s%s\n", colorif(e, "\033[31m"),
		        (int)safe.len, bstr(&safe), colorif(e, "\033[0m"));
		buffree(&safe);
		return;
	}
	if (change) {
		fprintf(stderr, " %s%s%s\n", colorif(e, "\033[2m"), change,
		        colorif(e, "\033[0m"));
		return;
	}
	for (k = 0; k < res->len; k++)
		lines += res->p[k] == '\n';
	if (res->len && res->p[res->len - 1] != '\n')
		lines++;
	fprintf(stderr, " %s-> %zu line%s%s\n", colorif(e, "\033[2m"), lines,
	        lines == 1 ? "" : "s", colorif(e, "\033[0m"));
}

/* A turn's tokens on stderr, and its cost in dollars if it is known (not
 * -1). */
void
evshowusage(Events *e, long long in, long long cached, long long out,
            double cost)
{
	if (e->quiet || (!in && !out))
		return;
	fprintf(stderr, "%stokens: %lld in (%lld cached), %lld out",
	        colorif(e, "\033[2m"), in, cached, out);
	if (cost >= 0)
		fprintf(stderr, ", $%.4f", cost);
	else	/* no price in config.h: not a cost of 0 */
		fprintf(stderr, ", cost unknown");
	fprintf(stderr, "%s\n", colorif(e, "\033[0m"));
}

/* Events */

/* A message is "{"role":"...", as agent builds them all. */
static int
isrole(const char *json, const char *role)
{
	size_t n = strlen(role);

	return !strncmp(json, "{\"role\":\"", 9) &&
	       !strncmp(json + 9, role, n) && json[9 + n] == '"';
}

/* A list of JSON texts, comma-separated, for turn_end and agent_end. */
static void
listadd(Buf *b, const char *json)
{
	if (b->len)
		bufaddc(b, ',');
	bufadds(b, json);
}

/* What the run and the round made, on the events that end them. */
static void
ending(Events *e, const char *type, Buf *f)
{
	if (!strcmp(type, "turn_end")) {
		bufadds(f, "\"message\":");
		if (e->lastlen)
			bufadd(f, e->run.p + e->last, e->lastlen);
		else
			bufadds(f, "null");
		bufadds(f, ",\"toolResults\":[");
		bufadd(f, bstr(&e->results), e->results.len);
		bufaddc(f, ']');
	} else if (!strcmp(type, "agent_end")) {
		bufadds(f, "\"messages\":[");
		bufadd(f, bstr(&e->run), e->run.len);
		bufaddc(f, ']');
	}
}

/* One event; fields is a JSON fragment or NULL.  turn_end and agent_end
 * get what the round and the run made, before fields; their starts
 * forget it. */
void
evemit(Events *e, const char *type, const char *fields)
{
	Buf b = { 0 };

	if (!e->on)
		return;
	if (!strcmp(type, "agent_start"))
		bufreset(&e->run);
	if (!strcmp(type, "agent_start") || !strcmp(type, "turn_start")) {
		bufreset(&e->results);
		e->lastlen = 0;
	}
	bufadds(&b, "{\"type\":");
	jsonescs(&b, type);
	bufaddc(&b, ',');
	ending(e, type, &b);
	if (fields && *fields) {
		if (b.p[b.len - 1] != ',')
			bufaddc(&b, ',');
		bufadds(&b, fields);
	}
	if (b.p[b.len - 1] == ',')
		b.len--;
	bufadds(&b, "}\n");
	evwrite(e, b.p, b.len);
	buffree(&b);
}

/* A message's start (if start) and end, for a message whole at once, or
 * the end of the answer that streamed. */
void
evmsg(Events *e, const char *json, int start)
{
	Buf f = { 0 };

	if (!e->on)
		return;
	bufadds(&f, "\"message\":");
	bufadds(&f, json);
	if (start)
		evemit(e, "message_start", f.p);
	evemit(e, "message_end", f.p);
	buffree(&f);
	if (isrole(json, "assistant")) {
		e->last = e->run.len + (e->run.len > 0);
		e->lastlen = strlen(json);
	} else if (isrole(json, "toolResult")) {
		listadd(&e->results, json);
	}
	listadd(&e->run, json);
}

/* The start of an answer about to stream, an empty message with the
 * fields of the one to come; its blocks are counted from here. */
void
evstart(Events *e, int wire, const char *provider, const char *model)
{
	Buf f = { 0 };
	Wire w;
	char *m;

	e->blocks = 0;
	e->text = e->think = -1;
	e->ncalls = 0;
	if (!e->on)
		return;
	wireinit(&w, wire, NULL, NULL);
	m = wiremessage(&w, provider, model, NULL);
	bufadds(&f, "\"message\":");
	bufadds(&f, m);
	evemit(e, "message_start", f.p);
	free(m);
	wirefree(&w);
	buffree(&f);
}

/* The contentIndex of call k, -1 until it has begun. */
static int *
callindex(Events *e, int k)
{
	if (k >= e->ncalls) {
		e->calls = xrealloc(e->calls, (k + 1) * sizeof(*e->calls));
		while (e->ncalls <= k)
			e->calls[e->ncalls++] = -1;
	}
	return &e->calls[k];
}

static void
update(Events *e, const char *type, int index, const Buf *extra)
{
	Buf f = { 0 };

	bufaddf(&f, "\"assistantMessageEvent\":{\"type\":\"%s\","
	        "\"contentIndex\":%d", type, index);
	if (extra)
		bufadd(&f, extra->p, extra->len);
	bufaddc(&f, '}');
	evemit(e, "message_update", f.p);
	buffree(&f);
}

/* A block's start, when its first piece comes. */
static int
blockbegin(Events *e, int *index, const char *type, const Buf *extra)
{
	if (*index < 0) {
		*index = e->blocks++;
		update(e, type, *index, extra);
	}
	return *index;
}

/* A piece of the answer as it streams: its block's start the first time,
 * then the delta.  A call's start names it, as pi 1.x's does. */
void
evpiece(Events *e, const Wire *w, int kind, const char *p, size_t n)
{
	Buf d = { 0 }, x = { 0 };
	const Wirecall *c;
	int k;

	if (!e->on)
		return;
	if (p) {
		bufadds(&d, ",\"delta\":");
		jsonesc(&d, p, n);
	}
	if (kind == PIECETEXT) {
		k = blockbegin(e, &e->text, "text_start", NULL);
		update(e, "text_delta", k, &d);
	} else if (kind == PIECETHINK) {
		k = blockbegin(e, &e->think, "thinking_start", NULL);
		update(e, "thinking_delta", k, &d);
	} else {
		c = &w->calls[w->call];
		bufadds(&x, ",\"id\":");
		jsonesc(&x, bstr(&c->id), c->id.len);
		bufadds(&x, ",\"toolName\":");
		jsonesc(&x, bstr(&c->name), c->name.len);
		k = blockbegin(e, callindex(e, w->call), "toolcall_start", &x);
		if (p)
			update(e, "toolcall_delta", k, &d);
	}
	buffree(&d);
	buffree(&x);
}

/* The ends of the answer's blocks, in contentIndex order, from the
 * message as stored (json): each with its whole content, as pi's. */
void
evends(Events *e, const char *json)
{
	Json j;
	Buf x = { 0 };
	int c, blk, ty, ncall, i;

	if (!e->on || jsonparse(&j, json, strlen(json)) < 0)
		return;
	c = jsonget(&j, 0, "content");
	for (i = 0; i < e->blocks; i++) {
		ncall = 0;
		blk = jsonat(&j, c, 0);
		for (; blk >= 0; blk = jsonnext(&j, blk)) {
			ty = jsonget(&j, blk, "type");
			bufreset(&x);
			if (jsoneq(&j, ty, "thinking") && e->think == i) {
				bufadds(&x, ",\"content\":");
				jsonraw(&x, &j, jsonget(&j, blk, "thinking"));
				update(e, "thinking_end", i, &x);
			} else if (jsoneq(&j, ty, "text") && e->text == i) {
				bufadds(&x, ",\"content\":");
				jsonraw(&x, &j, jsonget(&j, blk, "text"));
				update(e, "text_end", i, &x);
			} else if (jsoneq(&j, ty, "toolCall") &&
			           ncall++ < e->ncalls &&
			           e->calls[ncall - 1] == i) {
				bufadds(&x, ",\"toolCall\":");
				jsonraw(&x, &j, blk);
				update(e, "toolcall_end", i, &x);
			}
		}
	}
	buffree(&x);
	jsonfree(&j);
}

/* A tool call starting (with its arguments, or NULL when it may not run)
 * or ending (with its result). */
void
evcall(Events *e, const Wirecall *c, const char *type, const Json *args,
       const Buf *res, const Buf *image, int iserr)
{
	Buf f = { 0 };

	if (!e->on)
		return;
	if (!res) {
		bufreset(&e->call);
		bufadds(&e->call, "\"toolCallId\":");
		jsonesc(&e->call, bstr(&c->id), c->id.len);
		bufadds(&e->call, ",\"toolName\":");
		jsonesc(&e->call, bstr(&c->name), c->name.len);
		bufadds(&e->call, ",\"args\":");
		if (args)
			jsonraw(&e->call, args, 0);
		else
			bufadds(&e->call, "{}");
		evemit(e, type, e->call.p);
		bufreset(&e->tail);
		e->updated = 0;
		e->dirty = 0;
		/* pi's bash says at once that it runs, output or not */
		if (args && c->name.len == 4 && !memcmp(c->name.p, "bash", 4))
			evoutput(e, NULL, 0);
		e->updated = 0;	/* the first output goes at once */
		return;
	}
	if (e->dirty)
		evoutput(e, NULL, 0);
	e->dirty = 0;
	bufadds(&f, "\"toolCallId\":");
	jsonesc(&f, bstr(&c->id), c->id.len);
	bufadds(&f, ",\"toolName\":");
	jsonesc(&f, bstr(&c->name), c->name.len);
	bufadds(&f, ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":");
	jsonesc(&f, bstr(res), res->len);
	bufaddc(&f, '}');
	if (image)
		bufadd(&f, bstr(image), image->len);	/* an image read */
	bufaddf(&f, "]},\"isError\":%s", iserr ? "true" : "false");
	evemit(e, type, f.p);
	buffree(&f);
	bufreset(&e->call);	/* no call runs now: -r's bash is none */
}

/* The running tool's output as it comes (the tools' progress callback,
 * from proc.c's pump): tool_execution_update with the end of what came
 * so far, at most every THROTTLE ms, as pi's bash sends it.  n 0 sends
 * what is due now. */
void
evoutput(void *arg, const char *p, size_t n)
{
	Events *e = arg;
	Buf f = { 0 };
	const char *nl;
	size_t cut;
	long long now = monoms();

	if (!e->on || !e->call.len)
		return;
	bufadd(&e->tail, p, n);
	if (e->tail.len > 2 * e->maxtail) {
		cut = e->tail.len - e->maxtail;
		memmove(e->tail.p, e->tail.p + cut, e->maxtail);
		e->tail.len = e->maxtail;
	}
	e->dirty = n > 0;
	if (n && now - e->updated < THROTTLE)
		return;
	e->updated = now;
	e->dirty = 0;
	cut = e->tail.len > e->maxtail ? e->tail.len - e->maxtail : 0;
	if (cut && (nl = memchr(e->tail.p + cut, '\n', e->tail.len - cut)))
		cut = nl + 1 - e->tail.p;	/* whole lines, as pi's tail */
	while (cut < e->tail.len && (e->tail.p[cut] & 0xc0) == 0x80)
		cut++;
	bufadds(&f, e->call.p);
	bufadds(&f, ",\"partialResult\":{\"content\":[");
	if (e->tail.len) {
		bufadds(&f, "{\"type\":\"text\",\"text\":");
		jsonesc(&f, e->tail.p + cut, e->tail.len - cut);
		bufaddc(&f, '}');
	}
	bufadds(&f, e->tail.len ? "],\"details\":{}}" : "]}");
	evemit(e, "tool_execution_update", f.p);
	buffree(&f);
}

/* A compaction's end: its result, or why there is none (err).  willRetry:
 * the turn that overflowed is asked again. */
void
evcompacted(Events *e, const char *why, const Buf *sum,
            const char *firstkept, long before, const char *err,
            int aborted)
{
	Buf f = { 0 };

	if (!e->on)
		return;
	bufaddf(&f, "\"reason\":\"%s\"", why);
	if (sum) {
		bufadds(&f, ",\"result\":{\"summary\":");
		jsonesc(&f, sum->p, sum->len);
		bufadds(&f, ",\"firstKeptEntryId\":");
		jsonescs(&f, firstkept);
		bufaddf(&f, ",\"tokensBefore\":%ld}", before);
	}
	bufaddf(&f, ",\"aborted\":%s,\"willRetry\":%s",
	        aborted ? "true" : "false",
	        sum && !strcmp(why, "overflow") ? "true" : "false");
	if (err) {
		bufadds(&f, ",\"errorMessage\":");
		jsonescs(&f, err);
	}
	evemit(e, "compaction_end", f.p);
	buffree(&f);
}

/* A stored message (a JSON object) with errorMessage added: why it
 * failed, as pi keeps it.  msg is taken; the result is the caller's. */
char *
evwitherror(char *msg, const char *err)
{
	Buf b = { 0 };
	size_t n = strlen(msg);

	if (!err || !*err || n < 2 || msg[n - 1] != '}')
		return msg;
	bufadd(&b, msg, n - 1);
	bufadds(&b, ",\"errorMessage\":");
	jsonescs(&b, err);
	bufaddc(&b, '}');
	free(msg);
	return bufdetach(&b);
}

void
evfree(Events *e)
{
	buffree(&e->pending);
	buffree(&e->held);
	free(e->calls);
	buffree(&e->run);
	buffree(&e->results);
	buffree(&e->call);
	buffree(&e->tail);
	buffree(&e->shown);
}

/* What a call works on: its command, path or pattern, made safe for the
 * terminal: whole (max 0), or its first line cut to max bytes, with "…"
 * when more lines follow. */
void
evcallwhat(Buf *b, const Json *j, int args, size_t max)
{
	static const char *keys[] = {
		"command", "path", "pattern", "description"
	};
	Buf v = { 0 }, safe = { 0 };
	size_t i, at = 0, n;
	char *nl;

	for (i = 0; i < LEN(keys) && !v.len; i++)
		jsonstrbuf(j, jsonget(j, args, keys[i]), &v);
	n = v.len;
	if (max && v.len) {	/* the first line that holds something */
		while (at < v.len && v.p[at] == '\n')
			at++;
		if ((nl = memchr(v.p + at, '\n', v.len - at)))
			n = nl - v.p;
	}
	safetext(&safe, v.p ? v.p + at : "", n - at, max > 0);
	if (max && safe.len > max) {
		bufadd(b, safe.p, utf8back(safe.p, max - 3));
		bufadds(b, "...");
	} else {
		bufadd(b, safe.p ? safe.p : "", safe.len);
		if (max && n < v.len && v.len - n > 1)
			bufadds(b, " \xe2\x80\xa6");	/* more lines: "…" */
	}
	bufgrow(b, 0);
	buffree(&v);
	buffree(&safe);
}
