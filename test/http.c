/* See LICENSE file for copyright and license details. */
/* http.c: tests of URL parsing, NO_PROXY, the response parser at every
 * split, and over loopback: timeouts, interrupts, proxies, refusals. */
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../util.h"
#include "../http.h"
#include "t.h"

enum { DONE = 1, ATEOF = 2, ERR = -1, EOFERR = -2 };

typedef struct {
	const char *name;
	const char *in;
	int want;		/* DONE, ATEOF (clean at EOF), ERR, EOFERR */
	int status;
	const char *body;	/* the body, or words of the error */
	long retry;		/* Retry-After wanted, 0 for unchecked */
} Case;

static const Case cases[] = {
	{ "content-length",
	  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	  DONE, 200, "hello", -1 },
	{ "content-length, bytes after the body ignored",
	  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA",
	  DONE, 200, "hello", 0 },
	{ "content-length 0",
	  "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", DONE, 200, "", 0 },
	{ "content-length repeated with the same value",
	  "HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\ncontent-length: 2\r\n"
	  "\r\nok", DONE, 200, "ok", 0 },
	{ "chunked, extensions, trailers",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "5\r\nhello\r\n7;ext=1;q=\"a;b\"\r\n, world\r\n"
	  "A ; x\r\n0123456789\r\n0\r\nX-Trailer: 1\r\nY: 2\r\n\r\n",
	  DONE, 200, "hello, world0123456789", 0 },
	{ "chunked, bare LF everywhere",
	  "HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n"
	  "3\nabc\n0\n\n", DONE, 200, "abc", 0 },
	{ "chunked overrides content-length",
	  "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
	  DONE, 200, "hi", 0 },
	{ "close-delimited body",
	  "HTTP/1.0 200 OK\r\nServer: x\r\n\r\nall of it\r\nand more",
	  ATEOF, 200, "all of it\r\nand more", 0 },
	{ "bare LF head",
	  "HTTP/1.1 200 OK\nContent-Length: 2\n\nhi", DONE, 200, "hi", 0 },
	{ "status line without reason",
	  "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\nx", DONE, 200, "x", 0 },
	{ "interim 100 and 103 skipped",
	  "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n"
	  "Link: </a>\r\nContent-Length: 9\r\n\r\n"
	  "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
	  DONE, 201, "ok", 0 },
	{ "header names case-insensitive",
	  "HTTP/1.1 200 OK\r\nTRANSFER-encoding: CHUNKED\r\n"
	  "rEtRy-AfTeR: 3\r\n\r\n1\r\nz\r\n0\r\n\r\n", DONE, 200, "z", 3 },
	{ "retry-after seconds on a 429",
	  "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  7 \r\n"
	  "Content-Length: 4\r\n\r\nslow", DONE, 429, "slow", 7 },
	{ "retry-after garbage ignored",
	  "HTTP/1.1 503 Busy\r\nRetry-After: soon\r\nContent-Length: 0\r\n"
	  "\r\n", DONE, 503, "", -1 },
	{ "retry-after date in the past is 0",
	  "HTTP/1.1 503 Busy\r\nRetry-After: Sun, 06 Nov 1994 08:49:37 GMT"
	  "\r\nContent-Length: 0\r\n\r\n", DONE, 503, "", 0 },
	{ "204 has no body",
	  "HTTP/1.1 204 No Content\r\n\r\n", DONE, 204, "", 0 },
	{ "304 has no body",
	  "HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n",
	  DONE, 304, "", 0 },
	{ "error status with a body",
	  "HTTP/1.1 401 Unauthorized\r\nContent-Length: 13\r\n\r\n"
	  "{\"error\":{}}\n", DONE, 401, "{\"error\":{}}\n", 0 },
	{ "empty input", "", EOFERR, 0, "before any response", 0 },
	{ "truncated head",
	  "HTTP/1.1 200 OK\r\nContent-Le", EOFERR, 0,
	  "inside the response head", 0 },
	{ "truncated content-length body",
	  "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello",
	  EOFERR, 200, "truncated: 5 of 10", 0 },
	{ "truncated chunked body",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel",
	  EOFERR, 200, "chunked", 0 },
	{ "missing last chunk",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "2\r\nhi\r\n", EOFERR, 200, "chunked", 0 },
	{ "HTTP/2 status line", "HTTP/2 200 OK\r\n\r\n", ERR, 0,
	  "bad status line", 0 },
	{ "two-digit status", "HTTP/1.1 20 OK\r\n\r\n", ERR, 0,
	  "bad status line", 0 },
	{ "four-digit status", "HTTP/1.1 2000 OK\r\n\r\n", ERR, 0,
	  "bad status line", 0 },
	{ "status 600", "HTTP/1.1 600 Odd\r\n\r\n", ERR, 0, "bad status", 0 },
	{ "status 099", "HTTP/1.1 099 Odd\r\n\r\n", ERR, 0, "bad status", 0 },
	{ "not HTTP", "ICY 200 OK\r\n\r\n", ERR, 0, "bad status line", 0 },
	{ "empty status line", "\r\nHTTP/1.1 200 OK\r\n\r\n", ERR, 0,
	  "bad status line", 0 },
	{ "101 refused", "HTTP/1.1 101 Switching Protocols\r\n\r\n", ERR, 0,
	  "101", 0 },
	{ "folded header",
	  "HTTP/1.1 200 OK\r\nX-A: one\r\n two\r\n\r\n", ERR, 0, "folded", 0 },
	{ "header without colon",
	  "HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", ERR, 0, "malformed header",
	  0 },
	{ "space before colon",
	  "HTTP/1.1 200 OK\r\nName : x\r\n\r\n", ERR, 0,
	  "malformed header", 0 },
	{ "empty header name",
	  "HTTP/1.1 200 OK\r\n: x\r\n\r\n", ERR, 0, "malformed header", 0 },
	{ "stray CR in a header",
	  "HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", ERR, 0, "stray CR", 0 },
	{ "conflicting content-length",
	  "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
	  ERR, 0, "conflicting Content-Length", 0 },
	{ "content-length list disagreeing",
	  "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n", ERR, 0,
	  "conflicting Content-Length", 0 },
	{ "negative content-length",
	  "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", ERR, 0,
	  "invalid Content-Length", 0 },
	{ "content-length with junk",
	  "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\n", ERR, 0,
	  "invalid Content-Length", 0 },
	{ "empty content-length",
	  "HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n", ERR, 0,
	  "invalid Content-Length", 0 },
	{ "content-length overflow",
	  "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
	  ERR, 0, "invalid Content-Length", 0 },
	{ "unsupported transfer-encoding",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	  ERR, 0, "unsupported Transfer-Encoding", 0 },
	{ "bad chunk size",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	  ERR, 200, "bad chunk size", 0 },
	{ "empty chunk size",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n",
	  ERR, 200, "bad chunk size", 0 },
	{ "chunk size with junk",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n",
	  ERR, 200, "bad chunk size", 0 },
	{ "chunk size overflow",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "fffffffffffffffff\r\n", ERR, 200, "chunk size too large", 0 },
	{ "chunk longer than its size",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "3\r\nhello\r\n0\r\n\r\n", ERR, 200, "longer than its size", 0 },
};

