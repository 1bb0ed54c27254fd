/* See LICENSE file for copyright and license details. */
/* mcp.c: MCP servers' tools (the Model Context Protocol, 2025-06-18):
 * a server is started when its tools are first offered, spoken to in
 * JSON-RPC 2.0, one message a line on a child's stdin and stdout, or
 * POSTed over streamable HTTP (answers as JSON or as an event stream);
 * a server that dies, hangs or writes garbage is stopped, and its tools
 * answer errors for the rest of the run. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#include "util.h"
#include "json.h"
#include "sse.h"
#include "http.h"
#include "tools.h"
#include "proc.h"
#include "mcp.h"

enum { IDLE, UP, DEAD };	/* a server's state */
enum { MAXPAGES = 100 };	/* pages of tools/list followed */
enum {
	MAXTOOLS = 256,		/* tools of a server offered: each
				 * request carries them all */
	MAXDESC = 4096,		/* bytes of a tool's description kept */
	MAXSCHEMA = 65536	/* of its schema: a bigger one is skipped */
};
enum { MAXASKS = 32 };	/* a server's requests answered in one of ours,
			 * over HTTP: each answer is a POST of its own,
			 * whose reply may ask again */
enum {
	ERRREADS = 16,		/* reads of a server's stderr (4 KB each)
				 * at a time, past the time given: one
				 * writing without pause holds nothing */
	ERRLINES = 1000		/* lines of its stderr said in a run */
};

typedef struct {
	const Mcpserver *s;
	int state;
	char *why;		/* DEAD: what happened */
	pid_t pid;		/* stdio: the server, its stdin and stdout */
	int to, from;
	Buf in;			/* bytes read, not yet a whole line */
	int err;		/* its stderr, said line by line, */
	Buf errin;		/* what came of it, not yet a whole line, */
	int errsaid;		/* and the lines said, to ERRLINES */
	Httpclient *http;	/* HTTP: the connection, */
	char *auth;		/* the row's header with its value, */
	char sid[128];		/* the Mcp-Session-Id it gave, */
	int expired;		/* 404 to a request that named it */
	Buf queue;		/* answers to its requests, to be POSTed,
				 * each ended by a NUL, */
	int nqueue;		/* how many, in the request in hand */
	long long end;		/* monoms() by which that request ends,
				 * answers to the server's included */
	const char *version;	/* the protocol version it answered */
	int changed;		/* it said its list changed */
	long id;		/* of our last request */
	Tool *tools;		/* its tools, named server__tool */
	char **orig;		/* their names on the server */
	int ntools;
} Srv;

struct Mcp {
	const Mcpconf *c;
	Srv *srv;
	int nsrv;
	Tool *all;		/* every server's tools, as offered */
	Srv **allsrv;		/* the server of each */
	int nall;
	int gen;		/* bumped when all changes */
	long token;		/* the last call's progressToken */
};

static const char *const versions[] = {
	"2025-06-18", "2025-11-25", "2025-03-26", NULL
};

/* The image types every wire takes: another would make the provider
 * refuse the request, and a control character in one the JSON invalid. */
static const char *const imagetypes[] = {
	"image/png", "image/jpeg", "image/gif", "image/webp", NULL
};

/* Member key of object obj of j, a string, appended to b: 0, or -1 if
 * it is none. */
static int
mcpmember(const Json *j, int obj, const char *key, Buf *b)
{
	return jsonstrbuf(j, jsonget(j, obj, key), b);
}

/* A line of ours on stderr begins a line: a call's trace open there is
 * ended, to begin again after (events.c). */
static void
mcpnewline(const Mcp *m)
{
	if (m->c->traceopen && *m->c->traceopen == 1) {
		fputc('\n', stderr);
		*m->c->traceopen = 2;
	}
}

/* One safe line on stderr, the server's name first. */
static void
mcpsay(const Mcp *m, const Srv *v, const char *what, const char *p,
       size_t n)
{
	Buf b = { 0 };

	if (m->c->quiet)
		return;
	safetext(&b, p, MIN(n, 300), 1);
	mcpnewline(m);
	warn("mcp %s: %s%s", v->s->name, what, bstr(&b));
	buffree(&b);
}

#define ERRMORE "(more on its stderr, not shown)"

/* A line of a stdio server's stderr said, up to ERRLINES of them. */
static void
srverrsay(Mcp *m, Srv *v, const char *p, size_t n)
{
	if (v->errsaid < ERRLINES)
		mcpsay(m, v, "", p, n);
	else if (v->errsaid == ERRLINES)
		mcpsay(m, v, "", ERRMORE, strlen(ERRMORE));
	v->errsaid += v->errsaid <= ERRLINES;
}

/* The whole lines a stdio server wrote on its stderr, said each on its
 * own line; with all, the last one unended too. */
