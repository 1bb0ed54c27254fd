/* See LICENSE file for copyright and license details. */
/* http.c: HTTP/1.1 client: the response parser, URLs, proxies, sockets
 * with timeouts, the kept-alive connection; TLS over them is tls.c's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "tls.h"
#include "http.h"

/* Response parser states, in the order a message goes through them. */
enum {
	SSTATUS,	/* status line */
	SHEAD,		/* header lines */
	SBODY,		/* Content-Length body */
	SCLOSE,		/* body until the connection closes */
	SCHUNKSIZE,	/* chunk size line */
	SCHUNK,		/* chunk data */
	SCHUNKEND,	/* the line end after chunk data */
	STRAILER,	/* trailer lines, dropped */
	SDONE,
	SERR
};

struct Httpclient {
	int conntimeout, readtimeout;	/* milliseconds, <= 0 for none */
	size_t maxhead;
	volatile sig_atomic_t *intr;
	int (*watch)(void *);	/* httpwatch's, or NULL */
	int watchfd;
	void *watcharg;
	Tlsctx *tlsctx;		/* the CA bundle, read at the first https
				 * request, and the last session */
	const Httpproxy *px;	/* httpnew's, or NULL */
	int fd;			/* the connection kept after a response, */
	Tls *tls;		/* or -1; its TLS, */
	char key[600];		/* and where it leads: scheme, host, port,
				 * proxy */
};

enum {
	ONEWRITE = 65536,	/* a body this small goes with its head */
	IOVMAX = 1024		/* spans a write, at most */
};

/* One connection of one request. */
typedef struct {
	Httpclient *cl;
	Http *h;		/* err receives the reason of a failure */
	Httpresp *r;
	int fd;
	Tls *tls;
	int eof;		/* the peer closed the TCP stream */
	int reused;		/* it was kept from an earlier request */
	char proxyauth[512];	/* Proxy-Authorization: the header, or "" */
	int inbody;		/* the request's body is going out */
	int wlost;		/* the server answered or closed before it
				 * read the whole request: stop sending */
	int slow;		/* a read or write timed out: the server may
				 * hold the whole request */
} Conn;

static int
rfail(Httpresp *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	r->state = SERR;
	return -1;
}

/* Set the reason of the failure; a format ending in ':' gets strerror. */
static int
cfail(Conn *c, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	int saved = errno;

	va_start(ap, fmt);
	vsnprintf(c->h->err, sizeof(c->h->err), fmt, ap);
	va_end(ap);
	n = strlen(fmt);
	/* what a second try may get past: the server restarting, say */
	if (n && fmt[n - 1] == ':' && (saved == ECONNRESET ||
	    saved == ECONNREFUSED || saved == EPIPE))
		c->h->transient = 1;
	if (n && fmt[n - 1] == ':') {
		n = strlen(c->h->err);
		snprintf(c->h->err + n, sizeof(c->h->err) - n, " %s",
		         strerror(saved));
	}
	return -1;
}

/* Copy the printable ASCII of s for a message. */
static char *
clean(char *dst, size_t size, const char *s)
{
	size_t i;

	for (i = 0; i + 1 < size && s[i]; i++)
		dst[i] = s[i] >= ' ' && s[i] < 0x7f ? s[i] : '?';
	dst[i] = '\0';
	return dst;
}

static int
istoken(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

static int
isdig(int c)
{
	return c >= '0' && c <= '9';
}

void
httprespinit(Httpresp *r, Httpfn fn, void *arg, size_t maxhead)
{
	memset(r, 0, sizeof(*r));
	r->state = SSTATUS;
	r->maxhead = maxhead;
	r->clen = -1;
	r->retryafter = -1;
	r->fn = fn;
	r->arg = arg;
}

void
httprespfree(Httpresp *r)
{
	buffree(&r->line);
	buffree(&r->chunks);
}

static int
statusline(Httpresp *r, const char *s)
{
	char tmp[48];

	if (strncmp(s, "HTTP/1.", 7) || !isdig(s[7]) || s[8] != ' ' ||
	    !isdig(s[9]) || !isdig(s[10]) || !isdig(s[11]) ||
	    (s[12] && s[12] != ' '))
		return rfail(r, "bad status line: %s",
		             clean(tmp, sizeof(tmp), s));
	r->code = (s[9] - '0') * 100 + (s[10] - '0') * 10 + (s[11] - '0');
	if (r->code < 100 || r->code > 599)
		return rfail(r, "bad status code %d", r->code);
	clean(r->reason, sizeof(r->reason), s[12] ? s + 13 : "");
	r->keep = s[7] == '1';	/* HTTP/1.1 keeps; 1.0 closes */
	r->state = SHEAD;
	return 0;
}

/* Content-Length: a number, or a list of the same number repeated. */
static int
contentlength(Httpresp *r, const char *v)
{
	long long n;

	do {
		while (*v == ' ' || *v == '\t' || *v == ',')
			v++;
		if (!isdig(*v))
			return rfail(r, "invalid Content-Length");
		for (n = 0; isdig(*v); v++) {
			if (n > (LLONG_MAX - 9) / 10)
				return rfail(r, "invalid Content-Length");
			n = n * 10 + (*v - '0');
		}
		while (*v == ' ' || *v == '\t')
			v++;
		if (*v && *v != ',')
			return rfail(r, "invalid Content-Length");
		if (r->clen >= 0 && r->clen != n)
			return rfail(r, "conflicting Content-Length");
		r->clen = n;
	} while (*v);
	return 0;
}

/* Days from 1970-01-01 to the given date of the proleptic Gregorian
 * calendar, for y >= 1970. */
static long long
days(int y, int m, int d)
{
	static const int before[] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334
	};
	int p = y - 1, leap = (y % 4 == 0 && y % 100) || y % 400 == 0;

	return (y - 1970) * 365LL + (p / 4 - p / 100 + p / 400) -
	       (1969 / 4 - 1969 / 100 + 1969 / 400) + before[m] +
	       (m > 1 && leap) + d - 1;
}

