/* See LICENSE file for copyright and license details. */
/* ask.c: asking the model: the request POSTed (signed by sigv4.c for
 * Bedrock), its answer streamed through sse.c, or eventstream.c as the
 * reply's type says, into the wire and shown as it comes (events.c),
 * tried again when a second try may succeed, and why it failed said in
 * one line. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"
#include "json.h"
#include "sse.h"
#include "eventstream.h"
#include "sigv4.h"
#include "http.h"
#include "record.h"
#include "gauth.h"
#include "wire.h"
#include "events.h"
#include "ask.h"

/* The wire's callback: a piece of the answer, shown as it comes.  A
 * call's first piece makes the message's text narration. */
static int
onpiece(void *arg, int kind, const char *p, size_t n)
{
	Reply *r = arg;
	Events *ev = r->ask->ev;

	if (r->silent)
		return *r->ask->intr != 0;
	if (r->ask->json)
		evpiece(ev, &r->w, kind, p, n);
	else if (kind == PIECETEXT)
		evtext(ev, p, n);
	else if (kind == PIECETHINK)
		evthink(ev, p, n);
	else if ((!ev->ttyesc || ev->textto == EVHOLD) &&
	         ev->textto != EVERR)
		evsettle(ev, EVERR);
	return *r->ask->intr != 0;
}

/* sse.c's callback: a long event stream stops at once on SIGINT. */
static int
onevent(void *arg, const char *event, const char *data, size_t len)
{
	Reply *r = arg;

	return *r->ask->intr ? 1 : wireevent(&r->w, event, data, len);
}

/* Whether the answer comes in AWS's binary frames (Bedrock's), not SSE. */
static int
isaws(const Http *h)
{
	return !strncasecmp(h->ctype, "application/vnd.amazon.eventstream",
	                    34);
}

/* Whether a 2xx answer is what was asked for: an event stream in no
 * encoding we cannot read.  None named is taken for one: some local
 * servers name none. */
static int
isstream(const Http *h)
{
	return (!h->ctype[0] || isaws(h) ||
	        !strncasecmp(h->ctype, "text/event-stream", 17)) &&
	       (!h->encoding[0] || !strcasecmp(h->encoding, "identity"));
}

/* A string header of an AWS frame into b, cut to fit a line. */
static void
awsheader(Buf *b, const Eshead *h)
{
	if (h && h->type == ESSTRING)
		utf8repair(b, h->p, MIN(h->len, 200));
}

/* eventstream.c's callback: Bedrock's chunk holds one event of the
 * wire's; an exception or an error frame ends the stream with its words
 * (an overload before the answer may be tried again). */
static int
onframe(void *arg, const Eshead *h, int nh, const char *p, size_t n)
{
	Reply *r = arg;
	const Eshead *type = eshead(h, nh, ":message-type");
	const Eshead *exc = eshead(h, nh, ":exception-type");
	Buf *err = &r->w.err;
	Json j;

	if (*r->ask->intr)
		return 1;
	if (esis(type, "event"))
		return esis(eshead(h, nh, ":event-type"), "chunk") ?
		       wireevent(&r->w, "chunk", p, n) : 0;
	if (esis(type, "exception")) {
		awsheader(err, exc);
		bufadds(err, err->len ? ": " : "");
		if (jsonparse(&j, p, n) == 0) {
			wireerror(err, &j, 0);
			jsonfree(&j);
		} else {
			utf8repair(err, p, MIN(n, 300));
		}
		r->w.again = !r->w.text.len && !r->w.think.len &&
		             !r->w.ncalls && (esis(exc, "throttlingException") ||
		             esis(exc, "serviceUnavailableException") ||
		             esis(exc, "internalServerException"));
		return 1;
	}
	if (esis(type, "error")) {
		awsheader(err, eshead(h, nh, ":error-code"));
		bufadds(err, ": ");
		awsheader(err, eshead(h, nh, ":error-message"));
		return 1;
	}
	return 0;	/* a type to come: passed over */
}

static int
onbody(void *arg, const char *p, size_t n)
{
	Reply *r = arg;
	const Ask *k = r->ask;
	int rc;

	if (*k->intr)
		return 1;
	/* an error, or a body that is not a stream: its start is kept to
	 * say what came */
	if (r->http->status / 100 != 2 || !isstream(r->http)) {
		if (r->err.len < k->conf->maxerrbody)
			bufadd(&r->err, p, MIN(n, k->conf->maxerrbody - r->err.len));
		return 0;
	}
	k->ev->hold = 1;
	rc = isaws(r->http) ? esfeed(&r->es, p, n) : ssefeed(&r->sse, p, n);
	k->ev->hold = 0;
	evflush(k->ev);
	if (rc == SSEBIG || rc == ESBIG)
		bufaddf(&r->err, "an event in the stream is over %zu bytes",
		        k->conf->maxevent);
	else if (rc == ESBAD)
		bufadds(&r->err, r->es.err);
	return rc;
}