static void
srverrlines(Mcp *m, Srv *v, int all)
{
	char *p, *end, *nl;
	size_t len;

	if (!v->errin.len)
		return;
	p = v->errin.p;
	end = p + v->errin.len;
	while (p < end && ((nl = memchr(p, '\n', end - p)) || all)) {
		len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len > strspn(p, " \t\r"))
			srverrsay(m, v, p, len);
		p += len + !!nl;
	}
	v->errin.len = end - p;
	memmove(v->errin.p, p, v->errin.len);
	v->errin.p[v->errin.len] = '\0';
}

/* Read what a stdio server wrote on its stderr, waiting up to ms for
 * its end (0: what is there), and say it; ERRREADS reads at most once
 * the time is up.  Its end closes the pipe; a line too long for a trace
 * is said in pieces. */
static void
srverrread(Mcp *m, Srv *v, int ms)
{
	struct pollfd pf;
	char buf[4096];
	long long end = monoms() + ms;
	ssize_t k;
	int n = 0;

	while (v->err >= 0 && (n++ < ERRREADS || monoms() < end)) {
		pf.fd = v->err;
		pf.events = POLLIN;
		if (poll(&pf, 1, MAX(end - monoms(), 0)) <= 0)
			break;
		if ((k = read(v->err, buf, sizeof(buf))) > 0) {
			bufadd(&v->errin, buf, k);
			srverrlines(m, v, v->errin.len > 1024);
			continue;
		}
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		close(v->err);
		v->err = -1;
	}
	srverrlines(m, v, v->err < 0);
}

/* The server stops: killed and reaped, said once; its tools answer
 * errors from now on. */
static void
mcpdown(Mcp *m, Srv *v, const char *why)
{
	if (v->state == DEAD)
		return;
	v->state = DEAD;
	v->why = xstrdup(why);
	srverrread(m, v, 0);	/* the shell's "not found" comes first */
	if (!m->c->quiet) {
		mcpnewline(m);
		warn("mcp %s: %s: its tools answer errors", v->s->name, why);
	}
	if (v->pid > 0)
		procunserve(m->c->tenv->procs, v->pid);
	v->pid = 0;
	if (v->to >= 0)
		close(v->to);
	if (v->from >= 0)
		close(v->from);
	if (v->err >= 0)
		close(v->err);
	v->to = v->from = v->err = -1;
}

/* Write msg whole to a stdio server by the time end. */
static int
stdiowrite(Srv *v, const Buf *msg, long long end)
{
	struct pollfd pf;
	size_t off = 0;
	ssize_t k;

	while (off < msg->len) {
		if (monoms() >= end)
			return -1;
		pf.fd = v->to;
		pf.events = POLLOUT;
		if (poll(&pf, 1, 100) <= 0)
			continue;
		if ((k = write(v->to, msg->p + off, msg->len - off)) > 0)
			off += k;
		else if (errno != EAGAIN && errno != EINTR)
			return -1;
	}
	return 0;
}

static int
srvhttp(const Mcpserver *s)
{
	return !strncmp(s->where, "http://", 7) ||
	       !strncmp(s->where, "https://", 8);
}

/* The answer to a request of the server's: ping's is empty, we offer
 * nothing else (roots, sampling, elicitation).  Written by the end of
 * the request in hand, or queued to be POSTed after its exchange. */
static void
mcpanswer(Srv *v, const Json *j, int id, int meth)
{
	Buf b = { 0 };

	bufadds(&b, "{\"jsonrpc\":\"2.0\",\"id\":");
	jsonraw(&b, j, id);
	if (jsoneq(j, meth, "ping"))
		bufadds(&b, ",\"result\":{}}");
	else
		bufadds(&b, ",\"error\":{\"code\":-32601,"
		        "\"message\":\"Method not found\"}}");
	if (!srvhttp(v->s)) {
		bufaddc(&b, '\n');
		stdiowrite(v, &b, v->end);
	} else if (v->nqueue < MAXASKS) {	/* past it, none */
		bufadd(&v->queue, b.p, b.len + 1);
		v->nqueue++;
	}
	buffree(&b);
}

/* A notification: progress and log lines to the trace; a changed list
 * is fetched again before the next request. */
static void
mcpnotice(Mcp *m, Srv *v, const Json *j, int meth)
{
	int par = jsonget(j, 0, "params"), k;
	Buf b = { 0 };
	double d, t;

	if (jsoneq(j, meth, "notifications/tools/list_changed")) {
		v->changed = 1;
	} else if (jsoneq(j, meth, "notifications/progress")) {
		if (jsonnum(j, jsonget(j, par, "progress"), &d) == 0)
			bufaddf(&b, "%.0f", d);
		if (jsonnum(j, jsonget(j, par, "total"), &t) == 0)
			bufaddf(&b, "/%.0f", t);
		if ((k = jsonget(j, par, "message")) >= 0) {
			bufaddc(&b, ' ');
			jsonstrbuf(j, k, &b);
		}
		mcpsay(m, v, "progress ", bstr(&b), b.len);
	} else if (jsoneq(j, meth, "notifications/message")) {
		mcpmember(j, par, "level", &b);
		bufadds(&b, ": ");
		if ((k = jsonget(j, par, "data")) >= 0 && j->t[k].type == JSTR)
			jsonstrbuf(j, k, &b);
		else if (k >= 0)
			jsonraw(&b, j, k);
		mcpsay(m, v, "", bstr(&b), b.len);
	}
	buffree(&b);
}