/* Retry-After: delta-seconds, or an IMF-fixdate turned into seconds from
 * now; -1 for anything else (the obsolete date formats too). */
/* n digits at s as a number, or -1. */
static int
digits(const char *s, int n)
{
	int v = 0;

	while (n-- > 0) {
		if (!isdig(*s))
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	return v;
}

static long
retryafter(const char *v)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	char mon[4];
	const char *m;
	int d, y, hh, mm, ss;
	long long t;
	long n;

	if (isdig(*v)) {
		for (n = 0; isdig(*v); v++)
			n = n < 100000000 ? n * 10 + (*v - '0') : n;
		return *v ? -1 : n;
	}
	/* Sun, 06 Nov 1994 08:49:37 GMT: fixed places */
	if (strlen(v) != 29 || v[3] != ',' || v[4] != ' ' || v[7] != ' ' ||
	    v[11] != ' ' || v[16] != ' ' || v[19] != ':' || v[22] != ':' ||
	    strcmp(v + 25, " GMT"))
		return -1;
	memcpy(mon, v + 8, 3);
	mon[3] = '\0';
	d = digits(v + 5, 2);
	y = digits(v + 12, 4);
	hh = digits(v + 17, 2);
	mm = digits(v + 20, 2);
	ss = digits(v + 23, 2);
	if (!(m = strstr(months, mon)) || (m - months) % 3 || y < 1970 ||
	    d < 1 || d > 31 || hh < 0 || hh > 23 || mm < 0 || mm > 59 ||
	    ss < 0 || ss > 60)
		return -1;
	t = days(y, (m - months) / 3, d) * 86400 + hh * 3600 + mm * 60 + ss;
	t -= time(NULL);
	return t < 0 ? 0 : t > 100000000 ? 100000000 : (long)t;
}

/* Whether a comma-separated list holds the token t, in any case. */
static int
hastoken(const char *v, const char *t)
{
	size_t n = strlen(t), k;

	for (; *v; v += *v == ',') {
		v += strspn(v, " \t");
		k = strcspn(v, ",");
		while (k && (v[k - 1] == ' ' || v[k - 1] == '\t'))
			k--;
		if (k == n && !strncasecmp(v, t, n))
			return 1;
		v += strcspn(v, ",");
	}
	return 0;
}

static int
headerline(Httpresp *r, char *s)
{
	char tmp[48], *v, *e;

	if (*s == ' ' || *s == '\t')
		return rfail(r, "folded header line (obs-fold) not supported");
	for (v = s; istoken(*v); v++)
		;
	if (v == s || *v != ':')
		return rfail(r, "malformed header line: %s",
		             clean(tmp, sizeof(tmp), s));
	*v++ = '\0';
	while (*v == ' ' || *v == '\t')
		v++;
	for (e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t'); )
		*--e = '\0';
	if (r->code < 200)
		return 0;	/* an interim response's headers */
	if (!strcasecmp(s, "Content-Length"))
		return contentlength(r, v);
	if (!strcasecmp(s, "Transfer-Encoding")) {
		/* We send no TE header: chunked is the only coding a
		 * server may use on us. */
		if (strcasecmp(v, "chunked") || r->chunked)
			return rfail(r, "unsupported Transfer-Encoding: %s",
			             clean(tmp, sizeof(tmp), v));
		r->chunked = 1;
	} else if (!strcasecmp(s, "Retry-After")) {
		r->retryafter = retryafter(v);
	} else if (!strcasecmp(s, "Content-Type")) {
		clean(r->ctype, sizeof(r->ctype), v);
	} else if (!strcasecmp(s, "Location")) {
		clean(r->location, sizeof(r->location), v);
	} else if (!strcasecmp(s, "Content-Encoding")) {
		clean(r->encoding, sizeof(r->encoding), v);
	} else if (!strcasecmp(s, "Mcp-Session-Id")) {
		clean(r->sessid, sizeof(r->sessid), v);
	} else if (!strcasecmp(s, "Connection") && hastoken(v, "close")) {
		r->keep = 0;
	}
	return 0;
}

static int
endhead(Httpresp *r)
{
	if (r->code < 200) {
		/* 1xx: skipped, the real answer follows; 101 would switch
		 * protocols, which we never ask for. */
		if (r->code == 101)
			return rfail(r, "unexpected 101 Switching Protocols");
		r->state = SSTATUS;
		return 0;
	}
	r->status = r->code;
	if (r->nobody || r->status == 204 || r->status == 304)
		r->state = SDONE;
	else if (r->chunked)	/* it overrides Content-Length */
		r->state = SCHUNKSIZE;
	else if (r->clen >= 0)
		r->state = (r->left = r->clen) ? SBODY : SDONE;
	else
		r->state = SCLOSE, r->keep = 0;
	return 0;
}

/* chunk-size [ chunk-ext ]: the extensions are ignored. */
static int
chunksize(Httpresp *r, const char *s)
{
	long long n = 0;
	int d;

	if (hexval(*s) < 0)
		return rfail(r, "bad chunk size line");
	for (; (d = hexval(*s)) >= 0; s++) {
		if (n > (LLONG_MAX - d) / 16)
			return rfail(r, "chunk size too large");
		n = n * 16 + d;
	}
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s && *s != ';')
		return rfail(r, "bad chunk size line");
	r->left = n;
	r->state = n ? SCHUNK : STRAILER;
	return 0;
}

/* A whole line is in r->line, its LF included. Lines may end in CRLF or,
 * leniently (RFC 9112, 2.2), in a bare LF; a CR anywhere else is an
 * error, as is a NUL. */