/* s made printable on one line, for messages. */
static const char *
vis(const char *s)
{
	static char buf[128];
	size_t i = 0;

	for (; s && *s && i + 3 < sizeof(buf); s++) {
		if (*s == '\r' || *s == '\n') {
			buf[i++] = '\\';
			buf[i++] = *s == '\r' ? 'r' : 'n';
		} else {
			buf[i++] = *s;
		}
	}
	buf[i] = '\0';
	return buf;
}

static int
prefix(const char *s, const char *p)
{
	return s && !strncmp(s, p, strlen(p));
}

static int
collect(void *arg, const char *p, size_t n)
{
	bufadd(arg, p, n);
	return 0;
}

/* Count the calls, keep nothing. */
static int
count(void *arg, const char *p, size_t n)
{
	(void)p;
	(void)n;
	++*(int *)arg;
	return 0;
}

/* Feed in pieces of step bytes, or when step is 0 in two pieces cut at
 * cut; then EOF if the parser still wants more. */
static int
run(const char *in, size_t len, size_t step, size_t cut, size_t maxhead,
    Httpresp *r, Buf *body)
{
	size_t i = 0, k;
	int ret = 0;

	bufreset(body);
	httprespinit(r, collect, body, maxhead);
	while (!ret && i < len) {
		k = step ? step : i < cut ? cut - i : len - i;
		k = MIN(k, len - i);
		ret = httprespfeed(r, in + i, k);
		i += k;
	}
	if (!ret)
		ret = httprespeof(r) ? EOFERR : ATEOF;
	return ret;
}

static int
check(const Case *c, int ret, Httpresp *r, Buf *body)
{
	int ok = ret == c->want && r->status == c->status;

	if (ok && c->want > 0)
		ok = body->len == strlen(c->body) &&
		     (!body->len || !memcmp(body->p, c->body, body->len)) &&
		     r->nbody == (long long)body->len &&
		     (!c->retry || r->retryafter == c->retry);
	else if (ok)
		ok = strstr(r->err, c->body) != NULL;
	return ok;
}

static void
testcase(const Case *c, size_t maxhead)
{
	Httpresp r;
	Buf body = {0};
	size_t len = strlen(c->in), cut, bad = 0, badcut = 0;
	int ret;

	ret = run(c->in, len, 0, 0, maxhead, &r, &body);
	T(check(c, ret, &r, &body), "%s: whole (ret %d, status %d, "
	  "err \"%s\", body \"%s\")", c->name, ret, r.status, r.err,
	  vis(body.p));
	httprespfree(&r);
	for (cut = 1; cut < len; cut++) {
		ret = run(c->in, len, 0, cut, maxhead, &r, &body);
		if (!check(c, ret, &r, &body) && !bad++)
			badcut = cut;
		httprespfree(&r);
	}
	T(!bad, "%s: split at every byte (%zu bad, first at %zu)", c->name,
	  bad, badcut);
	ret = run(c->in, len, 1, 0, maxhead, &r, &body);
	T(check(c, ret, &r, &body), "%s: one byte at a time", c->name);
	httprespfree(&r);
	buffree(&body);
}

static int
feeds(Httpresp *r, const char *s)
{
	return httprespfeed(r, s, strlen(s));
}

static int
stopfn(void *arg, const char *p, size_t n)
{
	(void)p;
	(void)n;
	return ++*(int *)arg >= 2;
}