/* One message from server v: 1 the answer to our request id (into
 * res), 0 another, handled, -1 no JSON-RPC message. */
static int
mcpmsg(Mcp *m, Srv *v, const char *p, size_t n, long id, Buf *res)
{
	Json j;
	int rid, meth, r = 0;
	double d;

	if (jsonparse(&j, p, n) < 0)
		return -1;
	rid = jsonget(&j, 0, "id");
	meth = jsonget(&j, 0, "method");
	if (j.t[0].type != JOBJ)
		r = -1;
	else if (meth >= 0 && rid >= 0)
		mcpanswer(v, &j, rid, meth);
	else if (meth >= 0)
		mcpnotice(m, v, &j, meth);
	else if (rid >= 0 && jsonnum(&j, rid, &d) == 0 && d == id)
		r = 1;
	else if (jsonget(&j, 0, "result") < 0 && jsonget(&j, 0, "error") < 0)
		r = -1;
	if (r > 0 && res->len)	/* an event stream's second: the first
				 * counts, two are no JSON */
		r = 0;
	if (r > 0)
		bufadd(res, p, n);
	jsonfree(&j);
	return r;
}

/* The whole lines a stdio server wrote, each a message: 1 the answer
 * to id came, 0 not yet, -1 garbage. */
static int
stdiolines(Mcp *m, Srv *v, long id, Buf *res)
{
	char *nl;
	size_t len;
	int r = 0;

	while (!r && v->in.len && (nl = memchr(v->in.p, '\n', v->in.len))) {
		len = nl - v->in.p;
		if (len > strspn(v->in.p, " \t\r"))
			r = mcpmsg(m, v, v->in.p, len, id, res);
		memmove(v->in.p, nl + 1, v->in.len - len - 1);
		v->in.len -= len + 1;
		v->in.p[v->in.len] = '\0';
	}
	return r;
}

/* Read a stdio server's messages till the answer to id: 0; -1 with
 * why; -2 SIGINT came. */
static int
stdioawait(Mcp *m, Srv *v, long id, long long end, Buf *res, Buf *why)
{
	struct pollfd pf[2];
	char buf[16384];
	long long now;
	ssize_t k;
	int r;

	for (;;) {
		if ((r = stdiolines(m, v, id, res)) != 0) {
			if (r < 0)
				bufadds(why, "it wrote what is no JSON-RPC");
			return r > 0 ? 0 : -1;
		}
		if (v->in.len > m->c->maxmsg) {
			bufadds(why, "it wrote a message over the limit");
			return -1;
		}
		if (*m->c->tenv->intr)
			return -2;
		if ((now = monoms()) >= end) {
			bufadds(why, "it did not answer in time");
			return -1;
		}
		pf[0].fd = v->from;
		pf[1].fd = v->err;	/* -1: left out */
		pf[0].events = pf[1].events = POLLIN;
		if (poll(pf, 2, MIN(end - now, 100)) <= 0)
			continue;
		if (pf[1].revents)
			srverrread(m, v, 0);
		if (!pf[0].revents)
			continue;
		if ((k = read(v->from, buf, sizeof(buf))) > 0) {
			bufadd(&v->in, buf, k);
		} else if (k == 0 || (errno != EAGAIN && errno != EINTR)) {
			srverrread(m, v, 200);	/* its last words */
			bufadds(why, "it exited");
			return -1;
		}
	}
}

/* streamable HTTP */

/* One reply to a POST, read as it comes. */
typedef struct {
	Mcp *m;
	Srv *v;
	Http *h;
	long id;		/* of the request it answers, -1 none */
	Buf *res;
	Buf body;		/* an application/json answer */
	Sse sse;		/* or an event stream's */
	int kind;		/* 0 not known yet, 1 JSON, 2 events */
	int got, bad;		/* the answer came; garbage came */
} Hctx;

static int
mcpevent(void *arg, const char *event, const char *data, size_t len)
{
	Hctx *x = arg;
	int r;

	(void)event;
	if (!len)
		return 0;
	if ((r = mcpmsg(x->m, x->v, data, len, x->id, x->res)) < 0)
		x->bad = 1;
	x->got |= r > 0;
	return r < 0;
}

static void
hctxinit(Hctx *x, Mcp *m, Srv *v, long id, Buf *res)
{
	memset(x, 0, sizeof(*x));
	x->m = m;
	x->v = v;
	x->id = id;
	x->res = res;
	sseinit(&x->sse, mcpevent, x);
	x->sse.max = m->c->maxmsg;
}

/* Bytes of a 2xx reply's body, whose Content-Type is ctype: nonzero
 * when no more should come. */