static int
respline(Httpresp *r)
{
	char *s = r->line.p;
	size_t n = r->line.len - 1;

	if (n && s[n - 1] == '\r')
		n--;
	s[n] = '\0';
	if (memchr(s, '\r', n) || strlen(s) != n)
		return rfail(r, "stray CR or NUL in a header line");
	switch (r->state) {
	case SSTATUS:
		return statusline(r, s);
	case SHEAD:
		return *s ? headerline(r, s) : endhead(r);
	case SCHUNKSIZE:
		return chunksize(r, s);
	case SCHUNKEND:
		if (*s)
			return rfail(r, "chunk data longer than its size");
		r->state = SCHUNKSIZE;
		return 0;
	case STRAILER:
		if (!*s)
			r->state = SDONE;
		return 0;
	}
	return rfail(r, "internal error: line in state %d", r->state);
}

static int
bodyout(Httpresp *r, const char *p, size_t n)
{
	if (!n)
		return 0;
	r->nbody += n;
	if (r->fn && r->fn(r->arg, p, n))
		return rfail(r, "stopped");
	return 0;
}

/* Hand the chunks' data gathered in one feed to fn at once: a stream
 * of many small chunks (an event each) is then parsed, and its text
 * written out, a network read at a time. */
static int
chunksout(Httpresp *r)
{
	int rc = bodyout(r, r->chunks.p, r->chunks.len);

	bufreset(&r->chunks);
	return rc;
}

/* Feed n bytes; -1 on error (r->err), 0 for more, 1 when complete. */
int
httprespfeed(Httpresp *r, const char *p, size_t n)
{
	const char *nl;
	size_t k;
	int head;

	while (n > 0 && r->state != SDONE && r->state != SERR) {
		switch (r->state) {
		case SBODY:
		case SCHUNK:
			k = (long long)n < r->left ? n : (size_t)r->left;
			if (r->state == SCHUNK)
				bufadd(&r->chunks, p, k);
			else if (bodyout(r, p, k) < 0)
				return -1;
			p += k;
			n -= k;
			if ((r->left -= k))
				break;
			r->state = r->state == SBODY ? SDONE : SCHUNKEND;
			break;
		case SCLOSE:
			if (bodyout(r, p, n) < 0)
				return -1;
			n = 0;
			break;
		default:
			nl = memchr(p, '\n', n);
			k = nl ? (size_t)(nl - p) + 1 : n;
			head = r->state <= SHEAD || r->state == STRAILER;
			if (head && r->headlen + k > r->maxhead)
				return rfail(r, "response head larger than "
				             "%zu bytes", r->maxhead);
			if (r->line.len + k > r->maxhead)
				return rfail(r, "chunk size line too long");
			if (head)
				r->headlen += k;
			bufadd(&r->line, p, k);
			p += k;
			n -= k;
			if (nl) {
				if (respline(r) < 0) {
					chunksout(r);
					return -1;
				}
				bufreset(&r->line);
			}
		}
	}
	if (chunksout(r) < 0 || r->state == SERR)
		return -1;
	return r->state == SDONE;
}

/* The connection was closed: 0 if that ends the message cleanly, else
 * -1 with the reason in r->err. */
int
httprespeof(Httpresp *r)
{
	switch (r->state) {
	case SDONE:
		return 0;
	case SCLOSE:
		r->state = SDONE;
		return 0;
	case SERR:
		return -1;
	case SSTATUS:
		if (!r->headlen)
			return rfail(r, "connection closed before any "
			             "response");
		/* fallthrough */
	case SHEAD:
		return rfail(r, "connection closed inside the response head");
	case SBODY:
		return rfail(r, "response truncated: %lld of %lld body bytes",
		             r->clen - r->left, r->clen);
	}
	return rfail(r, "response truncated inside the chunked body");
}

/* URLs */

static int
ishostc(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       isdig(c) || c == '-' || c == '.' || c == '_';
}

