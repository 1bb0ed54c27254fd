/* See LICENSE file for copyright and license details. */
/* http.h: HTTP/1.1 client: URLs, proxies, framing, kept-alive connection */
#include <signal.h>
#include <stddef.h>

typedef int (*Httpfn)(void *arg, const char *p, size_t n);

/* Response push parser: status line, headers, body framing (by
 * Content-Length, chunked, or to the end of the connection). */
typedef struct {
	int state;
	Buf line;		/* the header line being read */
	size_t headlen;		/* bytes of head seen, against maxhead */
	size_t maxhead;
	int code;		/* of the status line being read */
	int status;		/* final status, 0 until the head is complete */
	char reason[64];	/* its reason phrase */
	int nobody;		/* set by the caller for HEAD and CONNECT */
	long long clen;		/* Content-Length, -1 if none */
	long long left;		/* body or chunk bytes still to come */
	int chunked;
	int keep;		/* the connection may serve another request */
	long retryafter;	/* seconds from Retry-After, -1 if none */
	char ctype[96];		/* Content-Type, Location, Content-Encoding, */
	char location[256];	/* printable ASCII, cut to fit: for saying */
	char encoding[32];	/* what arrived */
	char sessid[128];	/* Mcp-Session-Id, MCP's streamable HTTP */
	long long nbody;	/* body bytes handed to fn */
	Buf chunks;		/* the chunks' data of one feed: one call */
	Httpfn fn;
	void *arg;
	char err[160];
} Httpresp;

void httprespinit(Httpresp *r, Httpfn fn, void *arg, size_t maxhead);
int httprespfeed(Httpresp *r, const char *p, size_t n);	/* -1, 0, 1 done */
int httprespeof(Httpresp *r);	/* 0 clean end, -1 truncated */
void httprespfree(Httpresp *r);

typedef struct {
	int tls;		/* https */
	char host[256];		/* IPv6 without its brackets */
	char port[6];
	int defport;		/* the port is the scheme's default */
	const char *path;	/* into the URL: path and query, maybe "" */
	size_t pathlen;		/* without the #fragment */
} Url;

const char *httpurl(Url *u, const char *s);	/* NULL or why not */
void httphost(Buf *b, const Url *u);
int httpnoproxy(const char *list, const char *host);

/* The proxies, as the environment named them at start: read before the
 * credentials in it are blanked (prochide), kept for the run. */
typedef struct Httpproxy {
	char *https;		/* HTTPS_PROXY or https_proxy, or NULL */
	char *http;		/* HTTP_PROXY or http_proxy */
	char *no;		/* NO_PROXY or no_proxy */
} Httpproxy;

void httpproxyenv(Httpproxy *p);
void httpproxyfree(Httpproxy *p);

typedef struct Httpclient Httpclient;	/* a kept connection, TLS's anchors */

typedef struct {
	/* in */
	const char *method;
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;
	size_t bodylen;
	const Span *spans;	/* or the body in pieces, bodylen in all */
	size_t nspans;
	/* told, as the spans go, the end of the last one gone: what lies
	 * before it is the caller's to let go of; or NULL */
	void (*sent)(void *arg, const char *end);
	void *sentarg;
	Httpfn fn;		/* body bytes as they arrive, any status */
	void *arg;
	long long deadline;	/* monoms() by which the whole exchange
				 * ends, however the server trickles; 0:
				 * only the client's timeouts, per step */
	/* out */
	int status;		/* 0 until the head has arrived */
	long retryafter;	/* seconds, -1 if none */
	char ctype[96];		/* the response's Content-Type, Location and */
	char location[256];	/* Content-Encoding, "" if none: see */
	char encoding[32];	/* Httpresp */
	char sessid[128];	/* Mcp-Session-Id, or "" */
	long long nbody;	/* body bytes received */
	int transient;		/* the failure may pass: reset, refused */
	char err[256];		/* why httpdo failed */
} Http;

/* Timeouts in milliseconds (<= 0: none); intr (or NULL) is set by
 * SIGINT; px the proxies (kept, not copied), or NULL to read the
 * environment at each connection. */
Httpclient *httpnew(const char *const *cafiles, int conntimeout,
                    int readtimeout, size_t maxhead,
                    volatile sig_atomic_t *intr, const Httpproxy *px);
/* While waiting on the network, call fn when fd is readable (-r reads
 * stdin so); fn returning nonzero ends the watch. */
void httpwatch(Httpclient *c, int fd, int (*fn)(void *), void *arg);
void httpsleep(Httpclient *c, long ms);
void httpclear(Http *h);
int httpdo(Httpclient *c, Http *h);
void httpfree(Httpclient *c);