static int
hctxfeed(Hctx *x, const char *ctype, const char *p, size_t n)
{
	int r;

	if (!x->kind)
		x->kind = strncmp(ctype, "text/event-stream", 17) ? 1 : 2;
	if (x->kind == 2) {	/* no more once the answer came, or garbage:
				 * a server may keep its stream open */
		if ((r = ssefeed(&x->sse, p, n)) < 0)
			x->bad = 1;
		return r || x->got || x->bad;
	}
	if (x->body.len + n > x->m->c->maxmsg)
		return x->bad = 1;
	bufadd(&x->body, p, n);
	return 0;
}

/* The reply is whole: its event stream ended, or its JSON read. */
static void
hctxend(Hctx *x)
{
	int r;

	if (x->kind == 2 && sseend(&x->sse) < 0)
		x->bad = 1;
	if (x->kind == 1 && !x->bad && x->id >= 0 &&
	    (r = mcpmsg(x->m, x->v, x->body.p, x->body.len, x->id,
	                x->res)) != 0)
		x->got = r > 0, x->bad = r < 0;
}

static void
hctxfree(Hctx *x)
{
	buffree(&x->body);
	ssefree(&x->sse);
}

static int
mcpbody(void *arg, const char *p, size_t n)
{
	Hctx *x = arg;

	if (x->h->status / 100 != 2)
		return 0;
	return hctxfeed(x, x->h->ctype, p, n);
}

/* One POST of msg, by the request's end; the answer to id into res
 * (none awaited for id -1): 0, or -1 with why. */
static int
httpxchg(Mcp *m, Srv *v, const Buf *msg, long id, Buf *res, Buf *why)
{
	const char *hd[6];
	Buf sid = { 0 }, ver = { 0 };
	Http h;
	Hctx x;
	int n = 0, rc;

	hd[n++] = "Content-Type: application/json";
	hd[n++] = "Accept: application/json, text/event-stream";
	if (v->sid[0]) {
		bufaddf(&sid, "Mcp-Session-Id: %s", v->sid);
		hd[n++] = sid.p;
	}
	if (v->version) {
		bufaddf(&ver, "MCP-Protocol-Version: %s", v->version);
		hd[n++] = ver.p;
	}
	if (v->auth)
		hd[n++] = v->auth;
	hd[n] = NULL;
	memset(&h, 0, sizeof(h));
	h.method = "POST";
	h.url = v->s->where;
	h.headers = hd;
	h.body = msg->p;
	h.bodylen = msg->len;
	h.fn = mcpbody;
	h.arg = &x;
	h.deadline = v->end;
	hctxinit(&x, m, v, id, res);
	x.h = &h;
	if ((rc = httpdo(v->http, &h)) == 0)
		hctxend(&x);
	else if (x.got || x.bad)
		rc = 0;	/* we stopped reading: said below */
	if (h.sessid[0] && !v->sid[0])
		memcpy(v->sid, h.sessid, sizeof(v->sid));
	v->expired = rc == 0 && h.status == 404 && sid.len;
	if (rc < 0)
		bufadds(why, h.err);
	else if (h.status / 100 != 2)
		bufaddf(why, "HTTP status %d", h.status);
	else if (x.bad)
		bufadds(why, "it sent what is no JSON-RPC");
	else if (id >= 0 && !x.got)
		bufadds(why, "it sent no answer");
	hctxfree(&x);
	buffree(&sid);
	buffree(&ver);
	return why->len ? -1 : 0;
}

/* POST msg, then the answers to the server's requests in its reply, one
 * POST each, in turn: a reply to an answer may ask again, and is
 * answered in the same loop, not deeper.  MAXASKS at most, all by the
 * request's end; what is left gets no answer.  0, or -1 with why. */
static int
httpcall(Mcp *m, Srv *v, const Buf *msg, long id, Buf *res, Buf *why)
{
	Buf one = { 0 }, none = { 0 }, err = { 0 };
	size_t off;
	int rc, expired;

	rc = httpxchg(m, v, msg, id, res, why);
	expired = v->expired;	/* the request's, not an answer's */
	for (off = 0; off < v->queue.len && monoms() < v->end;
	     off += one.len + 1) {
		bufreset(&one);
		bufadds(&one, v->queue.p + off);
		bufreset(&err);
		httpxchg(m, v, &one, -1, &none, &err);
	}
	v->expired = expired;
	bufreset(&v->queue);
	buffree(&one);
	buffree(&none);
	buffree(&err);
	return rc;
}

/* For test/fuzz_mcphttp: a reply to our request id (-1: to an answer),
 * its Content-Type ctype, its body fed step bytes at a time, read as an
 * exchange reads it, with no network: 1 the answer came into res, 0 it
 * did not, -1 garbage came; the answers to the server's requests in it,
 * as they would be POSTed, into asks, each ended by a NUL. */
