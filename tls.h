/* See LICENSE file for copyright and license details. */
/* tls.h: TLS 1.2 client through BearSSL, under http.c */
#include <stddef.h>

typedef struct Tlsctx Tlsctx;	/* the CA bundle and the anchors taken
				 * from it, the last session: one a client */
typedef struct Tls Tls;		/* one connection's engine */

/* The stream TLS runs over: http.c's socket with its timeouts.  read
 * gives the count, 0 at the end of the stream; write sends all n bytes
 * and gives 0.  Either gives -1 on failure, told by the stream's owner. */
typedef struct {
	int (*read)(void *arg, void *p, size_t n);
	int (*write)(void *arg, const void *p, size_t n);
	void *arg;
} Tlsio;

Tlsctx *tlsctxnew(const char *const *cafiles);
const char *tlsload(Tlsctx *x);	/* the CA bundle, once: NULL or why not */
void tlsctxfree(Tlsctx *x);

/* A connection's engine, bound to its stream before any other call, and
 * again for each request it serves when it is kept. */
Tls *tlsnew(Tlsctx *x);
void tlsbind(Tls *t, const Tlsio *io);
/* The handshake's hello goes with the first write.  The server's chain
 * is checked by BearSSL's X.509 engine against the CA bundle's anchors
 * (only those the chain names are decoded), with host as the name or IP
 * address the leaf must carry. */
int tlsconnect(Tls *t, const char *host);
/* tlsread: the count, 0 at the end (with close_notify or without);
 * tlswrite and tlsflush (records held back go out): 0.  After a -1,
 * tlserror says why, or NULL when the stream failed and has said why. */
int tlsread(Tls *t, void *p, size_t n);
int tlswrite(Tls *t, const void *p, size_t n);
int tlsflush(Tls *t);
const char *tlserror(const Tls *t);
void tlssave(Tls *t);	/* the next connection to its host resumes it */
void tlsfree(Tls *t);