/* Parse an http or https URL into u; NULL, or why not. */
const char *
httpurl(Url *u, const char *s)
{
	const char *p, *end, *h, *he, *q;
	long port;

	memset(u, 0, sizeof(*u));
	for (p = s; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			return "space or control character in URL";
	if (!strncasecmp(s, "http://", 7)) {
		p = s + 7;
	} else if (!strncasecmp(s, "https://", 8)) {
		p = s + 8;
		u->tls = 1;
	} else {
		return "not an http:// or https:// URL";
	}
	strcpy(u->port, u->tls ? "443" : "80");
	u->defport = 1;
	end = p + strcspn(p, "/?#");
	if (memchr(p, '@', end - p))
		return "user name or password in URL not supported";
	if (*p == '[') {
		h = p + 1;
		if (!(he = memchr(h, ']', end - h)))
			return "bad IPv6 address in URL";
		for (q = h; q < he; q++)
			if (hexval(*q) < 0 && *q != ':' && *q != '.')
				return "bad IPv6 address in URL";
		if (!memchr(h, ':', he - h))
			return "bad IPv6 address in URL";
		p = he + 1;
	} else {
		h = p;
		for (he = h; he < end && ishostc(*he); he++)
			;
		p = he;
	}
	if (p < end && *p != ':')
		return "bad character in the host of the URL";
	if (he == h)
		return "no host in URL";
	if ((size_t)(he - h) >= sizeof(u->host))
		return "host name too long";
	memcpy(u->host, h, he - h);
	if (p < end && ++p < end) {	/* an empty port is the default */
		for (port = 0, q = p; q < end && isdig(*q) && port <= 65535;
		     q++)
			port = port * 10 + (*q - '0');
		if (q < end || port < 1 || port > 65535)
			return "bad port in URL";
		snprintf(u->port, sizeof(u->port), "%ld", port);
		u->defport = port == (u->tls ? 443 : 80);
	}
	u->path = end;
	u->pathlen = strcspn(end, "#");
	return NULL;
}

/* host[:port] as in a Host header; IPv6 in brackets. */
static void
hostport(Buf *b, const Url *u, int withport)
{
	if (strchr(u->host, ':'))
		bufaddf(b, "[%s]", u->host);
	else
		bufadds(b, u->host);
	if (withport || !u->defport)
		bufaddf(b, ":%s", u->port);
}

/* host[:port] as the Host header names it: what a signature covers. */
void
httphost(Buf *b, const Url *u)
{
	hostport(b, u, 0);
}

static int
isiplit(const char *s)
{
	if (strchr(s, ':'))
		return 1;
	for (; *s; s++)
		if (!isdig(*s) && *s != '.')
			return 0;
	return 1;
}

/* Whether host is in a NO_PROXY list: comma-separated names, each
 * matching itself and its subdomains (a leading dot is allowed), ports
 * ignored; IP literals match exactly; "*" matches all. */
/* Whether host, an IP address, is in the block addr/bits, n bytes at s,
 * as curl and Go read NO_PROXY. */
static int
incidr(const char *host, const char *s, size_t n)
{
	unsigned char h[16], net[16];
	const char *slash = memchr(s, '/', n);
	char addr[64];
	long bits;
	int af, i;

	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		return 0;
	memcpy(addr, s, slash - s);
	addr[slash - s] = '\0';
	af = strchr(addr, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(af, addr, net) != 1 || inet_pton(af, host, h) != 1)
		return 0;
	for (bits = 0, i = 1; slash + i < s + n && isdig(slash[i]); i++)
		bits = bits * 10 + (slash[i] - '0');
	if (i == 1 || slash + i != s + n || bits > (af == AF_INET6 ? 128 : 32))
		return 0;
	for (i = 0; i < bits / 8; i++)
		if (h[i] != net[i])
			return 0;
	return bits % 8 == 0 ||
	       !((h[i] ^ net[i]) & (0xff00 >> (bits % 8)) & 0xff);
}

int
httpnoproxy(const char *list, const char *host)
{
	const char *p, *e, *a, *b, *c;
	size_t n, hn = strlen(host);
	int ip = isiplit(host);

	for (p = list; ; p = e + 1) {
		e = p + strcspn(p, ",");
		for (a = p; a < e && (*a == ' ' || *a == '\t'); a++)
			;
		for (b = e; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
			;
		if (b - a == 1 && *a == '*')
			return 1;
		if (ip && memchr(a, '/', b - a) && incidr(host, a, b - a))
			return 1;
		if (a < b && *a == '[') {
			a++;
			if ((c = memchr(a, ']', b - a)))
				b = c;
		} else if ((c = memchr(a, ':', b - a)) &&
		           !memchr(c + 1, ':', b - c - 1)) {
			b = c;	/* name:port, not an IPv6 address */
		}
		if (a < b && *a == '.')
			a++;
		n = b - a;
		if (n && n == hn && !strncasecmp(a, host, n))
			return 1;
		if (n && !ip && hn > n && host[hn - n - 1] == '.' &&
		    !strncasecmp(host + hn - n, a, n))
			return 1;
		if (!*e)
			return 0;
	}
}

/* Sockets */

/* Wait until c->fd is ready for one of ev: the events that came, 0 when
 * ms (<= 0 for never) passed first, -1 interrupted, past the request's
 * deadline or failed (c->h->err).  poll wakes up at least twice a second
 * to see a SIGINT that came just before it. */
static int
waitfd(Conn *c, int ev, int ms)
{
	struct pollfd pfd[2];
	Httpclient *cl = c->cl;
	long long end = monoms() + ms, left, now, dl = c->h->deadline;
	int n;

	for (;;) {
		if (cl->intr && *cl->intr)
			return cfail(c, "interrupted");
		now = monoms();
		if (dl && now >= dl)
			return cfail(c, "no whole answer in the time given");
		left = ms > 0 ? end - now : 500;
		if (left <= 0)
			return 0;
		if (dl)
			left = MIN(left, dl - now);
		pfd[0].fd = c->fd;
		pfd[0].events = ev;
		pfd[1].fd = cl->watch ? cl->watchfd : -1;	/* -1: none */
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		n = poll(pfd, 2, left < 500 ? (int)left : 500);
		if (n > 0 && pfd[1].revents && cl->watch(cl->watcharg))
			cl->watch = NULL;
		if (n > 0 && pfd[0].revents)
			return pfd[0].revents;
		if (n < 0 && errno != EINTR)
			return cfail(c, "poll:");
	}
}

/* Read some bytes: the count, 0 at the end of the stream, -1 on error. */
static int
rawread(Conn *c, void *p, size_t n)
{
	ssize_t k;
	int w;

	for (;;) {
		if ((w = waitfd(c, POLLIN, c->cl->readtimeout)) < 0)
			return -1;
		if (!w) {
			c->slow = 1;
			return cfail(c, "read timed out after %g s",
			             c->cl->readtimeout / 1000.0);
		}
		if ((k = recv(c->fd, p, n, 0)) >= 0)
			return k;
		if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
			return cfail(c, "read:");
	}
}

/* Write n bytes.  While the body goes out, the server may answer before
 * it has read it all (a 413 as soon as it sees the head) and close: what
 * it says matters more than the rest of the body, which is dropped, and
 * the answer is read as usual. */
static int
rawwritev(Conn *c, struct iovec *v, int n)
{
	struct msghdr m;
	ssize_t k;
	int w;

	memset(&m, 0, sizeof(m));
	for (; n > 0 && !v->iov_len; v++, n--)
		;
	while (n > 0 && !c->wlost) {
		w = waitfd(c, POLLOUT | (c->inbody ? POLLIN : 0),
		           c->cl->readtimeout);
		if (w < 0)
			return -1;
		if (!w) {
			c->slow = 1;
			return cfail(c, "write timed out after %g s",
			             c->cl->readtimeout / 1000.0);
		}
		if (w & POLLIN) {
			c->wlost = 1;
			break;
		}
		m.msg_iov = v;
		m.msg_iovlen = n;
		/* MSG_NOSIGNAL: a closed peer is EPIPE, not SIGPIPE */
		if ((k = sendmsg(c->fd, &m, MSG_NOSIGNAL)) >= 0) {
			for (; n > 0 && (size_t)k >= v->iov_len; v++, n--)
				k -= v->iov_len;
			if (n > 0) {
				v->iov_base = (char *)v->iov_base + k;
				v->iov_len -= k;
			}
		} else if (c->inbody && (errno == EPIPE ||
		           errno == ECONNRESET)) {
			c->wlost = 1;
		} else if (errno != EINTR && errno != EAGAIN &&
		           errno != EWOULDBLOCK) {
			return cfail(c, "write:");
		}
	}
	return 0;
}

static int
rawwrite(Conn *c, const void *p, size_t n)
{
	struct iovec v;

	v.iov_base = (void *)p;
	v.iov_len = n;
	return rawwritev(c, &v, 1);
}

/* Connect to u's host, trying every address, each within conntimeout. */
static int
dial(Conn *c, const Url *u)
{
	struct addrinfo hints, *res, *ai;
	Buf name = {0};
	socklen_t len;
	int e, w, fd, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	/* getaddrinfo has no timeout of its own: the resolver's applies */
	if ((e = getaddrinfo(u->host, u->port, &hints, &res)))
		return cfail(c, "%s: %s", u->host, e == EAI_SYSTEM ?
		             strerror(errno) : gai_strerror(e));
	hostport(&name, u, 1);
	for (ai = res; ai; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, ai->ai_socktype,
		    ai->ai_protocol)) < 0) {
			cfail(c, "socket:");
			continue;
		}
		c->fd = fd;
		/* kept between requests, it must not reach the tools'
		 * processes */
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0 ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0) {
			cfail(c, "fcntl:");
		} else if (!connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			break;
		} else if (errno != EINPROGRESS && errno != EINTR) {
			cfail(c, "connect %s:", name.p);
		} else if ((w = waitfd(c, POLLOUT, c->cl->conntimeout)) < 0) {
			c->fd = -1;
			close(fd);
			break;	/* interrupted */
		} else if (!w) {
			cfail(c, "connect %s: timed out after %g s", name.p,
			      c->cl->conntimeout / 1000.0);
		} else {
			len = sizeof(e);
			if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0)
				e = errno;
			if (!e)
				break;
			errno = e;
			cfail(c, "connect %s:", name.p);
		}
		c->fd = -1;
		close(fd);
	}
	freeaddrinfo(res);
	buffree(&name);
	if (c->fd < 0)
		return -1;
	/* a request, a TLS flight, goes out whole at once: nothing is
	 * held back waiting for an ACK */
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* a failed earlier address is forgotten, and whether its failure
	 * could pass next time: the reason is now what this one meets */
	c->h->err[0] = '\0';
	c->h->transient = 0;
	return 0;
}