int
mcpreply(const char *ctype, const char *p, size_t n, size_t step, long id,
         Buf *res, Buf *asks)
{
	static const Mcpserver row = { "fuzz", "http://127.0.0.1/", 0, 0,
	                               0 };
	Mcpconf c;
	Mcp m;
	Srv v;
	Hctx x;
	size_t k;

	memset(&c, 0, sizeof(c));
	memset(&m, 0, sizeof(m));
	memset(&v, 0, sizeof(v));
	c.maxmsg = 4096;	/* the fuzzer's inputs reach past it */
	c.quiet = 1;
	m.c = &c;
	v.s = &row;
	v.to = v.from = v.err = -1;
	hctxinit(&x, &m, &v, id, res);
	for (k = 0; k < n && !hctxfeed(&x, ctype, p + k, MIN(step, n - k));
	     k += step)
		;
	hctxend(&x);
	bufadd(asks, v.queue.p, v.queue.len);
	buffree(&v.queue);
	hctxfree(&x);
	return x.bad ? -1 : x.got;
}

/* The time secs from now, for mcpsend. */
static long long
mcpby(int secs)
{
	return monoms() + 1000LL * secs;
}

/* A request (id >= 0) or a notification, params raw JSON or NULL, by
 * the time end (mcpby): 0 with the answer in res; -1 with why; -2 SIGINT
 * came. */
static int
mcpsend(Mcp *m, Srv *v, const char *method, const char *params,
        long long end, Buf *res, Buf *why)
{
	Buf msg = { 0 };
	long id = method[0] == 'n' ? -1 : ++v->id;	/* notifications/ */
	int rc;

	bufadds(&msg, "{\"jsonrpc\":\"2.0\",");
	if (id >= 0)
		bufaddf(&msg, "\"id\":%ld,", id);
	bufaddf(&msg, "\"method\":\"%s\"", method);
	if (params) {
		bufadds(&msg, ",\"params\":");
		bufadds(&msg, params);
	}
	bufaddc(&msg, '}');
	bufreset(res);
	v->end = end;
	v->nqueue = 0;
	if (v->http) {
		rc = httpcall(m, v, &msg, id, res, why);
	} else {
		bufaddc(&msg, '\n');
		if ((rc = stdiowrite(v, &msg, end)) < 0)
			bufadds(why, "it does not read its input");
		else if (id >= 0)
			rc = stdioawait(m, v, id, end, res, why);
	}
	buffree(&msg);
	return rc;
}

/* tools/list */

/* Whether server v has a tool of that name already. */
static int
srvhas(const Srv *v, const char *name)
{
	int k;

	for (k = 0; k < v->ntools; k++)
		if (!strcmp(v->tools[k].name, name))
			return 1;
	return 0;
}

/* A tool of the server's list, offered as server__tool if its name and
 * schema are good; else skipped, with a warning. */
static void
addtool(Mcp *m, Srv *v, const Json *j, int t)
{
	Buf name = { 0 }, full = { 0 }, why = { 0 }, schema = { 0 };
	Buf desc = { 0 };
	Tool *o;

	mcpmember(j, t, "name", &name);
	bufaddf(&full, "%s__%s", v->s->name, bstr(&name));
	if (jsonget(j, t, "inputSchema") >= 0)
		jsonraw(&schema, j, jsonget(j, t, "inputSchema"));
	if (!name.len || strlen(full.p) != full.len || !toolgoodname(full.p))
		bufadds(&why, "a name of 1 to 64 letters, digits, _ and - is "
		        "needed");
	else if (srvhas(v, full.p))	/* Anthropic refuses a name twice */
		bufadds(&why, "it is listed more than once (the first is "
		        "offered)");
	else if (schema.len > MAXSCHEMA)
		bufaddf(&why, "its schema is over %d bytes", MAXSCHEMA);
	else if (toolschema(bstr(&schema), &why) == 0)
		goto keep;
	bufreset(&desc);	/* a hostile name: made safe to show */
	safetext(&desc, full.p, MIN(full.len, 80), 1);
	if (!m->c->quiet)
		warn("mcp %s: tool %s skipped: %s", v->s->name, desc.p,
		     why.p);
	goto out;
keep:
	mcpmember(j, t, "description", &desc);
	if (desc.len > MAXDESC) {	/* cut where a character begins */
		desc.len = utf8back(desc.p, MAXDESC);
		bufadds(&desc, "...");
	}
	v->tools = xrealloc(v->tools, (v->ntools + 1) * sizeof(*v->tools));
	v->orig = xrealloc(v->orig, (v->ntools + 1) * sizeof(*v->orig));
	o = &v->tools[v->ntools];
	memset(o, 0, sizeof(*o));
	o->name = bufdetach(&full);
	o->approve = 1;	/* what it does, no rule can see: ask as bash */
	o->desc = bufdetach(&desc);
	o->schema = bufdetach(&schema);
	v->orig[v->ntools++] = bufdetach(&name);
out:
	buffree(&name);
	buffree(&full);
	buffree(&why);
	buffree(&schema);
	buffree(&desc);
}

static void
srvforget(Srv *v)
{
	int i;

	for (i = 0; i < v->ntools; i++) {
		free((char *)v->tools[i].name);
		free((char *)v->tools[i].desc);
		free((char *)v->tools[i].schema);
		free(v->orig[i]);
	}
	free(v->tools);
	free(v->orig);
	v->tools = NULL;
	v->orig = NULL;
	v->ntools = 0;
}

