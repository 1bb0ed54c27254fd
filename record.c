/* See LICENSE file for copyright and license details. */
/* record.c: the exchanges with the model written to a file as they
 * happen (AGENT_RECORD), or served back from one in order, with no
 * network (AGENT_REPLAY), so that a run reruns for nothing. */
/*
 * The file holds one exchange a line, a JSON object:
 *
 *   {"method":"POST","path":"/v1/chat/completions","cwd":"/src/x",
 *    "request":"{\"model\":...}","response":"data: {...}\n\n...",
 *    "status":200,"headers":{"content-type":"text/event-stream"},
 *    "error":"connection reset","transient":1}
 *
 * request is the body sent and response the body received, each as a
 * JSON string of its bytes (invalid UTF-8 becomes U+FFFD); path is the
 * URL's path and query; cwd the working directory.  headers holds
 * those of the answer that agent reads: content-type,
 * content-encoding, location, retry-after (seconds).  status is 0 when
 * no answer came; error and transient are there when the exchange
 * failed (as httpdo says).  No request header is kept, and the API key
 * is written nowhere: any copy of it in the line is overwritten with
 * '*' (a key shorter than 8 bytes, a local server's placeholder, is not
 * looked for).  A line is appended whole with one write(2) on an
 * O_APPEND descriptor once its exchange is over, so that runs recording
 * to one file at once never mix their lines.
 *
 * On replay, each request must be the next line's: the same method and
 * path, and the same body but for what changes from run to run: the
 * working directory (the recorded one stands for ours wherever ours is
 * in the body), any "prompt_cache_key" member (the session's id), and
 * white space between JSON tokens.  The first difference ends the
 * replay: its JSON path (or byte offset, if a body is no JSON) and both
 * values are said, and every exchange after fails too.  The recorded
 * answer then goes where a real one would (status, headers, body), so
 * streaming, retries and errors run as they did; the waits before a
 * retry are not waited.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "http.h"
#include "record.h"

enum {
	KEYMIN = 8,	/* bytes of a key looked for in what is written */
	SHOWMAX = 40,	/* bytes of a differing value said */
	READSIZE = 65536
};

/* What differs, for the error: where, and the two values. */
typedef struct {
	Buf path;
	Buf old, now;
} Diff;

int
recopen(Rec *r, const char *record, const char *replay, const char *key)
{
	memset(r, 0, sizeof(*r));
	r->out = r->in = -1;
	r->key = key;
	if (record && *record && replay && *replay) {
		warn("AGENT_RECORD and AGENT_REPLAY: one or the other");
		return -1;
	}
	if (record && *record) {
		r->file = xstrdup(record);
		r->out = open(record, O_WRONLY | O_CREAT | O_APPEND |
		              O_CLOEXEC, 0600);
	} else if (replay && *replay) {
		r->file = xstrdup(replay);
		r->in = open(replay, O_RDONLY | O_CLOEXEC);
	} else {
		return 0;
	}
	if (r->out < 0 && r->in < 0) {
		warn("%s %s:", record && *record ? "AGENT_RECORD" :
		     "AGENT_REPLAY", r->file);
		recclose(r);
		return -1;
	}
	return 0;
}

void
recclose(Rec *r)
{
	if (r->out >= 0 && close(r->out) < 0)
		warn("close %s:", r->file);
	if (r->in >= 0)
		close(r->in);
	r->out = r->in = -1;
	buffree(&r->line);
	free(r->file);
	free(r->broken);
	r->file = r->broken = NULL;
}

/* Where a UTF-8 sequence cut short by the end of p begins, else n. */
static size_t
utf8cut(const char *p, size_t n)
{
	size_t i = n;
	unsigned char c;
	size_t want;

	while (i > 0 && n - i < 3 && ((unsigned char)p[i - 1] & 0xc0) == 0x80)
		i--;
	if (i == 0 || (c = p[i - 1]) < 0xc0)
		return n;
	want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	return n - (i - 1) < want ? i - 1 : n;
}

/* Append p to the JSON string open at the end of r->line, escaped; a
 * sequence the piece cuts waits for the next piece (the network splits
 * where it likes), so that it is not taken for invalid. */
static void
escpiece(Rec *r, const char *p, size_t n)
{
	Buf join = { 0 }, t = { 0 };
	size_t cut;

	if (r->ncarry) {
		bufadd(&join, r->carry, r->ncarry);
		bufadd(&join, p, n);
		p = join.p;
		n = join.len;
		r->ncarry = 0;
	}
	cut = utf8cut(p, n);
	jsonesc(&t, p, cut);
	bufadd(&r->line, t.p + 1, t.len - 2);	/* without the quotes */
	memcpy(r->carry, p + cut, n - cut);
	r->ncarry = n - cut;
	buffree(&t);
	buffree(&join);
}