/* TLS, in tls.c, over the socket and its timeouts */

static int
sockread(void *c, void *p, size_t n)
{
	return rawread(c, p, n);
}

static int
sockwrite(void *c, const void *p, size_t n)
{
	return rawwrite(c, p, n);
}

/* Put c's TLS over its socket: a new connection, or a kept one serving
 * a new request. */
static void
conntlsbind(Conn *c)
{
	Tlsio io;

	io.read = sockread;
	io.write = sockwrite;
	io.arg = c;
	tlsbind(c->tls, &io);
}

/* After a tls* call failed: the socket's failure has said why already;
 * a refusal of TLS's is final, whatever came before. */
static int
conntlsfail(Conn *c)
{
	const char *e = tlserror(c->tls);

	if (!e)
		return -1;
	c->h->transient = 0;
	return cfail(c, "%s", e);
}

static int
connread(Conn *c, char *p, size_t n)
{
	int k;

	if (!c->tls)
		return rawread(c, p, n);
	return (k = tlsread(c->tls, p, n)) < 0 ? conntlsfail(c) : k;
}

static int
connwrite(Conn *c, const char *p, size_t n)
{
	if (!c->tls)
		return rawwrite(c, p, n);
	return tlswrite(c->tls, p, n) < 0 ? conntlsfail(c) : 0;
}

static int
connflush(Conn *c)
{
	if (!c->tls)
		return 0;
	return tlsflush(c->tls) < 0 ? conntlsfail(c) : 0;
}

/* Open a tunnel to u through the proxy we are connected to. The answer
 * is read a byte at a time: nothing after its head may be consumed. */
static int
tunnel(Conn *c, const Url *u)
{
	Httpresp r;
	Buf b = {0};
	char ch;
	int k, ret = -1;

	httprespinit(&r, NULL, NULL, c->cl->maxhead);
	r.nobody = 1;
	bufadds(&b, "CONNECT ");
	hostport(&b, u, 1);
	bufadds(&b, " HTTP/1.1\r\nHost: ");
	hostport(&b, u, 1);
	bufadds(&b, "\r\nUser-Agent: agent/" VERSION "\r\n");
	if (c->proxyauth[0])
		bufaddf(&b, "%s\r\n", c->proxyauth);
	bufadds(&b, "\r\n");
	if (rawwrite(c, b.p, b.len) < 0)
		goto out;
	do {
		if ((k = rawread(c, &ch, 1)) < 0)
			goto out;
		if (!k) {
			cfail(c, "proxy closed the connection during CONNECT");
			goto out;
		}
	} while (!(k = httprespfeed(&r, &ch, 1)));
	if (k < 0)
		cfail(c, "proxy: %s", r.err);
	else if (r.status / 100 != 2)
		cfail(c, "proxy refused CONNECT: %d %s", r.status, r.reason);
	else
		ret = 0;
out:
	httprespfree(&r);
	buffree(&b);
	return ret;
}