/* The server's tools, page after page, all by the time end: 0, or -1
 * with why. */
static int
srvlist(Mcp *m, Srv *v, long long end, Buf *why)
{
	Buf cur = { 0 }, par = { 0 }, res = { 0 };
	Json j = { 0 };
	int page, r, t, k, rc = -1;

	srvforget(v);
	for (page = 0; page < MAXPAGES; page++) {
		bufreset(&par);
		if (cur.len) {
			bufadds(&par, "{\"cursor\":");
			jsonesc(&par, cur.p, cur.len);
			bufaddc(&par, '}');
		}
		if (mcpsend(m, v, "tools/list", cur.len ? par.p : NULL, end,
		            &res, why) < 0)
			goto out;
		bufreset(&cur);
		jsonfree(&j);
		if (jsonparse(&j, res.p, res.len) < 0 ||
		    (r = jsonget(&j, 0, "result")) < 0 ||
		    (t = jsonget(&j, r, "tools")) < 0 || j.t[t].type != JARR) {
			bufadds(why, "its tools/list answer holds no tools");
			goto out;
		}
		for (k = jsonat(&j, t, 0); k >= 0 && v->ntools < MAXTOOLS;
		     k = jsonnext(&j, k))
			addtool(m, v, &j, k);
		if (k >= 0) {
			if (!m->c->quiet)
				warn("mcp %s: it lists over %d tools: the rest "
				     "are not offered", v->s->name, MAXTOOLS);
			break;
		}
		if ((k = jsonget(&j, r, "nextCursor")) < 0 ||
		    j.t[k].type != JSTR || jsonstrbuf(&j, k, &cur) < 0 ||
		    !cur.len)
			break;
	}
	rc = 0;
out:
	jsonfree(&j);
	buffree(&cur);
	buffree(&par);
	buffree(&res);
	return rc;
}

/* initialize and initialized, by the time end: 0, or -1 with why.  An
 * HTTP server that forgot our session (404) is greeted anew, its new
 * session taken. */
static int
srvhello(Mcp *m, Srv *v, long long end, Buf *why)
{
	Buf res = { 0 }, ver = { 0 };
	Json j = { 0 };
	int i;

	v->sid[0] = '\0';
	if (mcpsend(m, v, "initialize", "{\"protocolVersion\":\"2025-06-18\","
	            "\"capabilities\":{},\"clientInfo\":{\"name\":\"agent\","
	            "\"version\":\"" VERSION "\"}}", end, &res, why) < 0)
		goto out;
	if (jsonparse(&j, res.p, res.len) == 0)
		jsonstrbuf(&j, jsonget(&j, jsonget(&j, 0, "result"),
		                       "protocolVersion"), &ver);
	for (i = 0; versions[i] && strcmp(versions[i], bstr(&ver)); i++)
		;
	if (!(v->version = versions[i])) {
		bufadds(why, "it speaks no protocol version we know");
		goto out;
	}
	mcpsend(m, v, "notifications/initialized", NULL, end, &res, why);
out:
	jsonfree(&j);
	buffree(&res);
	buffree(&ver);
	return why->len ? -1 : 0;
}

/* Start a server, say hello, list its tools, all within listtimeout:
 * 0, or -1 with why. */
static int
srvstart(Mcp *m, Srv *v, Buf *why)
{
	const Mcpconf *c = m->c;
	long long end = mcpby(c->listtimeout);

	if (!strncmp(v->s->where, "http://", 7) ||
	    !strncmp(v->s->where, "https://", 8)) {
		v->http = httpnew(c->cafiles, c->conntimeout * 1000,
		                  MAX(c->calltimeout, c->listtimeout) * 1000,
		                  64 << 10, c->tenv->intr, c->proxy);
	} else if ((v->pid = procserve(c->tenv->procs, v->s->where, &v->to,
	                               &v->from, &v->err)) < 0) {
		v->pid = 0;
		bufaddf(why, "cannot start it: %s", strerror(errno));
		return -1;
	}
	if (srvhello(m, v, end, why) == 0)
		srvlist(m, v, end, why);
	return why->len ? -1 : 0;
}

/* Whether the offered list has a tool of that name already. */
static int
gathered(const Mcp *m, const char *name)
{
	int k;

	for (k = 0; k < m->nall; k++)
		if (!strcmp(m->all[k].name, name))
			return 1;
	return 0;
}

/* The offered list, anew from every server's. */
static void
mcpgather(Mcp *m)
{
	const char *name;
	int i, k;

	m->nall = 0;
	for (i = 0; i < m->nsrv; i++) {
		m->all = xrealloc(m->all, (m->nall + m->srv[i].ntools + 1) *
		                  sizeof(*m->all));
		m->allsrv = xrealloc(m->allsrv, (m->nall + m->srv[i].ntools +
		                     1) * sizeof(*m->allsrv));
		for (k = 0; k < m->srv[i].ntools; k++) {
			/* a__b's c and a's b__c are one name */
			name = m->srv[i].tools[k].name;
			if (gathered(m, name)) {
				if (!m->c->quiet)
					warn("mcp %s: tool %s skipped: another"
					     " server offers that name",
					     m->srv[i].s->name, name);
				continue;
			}
			m->allsrv[m->nall] = &m->srv[i];
			m->all[m->nall++] = m->srv[i].tools[k];
		}
	}
	m->gen++;
}

