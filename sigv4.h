/* See LICENSE file for copyright and license details. */
/* sigv4.h: AWS Signature Version 4: the headers that sign one request,
 * from the credentials, the region and the time given; no I/O */

/* Whose request and where: the caller's strings, kept by it. */
typedef struct Sigv4 {
	const char *id;		/* AWS_ACCESS_KEY_ID */
	const char *secret;	/* AWS_SECRET_ACCESS_KEY */
	const char *token;	/* AWS_SESSION_TOKEN, or NULL */
	const char *region;	/* us-east-1 ... */
	const char *service;	/* bedrock */
} Sigv4;

/* The request, as it goes on the wire. */
typedef struct {
	const char *method;
	const char *host;	/* as in the Host header: host[:port] */
	const char *path;	/* path and query, as sent */
	size_t pathlen;
	const Span *body;	/* the body in pieces */
	size_t nbody;
	long long now;		/* seconds since 1970, UTC */
} Sigv4req;

/* The headers to send, owned by the caller (sigv4free). */
typedef struct {
	char date[96];		/* "X-Amz-Date: 20261128T030916Z" */
	Buf token;		/* "X-Amz-Security-Token: ..." or empty */
	Buf auth;		/* "Authorization: AWS4-HMAC-SHA256 ..." */
} Sigv4hdr;

void sigv4sign(const Sigv4 *k, const Sigv4req *r, Sigv4hdr *out);
void sigv4canon(const Sigv4req *r, const char *date, const char *token,
                Buf *b);
void sigv4free(Sigv4hdr *h);