/* Proxy-Authorization: Basic, from a URL's user:password (n bytes at s,
 * percent-escapes undone) into out; -1 if it does not fit or is bad. */
static int
proxyauth(char *out, size_t size, const char *s, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	                          "abcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char raw[256];
	size_t k = 0, i, o;
	unsigned long v;

	for (i = 0; i < n && k < sizeof(raw); i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			raw[k++] = hexval(s[i + 1]) << 4 | hexval(s[i + 2]);
			i += 2;
		} else {
			raw[k++] = s[i];
		}
	}
	o = snprintf(out, size, "Proxy-Authorization: Basic ");
	if (i < n || o + (k + 2) / 3 * 4 >= size)
		return -1;
	for (i = 0; i < k; i += 3) {
		v = (unsigned long)raw[i] << 16 |
		    (i + 1 < k ? raw[i + 1] << 8 : 0) |
		    (i + 2 < k ? raw[i + 2] : 0);
		out[o++] = abc[v >> 18 & 63];
		out[o++] = abc[v >> 12 & 63];
		out[o++] = i + 1 < k ? abc[v >> 6 & 63] : '=';
		out[o++] = i + 2 < k ? abc[v & 63] : '=';
	}
	out[o] = '\0';
	return 0;
}

/* The value of the first of two variables that is set, or NULL. */
static const char *
envpair(const char *a, const char *b)
{
	const char *s = getenv(a);

	return s && *s ? s : (s = getenv(b)) && *s ? s : NULL;
}

void
httpproxyenv(Httpproxy *p)
{
	const char *s;

	p->https = (s = envpair("HTTPS_PROXY", "https_proxy")) ?
	           xstrdup(s) : NULL;
	p->http = (s = envpair("HTTP_PROXY", "http_proxy")) ? xstrdup(s) :
	          NULL;
	p->no = (s = envpair("NO_PROXY", "no_proxy")) ? xstrdup(s) : NULL;
}

void
httpproxyfree(Httpproxy *p)
{
	free(p->https);
	free(p->http);
	free(p->no);
	memset(p, 0, sizeof(*p));
}

/* The proxy for u, if any: 1 and p filled, 0 for none, -1 for a bad
 * proxy URL. */
static int
proxyfor(Conn *c, const Url *u, Url *p)
{
	const Httpproxy *px = c->cl->px;
	const char *s, *e, *no, *at, *start;
	Buf url = { 0 };
	int rc = 1;

	if (px) {
		s = u->tls ? px->https : px->http;
		no = px->no;
	} else {
		s = u->tls ? envpair("HTTPS_PROXY", "https_proxy") :
		    envpair("HTTP_PROXY", "http_proxy");
		no = envpair("NO_PROXY", "no_proxy");
	}
	if (!s)
		return 0;
	if (no && httpnoproxy(no, u->host))
		return 0;
	/* host:port alone is http://host:port, as curl, pip and npm take
	 * it */
	if (!(start = strstr(s, "://"))) {
		bufadds(&url, "http://");
		start = s;
	} else if (!(start - s == 4 && !strncasecmp(s, "http", 4)) &&
	    !(start - s == 5 && !strncasecmp(s, "https", 5))) {
		return cfail(c, "proxy: %.*s:// proxies are not supported, "
		             "only http://", (int)MIN(start - s, 16), s);
	} else {
		start += 3;
	}
	/* user:password@ is taken out, for Proxy-Authorization, and is
	 * never shown */
	for (at = NULL, e = start; e < start + strcspn(start, "/?#"); e++)
		if (*e == '@')
			at = e;	/* the last: a password may hold one */
	bufadd(&url, s, at ? (size_t)(start - s) : strlen(s));
	if (at) {
		bufadds(&url, at + 1);
		if (proxyauth(c->proxyauth, sizeof(c->proxyauth), start,
		    at - start) < 0)
			rc = cfail(c, "proxy %s: bad user name or password",
			           url.p);
	}
	/* Without a port the proxy is on 80, the http default (curl picks
	 * 1080; we keep to the URL's own meaning). */
	if (rc > 0 && (e = httpurl(p, url.p)))
		rc = cfail(c, "proxy %s: %s", url.p, e);
	else if (rc > 0 && (p->tls || (p->pathlen &&
	         strncmp(p->path, "/", p->pathlen))))
		rc = cfail(c, "proxy %s: must be http://host[:port]", url.p);
	buffree(&url);
	return rc;
}

/* The request's head: its line, Host, ours and h's headers. */
static void
reqhead(Buf *b, const Http *h, const Url *u, int absolute,
        const char *proxyauth)
{
	const char *const *hd;

	bufadds(b, h->method ? h->method : "GET");
	bufaddc(b, ' ');
	if (absolute) {	/* to a proxy */
		bufadds(b, "http://");
		hostport(b, u, 0);
	}
	if (!u->pathlen || u->path[0] != '/')
		bufaddc(b, '/');
	bufadd(b, u->path, u->pathlen);
	bufadds(b, " HTTP/1.1\r\nHost: ");
	hostport(b, u, 0);
	/* an encoding we cannot read is refused rather than named */
	bufadds(b, "\r\nUser-Agent: agent/" VERSION "\r\n"
	        "Accept-Encoding: identity\r\n");
	if (absolute && proxyauth[0])
		bufaddf(b, "%s\r\n", proxyauth);
	if (h->body || h->spans)
		bufaddf(b, "Content-Length: %zu\r\n", h->bodylen);
	for (hd = h->headers; hd && *hd; hd++) {
		bufadds(b, *hd);
		bufadds(b, "\r\n");
	}
	bufadds(b, "\r\n");
}