/* The servers' tools as they are now, each server started the first
 * time and its list fetched again when it said it changed: how many;
 * *gen changes when they do. */
int
mcptools(Mcp *m, const Tool **tools, int *gen)
{
	Buf why = { 0 };
	int i, any = 0;
	Srv *v;

	for (i = 0; i < m->nsrv; i++)	/* a start may take seconds */
		if (m->srv[i].state == IDLE)
			bufaddf(&why, "%s%s", why.len ? ", " : "",
			        m->srv[i].s->name);
	if (why.len && !m->c->quiet) {
		mcpnewline(m);
		warn("mcp: starting %s", why.p);
	}
	for (i = 0; i < m->nsrv; i++) {
		v = &m->srv[i];
		if (v->state == IDLE || (v->state == UP && v->changed)) {
			v->changed = 0;
			bufreset(&why);
			if ((v->state == IDLE ? srvstart(m, v, &why) :
			     srvlist(m, v, mcpby(m->c->listtimeout),
			             &why)) < 0)
				mcpdown(m, v, bstr(&why));
			else
				v->state = UP;
			any = 1;
		}
	}
	if (any)
		mcpgather(m);
	buffree(&why);
	*tools = m->all;
	*gen = m->gen;
	return m->nall;
}

/* The row of the server whose tool is k-th in the offered list. */
const Mcpserver *
mcprow(const Mcp *m, int k)
{
	return m->allsrv[k]->s;
}

/* tools/call */

/* A server's answer to tools/call as the model sees it: the text of
 * its text blocks, and of embedded resources; an image's block into
 * image, as read returns one, maximage bytes of them at most (each
 * request carries them again); a resource link as a line.  0, or 1
 * when it is an error (isError, or a JSON-RPC error). */
int
mcpresult(const char *s, size_t n, Buf *out, Buf *image, size_t maximage)
{
	Json j;
	int r, c, k, t, x, bad;
	Buf ty = { 0 }, v = { 0 }, mime = { 0 };
	size_t i, shown = 0;

	if (jsonparse(&j, s, n) < 0) {
		bufadds(out, "The MCP server's answer is not JSON");
		return 1;
	}
	if ((r = jsonget(&j, 0, "error")) >= 0) {
		bufadds(out, "MCP error: ");
		if (mcpmember(&j, r, "message", out) < 0)
			jsonraw(out, &j, r);
		jsonfree(&j);
		return 1;
	}
	r = jsonget(&j, 0, "result");
	if ((c = jsonget(&j, r, "content")) < 0 || j.t[c].type != JARR) {
		if ((k = jsonget(&j, r, "structuredContent")) >= 0)
			jsonraw(out, &j, k);
	}
	for (k = c >= 0 ? jsonat(&j, c, 0) : -1; k >= 0; k = jsonnext(&j, k)) {
		bufreset(&ty);
		bufreset(&v);
		mcpmember(&j, k, "type", &ty);
		if (out->len && out->p[out->len - 1] != '\n')
			bufaddc(out, '\n');
		if (!strcmp(bstr(&ty), "text")) {
			mcpmember(&j, k, "text", out);
		} else if (!strcmp(bstr(&ty), "image")) {
			bufreset(&mime);
			mcpmember(&j, k, "mimeType", &mime);
			mcpmember(&j, k, "data", &v);
			for (i = bad = 0; i < v.len; i++)
				bad |= b64val((unsigned char)v.p[i]) < 0 &&
				       v.p[i] != '=';
			for (t = 0; imagetypes[t] &&
			     strcmp(imagetypes[t], bstr(&mime)); t++)
				;
			if (bad || !v.len) {
				bufadds(out, "[an image that is not valid]");
				continue;
			}
			if (!imagetypes[t] || strlen(mime.p) != mime.len) {
				bufadds(out, "[image of type ");
				safetext(out, bstr(&mime), MIN(mime.len, 40),
				         1);
				bufadds(out, " not shown]");
				continue;
			}
			if (v.len / 4 * 3 > maximage - MIN(maximage, shown)) {
				bufadds(out, "[image over ");
				bufaddsize(out, maximage);
				bufadds(out, " in all, not shown]");
				continue;
			}
			shown += v.len / 4 * 3;
			bufadds(image, ",{\"type\":\"image\",\"data\":\"");
			bufadd(image, v.p, v.len);
			bufaddf(image, "\",\"mimeType\":\"%s\"}",
			        imagetypes[t]);
			bufaddf(out, "[image %s]", imagetypes[t]);
		} else if (!strcmp(bstr(&ty), "resource_link")) {
			bufadds(out, "Resource link: ");
			mcpmember(&j, k, "name", out);
			bufadds(out, " ");
			mcpmember(&j, k, "uri", out);
		} else if (!strcmp(bstr(&ty), "resource") &&
		           (x = jsonget(&j, k, "resource")) >= 0 &&
		           (t = jsonget(&j, x, "text")) >= 0) {
			jsonstrbuf(&j, t, out);
		} else {
			bufadds(out, "[content of type ");
			safetext(out, bstr(&ty), MIN(ty.len, 40), 1);
			bufadds(out, ", not shown]");
		}
	}
	bad = jsonbool(&j, jsonget(&j, r, "isError"), &x) == 0 && x;
	jsonfree(&j);
	buffree(&ty);
	buffree(&v);
	buffree(&mime);
	return r < 0 || bad;
}