static void
replyinit(Reply *r, const Ask *k, const Wirereq *q, Http *h, int silent)
{
	memset(r, 0, sizeof(*r));
	r->ask = k;
	r->http = h;
	r->silent = silent;
	if (!silent)
		evtextstart(k->ev);
	wireinit(&r->w, q->wire, onpiece, r);
	r->w.maxcalls = k->conf->maxcalls;
	r->w.maxkeep = k->conf->maxkeep;
	r->w.price = wireprice(k->conf->prices, k->conf->nprices, q->model);
	sseinit(&r->sse, onevent, r);
	r->sse.max = k->conf->maxevent;
	esinit(&r->es, onframe, r);
	r->es.max = k->conf->maxevent;
}

/* What a reply holds, whether the call succeeded or not. */
void
askfree(Reply *r)
{
	wirefree(&r->w);
	buffree(&r->err);
	buffree(&r->why);
	ssefree(&r->sse);
	esfree(&r->es);
}

/* How long to wait before trying a failed request again, in ms; -1: do not
 * try again, -2: the server asks for a wait longer than retrymax. */
static long
retrydelay(const Http *h, const Reply *r, int attempt)
{
	const Ask *k = r->ask;
	long delay;

	if (*k->intr || attempt >= k->conf->maxattempts)
		return -1;
	if (r->w.again)
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
	if (h->retryafter > k->conf->retrymax)
		return -2;
	if (h->retryafter >= 0)
		return h->retryafter * 1000;
	delay = (long)k->conf->retrybase << (attempt - 1);
	return delay - rand() % (delay / 4 + 1);
}

/* Say why a request failed, in one line on stderr, kept in r->why; what
 * the server said is made safe for the terminal first. */
static void
sayfailure(Reply *r, const char *name, Http *h, int rc)
{
	Json j;
	Buf msg = { 0 }, safe = { 0 }, *w = &r->why;
	int ok = h->status / 100 == 2;

	evendthinking(r->ask->ev);
	evendline(r->ask->ev);
	if ((!ok || !isstream(h)) && r->err.len &&
	    jsonparse(&j, r->err.p, r->err.len) == 0) {
		wireerror(&msg, &j, 0);
		jsonfree(&j);
	} else if (r->w.err.len) {
		bufadd(&msg, r->w.err.p, r->w.err.len);
	} else {
		bufadd(&msg, bstr(&r->err), MIN(r->err.len, 300));
	}
	safetext(&safe, bstr(&msg), MIN(msg.len, 1000), 1);
	bufgrow(&safe, 0);
	bufreset(w);
	if (rc < 0 && *r->ask->intr)
		bufadds(w, "interrupted");
	else if (ok && h->encoding[0] && !isstream(h))
		bufaddf(w, "%s: the answer came %s-encoded, which agent does "
		        "not decode", name, h->encoding);
	else if (ok && !isstream(h))
		bufaddf(w, "%s: HTTP %d sent %s, not an event stream: %s",
		        name, h->status, h->ctype,
		        safe.len ? safe.p : "(no body)");
	else if (ok && msg.len)
		bufaddf(w, "%s: %s", name, safe.p);
	else if (rc < 0 && ok)
		bufaddf(w, "%s: the answer broke off: %s", name, h->err);
	else if (h->status / 100 == 3)
		bufaddf(w, "%s: HTTP %d, moved to %s: check the base URL",
		        name, h->status,
		        h->location[0] ? h->location : "(nowhere)");
	else if (h->status && !ok)
		bufaddf(w, "%s: HTTP %d: %s", name, h->status,
		        safe.len ? safe.p : rc < 0 ? h->err : "(no message)");
	else if (rc < 0)
		bufaddf(w, "%s: %s", name, h->err);
	else
		bufaddf(w, "%s: the stream ended before the answer was "
		        "complete", name);
	if (!(r->ask->ev->quit && *r->ask->ev->quit == SIGPIPE))
		warn("%s", w->p);	/* else stdout went away: quiet */
	buffree(&msg);
	buffree(&safe);
}

/* An overload said in the stream, to be tried again: the server's words
 * made safe for the terminal. */
static void
sayagain(const char *name, const Reply *r, long delay)
{
	Buf safe = { 0 };

	safetext(&safe, bstr(&r->w.err), MIN(r->w.err.len, 1000), 1);
	warn("%s: %s, retrying in %.1f s", name, bstr(&safe),
	     delay / 1000.0);
	buffree(&safe);
}