/* The body callback: the status is known before the first byte. */
static int
bodyfn(void *arg, const char *p, size_t n)
{
	Conn *c = arg;

	if (!c->h->status) {
		memcpy(c->h->ctype, c->r->ctype, sizeof(c->h->ctype));
		memcpy(c->h->location, c->r->location,
		       sizeof(c->h->location));
		memcpy(c->h->encoding, c->r->encoding,
		       sizeof(c->h->encoding));
	}
	c->h->status = c->r->status;
	return c->h->fn ? c->h->fn(c->h->arg, p, n) : 0;
}

Httpclient *
httpnew(const char *const *cafiles, int conntimeout, int readtimeout,
        size_t maxhead, volatile sig_atomic_t *intr, const Httpproxy *px)
{
	Httpclient *c = xcalloc(1, sizeof(*c));

	c->tlsctx = tlsctxnew(cafiles);
	c->conntimeout = conntimeout;
	c->readtimeout = readtimeout;
	c->maxhead = maxhead;
	c->intr = intr;
	c->px = px;
	c->fd = -1;
	return c;
}

void
httpwatch(Httpclient *c, int fd, int (*fn)(void *), void *arg)
{
	c->watch = fn;
	c->watchfd = fd;
	c->watcharg = arg;
}

/* Wait ms, or less if interrupted, keeping the watch meanwhile: between
 * two tries of a request. */
void
httpsleep(Httpclient *c, long ms)
{
	struct pollfd pfd;
	long long end = monoms() + ms, left;

	while (!(c->intr && *c->intr) && (left = end - monoms()) > 0) {
		pfd.fd = c->watch ? c->watchfd : -1;	/* -1: only wait */
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, left < 500 ? (int)left : 500) > 0 &&
		    c->watch(c->watcharg))
			c->watch = NULL;
	}
}


/* Where a connection leads, which a kept one must match to serve. */
static void
connkey(char *key, size_t n, const Url *u, const Url *pu, int via)
{
	snprintf(key, n, "%s://[%s]:%s via [%s]:%s", u->tls ? "https" : "http",
	         u->host, u->port, via ? pu->host : "", via ? pu->port : "");
}

static void
dropkept(Httpclient *c)
{
	if (c->fd >= 0)
		close(c->fd);
	tlsfree(c->tls);
	c->fd = -1;
	c->tls = NULL;
}

/* Take the kept connection if it leads to key and the server has not
 * closed it meanwhile: an idle connection that is readable has only its
 * end, or a close_notify, to say. */
static int
takekept(Conn *cn, const char *key)
{
	Httpclient *c = cn->cl;
	struct pollfd p;

	if (c->fd < 0)
		return 0;
	p.fd = c->fd;
	p.events = POLLIN;
	p.revents = 0;
	if (strcmp(c->key, key) || poll(&p, 1, 0) != 0) {
		dropkept(c);
		return 0;
	}
	cn->fd = c->fd;
	cn->tls = c->tls;
	cn->reused = 1;
	c->fd = -1;
	c->tls = NULL;
	if (cn->tls)
		conntlsbind(cn);
	return 1;
}

/* A new connection to u, through the proxy pu if via. */
static int
connopen(Conn *cn, const Url *u, const Url *pu, int via)
{
	char *h = cn->h->err;
	size_t n;

	if (dial(cn, via ? pu : u) < 0) {
		if (via && !(cn->cl->intr && *cn->cl->intr)) {
			n = MIN(strlen(h), sizeof(cn->h->err) - 8);
			memmove(h + 7, h, n);
			memcpy(h, "proxy: ", 7);
			h[7 + n] = '\0';
		}
		return -1;
	}
	if (u->tls && via && tunnel(cn, u) < 0)
		return -1;
	if (!u->tls)
		return 0;
	cn->tls = tlsnew(cn->cl->tlsctx);
	conntlsbind(cn);
	return tlsconnect(cn->tls, u->host) < 0 ? conntlsfail(cn) : 0;
}

static void
connclose(Conn *cn)
{
	tlsfree(cn->tls);
	cn->tls = NULL;
	if (cn->fd >= 0)
		close(cn->fd);
	cn->fd = -1;
}

/* A body in spans, in few writes: over TLS the small ones gathered and
 * the big ones sent from where they are; over TCP all of them from where
 * they are, as many a write as the system takes, so that no byte of a
 * long history is copied before the kernel copies it. */
static int
sendspans(Conn *cn, const Http *h)
{
	const Span *v = h->spans;
	size_t n = h->nspans;
	struct iovec iov[IOVMAX];
#ifdef IOV_MAX	/* known at build time: no sysconf in a static build */
	long max = IOV_MAX;
#else
	long max = sysconf(_SC_IOV_MAX);
#endif
	Buf b = { 0 };
	size_t i;
	int k = 0, ret = -1;

	max = max < 16 ? 16 : MIN(max, IOVMAX);	/* 16: POSIX's least */
	for (i = 0; !cn->tls && i < n; i++) {
		iov[k].iov_base = (void *)v[i].p;
		iov[k++].iov_len = v[i].len;
		if (k < max && i + 1 < n)
			continue;
		if (rawwritev(cn, iov, k) < 0)
			return -1;
		for (; h->sent && k > 0; k--)
			h->sent(h->sentarg, v[i + 1 - k].p + v[i + 1 - k].len);
		k = 0;
	}
	for (i = 0; cn->tls && i < n; i++) {
		if (b.len + v[i].len <= ONEWRITE) {
			bufadd(&b, v[i].p, v[i].len);
			continue;
		}
		if (b.len && connwrite(cn, b.p, b.len) < 0)
			goto out;
		bufreset(&b);
		if (v[i].len <= ONEWRITE)
			bufadd(&b, v[i].p, v[i].len);
		else if (connwrite(cn, v[i].p, v[i].len) < 0)
			goto out;
		else if (h->sent)
			h->sent(h->sentarg, v[i].p + v[i].len);
	}
	ret = b.len ? connwrite(cn, b.p, b.len) : 0;
out:
	buffree(&b);
	return ret;
}