/* Call an MCP tool by its offered name: 0 with its result in out (and
 * images in image), 1 with an error for the model. */
int
mcpcall(Mcp *m, const char *name, const Json *j, Buf *out, Buf *image)
{
	Buf par = { 0 }, res = { 0 }, why = { 0 };
	size_t max = m->c->tenv->lim->maxbytes;
	Srv *v;
	int i, k, rc;

	for (i = 0; i < m->nall && strcmp(m->all[i].name, name); i++)
		;
	if (i == m->nall)
		return bufaddf(out, "Tool %s not found", name), 1;
	v = m->allsrv[i];
	for (k = 0; k < v->ntools && v->tools[k].name != m->all[i].name; k++)
		;
	if (v->state != UP || k == v->ntools)
		return bufaddf(out, "The MCP server %s is down: %s",
		               v->s->name, v->why ? v->why : "gone"), 1;
	bufadds(&par, "{\"name\":");
	jsonescs(&par, v->orig[k]);
	bufadds(&par, ",\"arguments\":");
	jsonraw(&par, j, 0);
	/* a token asks the server for its progress notifications */
	bufaddf(&par, ",\"_meta\":{\"progressToken\":%ld}}", ++m->token);
	rc = mcpsend(m, v, "tools/call", par.p, mcpby(m->c->calltimeout),
	             &res, &why);
	if (rc == -1 && v->expired) {	/* once, in a new session */
		bufreset(&why);
		if ((rc = srvhello(m, v, mcpby(m->c->listtimeout), &why)) == 0)
			rc = mcpsend(m, v, "tools/call", par.p,
			             mcpby(m->c->calltimeout), &res, &why);
	}
	if (rc == -2) {
		bufadds(out, "Interrupted");
	} else if (rc < 0) {
		mcpdown(m, v, bstr(&why));
		bufaddf(out, "The MCP server %s failed: %s", v->s->name,
		        bstr(&why));
	} else if ((rc = mcpresult(res.p, res.len, out, image,
	                           m->c->tenv->lim->maximage)) == 0 &&
	           out->len > max) {
		out->len = utf8back(out->p, max);
		out->p[out->len] = '\0';
		bufaddf(out, "\n[Cut at %zu bytes]", max);
	}
	buffree(&par);
	buffree(&res);
	buffree(&why);
	return rc != 0;
}

/* The servers of config.h's table, none started: NULL if it is empty,
 * so that a run without them costs nothing.  A row's header value is
 * read now, before the environment is hidden. */
Mcp *
mcpnew(const Mcpconf *c)
{
	Mcp *m;
	const char *val;
	int i;

	for (i = 0; c->servers[i].name; i++)
		;
	if (!i)
		return NULL;
	m = xcalloc(1, sizeof(*m));
	m->c = c;
	m->nsrv = i;
	m->srv = xcalloc(i, sizeof(*m->srv));
	for (i = 0; i < m->nsrv; i++) {
		m->srv[i].s = &c->servers[i];
		m->srv[i].to = m->srv[i].from = m->srv[i].err = -1;
		if (c->servers[i].header && c->servers[i].env &&
		    (val = getenv(c->servers[i].env))) {
			m->srv[i].auth = xmalloc(strlen(c->servers[i].header) +
			                         strlen(val) + 1);
			strcpy(m->srv[i].auth, c->servers[i].header);
			strcat(m->srv[i].auth, val);
		}
	}
	return m;
}

void
mcpfree(Mcp *m)
{
	int i;
	Srv *v;

	if (!m)
		return;
	for (i = 0; i < m->nsrv; i++) {
		v = &m->srv[i];
		if (v->pid > 0)
			procunserve(m->c->tenv->procs, v->pid);
		if (v->to >= 0)
			close(v->to);
		if (v->from >= 0)
			close(v->from);
		if (v->err >= 0)
			close(v->err);
		if (v->http)
			httpfree(v->http);
		if (v->auth)	/* a secret: not left in freed memory */
			memset(v->auth, 0, strlen(v->auth));
		free(v->auth);
		free(v->why);
		buffree(&v->in);
		buffree(&v->errin);
		buffree(&v->queue);
		srvforget(v);
	}
	free(m->srv);
	free(m->all);
	free(m->allsrv);
	free(m);
}
