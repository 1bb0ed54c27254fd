/* See LICENSE file for copyright and license details. */
/* sse.c: a push parser for server-sent events (WHATWG HTML, 9.2). */
#include <string.h>

#include "util.h"
#include "sse.h"

void
sseinit(Sse *s, Ssefn fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
	s->bom = 1;
}

void
ssefree(Sse *s)
{
	buffree(&s->line);
	buffree(&s->data);
	buffree(&s->event);
}

/* Whether the event being read is over its bound: a server that never
 * ends a line or an event must not take all our memory. */
static int
toobig(const Sse *s, size_t pending)
{
	return s->max && pending + s->data.len + s->event.len > s->max;
}

static int
dispatch(Sse *s)
{
	int r = 0;

	if (s->gotdata) {
		/* data lines were joined with a newline after each */
		if (s->data.len)
			s->data.p[--s->data.len] = '\0';
		bufadd(&s->data, "", 0);
		bufadd(&s->event, "", 0);
		r = s->fn(s->arg, s->event.p, s->data.p, s->data.len);
	}
	bufreset(&s->data);
	bufreset(&s->event);
	s->gotdata = 0;
	return r;
}

/* One whole line, without its end. */
static int
sseline(Sse *s, const char *p, size_t n)
{
	const char *colon, *v;
	size_t fn, vn;

	if (n == 0)
		return dispatch(s);
	if (p[0] == ':')
		return 0;
	colon = memchr(p, ':', n);
	fn = colon ? (size_t)(colon - p) : n;
	v = colon ? colon + 1 : p + n;
	vn = p + n - v;
	if (vn && *v == ' ')
		v++, vn--;
	if (fn == 4 && !memcmp(p, "data", 4)) {
		bufadd(&s->data, v, vn);
		bufaddc(&s->data, '\n');
		s->gotdata = 1;
	} else if (fn == 5 && !memcmp(p, "event", 5)) {
		bufreset(&s->event);
		bufadd(&s->event, v, vn);
	}
	if (toobig(s, 0))	/* the line is in data now */
		return SSEBIG;
	/* id and retry mean nothing to a client that does not reconnect */
	return 0;
}

/* The common event, one data line and the empty line that ends it, both
 * in the bytes fed, is passed on from them, uncopied.  The bytes it took,
 * 0 if p does not start one (the line by line way then reads it). */
static size_t
ssefast(Sse *s, const char *p, const char *e, int *r)
{
	const char *v = p + 5, *q;

	if (s->gotdata || e - p < 7 || memcmp(p, "data:", 5))
		return 0;
	if (!(q = memchr(v, '\n', e - v)) || e - q < 2 || q[1] != '\n' ||
	    memchr(v, '\r', q - v))
		return 0;
	if (*v == ' ')
		v++;
	if (toobig(s, q - v + 1))	/* counted as sseline() counts it */
		return 0;
	*r = s->fn(s->arg, s->event.len ? s->event.p : "", v, q - v);
	bufreset(&s->event);
	return q + 2 - p;
}

/* Feed n bytes, split anywhere.  Returns 0, SSEBIG when an event grows
 * past s->max bytes, or the first non-zero value the callback returned;
 * after a non-zero value the parser must not be fed again. */
int
ssefeed(Sse *s, const char *p, size_t n)
{
	const char *e = p + n, *q, *cr;
	size_t k;
	int r;

	while (p < e) {
		if (s->bom) {
			/* the BOM may itself arrive split */
			static const char bom[] = "\xef\xbb\xbf";
			size_t have = s->line.len;

			if ((unsigned char)*p == (unsigned char)bom[have]) {
				bufaddc(&s->line, *p++);
				if (s->line.len == 3) {
					bufreset(&s->line);
					s->bom = 0;
				}
				continue;
			}
			s->bom = 0;
		}
		if (s->cr && *p == '\n') {
			s->cr = 0;
			p++;
			continue;
		}
		s->cr = 0;
		if (!s->line.len && (k = ssefast(s, p, e, &r))) {
			if (r)
				return r;
			p += k;
			continue;
		}
		/* memchr is many times faster than a loop of our own */
		if ((q = memchr(p, '\n', e - p)) == NULL)
			q = e;
		if ((cr = memchr(p, '\r', q - p)) != NULL)
			q = cr;
		if (q == e) {
			bufadd(&s->line, p, q - p);
			if (toobig(s, s->line.len))
				return SSEBIG;
			break;
		}
		s->cr = *q == '\r';
		if (s->line.len) {
			bufadd(&s->line, p, q - p);
			r = sseline(s, s->line.p, s->line.len);
			bufreset(&s->line);
		} else {
			r = sseline(s, p, q - p);
		}
		if (r)
			return r;
		p = q + 1;
	}
	return 0;
}

/* The stream ended: finish a last line and event that lack their ends. */
int
sseend(Sse *s)
{
	int r = 0;

	if (s->line.len && !s->bom)
		r = sseline(s, s->line.p, s->line.len);
	bufreset(&s->line);
	if (!r)
		r = dispatch(s);
	return r;
}