static void
testparser(void)
{
	Case big = { "head over maxhead", NULL, ERR, 0, "larger than 256",
	             0 };
	Case trail = { "trailers over maxhead", NULL, ERR, 200,
	               "larger than 256", 0 };
	Buf in = {0}, body = {0};
	Httpresp r;
	char date[64];
	time_t t;
	size_t i;
	int calls = 0, ret;

	for (i = 0; i < LEN(cases); i++)
		testcase(&cases[i], 256);

	bufadds(&in, "HTTP/1.1 200 OK\r\nX-Big: ");
	while (in.len < 300)
		bufaddc(&in, 'a');
	bufadds(&in, "\r\nContent-Length: 0\r\n\r\n");
	big.in = in.p;
	testcase(&big, 256);
	bufreset(&in);
	bufadds(&in, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	        "0\r\n");
	for (i = 0; i < 20; i++)
		bufadds(&in, "X-Trailer: 0123456789\r\n");
	bufadds(&in, "\r\n");
	trail.in = in.p;
	testcase(&trail, 256);
	buffree(&in);

	/* the status is hidden until the whole head is in */
	httprespinit(&r, collect, &body, 256);
	ret = feeds(&r, "HTTP/1.1 200 OK\r\nA: b\r\n");
	T(!ret && !r.status, "status 0 while the head is incomplete");
	ret = feeds(&r, "\r\nxy");
	T(!ret && r.status == 200 && body.len == 2,
	  "status 200 once the head is complete");
	T(!httprespeof(&r), "EOF ends a close-delimited body cleanly");
	httprespfree(&r);

	/* a non-zero return from fn stops the parser */
	httprespinit(&r, stopfn, &calls, 256);
	ret = feeds(&r, "HTTP/1.1 200 OK\r\n\r\nab");
	ret = ret ? ret : feeds(&r, "cd");
	T(ret == -1 && !strcmp(r.err, "stopped") && calls == 2,
	  "fn returning non-zero stops: \"%s\"", r.err);
	T(feeds(&r, "ef") == -1, "and it stays stopped");
	httprespfree(&r);

	/* the chunks of one feed reach fn in one call: an event a chunk,
	 * they are parsed, and their text written, a read at a time */
	calls = 0;
	httprespinit(&r, count, &calls, 256);
	ret = feeds(&r, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	            "\r\n2\r\nab\r\n2\r\ncd\r\n1\r\ne\r\n");
	T(ret == 0 && calls == 1 && r.nbody == 5,
	  "chunks of one feed: one call (%d)", calls);
	ret = feeds(&r, "1\r\nf\r\n0\r\n\r\n");
	T(ret == 1 && calls == 2 && r.nbody == 6,
	  "and the next feed: one more");
	httprespfree(&r);

	/* HEAD and CONNECT: no body whatever the headers say */
	httprespinit(&r, collect, &body, 256);
	r.nobody = 1;
	ret = feeds(&r, "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n");
	T(ret == 1, "nobody: done at the end of the head");
	httprespfree(&r);

	/* Retry-After as an HTTP-date an hour from now */
	t = time(NULL) + 3600;
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", gmtime(&t));
	bufaddf(&in, "HTTP/1.1 503 Busy\r\nRetry-After: %s\r\n"
	        "Content-Length: 0\r\n\r\n", date);
	httprespinit(&r, collect, &body, 256);
	ret = httprespfeed(&r, in.p, in.len);
	T(ret == 1 && r.retryafter >= 3590 && r.retryafter <= 3600,
	  "Retry-After date in an hour: %ld s", r.retryafter);
	httprespfree(&r);
	buffree(&in);
	buffree(&body);
}

typedef struct {
	const char *url;
	int tls;
	const char *host, *port;
	int defport;
	const char *path;
} Urlcase;