/* Close the JSON string open at the end of r->line. */
static void
escend(Rec *r)
{
	Buf t = { 0 };

	if (r->ncarry) {	/* cut for good: U+FFFD */
		jsonesc(&t, r->carry, r->ncarry);
		bufadd(&r->line, t.p + 1, t.len - 2);
		r->ncarry = 0;
	}
	bufaddc(&r->line, '"');
	buffree(&t);
}

/* Overwrite each copy of the key in p with '*'. */
static void
redact(char *p, size_t n, const char *key)
{
	size_t k = key ? strlen(key) : 0, i;

	if (k < KEYMIN)
		return;
	for (i = 0; i + k <= n; i++)
		if (p[i] == key[0] && !memcmp(p + i, key, k)) {
			memset(p + i, '*', k);
			i += k - 1;
		}
}

/* The request's body, whole. */
static void
reqbody(const Http *h, Buf *b)
{
	size_t k;

	if (!h->spans) {
		bufadd(b, h->body, h->bodylen);
		return;
	}
	bufgrow(b, h->bodylen);
	for (k = 0; k < h->nspans; k++)
		bufadd(b, h->spans[k].p, h->spans[k].len);
}

/* The URL's path and query, or "" if it is no URL. */
static void
urlpath(const char *url, Buf *b)
{
	Url u;

	if (!httpurl(&u, url))
		bufadd(b, u.path, u.pathlen);
}

/* The line of an exchange, up to its answer's body. */
static void
linestart(Rec *r, const Http *h)
{
	char cwd[4096];
	Buf t = { 0 };
	size_t k;

	bufreset(&r->line);
	bufadds(&r->line, "{\"method\":");
	jsonescs(&r->line, h->method ? h->method : "GET");
	bufadds(&r->line, ",\"path\":");
	urlpath(h->url, &t);
	jsonesc(&r->line, bstr(&t), t.len);
	bufadds(&r->line, ",\"cwd\":");
	jsonescs(&r->line, getcwd(cwd, sizeof(cwd)) ? cwd : "");
	bufadds(&r->line, ",\"request\":\"");
	if (h->spans)
		for (k = 0; k < h->nspans; k++)
			escpiece(r, h->spans[k].p, h->spans[k].len);
	else
		escpiece(r, h->body, h->bodylen);
	escend(r);
	bufadds(&r->line, ",\"response\":\"");
	buffree(&t);
}

/* httpdo's callback while recording: the bytes into the line, then on
 * to the caller's. */
static int
recbody(void *arg, const char *p, size_t n)
{
	Rec *r = arg;

	escpiece(r, p, n);
	return r->fn ? r->fn(r->arg, p, n) : 0;
}

/* One header into the line's headers object, if it came. */
static void
lineheader(Buf *b, const char *name, const char *v, int *n)
{
	if (!v[0])
		return;
	bufaddf(b, "%s\"%s\":", (*n)++ ? "," : "", name);
	jsonescs(b, v);
}

/* The line's end, and the line appended to the file. */
static void
lineend(Rec *r, const Http *h, int rc)
{
	char ra[32];
	int n = 0;

	escend(r);
	bufaddf(&r->line, ",\"status\":%d,\"headers\":{", h->status);
	snprintf(ra, sizeof(ra), "%ld", h->retryafter);
	lineheader(&r->line, "content-type", h->ctype, &n);
	lineheader(&r->line, "content-encoding", h->encoding, &n);
	lineheader(&r->line, "location", h->location, &n);
	lineheader(&r->line, "retry-after", h->retryafter >= 0 ? ra : "", &n);
	bufaddc(&r->line, '}');
	if (rc < 0) {
		bufadds(&r->line, ",\"error\":");
		jsonescs(&r->line, h->err);
		bufaddf(&r->line, ",\"transient\":%d", h->transient != 0);
	}
	bufadds(&r->line, "}\n");
	redact(r->line.p, r->line.len, r->key);
	/* one write: on O_APPEND, a regular file takes it whole, after
	 * any other writer's */
	if (writeall(r->out, r->line.p, r->line.len) < 0)
		warn("AGENT_RECORD %s:", r->file);
	bufreset(&r->line);
}

/* The next line of the replay file, valid until the next call: 1, or 0
 * at the file's end, or -1 on a read error. */