/* SigV4's headers for a POST of body to url, into h after the others:
 * made again for each try, as they hold the time. */
static void
asksign(const Ask *k, const char *url, const Wirebody *body,
        const char **h, Sigv4hdr *sig)
{
	Sigv4req r = { 0 };
	Buf host = { 0 };
	Url u;

	if (httpurl(&u, url))
		return;	/* a bad URL fails in httpdo, unsigned */
	httphost(&host, &u);
	r.method = "POST";
	r.host = host.p;
	r.path = u.path;
	r.pathlen = u.pathlen;
	r.body = body->v;
	r.nbody = body->n;
	r.now = nowms() / 1000;
	sigv4sign(k->aws, &r, sig);
	*h++ = sig->date;
	if (sig->token.len)
		*h++ = sig->token.p;
	*h++ = sig->auth.p;
	*h = NULL;
	buffree(&host);
}

/* The key of the request into *key: the API key (NULL: none), or the
 * service account's token, fetched when it has expired; 0, or -1 with
 * the reason said in r->why.  A replay sends no key. */
static int
askkey(const Ask *k, Reply *r, const char *name, const char **key)
{
	*key = k->key;
	if (!k->gauth || (k->rec && k->rec->in >= 0))
		return 0;
	if (!(*key = gauthtoken(k->gauth, k->http, &r->why))) {
		warn("%s: %s", name, r->why.p);
		return -1;
	}
	return 0;
}

/* POST the request and stream the answer into r, shown as it comes
 * unless silent (an answer for us, not the user), trying again what may
 * succeed on a second try.  0 on success, -1 with the reason said; r is
 * the caller's to free in both cases (askfree). */
int
askmodel(const Ask *k, const Wirereq *q, Reply *r, Http *h, int silent)
{
	Buf auth = { 0 }, url = { 0 };
	Wirebody body;
	Sigv4hdr sig = { 0 };
	/* the wire's and the row's, two of ours, SigV4's three, the end */
	const char *headers[WIREHDRS + 6], *key;
	int attempt, rc, n;
	long delay;

	memset(h, 0, sizeof(*h));
	replyinit(r, k, q, h, silent);
	if (askkey(k, r, q->provider, &key) < 0)
		return -1;
	askfree(r);
	wirespans(q, &body);
	wireurl(&url, k->url, k->query, q);
	n = wireheaders(q, key, k->headers, &auth, headers);
	headers[n++] = "Content-Type: application/json";
	headers[n++] = q->wire == BEDROCK ?
	               "Accept: application/vnd.amazon.eventstream" :
	               "Accept: text/event-stream";
	headers[n] = NULL;
	for (attempt = 1;; attempt++) {
		sigv4free(&sig);
		if (k->aws)
			asksign(k, url.p, &body, headers + n, &sig);
		memset(h, 0, sizeof(*h));
		h->method = "POST";
		h->url = url.p;
		h->headers = headers;
		h->spans = body.v;
		h->nspans = body.n;
		h->sent = k->sent;
		h->sentarg = k->sentarg;
		h->bodylen = body.len;
		h->fn = onbody;
		h->arg = r;
		replyinit(r, k, q, h, silent);
		rc = recdo(k->rec, k->http, h);
		if (rc == 0 && h->status / 100 == 2 && isstream(h)) {
			r->w.atend = 1;
			if (!isaws(h))
				sseend(&r->sse);
			else if (esend(&r->es) == ESBAD && !r->err.len)
				bufadds(&r->err, r->es.err);
			if (!r->err.len && wirecomplete(&r->w))
				break;
		}
		if ((delay = retrydelay(h, r, attempt)) < 0) {
			r->overflow = wireoverflow(h->status, r->err.p,
			                           r->err.len);
			sayfailure(r, q->provider, h, rc);
			if (delay == -2)
				warn("the server asks for a wait of %ld s: "
				     "giving up", h->retryafter);
			rc = -1;
			break;
		}
		if (r->w.again)
			sayagain(q->provider, r, delay);
		else if (h->status)
			warn("%s: HTTP %d, retrying in %.1f s", q->provider,
			     h->status, delay / 1000.0);
		else
			warn("%s: %s, retrying in %.1f s", q->provider,
			     h->err, delay / 1000.0);
		askfree(r);
		if (!k->rec || k->rec->in < 0)	/* a replay waits for none */
			httpsleep(k->http, delay);
	}
	evendthinking(k->ev);
	sigv4free(&sig);
	wirebodyfree(&body);
	buffree(&auth);
	buffree(&url);
	return rc;
}