static void
testurl(void)
{
	static const Urlcase good[] = {
		{ "http://example.com", 0, "example.com", "80", 1, "" },
		{ "https://api.example.com/v1/chat?x=1&y=2#frag", 1,
		  "api.example.com", "443", 1, "/v1/chat?x=1&y=2" },
		{ "HTTPS://Example.COM:8443/", 1, "Example.COM", "8443", 0,
		  "/" },
		{ "http://127.0.0.1:8080/v1", 0, "127.0.0.1", "8080", 0,
		  "/v1" },
		{ "http://[::1]:8080/v1", 0, "::1", "8080", 0, "/v1" },
		{ "https://[2001:db8::1]/", 1, "2001:db8::1", "443", 1, "/" },
		{ "http://h?q=1", 0, "h", "80", 1, "?q=1" },
		{ "http://h:/x", 0, "h", "80", 1, "/x" },
		{ "http://h:443/", 0, "h", "443", 0, "/" },
		{ "https://h:443/", 1, "h", "443", 1, "/" },
		{ "http://my_host-1.local:1/", 0, "my_host-1.local", "1", 0,
		  "/" },
	};
	static const char *const bad[][2] = {
		{ "ftp://example.com/", "not an http" },
		{ "example.com", "not an http" },
		{ "http://user:pw@example.com/", "user name or password" },
		{ "http://user@example.com/", "user name or password" },
		{ "http://", "no host" },
		{ "http:///x", "no host" },
		{ "http://:80/", "no host" },
		{ "http://h:0/", "bad port" },
		{ "http://h:65536/", "bad port" },
		{ "http://h:99999999999999999999/", "bad port" },
		{ "http://h:80x/", "bad port" },
		{ "http://h:-1/", "bad port" },
		{ "http://[::1/", "bad IPv6" },
		{ "http://[zz::1]/", "bad IPv6" },
		{ "http://[]/", "bad IPv6" },
		{ "http://[::1]x/", "bad character" },
		{ "http://h h/", "space or control" },
		{ "http://h/\t", "space or control" },
		{ "http://h%41/", "bad character" },
	};
	Url u;
	const char *e;
	size_t i;

	for (i = 0; i < LEN(good); i++) {
		e = httpurl(&u, good[i].url);
		T(!e && u.tls == good[i].tls && !strcmp(u.host, good[i].host) &&
		  !strcmp(u.port, good[i].port) &&
		  u.defport == good[i].defport &&
		  u.pathlen == strlen(good[i].path) &&
		  !strncmp(u.path, good[i].path, u.pathlen),
		  "url %s: host %s port %s path %.*s%s%s", good[i].url, u.host,
		  u.port, (int)u.pathlen, u.path ? u.path : "",
		  e ? ", error: " : "", e ? e : "");
	}
	for (i = 0; i < LEN(bad); i++) {
		e = httpurl(&u, bad[i][0]);
		T(e && strstr(e, bad[i][1]), "url %s refused: %s", bad[i][0],
		  e ? e : "(accepted)");
	}
}

static void
testnoproxy(void)
{
	static const struct {
		const char *list, *host;
		int want;
	} c[] = {
		{ "*", "api.example.com", 1 },
		{ "example.com", "example.com", 1 },
		{ "example.com", "api.example.com", 1 },
		{ "example.com", "badexample.com", 0 },
		{ "example.com", "example.com.evil", 0 },
		{ ".example.com", "api.example.com", 1 },
		{ ".example.com", "example.com", 1 },
		{ "example.com:443", "example.com", 1 },
		{ " foo , EXAMPLE.com ", "api.Example.com", 1 },
		{ "a,,b", "b", 1 },
		{ "", "a", 0 },
		{ "foo,bar", "baz", 0 },
		{ "127.0.0.1", "127.0.0.1", 1 },
		{ "0.0.1", "127.0.0.1", 0 },
		{ "127.0.0.1:8080", "127.0.0.1", 1 },
		{ "::1", "::1", 1 },
		{ "[::1]:8080", "::1", 1 },
		{ "::1", "1::1", 0 },
		{ "localhost,*.x", "y.x", 0 },
		{ "127.0.0.0/8", "127.0.0.1", 1 },
		{ "10.0.0.0/8", "10.200.3.4", 1 },
		{ "10.0.0.0/8", "11.0.0.1", 0 },
		{ "192.168.1.0/25", "192.168.1.127", 1 },
		{ "192.168.1.0/25", "192.168.1.128", 0 },
		{ "0.0.0.0/0", "8.8.8.8", 1 },
		{ "10.0.0.0/33", "10.0.0.1", 0 },
		{ "10.0.0.0/", "10.0.0.1", 0 },
		{ "fd00::/8", "fd12::1", 1 },
		{ "fd00::/8", "fe80::1", 0 },
		{ "10.0.0.0/8", "api.example.com", 0 },
	};
	size_t i;

	for (i = 0; i < LEN(c); i++)
		T(httpnoproxy(c[i].list, c[i].host) == c[i].want,
		  "NO_PROXY \"%s\" %s %s", c[i].list,
		  c[i].want ? "matches" : "does not match", c[i].host);
}

/* Loopback servers: a child process serves one connection and writes
 * what it received to a pipe. */

typedef void (*Serve)(int fd, int out);

typedef struct {
	pid_t pid;
	int port;
	int rd;
} Srv;

static volatile sig_atomic_t intr;

static void
onusr1(int sig)
{
	(void)sig;
	intr = 1;
}