static int
replayline(Rec *r, const char **p, size_t *n)
{
	char *nl;
	ssize_t k;

	for (;;) {
		nl = r->at < r->line.len ? memchr(r->line.p + r->at, '\n',
		                                  r->line.len - r->at) : NULL;
		if (nl || (r->eof && r->at < r->line.len)) {
			*p = r->line.p + r->at;
			*n = nl ? (size_t)(nl - *p) : r->line.len - r->at;
			r->at += *n + (nl != NULL);
			r->lineno++;
			return 1;
		}
		if (r->eof)
			return 0;
		if (r->at) {
			memmove(r->line.p, r->line.p + r->at,
			        r->line.len - r->at);
			r->line.len -= r->at;
			r->at = 0;
		}
		bufgrow(&r->line, READSIZE);
		if ((k = read(r->in, r->line.p + r->line.len, READSIZE)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		r->line.len += k;
		r->line.p[r->line.len] = '\0';
		r->eof = k == 0;
	}
}

/* Bytes p[0..n) as an error says them, from byte from: cut, made safe
 * for the terminal, quoted if q. */
static void
replayshow(Buf *b, const char *p, size_t n, size_t from, int q)
{
	from = MIN(from, n);
	bufadds(b, q ? "\"" : "");
	bufadds(b, from ? "..." : "");
	safetext(b, p + from, MIN(n - from, SHOWMAX), 1);
	bufadds(b, n - from > SHOWMAX ? "..." : "");
	bufadds(b, q ? "\"" : "");
}

/* The first difference is value i of a against k of b (-1: none
 * there), from byte off of their texts. */
static int
saydiff(Diff *d, const Json *a, int i, const Json *b, int k, size_t off)
{
	size_t from = off > SHOWMAX / 4 ? off - SHOWMAX / 4 : 0;
	const Jtok *t;

	if (i < 0) {
		bufadds(&d->old, "(none)");
	} else {
		t = &a->t[i];
		replayshow(&d->old, a->s + t->start, t->end - t->start, from,
		         t->type == JSTR);
	}
	if (k < 0) {
		bufadds(&d->now, "(none)");
	} else {
		t = &b->t[k];
		replayshow(&d->now, b->s + t->start, t->end - t->start, from,
		         t->type == JSTR);
	}
	return 1;
}

/* The first byte at which p and q differ. */
static size_t
firstbyte(const char *p, size_t n, const char *q, size_t m)
{
	size_t i;

	for (i = 0; i < n && i < m && p[i] == q[i]; i++)
		;
	return i;
}

static int valdiff(const Json *, int, const Json *, int, Diff *);

/* valdiff for two arrays. */
static int
arrdiff(const Json *a, int i, const Json *b, int k, Diff *d)
{
	size_t mark = d->path.len;
	int n, ci = i + 1, ck = k + 1, na = a->t[i].size, nb = b->t[k].size;

	for (n = 0; n < na || n < nb; n++) {
		bufaddf(&d->path, "[%d]", n);
		if (n >= na || n >= nb)
			return saydiff(d, a, n < na ? ci : -1, b,
			               n < nb ? ck : -1, 0);
		if (valdiff(a, ci, b, ck, d))
			return 1;
		d->path.len = mark;
		d->path.p[mark] = '\0';
		ci = jsonskip(a, ci);
		ck = jsonskip(b, ck);
	}
	return 0;
}

/* valdiff for two objects: their members in order, those that change
 * from run to run passed over.  A key that differs is the difference. */
static int
objdiff(const Json *a, int i, const Json *b, int k, Diff *d)
{
	size_t mark = d->path.len;
	int ci = i + 1, ck = k + 1, na = a->t[i].size, nb = b->t[k].size;
	int key;

	for (;;) {
		for (; na && jsoneq(a, ci, "prompt_cache_key"); na--)
			ci = jsonskip(a, ci + 1);
		for (; nb && jsoneq(b, ck, "prompt_cache_key"); nb--)
			ck = jsonskip(b, ck + 1);
		if (!na && !nb)
			return 0;
		key = na ? ci : -1;
		if (!na || !nb || a->t[ci].end - a->t[ci].start !=
		    b->t[ck].end - b->t[ck].start || memcmp(a->s +
		    a->t[ci].start, b->s + b->t[ck].start,
		    a->t[ci].end - a->t[ci].start)) {
			bufadds(&d->path, " (a member's name)");
			return saydiff(d, a, key, b, nb ? ck : -1, 0);
		}
		bufaddc(&d->path, '.');
		bufadd(&d->path, a->s + a->t[ci].start,
		       a->t[ci].end - a->t[ci].start);
		if (valdiff(a, ci + 1, b, ck + 1, d))
			return 1;
		d->path.len = mark;
		d->path.p[mark] = '\0';
		ci = jsonskip(a, ci + 1);
		ck = jsonskip(b, ck + 1);
		na--;
		nb--;
	}
}

/* Whether value i of a and value k of b differ, but for what changes
 * from run to run; the first difference said in d. */
static int
valdiff(const Json *a, int i, const Json *b, int k, Diff *d)
{
	const Jtok *x = &a->t[i], *y = &b->t[k];
	size_t n = x->end - x->start, m = y->end - y->start, off;

	if (x->type != y->type)
		return saydiff(d, a, i, b, k, 0);
	if (x->type == JARR)
		return arrdiff(a, i, b, k, d);
	if (x->type == JOBJ)
		return objdiff(a, i, b, k, d);
	off = firstbyte(a->s + x->start, n, b->s + y->start, m);
	if (off == n && off == m)
		return 0;
	return saydiff(d, a, i, b, k, off);
}

/* The body sent as it would read in the recorded run: our working
 * directory as the recorded one (rcwd) wherever it stands, the key
 * overwritten as the record has it. */
static void
normalise(Buf *b, const char *rcwd, const char *key)
{
	char cwd[4096];
	Buf from = { 0 }, to = { 0 }, out = { 0 };
	size_t i = 0, n;
	char *hit;

	if (rcwd && getcwd(cwd, sizeof(cwd)) && strlen(cwd) > 1 &&
	    strcmp(cwd, rcwd)) {
		jsonescs(&from, cwd);
		jsonescs(&to, rcwd);
		n = from.len - 2;	/* without the quotes */
		while (i < b->len && (hit = memchr(b->p + i, from.p[1],
		                                   b->len - i))) {
			bufadd(&out, b->p + i, hit - (b->p + i));
			i = hit - b->p;
			if (b->len - i >= n && !memcmp(hit, from.p + 1, n)) {
				bufadd(&out, to.p + 1, to.len - 2);
				i += n;
			} else {
				bufaddc(&out, b->p[i++]);
			}
		}
		bufadd(&out, b->p + i, b->len - i);
		buffree(b);
		*b = out;
	}
	redact(b->p, b->len, key);
	buffree(&from);
	buffree(&to);
}

/* Whether body, sent now, differs from old, recorded: the first
 * difference into d (a JSON path, or a byte offset if either is no
 * JSON). */
static int
bodydiff(const char *old, size_t on, const char *body, size_t n, Diff *d)
{
	Json a = { 0 }, b = { 0 };
	size_t off;
	int r;

	if (on == n && !memcmp(old, body, n))
		return 0;
	if (jsonparse(&a, old, on) == 0 && jsonparse(&b, body, n) == 0) {
		r = valdiff(&a, 0, &b, 0, d);
		jsonfree(&a);
		jsonfree(&b);
		return r;
	}
	jsonfree(&a);
	off = firstbyte(old, on, body, n);
	bufaddf(&d->path, "byte %zu", off);
	off = off > SHOWMAX / 4 ? off - SHOWMAX / 4 : 0;
	replayshow(&d->old, old, on, off, 0);
	replayshow(&d->now, body, n, off, 0);
	return 1;
}

/* The replay stops: why, in h->err as httpdo says a failure (no
 * answer, nothing to try again), and kept for every exchange after. */
static int
replaystop(Rec *r, Http *h, const char *fmt, ...)
{
	va_list ap;

	if (!r->broken) {
		va_start(ap, fmt);
		vsnprintf(h->err, sizeof(h->err), fmt, ap);
		va_end(ap);
		r->broken = xstrdup(h->err);
	}
	snprintf(h->err, sizeof(h->err), "%s", r->broken);
	h->status = 0;
	h->transient = 0;
	return -1;
}

/* A recorded header into dst, cut to fit. */
static void
takeheader(const Json *j, int hdrs, const char *name, char *dst, size_t n)
{
	char *v = jsonstr(j, jsonget(j, hdrs, name));

	snprintf(dst, n, "%s", v ? v : "");
	free(v);
}

/* The recorded answer (members v of line j) where httpdo puts a real
 * one, its body to h->fn at once. */
static int
playanswer(Http *h, const Json *j, const int *v)
{
	Buf body = { 0 };
	char ra[32], *err;
	double st = 0;
	int tr = 0, rc = 0;

	jsonnum(j, v[5], &st);
	takeheader(j, v[6], "content-type", h->ctype, sizeof(h->ctype));
	takeheader(j, v[6], "content-encoding", h->encoding,
	           sizeof(h->encoding));
	takeheader(j, v[6], "location", h->location, sizeof(h->location));
	takeheader(j, v[6], "retry-after", ra, sizeof(ra));
	h->retryafter = ra[0] ? atol(ra) : -1;
	h->status = st;
	jsonstrbuf(j, v[4], &body);
	h->nbody = body.len;
	if (body.len && h->fn && h->fn(h->arg, body.p, body.len)) {
		snprintf(h->err, sizeof(h->err), "stopped");
		rc = -1;
	} else if ((err = jsonstr(j, v[7]))) {
		snprintf(h->err, sizeof(h->err), "%s", err);
		jsonbool(j, v[8], &tr);
		h->transient = tr;
		free(err);
		rc = -1;
	}
	buffree(&body);
	return rc;
}

/* Request h against line j (members v): 0 if it is the one recorded,
 * else -1 with the replay stopped. */
static int
matchline(Rec *r, Http *h, const Json *j, const int *v)
{
	Buf now = { 0 }, old = { 0 };
	Diff d = { { 0 }, { 0 }, { 0 } };
	char *cwd = jsonstr(j, v[2]);
	int rc = 0;

	jsonstrbuf(j, v[0], &old);
	bufadds(&now, h->method ? h->method : "GET");
	if (strcmp(bstr(&old), now.p)) {
		bufadds(&d.path, "the method");
	} else {
		bufreset(&old);
		bufreset(&now);
		jsonstrbuf(j, v[1], &old);
		urlpath(h->url, &now);
		if (strcmp(bstr(&old), bstr(&now)))
			bufadds(&d.path, "the path");
	}
	if (d.path.len) {
		replayshow(&d.old, old.p, old.len, 0, 1);
		replayshow(&d.now, now.p, now.len, 0, 1);
	} else {
		bufreset(&old);
		bufreset(&now);
		jsonstrbuf(j, v[3], &old);
		reqbody(h, &now);
		normalise(&now, cwd, r->key);
		if (bodydiff(bstr(&old), old.len, bstr(&now), now.len, &d) &&
		    !d.path.len)
			bufadds(&d.path, "the top");
	}
	if (d.path.len)
		rc = replaystop(r, h, "replay %s:%ld: the request differs at "
		                "%s: %s recorded, %s now", r->file, r->lineno,
		                d.path.p[0] == '.' ? d.path.p + 1 : d.path.p,
		                d.old.p, d.now.p);
	free(cwd);
	buffree(&old);
	buffree(&now);
	buffree(&d.path);
	buffree(&d.old);
	buffree(&d.now);
	return rc;
}

/* The next recorded exchange, in place of httpdo. */
static int
replay(Rec *r, Http *h)
{
	static const char *const keys[] = { "method", "path", "cwd",
		"request", "response", "status", "headers", "error",
		"transient" };
	static const int need[] = { 0, 1, 3, 4, 5 };
	const char *p;
	size_t n, k;
	int v[LEN(keys)], got, rc = -1;
	Json j = { 0 };

	httpclear(h);
	if (r->broken)
		return replaystop(r, h, "");
	if ((got = replayline(r, &p, &n)) < 0)
		return replaystop(r, h, "replay %s: %s", r->file,
		                  strerror(errno));
	if (!got)
		return replaystop(r, h, "replay %s:%ld: runs out: the run "
		                  "asks for one more exchange", r->file,
		                  r->lineno + 1);
	if (jsonparse(&j, p, n) < 0 || j.t[0].type != JOBJ)
		return replaystop(r, h, "replay %s:%ld: not a whole "
		                  "exchange: no JSON object (torn?)", r->file,
		                  r->lineno);
	jsonkeys(&j, 0, keys, LEN(keys), v);
	for (k = 0; k < LEN(need); k++)
		if (v[need[k]] < 0 || j.t[v[need[k]]].type !=
		    (need[k] == 5 ? JPRIM : JSTR))
			break;
	if (k < LEN(need))
		rc = replaystop(r, h, "replay %s:%ld: not a whole exchange: "
		                "no \"%s\"", r->file, r->lineno,
		                keys[need[k]]);
	else if (matchline(r, h, &j, v) == 0)
		rc = playanswer(h, &j, v);
	jsonfree(&j);
	return rc;
}

/* httpdo, recorded or replayed as r says (r NULL: neither). */
int
recdo(Rec *r, Httpclient *c, Http *h)
{
	int rc;

	if (r && r->in >= 0)
		return replay(r, h);
	if (!r || r->out < 0)
		return httpdo(c, h);
	linestart(r, h);
	r->fn = h->fn;
	r->arg = h->arg;
	h->fn = recbody;
	h->arg = r;
	rc = httpdo(c, h);
	h->fn = r->fn;
	h->arg = r->arg;
	lineend(r, h, rc);
	return rc;
}