/* Send the request and read the response: 0 when the whole body came,
 * whatever the status; -1 with h->err otherwise. */
static int
exchange(Conn *cn, Http *h, Httpresp *r, const Url *u, int via)
{
	Buf b = { 0 };
	const char *body = h->body;
	char buf[16384];
	size_t n = h->spans ? 0 : h->bodylen;
	int k, ret = -1;

	reqhead(&b, h, u, via && !u->tls, cn->proxyauth);
	if (!u->tls && n <= ONEWRITE) {
		if (n)
			bufadd(&b, body, n);	/* one send: head and body */
		n = 0;
	}
	if (connwrite(cn, b.p, b.len) < 0)
		goto out;
	cn->inbody = 1;
	if ((n && connwrite(cn, body, n) < 0) ||
	    (h->spans && sendspans(cn, h) < 0) ||
	    connflush(cn) < 0)
		goto out;
	for (;;) {
		if ((k = connread(cn, buf, sizeof(buf))) < 0)
			goto out;
		if (!k) {
			cn->eof = 1;
			if (httprespeof(r) < 0) {
				/* closed before a byte of the answer */
				h->transient = r->headlen == 0;
				break;
			}
			ret = 0;
			goto out;
		}
		if ((k = httprespfeed(r, buf, k)) < 0)
			break;
		if (k) {
			ret = 0;
			goto out;
		}
	}
	snprintf(h->err, sizeof(h->err), "%s", r->err);
out:
	buffree(&b);
	return ret;
}

/* The answer's fields of h, emptied before an exchange (a replayed one
 * too: record.c). */
void
httpclear(Http *h)
{
	h->status = 0;
	h->retryafter = -1;
	h->nbody = 0;
	h->transient = 0;
	h->err[0] = h->ctype[0] = h->location[0] = h->encoding[0] =
	    h->sessid[0] = '\0';
}

/* One request, on the connection kept from the last one when it leads to
 * the same place, else on a new one.  0 when the whole body arrived,
 * whatever the status; -1 with h->err otherwise (h->status 0 if no
 * response). */
int
httpdo(Httpclient *c, Http *h)
{
	Conn cn;
	Httpresp r;
	Url u, pu;
	const char *e, *const *hd;
	char key[sizeof(c->key)];
	int ret = -1, via = 0;

	httpclear(h);
	memset(&cn, 0, sizeof(cn));
	cn.cl = c;
	cn.h = h;
	cn.r = &r;
	cn.fd = -1;
	httprespinit(&r, bodyfn, &cn, c->maxhead);
	r.nobody = h->method && !strcmp(h->method, "HEAD");
	if ((e = httpurl(&u, h->url))) {
		cfail(&cn, "%s: %s", h->url, e);
		goto out;
	}
	for (hd = h->headers; hd && *hd; hd++) {
		if (strpbrk(*hd, "\r\n")) {
			cfail(&cn, "request header with a line break");
			goto out;
		}
	}
	if ((via = proxyfor(&cn, &u, &pu)) < 0)
		goto out;
	if (u.tls && (e = tlsload(c->tlsctx))) {
		cfail(&cn, "%s", e);
		goto out;
	}
	connkey(key, sizeof(key), &u, &pu, via);
	if (!takekept(&cn, key) && connopen(&cn, &u, &pu, via) < 0)
		goto out;
	ret = exchange(&cn, h, &r, &u, via);
	if (ret < 0 && cn.reused && !r.headlen && !cn.slow &&
	    !(c->intr && *c->intr)) {
		/* the server closed the kept connection as we sent: once
		 * more on a new one, no byte of an answer being lost (not
		 * after a timeout: it may be at work on the request, and
		 * would be paid twice) */
		connclose(&cn);
		httprespfree(&r);
		httprespinit(&r, bodyfn, &cn, c->maxhead);
		r.nobody = h->method && !strcmp(h->method, "HEAD");
		cn.reused = cn.eof = cn.inbody = cn.wlost = cn.slow = 0;
		h->err[0] = '\0';
		h->transient = 0;
		if (connopen(&cn, &u, &pu, via) < 0)
			goto out;
		ret = exchange(&cn, h, &r, &u, via);
	}
	if (ret == 0 && cn.tls)	/* a new connection to it resumes it */
		tlssave(cn.tls);
	if (ret == 0 && r.keep && !cn.eof && !cn.wlost) {
		dropkept(c);
		c->fd = cn.fd;
		c->tls = cn.tls;
		memcpy(c->key, key, sizeof(key));
		cn.fd = -1;
		cn.tls = NULL;
	}
out:
	h->status = r.status;
	h->retryafter = r.retryafter;
	h->nbody = r.nbody;
	memcpy(h->ctype, r.ctype, sizeof(h->ctype));
	memcpy(h->location, r.location, sizeof(h->location));
	memcpy(h->encoding, r.encoding, sizeof(h->encoding));
	memcpy(h->sessid, r.sessid, sizeof(h->sessid));
	httprespfree(&r);
	connclose(&cn);
	return ret;
}

void
httpfree(Httpclient *c)
{
	if (!c)
		return;
	dropkept(c);
	tlsctxfree(c->tlsctx);
	free(c);
}