static void
msleep(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* A socket bound to the loopback address, port 0; -1 if unavailable. */
static int
loopback(int family, int *port)
{
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	struct sockaddr *a;
	socklen_t len;
	int fd;

	if ((fd = socket(family, SOCK_STREAM, 0)) < 0)
		return -1;
	memset(&a4, 0, sizeof(a4));
	memset(&a6, 0, sizeof(a6));
	if (family == AF_INET) {
		a4.sin_family = AF_INET;
		a4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a = (struct sockaddr *)&a4;
		len = sizeof(a4);
	} else {
		a6.sin6_family = AF_INET6;
		a6.sin6_addr = in6addr_loopback;
		a = (struct sockaddr *)&a6;
		len = sizeof(a6);
	}
	if (bind(fd, a, len) < 0 || getsockname(fd, a, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(family == AF_INET ? a4.sin_port : a6.sin6_port);
	return fd;
}

static int
srvstart(Srv *s, int family, Serve fn)
{
	int lfd, fd, p[2];

	if ((lfd = loopback(family, &s->port)) < 0)
		return -1;
	if (listen(lfd, 8) < 0 || pipe(p) < 0) {
		close(lfd);
		return -1;
	}
	fflush(stdout);
	if ((s->pid = fork()) < 0)
		return -1;
	if (!s->pid) {
		close(p[0]);
		alarm(5);
		if ((fd = accept(lfd, NULL, NULL)) >= 0)
			fn(fd, p[1]);
		_exit(0);
	}
	close(lfd);
	close(p[1]);
	s->rd = p[0];
	return 0;
}

/* Wait for the server (killed first if kill is set); what it received
 * goes to got. */
static void
srvstop(Srv *s, int killit, Buf *got)
{
	char buf[4096];
	ssize_t n;

	if (killit)
		kill(s->pid, SIGKILL);
	while ((n = read(s->rd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		bufadd(got, buf, n);
	}
	close(s->rd);
	while (waitpid(s->pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Read a request head and its Content-Length body; copy it to out. */
static void
readreq(int fd, int out)
{
	Buf b = {0};
	char buf[1024], *e, *cl;
	size_t want = (size_t)-1;
	ssize_t n;

	while (b.len < want && (n = read(fd, buf, sizeof(buf))) > 0) {
		bufadd(&b, buf, n);
		if (want == (size_t)-1 && (e = strstr(b.p, "\r\n\r\n"))) {
			want = e + 4 - b.p;
			if ((cl = strstr(b.p, "\r\nContent-Length: ")) &&
			    cl < e)
				want += strtoul(cl + 18, NULL, 10);
		}
	}
	if (b.len)
		writeall(out, b.p, b.len);
	buffree(&b);
}

static void
answer(int fd, const char *s)
{
	writeall(fd, s, strlen(s));
	close(fd);
}

static void
srvstall(int fd, int out)
{
	readreq(fd, out);
	close(out);
	pause();
}

/* A byte of the body every 100 ms, forever: no read waits long. */
static void
srvtrickle(int fd, int out)
{
	readreq(fd, out);
	close(out);
	writeall(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
	         "Connection: close\r\n\r\n", 71);
	while (writeall(fd, ":", 1) == 0)
		msleep(100);
	_exit(0);
}

static void
srvclose(int fd, int out)
{
	(void)out;
	close(fd);
}

static void
srvchunked(int fd, int out)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\n"
	    "Transfer-Encoding: chunked\r\nRetry-After: 2\r\n\r\n"
	    "6;name=value\r\nhello \r\n6\r\nworld!\r\n0\r\nT: x\r\n\r\n";
	size_t i;

	readreq(fd, out);
	for (i = 0; i < sizeof(resp) - 1; i++) {
		if (writeall(fd, resp + i, 1) < 0)
			break;
		msleep(1);
	}
	close(fd);
}

static void
srvok(int fd, int out)
{
	readreq(fd, out);
	answer(fd, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nproxied!");
}

static void
srverror(int fd, int out)
{
	readreq(fd, out);
	answer(fd, "HTTP/1.1 500 Internal Server Error\r\n"
	       "Content-Length: 4\r\n\r\noops");
}

static void
srvbig(int fd, int out)
{
	char buf[1000];
	int i;

	readreq(fd, out);
	memset(buf, 'x', sizeof(buf));
	writeall(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n",
	         43);
	for (i = 0; i < 100; i++)
		if (writeall(fd, buf, sizeof(buf)) < 0)
			break;
	close(fd);
}

/* A CONNECT proxy that accepts, then reports the first byte of the
 * tunnel (0x16 starts a TLS handshake record), reads that record and
 * hangs up. */
static void
srvconnect(int fd, int out)
{
	unsigned char rec[5], buf[512];
	char msg[32];
	size_t left;
	ssize_t n;

	readreq(fd, out);
	writeall(fd, "HTTP/1.1 200 Connection established\r\n\r\n", 39);
	for (left = 0; left < 5; left += n)
		if ((n = read(fd, rec + left, 5 - left)) <= 0)
			_exit(1);
	snprintf(msg, sizeof(msg), "[first byte %02x]", rec[0]);
	writeall(out, msg, strlen(msg));
	for (left = rec[3] << 8 | rec[4]; left > 0; left -= n)
		if ((n = read(fd, buf, MIN(left, sizeof(buf)))) <= 0)
			break;
	close(fd);
}

static void
srv407(int fd, int out)
{
	readreq(fd, out);
	answer(fd, "HTTP/1.1 407 Proxy Authentication Required\r\n"
	       "Proxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n");
}

static void
srvsignal(int fd, int out)
{
	readreq(fd, out);
	msleep(200);
	kill(getppid(), SIGUSR1);
	pause();
}

static const char anchor[] =
	"-----BEGIN CERTIFICATE-----\n"
	"MIIBmTCCAT+gAwIBAgIUef+KIg/OpD6049fsuxAJilJ/9zYwCgYIKoZIzj0EAwIw\n"
	"ITEfMB0GA1UEAwwWYWdlbnQgdW5pdCB0ZXN0IGFuY2hvcjAgFw0yNjExMjIxNzM0\n"
	"MjFaGA8yMTI2MTAyOTE3MzQyMVowITEfMB0GA1UEAwwWYWdlbnQgdW5pdCB0ZXN0\n"
	"IGFuY2hvcjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABF3hFv4KftjS+cOoB5x5\n"
	"2kMUDt6VCsvP3pWEnK2kihdhd4k20tJi/x4n41J8BHAy/NEc9dyTsTyjopgZdZKE\n"
	"23KjUzBRMB0GA1UdDgQWBBSCU3NbEXao3tqbnc9wp7Sjiog+vzAfBgNVHSMEGDAW\n"
	"gBSCU3NbEXao3tqbnc9wp7Sjiog+vzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49\n"
	"BAMCA0gAMEUCIQCZLO87ToIEzJWj9BST1rtliCrWo+3IdKbqxYWv0CwyTQIgXeSW\n"
	"+dwRY28t1oLRuVHz0CTZ3wL8qxl1AhSkWCPWvAo=\n"
	"-----END CERTIFICATE-----";	/* no final newline, on purpose */

/* Start a server, run one request against url (%d is the port), stop
 * the server; returns httpdo's result. */
static int
live(Httpclient *c, Http *h, Serve fn, int family, const char *url,
     int killit, Buf *got, Buf *body)
{
	Srv s;
	char u[256];
	int ret;

	bufreset(got);
	bufreset(body);
	if (srvstart(&s, family, fn) < 0) {
		snprintf(h->err, sizeof(h->err), "no server");
		return -2;
	}
	snprintf(u, sizeof(u), url, s.port);
	h->url = u;
	h->fn = collect;
	h->arg = body;
	ret = httpdo(c, h);
	h->url = NULL;
	srvstop(&s, killit, got);
	return ret;
}

static void
testlive(void)
{
	static const char *const hdrs[] = { "X-Test: yes",
	                                    "Authorization: Bearer k", NULL };
	static const char *const badhdrs[] = { "X: a\r\nY: b", NULL };
	struct sigaction sa;
	Httpclient *c;
	Http h;
	Buf got = {0}, body = {0}, want = {0};
	char ca[] = "/tmp/agent-http-test-XXXXXX";
	long long t0, ms;
	int ret, fd, port;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = onusr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART, as agent.c */
	c = httpnew(NULL, 2000, 300, 8192, &intr, NULL);

	/* (a) a server that stalls: cut off by the read timeout */
	memset(&h, 0, sizeof(h));
	t0 = nowms();
	ret = live(c, &h, srvstall, AF_INET, "http://127.0.0.1:%d/", 1, &got,
	           &body);
	ms = nowms() - t0;
	T(ret == -1 && !strcmp(h.err, "read timed out after 0.3 s") &&
	  h.status == 0 && ms >= 250 && ms < 2000,
	  "stalled server: \"%s\" after %lld ms", h.err, ms);

	/* (a2) a server that trickles: cut off at the request's deadline */
	memset(&h, 0, sizeof(h));
	t0 = nowms();
	h.deadline = monoms() + 800;
	ret = live(c, &h, srvtrickle, AF_INET, "http://127.0.0.1:%d/", 1,
	           &got, &body);
	ms = nowms() - t0;
	T(ret == -1 && strstr(h.err, "in the time given") && h.status == 200 &&
	  body.len > 0 && ms >= 750 && ms < 2000,
	  "trickling server: \"%s\" after %lld ms", h.err, ms);

	/* (b) closed at once: status 0, the caller may retry */
	memset(&h, 0, sizeof(h));
	ret = live(c, &h, srvclose, AF_INET, "http://127.0.0.1:%d/", 0, &got,
	           &body);
	T(ret == -1 && h.status == 0 && h.err[0],
	  "closed before any byte: status 0, \"%s\"", h.err);

	/* (c) POST, chunked answer written a byte at a time */
	memset(&h, 0, sizeof(h));
	h.method = "POST";
	h.headers = hdrs;
	h.body = "{\"a\":1}";
	h.bodylen = 7;
	ret = live(c, &h, srvchunked, AF_INET,
	           "http://127.0.0.1:%d/v1/chat?x=1#f", 0, &got, &body);
	T(ret == 0 && h.status == 200 && h.retryafter == 2 &&
	  h.nbody == 12 && body.len == 12 && !strcmp(body.p, "hello world!"),
	  "chunked byte by byte: %d, status %d, body \"%s\", err \"%s\"", ret,
	  h.status, body.p ? body.p : "", h.err);
	bufreset(&want);
	bufaddf(&want, "POST /v1/chat?x=1 HTTP/1.1\r\nHost: 127.0.0.1:");
	T(prefix(got.p, want.p),
	  "request line and Host: %.50s", vis(got.p));
	T(got.len && strstr(got.p, "\r\nUser-Agent: agent/") &&
	  strstr(got.p, "\r\nContent-Length: 7\r\n") &&
	  !strstr(got.p, "Connection:") &&
	  strstr(got.p, "\r\nX-Test: yes\r\nAuthorization: Bearer k\r\n\r\n"
	         "{\"a\":1}"), "request headers and body, the connection not "
	  "closed by us");

	/* an error status is not a transport error */
	memset(&h, 0, sizeof(h));
	ret = live(c, &h, srverror, AF_INET, "http://127.0.0.1:%d/", 0, &got,
	           &body);
	T(ret == 0 && h.status == 500 && body.len == 4 &&
	  !strcmp(body.p, "oops"), "500 with its body: %d %d", ret, h.status);

	/* fn says stop */
	memset(&h, 0, sizeof(h));
	h.fn = collect;
	ret = live(c, &h, srvbig, AF_INET, "http://127.0.0.1:%d/", 1, &got,
	           &body);
	T(ret == 0 && h.nbody == 100000, "100000-byte body: %lld", h.nbody);
	{
		int calls = 0;
		Srv s;
		char u[64];

		memset(&h, 0, sizeof(h));
		if (srvstart(&s, AF_INET, srvbig) == 0) {
			snprintf(u, sizeof(u), "http://127.0.0.1:%d/", s.port);
			h.url = u;
			h.fn = stopfn;
			h.arg = &calls;
			ret = httpdo(c, &h);
			srvstop(&s, 1, &got);
			T(ret == -1 && !strcmp(h.err, "stopped") &&
			  h.status == 200, "fn stops httpdo: \"%s\"", h.err);
		}
	}

	/* request headers with line breaks are refused */
	memset(&h, 0, sizeof(h));
	h.headers = badhdrs;
	h.url = "http://127.0.0.1:1/";
	T(httpdo(c, &h) == -1 && strstr(h.err, "line break"),
	  "header injection refused: %s", h.err);

	/* (d) plain http proxy: absolute-form request target */
	{
		Srv s;

		memset(&h, 0, sizeof(h));
		if (srvstart(&s, AF_INET, srvok) == 0) {
			char px[64];

			snprintf(px, sizeof(px), "http://127.0.0.1:%d", s.port);
			setenv("HTTP_PROXY", px, 1);
			h.url = "http://127.0.0.1:1/v1/x?y=2";
			h.fn = collect;
			h.arg = &body;
			bufreset(&body);
			ret = httpdo(c, &h);
			bufreset(&got);
			srvstop(&s, 0, &got);
			T(ret == 0 && h.status == 200 &&
			  !strcmp(body.p, "proxied!"), "via http proxy: %s",
			  h.err);
			T(prefix(got.p, "GET http://127.0.0.1:1/v1/x?y=2 "
			  "HTTP/1.1\r\nHost: 127.0.0.1:1\r\n"),
			  "absolute-form request: %.60s", vis(got.p));
		}
	}
	/* a proxy given as host:port, as curl, pip and npm take it, is
	 * http://host:port; with a password too */
	{
		Srv s;

		memset(&h, 0, sizeof(h));
		if (srvstart(&s, AF_INET, srvok) == 0) {
			char px[64];

			snprintf(px, sizeof(px), "u:pw@127.0.0.1:%d", s.port);
			setenv("HTTP_PROXY", px, 1);
			h.url = "http://127.0.0.1:1/v1/x";
			h.fn = collect;
			h.arg = &body;
			bufreset(&body);
			ret = httpdo(c, &h);
			bufreset(&got);
			srvstop(&s, 0, &got);
			T(ret == 0 && h.status == 200 &&
			  !strcmp(body.p, "proxied!"),
			  "proxy as host:port: %s", h.err);
			T(prefix(got.p, "GET http://127.0.0.1:1/v1/x "
			  "HTTP/1.1\r\n") && strstr(got.p, "\r\nProxy-"
			  "Authorization: Basic dTpwdw==\r\n"),
			  "proxy as host:port: absolute-form, its password: "
			  "%.60s", vis(got.p));
		}
	}
	setenv("HTTP_PROXY", "socks5://127.0.0.1:1", 1);
	memset(&h, 0, sizeof(h));
	h.url = "http://127.0.0.1:2/";
	ret = httpdo(c, &h);
	T(ret == -1 && !strcmp(h.err, "proxy: socks5:// proxies are not "
	  "supported, only http://"), "socks5 proxy refused: %s", h.err);
	/* NO_PROXY lets a request go direct; without it the dead proxy
	 * is what we get */
	setenv("HTTP_PROXY", "http://127.0.0.1:1", 1);
	setenv("no_proxy", "example.com, 127.0.0.1", 1);
	memset(&h, 0, sizeof(h));
	ret = live(c, &h, srvok, AF_INET, "http://127.0.0.1:%d/", 0, &got,
	           &body);
	T(ret == 0 && h.status == 200, "no_proxy bypasses the proxy: %s",
	  h.err);
	unsetenv("no_proxy");
	memset(&h, 0, sizeof(h));
	h.url = "http://127.0.0.1:2/";
	ret = httpdo(c, &h);
	T(ret == -1 && !strcmp(h.err, "proxy: connect 127.0.0.1:1: "
	  "Connection refused"), "the proxy is used, and named: %s", h.err);
	setenv("HTTP_PROXY", "https://127.0.0.1:1", 1);
	ret = httpdo(c, &h);
	T(ret == -1 && strstr(h.err, "must be http://host[:port]"),
	  "https proxy URL refused: %s", h.err);
	unsetenv("HTTP_PROXY");

	/* CONNECT through an https proxy */
	if ((fd = mkstemp(ca)) >= 0) {
		writeall(fd, anchor, sizeof(anchor) - 1);
		close(fd);
		setenv("SSL_CERT_FILE", ca, 1);
		{
			Srv s;
			char px[64];

			memset(&h, 0, sizeof(h));
			if (srvstart(&s, AF_INET, srvconnect) == 0) {
				snprintf(px, sizeof(px), "http://127.0.0.1:%d/",
				         s.port);
				setenv("HTTPS_PROXY", px, 1);
				h.url = "https://localhost:1/v1";
				ret = httpdo(c, &h);
				bufreset(&got);
				srvstop(&s, 0, &got);
				T(ret == -1 && h.status == 0 &&
				  !strcmp(h.err, "localhost: connection closed "
				  "during the TLS handshake"),
				  "TLS through the tunnel, then cut: %s",
				  h.err);
				T(prefix(got.p, "CONNECT localhost:1 HTTP/1.1"
				  "\r\nHost: localhost:1\r\n") &&
				  strstr(got.p, "[first byte 16]") &&
				  !strstr(got.p, "Proxy-Authorization"),
				  "CONNECT request, then a TLS handshake: %s",
				  vis(got.p));
			}
		}
		{
			Srv s;
			char px[64];

			memset(&h, 0, sizeof(h));
			if (srvstart(&s, AF_INET, srvconnect) == 0) {
				snprintf(px, sizeof(px), "http://us%%65r:p@ss"
				         "@127.0.0.1:%d", s.port);
				setenv("HTTPS_PROXY", px, 1);
				h.url = "https://localhost:1/v1";
				ret = httpdo(c, &h);
				bufreset(&got);
				srvstop(&s, 0, &got);
				/* user:p@ss, its %65 undone */
				T(strstr(got.p, "\r\nProxy-Authorization: "
				  "Basic dXNlcjpwQHNz\r\n") != NULL,
				  "proxy credentials in the URL: Basic: %s",
				  vis(got.p));
				T(!strstr(h.err, "p@ss"),
				  "proxy credentials never in a message: %s",
				  h.err);
			}
			unsetenv("HTTPS_PROXY");
		}
		{
			Srv s;
			char px[64];

			memset(&h, 0, sizeof(h));
			if (srvstart(&s, AF_INET, srv407) == 0) {
				snprintf(px, sizeof(px), "http://127.0.0.1:%d",
				         s.port);
				setenv("https_proxy", px, 1);
				unsetenv("HTTPS_PROXY");
				h.url = "https://localhost:1/";
				ret = httpdo(c, &h);
				srvstop(&s, 0, &got);
				T(ret == -1 && !strcmp(h.err, "proxy refused "
				  "CONNECT: 407 Proxy Authentication Required"),
				  "CONNECT refused: %s", h.err);
			}
		}
		unsetenv("https_proxy");
		unlink(ca);
	}
	/* anchors are loaded once per client: a new one reads them */
	httpfree(c);
	c = httpnew(NULL, 2000, 300, 8192, &intr, NULL);
	setenv("SSL_CERT_FILE", "/nonexistent/agent-ca.pem", 1);
	memset(&h, 0, sizeof(h));
	h.url = "https://localhost:1/";
	T(httpdo(c, &h) == -1 && strstr(h.err, "SSL_CERT_FILE "
	  "/nonexistent/agent-ca.pem: No such file"), "bad SSL_CERT_FILE: %s",
	  h.err);
	unsetenv("SSL_CERT_FILE");

	/* (e) connection refused on a closed port */
	if ((fd = loopback(AF_INET, &port)) >= 0) {
		char u[64], w[64];

		close(fd);
		snprintf(u, sizeof(u), "http://127.0.0.1:%d/", port);
		snprintf(w, sizeof(w), "connect 127.0.0.1:%d: Connection "
		         "refused", port);
		memset(&h, 0, sizeof(h));
		h.url = u;
		T(httpdo(c, &h) == -1 && !strcmp(h.err, w) && !h.status,
		  "refused: %s", h.err);
	}

	/* IPv6 loopback, when there is one */
	memset(&h, 0, sizeof(h));
	ret = live(c, &h, srvok, AF_INET6, "http://[::1]:%d/", 0, &got,
	           &body);
	if (ret == -2)
		SKIP("IPv6 literal: no ::1");
	else
		T(ret == 0 && got.len && strstr(got.p, "\r\nHost: [::1]:"),
		  "IPv6 literal: %s", h.err);

	/* SIGINT arriving while waiting: interrupted, not timed out */
	httpfree(c);
	c = httpnew(NULL, 2000, 5000, 8192, &intr, NULL);
	memset(&h, 0, sizeof(h));
	intr = 0;
	t0 = nowms();
	ret = live(c, &h, srvsignal, AF_INET, "http://127.0.0.1:%d/", 1,
	           &got, &body);
	ms = nowms() - t0;
	T(ret == -1 && !strcmp(h.err, "interrupted") && ms < 1500,
	  "signal while reading: \"%s\" after %lld ms", h.err, ms);
	memset(&h, 0, sizeof(h));
	intr = 1;
	ret = live(c, &h, srvstall, AF_INET, "http://127.0.0.1:%d/", 1, &got,
	           &body);
	T(ret == -1 && !strcmp(h.err, "interrupted"),
	  "flag already set: \"%s\"", h.err);
	intr = 0;

	httpfree(c);
	buffree(&got);
	buffree(&body);
	buffree(&want);
}

int
main(void)
{
	static const char *const env[] = {
		"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy",
		"NO_PROXY", "no_proxy", "SSL_CERT_FILE"
	};
	size_t i;

	alarm(60);	/* whatever happens, the test ends */
	for (i = 0; i < LEN(env); i++)
		unsetenv(env[i]);
	testurl();
	testnoproxy();
	testparser();
	testlive();
	return tfail != 0;
}
