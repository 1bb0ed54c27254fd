/* See LICENSE file for copyright and license details. */
/* sigv4.c: AWS Signature Version 4 (AWS's "Create a signed AWS API
 * request"): a canonical request, its SHA-256 in a string to sign, and
 * that signed by HMAC-SHA-256 with a key derived from the secret, the
 * day, the region and the service.  The headers signed are host,
 * x-amz-date and with a session x-amz-security-token: the least AWS
 * asks, so nothing a proxy may rewrite breaks the signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bearssl.h>

#include "util.h"
#include "sigv4.h"

enum { MAXPARAMS = 64 };	/* query parameters signed */

static int
unreserved(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
	       c == '~';
}

/* s[n] URI-encoded as SigV4 wants: all but the unreserved bytes as %XX
 * in upper case, '/' too unless slash. */
static void
sigv4esc(Buf *b, const char *s, size_t n, int slash)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (unreserved((unsigned char)s[i]) || (slash && s[i] == '/'))
			bufaddc(b, s[i]);
		else
			bufaddf(b, "%%%02X", (unsigned char)s[i]);
	}
}

/* s[n] with its %XX escapes decoded, as a query's names and values are
 * taken before they are encoded again. */
static void
sigv4unesc(Buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 &&
		    hexval(s[i + 2]) >= 0) {
			bufaddc(b, hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
			i += 2;
		} else {
			bufaddc(b, s[i]);
		}
	}
}

static int
cmpparam(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The query q[n] as SigV4 wants it: each name=value encoded anew,
 * sorted (a NUL between name and value while sorting, so that the name
 * alone decides first), joined by '&'. */
static void
sigv4query(Buf *b, const char *q, size_t n)
{
	char *param[MAXPARAMS], *eq;
	Buf one = { 0 }, raw = { 0 };
	size_t k, len;
	int np = 0, i;

	while (n && np < MAXPARAMS) {
		len = (eq = memchr(q, '&', n)) ? (size_t)(eq - q) : n;
		if (len) {
			bufreset(&one);
			k = (eq = memchr(q, '=', len)) ? (size_t)(eq - q) : len;
			bufreset(&raw);
			sigv4unesc(&raw, q, k);
			sigv4esc(&one, bstr(&raw), raw.len, 0);
			bufaddc(&one, '\1');	/* below every byte kept */
			bufreset(&raw);
			if (k < len)
				sigv4unesc(&raw, q + k + 1, len - k - 1);
			sigv4esc(&one, bstr(&raw), raw.len, 0);
			param[np++] = xstrdup(bstr(&one));
		}
		q += len + (len < n);
		n -= len + (len < n);
	}
	qsort(param, np, sizeof(*param), cmpparam);
	for (i = 0; i < np; i++) {
		bufadds(b, i ? "&" : "");
		*strchr(param[i], '\1') = '=';
		bufadds(b, param[i]);
		free(param[i]);
	}
	buffree(&one);
	buffree(&raw);
}

static void
hex(Buf *b, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		bufaddf(b, "%02x", p[i]);
}

static void
hmac(unsigned char out[32], const void *key, size_t klen, const char *s,
     size_t n)
{
	br_hmac_key_context kc;
	br_hmac_context hc;

	br_hmac_key_init(&kc, &br_sha256_vtable, key, klen);
	br_hmac_init(&hc, &kc, 0);
	br_hmac_update(&hc, s, n);
	br_hmac_out(&hc, out);
}

/* The canonical request into b: the method, the path encoded again (it
 * was encoded once to be sent: AWS signs it so for every service but
 * S3), the query, the headers signed, their names, and the body's
 * SHA-256.  date is YYYYMMDDTHHMMSSZ; token NULL without a session. */
void
sigv4canon(const Sigv4req *r, const char *date, const char *token, Buf *b)
{
	br_sha256_context sc;
	unsigned char sum[32];
	size_t i, plen;

	bufadds(b, r->method);
	bufaddc(b, '\n');
	plen = MIN(strcspn(r->path, "?"), r->pathlen);
	if (!plen || r->path[0] != '/')
		bufaddc(b, '/');
	sigv4esc(b, r->path, plen, 1);
	bufaddc(b, '\n');
	if (plen < r->pathlen)
		sigv4query(b, r->path + plen + 1, r->pathlen - plen - 1);
	bufaddf(b, "\nhost:%s\nx-amz-date:%s\n", r->host, date);
	if (token)
		bufaddf(b, "x-amz-security-token:%s\n", token);
	bufadds(b, token ? "\nhost;x-amz-date;x-amz-security-token\n" :
	        "\nhost;x-amz-date\n");
	br_sha256_init(&sc);
	for (i = 0; i < r->nbody; i++)
		br_sha256_update(&sc, r->body[i].p, r->body[i].len);
	br_sha256_out(&sc, sum);
	hex(b, sum, sizeof(sum));
}

/* The headers that sign request r with k's credentials, into out. */
void
sigv4sign(const Sigv4 *k, const Sigv4req *r, Sigv4hdr *out)
{
	br_sha256_context sc;
	Buf canon = { 0 }, sts = { 0 }, key = { 0 };
	unsigned char sum[32], mac[32];
	char date[64];
	int f[6];
	const char *token = k->token && *k->token ? k->token : NULL;

	memset(out, 0, sizeof(*out));
	utcdate(r->now, f);
	snprintf(date, sizeof(date), "%04d%02d%02dT%02d%02d%02dZ",
	         f[0] % 10000, f[1], f[2], f[3], f[4], f[5]);
	snprintf(out->date, sizeof(out->date), "X-Amz-Date: %s", date);
	if (token)
		bufaddf(&out->token, "X-Amz-Security-Token: %s", token);
	sigv4canon(r, date, token, &canon);
	br_sha256_init(&sc);
	br_sha256_update(&sc, canon.p, canon.len);
	br_sha256_out(&sc, sum);
	bufaddf(&sts, "AWS4-HMAC-SHA256\n%s\n%.8s/%s/%s/aws4_request\n",
	        date, date, k->region, k->service);
	hex(&sts, sum, sizeof(sum));
	/* the key: the secret narrowed to the day, region and service */
	bufaddf(&key, "AWS4%s", k->secret);
	hmac(mac, key.p, key.len, date, 8);
	hmac(mac, mac, sizeof(mac), k->region, strlen(k->region));
	hmac(mac, mac, sizeof(mac), k->service, strlen(k->service));
	hmac(mac, mac, sizeof(mac), "aws4_request", 12);
	hmac(mac, mac, sizeof(mac), sts.p, sts.len);
	bufaddf(&out->auth, "Authorization: AWS4-HMAC-SHA256 Credential="
	        "%s/%.8s/%s/%s/aws4_request, SignedHeaders=%s, Signature=",
	        k->id, date, k->region, k->service, token ?
	        "host;x-amz-date;x-amz-security-token" : "host;x-amz-date");
	hex(&out->auth, mac, sizeof(mac));
	/* the secret's copies go with the buffers that held them */
	memset(key.p, 0, key.len);
	memset(mac, 0, sizeof(mac));
	buffree(&key);
	buffree(&canon);
	buffree(&sts);
}

void
sigv4free(Sigv4hdr *h)
{
	buffree(&h->token);
	buffree(&h->auth);
}
