/* See LICENSE file for copyright and license details. */
/* tls.c: TLS 1.2 through BearSSL for http.c: the engine and its I/O, the
 * suites and curves of config.h, the CA bundle's anchors, the checks of
 * the server's certificate. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include <bearssl.h>

#include "util.h"
#include "tls.h"

/* A TLS 1.2 cipher suite the client offers: a row of config.h. */
typedef struct {
	uint16_t id;		/* BR_TLS_... */
	void (*cipher)(br_ssl_engine_context *);	/* installs its cipher */
} Tlssuite;

/* An elliptic curve and the code that computes on it: a row of
 * config.h. */
typedef struct {
	int curve;		/* BR_EC_... */
	const br_ec_impl *code;
} Tlscurve;

/* The ciphers of config.h's suites, in BearSSL's portable constant-time
 * code alone: its default installers add the x86 AES-NI, PCLMUL and SSE2
 * versions, 9 KB for a speed that an agent's traffic does not need. */
static void
tlsaesgcm(br_ssl_engine_context *e)
{
	br_ssl_engine_set_gcm(e, &br_sslrec_in_gcm_vtable,
	                      &br_sslrec_out_gcm_vtable);
	br_ssl_engine_set_aes_ctr(e, &br_aes_ct_ctr_vtable);
	br_ssl_engine_set_ghash(e, br_ghash_ctmul);
}

#ifndef SMALL	/* config.def.h's static build offers no ChaCha20 */
static void
tlschapol(br_ssl_engine_context *e)
{
	br_ssl_engine_set_chapol(e, &br_sslrec_in_chapol_vtable,
	                         &br_sslrec_out_chapol_vtable);
	br_ssl_engine_set_chacha20(e, br_chacha20_ct_run);
	br_ssl_engine_set_poly1305(e, br_poly1305_ctmul_run);
}
#endif

#define TLSCONFIG	/* config.h: only its TLS part */
#include "config.h"
#include "ca.h"		/* the anchors of make CAFILE=, made by cagen */

/* The hashes of certificate and handshake signatures: SHA-1 is refused. */
static const br_hash_class *const tlshashes[] = {
	&br_sha256_vtable, &br_sha384_vtable, &br_sha512_vtable
};

/* A certificate of the CA bundle, and its subject, found in its DER. */
typedef struct {
	unsigned char *der;
	size_t len;
	const unsigned char *subject;	/* in der, or NULL if not found */
	size_t sublen;
	int taken;		/* an anchor now */
	int direct;		/* a direct one too: a server sent it */
} Cacert;

struct Tlsctx {
	const char *const *cafiles;
	Cacert *ca;		/* the CA bundle, read at the first https
				 * request */
	size_t nca;
	br_x509_trust_anchor *ta;	/* those of it a chain has needed, */
	size_t nta, cap;		/* as BearSSL takes them */
	br_ssl_session_parameters sess;	/* the last TLS session, to */
	char sesshost[256];		/* resume with that host, or "" */
	char err[256];		/* why tlsload failed */
	int clocktold;		/* the clock behind the build was said */
};

/* The X.509 engine BearSSL calls: it holds the server's chain until the
 * chain is whole, then finds the anchors it names and hands it all to
 * BearSSL's own engine.  Decoding every anchor of the bundle at the start
 * was 36 ms of the run, 35 times the rest of a start. */
typedef struct {
	const br_x509_class *vtable;
	Tls *t;
	Tlsctx *x;
	const char *name;	/* the server's, checked in its certificate */
	Buf chain;		/* each certificate: 4 bytes of length, DER */
	size_t at;		/* where the current one's length is */
	unsigned char ip[16];	/* the server's address when the URL names */
	int iplen;		/* one: its iPAddress is checked, not a name */
	int lonely;		/* the chain was one certificate, not its
				 * issuer's */
} Chain;

struct Tls {
	br_ssl_client_context sc;
	br_x509_minimal_context xc;
	br_ec_impl ec;		/* config.h's curves, each by its code */
	Chain ch;
	br_sslio_context io;
	Tlsio sock;		/* the stream under it */
	char host[256];		/* the server's, named in messages */
	int eof;		/* the peer closed the stream */
	int ioerr;		/* the stream failed, and said why */
	int sent;		/* the handshake is over */
	Buf out;		/* records not sent yet: a flight goes out
				 * in one send */
	char err[256];		/* why the last call failed */
	unsigned char buf[BR_SSL_BUFSIZE_BIDI];
};

enum {
	TLSOUT = 32768		/* bytes of TLS records kept before a send */
};

/* Trust anchors */

Tlsctx *
tlsctxnew(const char *const *cafiles)
{
	Tlsctx *x = xcalloc(1, sizeof(*x));

	x->cafiles = cafiles;
	return x;
}

void
tlsctxfree(Tlsctx *x)
{
	size_t i;

	if (!x)
		return;
	free(x->ta);
	for (i = 0; i < x->nca; i++)
		free(x->ca[i].der);
	free(x->ca);
	free(x);
}

/* Why tlsload failed, in x->err. */
static const char *
xfail(Tlsctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
	return x->err;
}

/* One DER element at *p, before end: its tag, and where its value and
 * the element are; *p moves past it.  -1 if it is not whole. */
static int
derelem(const unsigned char **p, const unsigned char *end, int *tag,
        const unsigned char **val, size_t *len)
{
	const unsigned char *q = *p;
	size_t n, k;

	if (end - q < 2)
		return -1;
	*tag = *q++;
	n = *q++;
	if (n & 0x80) {
		k = n & 0x7f;
		if (k < 1 || k > 3 || (size_t)(end - q) < k)
			return -1;
		for (n = 0; k--; )
			n = n << 8 | *q++;
	}
	if ((size_t)(end - q) < n)
		return -1;
	*val = q;
	*len = n;
	*p = q + n;
	return 0;
}

/* Where field k of a certificate's TBSCertificate starts (0 the
 * version, 1 the serial number, 3 the issuer, 5 the subject, 6 the key,
 * 7 what follows), and where the TBSCertificate ends: 0, or -1 if it is
 * not there. */
static int
certfield(const unsigned char *cert, size_t n, int k, const unsigned char **at,
          const unsigned char **end)
{
	const unsigned char *p = cert, *v, *val;
	size_t len, vlen;
	int tag, i;

	/* Certificate, then its TBSCertificate: step inside each */
	if (derelem(&p, cert + n, &tag, &v, &len) < 0 || tag != 0x30)
		return -1;
	p = v;
	if (derelem(&p, v + len, &tag, &v, &len) < 0 || tag != 0x30)
		return -1;
	*end = v + len;
	for (p = v, i = 0; ; i++) {
		*at = p;
		if (derelem(&p, *end, &tag, &val, &vlen) < 0)
			return -1;
		if (i == 0 && tag != 0xa0)
			i++;	/* no version */
		if (i == k)
			return 0;
	}
}

/* The issuer and subject names of a certificate, each with its tag and
 * length, as BearSSL compares them: 0, or -1 if not found. */
static int
certnames(const unsigned char *cert, size_t n, const unsigned char **issuer,
          size_t *ilen, const unsigned char **subject, size_t *slen)
{
	const unsigned char *p, *end, *v;
	size_t len;
	int tag;

	/* issuer, validity, subject */
	if (certfield(cert, n, 3, issuer, &end) < 0)
		return -1;
	p = *issuer;
	if (derelem(&p, end, &tag, &v, &len) < 0)
		return -1;
	*ilen = p - *issuer;
	if (derelem(&p, end, &tag, &v, &len) < 0)
		return -1;
	*subject = p;
	if (derelem(&p, end, &tag, &v, &len) < 0)
		return -1;
	*slen = p - *subject;
	return 0;
}

/* The value of a certificate's extension 2.5.29.id, inside its OCTET
 * STRING (of the last, as BearSSL's decoder, if there are several): 0,
 * or -1 if it has none. */
static int
certext(const unsigned char *cert, size_t n, int id,
        const unsigned char **val, size_t *len)
{
	const unsigned char *p, *end, *v, *ext, *q, *x;
	size_t vlen, elen, xlen;
	int tag = 0, found = -1;

	if (certfield(cert, n, 7, &p, &end) < 0)
		return -1;
	/* [1] and [2], then [3] extensions */
	while (p < end && tag != 0xa3)
		if (derelem(&p, end, &tag, &ext, &elen) < 0)
			return -1;
	p = ext;
	if (tag != 0xa3 || derelem(&p, ext + elen, &tag, &v, &vlen) < 0)
		return -1;
	for (p = v, end = v + vlen; p < end; ) {
		/* Extension: extnID, critical (optional), extnValue */
		if (derelem(&p, end, &tag, &ext, &elen) < 0)
			return -1;
		if (elen < 5 || memcmp(ext, "\x06\x03\x55\x1d", 4) ||
		    ext[4] != id)
			continue;
		q = ext + 5;
		do {
			if (derelem(&q, ext + elen, &tag, &x, &xlen) < 0)
				return -1;
		} while (tag == 0x01);
		if (tag != 0x04)
			return -1;
		*val = x;
		*len = xlen;
		found = 0;
	}
	return found;
}

/* An element that must have the tag t: its value, and *p past it. */
static int
dertag(const unsigned char **p, const unsigned char *end, int t,
       const unsigned char **val, size_t *len)
{
	int tag;

	return derelem(p, end, &tag, val, len) < 0 || tag != t ? -1 : 0;
}

/* The key of a certificate as BearSSL takes it, pointing into cert, and
 * whether its Basic Constraints say it is a CA's, as BearSSL's decoder
 * finds them: 0, or -1 for a key not RSA, nor EC on P-256, P-384 or
 * P-521. */
static int
certkey(const unsigned char *cert, size_t n, br_x509_pkey *pk, int *ca)
{
	static const char rsa[] = "\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01";
	static const char ec[] = "\x2a\x86\x48\xce\x3d\x02\x01";
	static const char *const curves[] = {	/* BR_EC_secp256r1 on */
		"\x08\x2a\x86\x48\xce\x3d\x03\x01\x07",
		"\x05\x2b\x81\x04\x00\x22", "\x05\x2b\x81\x04\x00\x23"
	};
	const unsigned char *p, *end, *v, *alg, *key, *x, *e;
	size_t len, alen, klen, xlen, elen;
	int i;

	if (certfield(cert, n, 6, &p, &end) < 0 ||
	    dertag(&p, end, 0x30, &v, &len) < 0 ||
	    (p = v, dertag(&p, v + len, 0x30, &alg, &alen)) < 0 ||
	    dertag(&p, v + len, 0x03, &key, &klen) < 0 || klen < 2 || *key ||
	    (p = alg, dertag(&p, alg + alen, 0x06, &x, &xlen)) < 0)
		return -1;
	key++;	/* no unused bits */
	klen--;
	if (xlen == sizeof(rsa) - 1 && !memcmp(x, rsa, xlen)) {
		/* RSAPublicKey: modulus, exponent */
		if (dertag(&key, key + klen, 0x30, &v, &len) < 0 ||
		    (p = v, dertag(&p, v + len, 0x02, &x, &xlen)) < 0 ||
		    dertag(&p, v + len, 0x02, &e, &elen) < 0 || !xlen)
			return -1;
		for (; xlen > 1 && !*x; xlen--)
			x++;
		pk->key_type = BR_KEYTYPE_RSA;
		pk->key.rsa.n = (unsigned char *)x;
		pk->key.rsa.nlen = xlen;
		pk->key.rsa.e = (unsigned char *)e;
		pk->key.rsa.elen = elen;
	} else if (xlen == sizeof(ec) - 1 && !memcmp(x, ec, xlen) &&
	    dertag(&p, alg + alen, 0x06, &x, &xlen) == 0) {
		/* namedCurve */
		for (i = 0; i < 3 && (xlen != (size_t)curves[i][0] ||
		     memcmp(x, curves[i] + 1, xlen)); i++)
			;
		if (i == 3)
			return -1;
		pk->key_type = BR_KEYTYPE_EC;
		pk->key.ec.curve = BR_EC_secp256r1 + i;
		pk->key.ec.q = (unsigned char *)key;
		pk->key.ec.qlen = klen;
	} else {
		return -1;
	}
	/* BasicConstraints: cA (optional), pathLenConstraint (optional) */
	*ca = certext(cert, n, 0x13, &p, &len) == 0 &&
	      dertag(&p, p + len, 0x30, &v, &len) == 0 &&
	      dertag(&v, v + len, 0x01, &x, &xlen) == 0 && xlen == 1 &&
	      *x != 0;
	return 0;
}

/* Decode base64 from s to the next '-' into b; white space is skipped.
 * -1 on anything else. */
static int
unbase64(Buf *b, const char *s, const char **end)
{
	unsigned long acc = 0;
	unsigned char *q;
	int k = 0, v;

	bufgrow(b, strcspn(s, "-") / 4 * 3 + 3);
	q = (unsigned char *)b->p + b->len;
	for (; *s && *s != '-'; s++) {
		if (*s == '=' || *s == ' ' || *s == '\t' || *s == '\r' ||
		    *s == '\n')
			continue;
		if ((v = b64val((unsigned char)*s)) < 0)
			return -1;
		acc = acc << 6 | v;
		if (++k == 4) {
			*q++ = acc >> 16 & 0xff;
			*q++ = acc >> 8 & 0xff;
			*q++ = acc & 0xff;
			acc = k = 0;
		}
	}
	if (k == 3) {
		*q++ = acc >> 10 & 0xff;
		*q++ = acc >> 2 & 0xff;
	} else if (k == 2) {
		*q++ = acc >> 4 & 0xff;
	}
	b->len = q - (unsigned char *)b->p;
	b->p[b->len] = '\0';
	*end = s;
	return k == 1 ? -1 : 0;
}

/* The certificates of a PEM bundle, in x->ca.  A malformed one is
 * skipped: the others still serve. */
static void
pemcerts(Tlsctx *x, const char *s)
{
	static const char *begins[] = {
		"-----BEGIN CERTIFICATE-----",
		"-----BEGIN X509 CERTIFICATE-----",
		"-----BEGIN TRUSTED CERTIFICATE-----",
	};
	const unsigned char *iss;
	size_t k, ilen, cap = 0;
	const char *p;
	Buf b = { 0 };
	Cacert *ca;

	while ((s = strstr(s, "-----BEGIN "))) {
		for (k = 0; k < LEN(begins) &&
		     strncmp(s, begins[k], strlen(begins[k])); k++)
			;
		p = s + 11;
		s = strchr(p, '\n') ? strchr(p, '\n') : p;
		bufreset(&b);
		if (k == LEN(begins) || unbase64(&b, s, &s) < 0 || !b.len)
			continue;
		if (x->nca == cap) {
			cap = cap ? cap * 2 : 128;
			x->ca = xrealloc(x->ca, cap * sizeof(*x->ca));
		}
		ca = &x->ca[x->nca++];
		memset(ca, 0, sizeof(*ca));
		ca->len = b.len;
		ca->der = (unsigned char *)bufdetach(&b);
		if (certnames(ca->der, ca->len, &iss, &ilen, &ca->subject,
		    &ca->sublen) < 0)
			ca->subject = NULL;
	}
	buffree(&b);
}

/* The certificates compiled in (ca.h: a row of DER SEQUENCEs), in x->ca
 * as a file's would be. */
static void
builtincerts(Tlsctx *x)
{
	const unsigned char *p = tlsbuiltin, *end = p + tlsbuiltinlen, *at;
	const unsigned char *v, *iss;
	size_t len, ilen, n = 0;
	int tag;
	Cacert *ca;

	while (derelem(&p, end, &tag, &v, &len) == 0)
		n++;
	if (!n)
		return;
	x->ca = xcalloc(n, sizeof(*x->ca));
	for (p = at = tlsbuiltin; derelem(&p, end, &tag, &v, &len) == 0; at = p) {
		ca = &x->ca[x->nca++];
		ca->len = p - at;
		ca->der = xmalloc(ca->len);
		memcpy(ca->der, at, ca->len);
		if (certnames(ca->der, ca->len, &iss, &ilen, &ca->subject,
		    &ca->sublen) < 0)
			ca->subject = NULL;
	}
}

/* Read the CA bundle once, from SSL_CERT_FILE or the first readable file
 * of the list, or else take those compiled in; its certificates are
 * decoded only when a chain names them. */
const char *
tlsload(Tlsctx *x)
{
	const char *path = getenv("SSL_CERT_FILE");
	Buf b = { 0 };
	int fd = -1, i, rc;

	if (x->nca)
		return NULL;
	if (path && *path) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			return xfail(x, "SSL_CERT_FILE %s: %s", path,
			             strerror(errno));
	} else {
		for (i = 0; x->cafiles && x->cafiles[i] && fd < 0; i++)
			fd = open(path = x->cafiles[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			builtincerts(x);
		if (fd < 0 && !x->nca)
			return xfail(x, "no CA certificates: set "
			             "SSL_CERT_FILE");
		if (fd < 0)
			return NULL;
	}
	rc = readall(fd, &b, 64 << 20);
	close(fd);
	if (rc < 0) {
		buffree(&b);
		return xfail(x, "read %s: %s", path, strerror(errno));
	}
	if (b.len)
		pemcerts(x, b.p);
	buffree(&b);
	return x->nca ? NULL : xfail(x, "no CA certificates in %s", path);
}

/* Make an anchor of a certificate of the bundle: its subject and key,
 * pointing into its DER, and the CA flag if it is a CA's and the anchor
 * is not a direct one.  One that does not decode is skipped. */
static void
addanchor(Tlsctx *x, const Cacert *k, int direct)
{
	br_x509_trust_anchor ta;
	int ca;

	memset(&ta, 0, sizeof(ta));
	if (!k->subject || certkey(k->der, k->len, &ta.pkey, &ca) < 0)
		return;
	ta.dn.data = (unsigned char *)k->subject;
	ta.dn.len = k->sublen;
	ta.flags = ca && !direct ? BR_X509_TA_CA : 0;
	if (x->nta == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 16;
		x->ta = xrealloc(x->ta, x->cap * sizeof(*x->ta));
	}
	x->ta[x->nta++] = ta;
}

/* Make an anchor of each certificate of the bundle whose subject is the
 * name p: what BearSSL matches a chain's issuers and subjects with.  Or,
 * direct, of the one that is the server's certificate p, as a
 * self-signed one is, without the CA flag: BearSSL then trusts it
 * directly when its name and key match, with no signature to check (its
 * own, the one a CA anchor of the same certificate would check, proves
 * nothing more, and cost as much CPU as the rest of the handshake). */
static void
takeanchors(Tlsctx *x, const unsigned char *p, size_t n, int direct)
{
	Cacert *k;
	size_t i;

	for (i = 0; i < x->nca; i++) {
		k = &x->ca[i];
		if (direct ? k->direct || k->len != n || memcmp(k->der, p, n)
		           : k->taken || !k->subject || k->sublen != n ||
		             memcmp(k->subject, p, n))
			continue;
		if (direct)
			k->direct = 1;
		else
			k->taken = 1;
		addanchor(x, k, direct);
	}
}

static void
chainstart(const br_x509_class **ctx, const char *name)
{
	Chain *ch = (Chain *)ctx;

	ch->name = name;
	bufreset(&ch->chain);
}

static void
certstart(const br_x509_class **ctx, uint32_t len)
{
	Chain *ch = (Chain *)ctx;

	(void)len;
	ch->at = ch->chain.len;
	bufadd(&ch->chain, "\0\0\0\0", 4);
}

static void
certappend(const br_x509_class **ctx, const unsigned char *p, size_t n)
{
	Chain *ch = (Chain *)ctx;

	/* BearSSL bounds a chain by its buffer: at most 16 KB a record */
	bufadd(&ch->chain, p, n);
}

static void
certend(const br_x509_class **ctx)
{
	Chain *ch = (Chain *)ctx;
	size_t n = ch->chain.len - ch->at - 4;
	unsigned char *q = (unsigned char *)ch->chain.p + ch->at;

	q[0] = n >> 24;
	q[1] = n >> 16;
	q[2] = n >> 8;
	q[3] = n;
}

static void x509init(Tls *t, const br_x509_trust_anchor *ta, size_t nta);

/* Whether a certificate names the address ip (len bytes) among its
 * subjectAltName's iPAddress entries, as curl checks a URL's address. */
static int
certhasip(const unsigned char *cert, size_t n, const unsigned char *ip,
          int len)
{
	const unsigned char *v, *q, *val;
	size_t vlen, k;
	int tag;

	/* GeneralNames: a SEQUENCE of them */
	if (!cert || certext(cert, n, 0x11, &q, &k) < 0 ||
	    dertag(&q, q + k, 0x30, &v, &vlen) < 0)
		return 0;
	for (q = v; q < v + vlen; ) {
		if (derelem(&q, v + vlen, &tag, &val, &k) < 0)
			return 0;
		if (tag == 0x87 && k == (size_t)len && !memcmp(val, ip, len))
			return 1;
	}
	return 0;
}

/* The chain is whole: take the anchors its certificates name, then let
 * BearSSL's engine judge it. */
static unsigned
chainend(const br_x509_class **ctx)
{
	Chain *ch = (Chain *)ctx;
	const br_x509_class **x = &ch->t->xc.vtable;
	const unsigned char *p, *end, *iss, *sub, *first = NULL;
	size_t n, ilen, slen, firstlen = 0;
	unsigned e;
	int k;

	p = (const unsigned char *)ch->chain.p;
	end = p + ch->chain.len;
	if (p && end - p >= 4) {
		n = (size_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		takeanchors(ch->x, p + 4, n, 1);
	}
	for (; p && end - p >= 4; p += 4 + n) {
		n = (size_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		if (certnames(p + 4, n, &iss, &ilen, &sub, &slen) == 0) {
			takeanchors(ch->x, iss, ilen, 0);
			takeanchors(ch->x, sub, slen, 0);
		}
	}
	x509init(ch->t, ch->x->ta, ch->x->nta);
	(*x)->start_chain(x, ch->name);
	p = (const unsigned char *)ch->chain.p;
	for (k = 0; p && end - p >= 4; p += 4 + n, k++) {
		n = (size_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
		(*x)->start_cert(x, n);
		(*x)->append(x, p + 4, n);
		(*x)->end_cert(x);
		if (!k)
			first = p + 4, firstlen = n;
	}
	ch->lonely = k == 1 && certnames(first, firstlen, &iss, &ilen, &sub,
	             &slen) == 0 && (ilen != slen || memcmp(iss, sub, ilen));
	if ((e = (*x)->end_chain(x)) == 0 && ch->iplen &&
	    !certhasip(first, firstlen, ch->ip, ch->iplen))
		e = BR_ERR_X509_BAD_SERVER_NAME;
	return e;
}

static const br_x509_pkey *
chainkey(const br_x509_class *const *ctx, unsigned *usages)
{
	const Chain *ch = (const Chain *)ctx;
	const br_x509_class *const *x = &ch->t->xc.vtable;

	return (*x)->get_pkey(x, usages);
}

static const br_x509_class chainclass = {
	sizeof(Chain), chainstart, certstart, certappend, certend, chainend,
	chainkey
};


/* The engine and its I/O */

typedef struct {
	int code;
	const char *words;
} Errword;

/* BearSSL's error codes worth telling apart, in words. */
static const Errword tlserrs[] = {
	{ BR_ERR_X509_NOT_TRUSTED, "certificate is not trusted (unknown CA)" },
	{ BR_ERR_X509_BAD_SERVER_NAME,
	  "certificate does not match the host name" },
	{ BR_ERR_X509_EXPIRED, "certificate has expired or is not yet valid" },
	{ BR_ERR_X509_TIME_UNKNOWN,
	  "cannot check certificate dates: no clock" },
	{ BR_ERR_X509_EMPTY_CHAIN, "server sent no certificate" },
	{ BR_ERR_X509_NOT_CA, "certificate chain: an issuer is not a CA" },
	{ BR_ERR_X509_BAD_SIGNATURE, "certificate chain: bad signature" },
	{ BR_ERR_X509_DN_MISMATCH,
	  "certificate chain: issuer names do not match" },
	{ BR_ERR_X509_WEAK_PUBLIC_KEY, "certificate key is too weak" },
	{ BR_ERR_X509_FORBIDDEN_KEY_USAGE,
	  "certificate key usage forbids TLS server use" },
	{ BR_ERR_X509_CRITICAL_EXTENSION,
	  "certificate has an unsupported critical extension" },
	{ BR_ERR_X509_UNSUPPORTED,
	  "certificate uses an unsupported algorithm" },
	{ BR_ERR_X509_WRONG_KEY_TYPE,
	  "certificate uses an unsupported algorithm" },
	{ BR_ERR_X509_LIMIT_EXCEEDED,
	  "certificate chain too long or too large" },
	{ BR_ERR_UNSUPPORTED_VERSION,
	  "server wants a TLS version other than 1.0-1.2" },
	{ BR_ERR_BAD_VERSION, "server wants a TLS version other than 1.0-1.2" },
	{ BR_ERR_BAD_CIPHER_SUITE, "server chose an unsupported cipher suite" },
	{ BR_ERR_BAD_MAC, "bad record MAC: data corrupted in transit" },
	{ BR_ERR_NO_RANDOM, "no entropy source for TLS" },
	{ BR_ERR_BAD_SIGNATURE, "bad server signature in the handshake" },
	{ BR_ERR_UNEXPECTED, "TLS handshake protocol error" },
	{ BR_ERR_BAD_HANDSHAKE, "TLS handshake protocol error" },
	{ BR_ERR_BAD_HELLO_DONE, "TLS handshake protocol error" },
	{ BR_ERR_BAD_FINISHED, "TLS handshake protocol error" },
	{ BR_ERR_TOO_LARGE, "TLS record too large" },
	{ BR_ERR_IO, "connection lost during the TLS exchange" },
};

/* TLS alerts (RFC 8446, 6) */
static const Errword alerts[] = {
	{ 10, "unexpected message" },
	{ 20, "bad record MAC" },
	{ 40, "handshake failure" },
	{ 42, "bad certificate" },
	{ 43, "unsupported certificate" },
	{ 44, "certificate revoked" },
	{ 45, "certificate expired" },
	{ 46, "certificate unknown" },
	{ 47, "illegal parameter" },
	{ 48, "unknown CA" },
	{ 50, "decode error" },
	{ 51, "decrypt error" },
	{ 70, "protocol version: TLS 1.0-1.2 refused" },
	{ 71, "insufficient security" },
	{ 80, "internal error" },
	{ 90, "user canceled" },
	{ 109, "missing extension" },
	{ 112, "unrecognized name" },
};

static const char *
errwords(const Errword *t, size_t n, int code)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].code == code)
			return t[i].words;
	return NULL;
}

/* Why the last call failed, in t->err: -1. */
static int
tfail(Tls *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	return -1;
}

static int
tlsfail(Tls *t, int e)
{
	const char *s;
	int a;

	if (e == BR_ERR_X509_NOT_TRUSTED && t->ch.lonely)
		return tfail(t, "%s: certificate is not trusted (unknown CA): "
		             "the server sent no issuer with it, and its "
		             "intermediate certificate may be missing",
		             t->host);
	if ((s = errwords(tlserrs, LEN(tlserrs), e)))
		return tfail(t, "%s: %s", t->host, s);
	if (e >= BR_ERR_SEND_FATAL_ALERT) {
		a = e - BR_ERR_SEND_FATAL_ALERT;
		s = errwords(alerts, LEN(alerts), a);
		return tfail(t, "%s: TLS error: we sent alert %d (%s)",
		             t->host, a, s ? s : "?");
	}
	if (e >= BR_ERR_RECV_FATAL_ALERT) {
		a = e - BR_ERR_RECV_FATAL_ALERT;
		s = errwords(alerts, LEN(alerts), a);
		return tfail(t, "%s: server sent TLS alert %d (%s)", t->host,
		             a, s ? s : "?");
	}
	if (e >= BR_ERR_X509_INVALID_VALUE && e <= BR_ERR_X509_BAD_TIME)
		return tfail(t, "%s: malformed certificate (X.509 error %d)",
		             t->host, e);
	return tfail(t, "%s: TLS error %d", t->host, e);
}

/* Send the records BearSSL has made.  It hands them over one at a time:
 * sent as they come, a flight of three went out as three small segments,
 * and Nagle and a delayed ACK held the last for 40 ms; they are kept until
 * it wants to read, or the request is all made. */
static int
tlsout(Tls *t)
{
	int rc = 0;

	if (t->out.len && (rc = t->sock.write(t->sock.arg, t->out.p,
	    t->out.len)) < 0)
		t->ioerr = 1;
	bufreset(&t->out);
	return rc;
}

/* br_sslio's transport: the stream, with its timeouts; its end is an
 * error for BearSSL, remembered in t->eof. */
static int
tlsrecv(void *ctx, unsigned char *p, size_t n)
{
	Tls *t = ctx;
	int k;

	if (tlsout(t) < 0)
		return -1;
	if ((k = t->sock.read(t->sock.arg, p, n)) < 0)
		t->ioerr = 1;
	if (!k)
		t->eof = 1;
	return k > 0 ? k : -1;
}

static int
tlssend(void *ctx, const unsigned char *p, size_t n)
{
	Tls *t = ctx;

	bufadd(&t->out, p, n);
	if (t->out.len >= TLSOUT && tlsout(t) < 0)
		return -1;
	return (int)n;
}

/* Elliptic curves: BearSSL's interface to one piece of code, over the
 * code config.h names for each curve.  BearSSL asks only for the curves
 * said to be supported; a NULL or 0 answers any other. */
static const br_ec_impl *
eccode(int curve)
{
	size_t i;

	for (i = 0; i < LEN(tlscurves); i++)
		if (tlscurves[i].curve == curve)
			return tlscurves[i].code;
	return NULL;
}

static const unsigned char *
ecgenerator(int curve, size_t *len)
{
	const br_ec_impl *c = eccode(curve);

	*len = 0;
	return c ? c->generator(curve, len) : NULL;
}

static const unsigned char *
ecorder(int curve, size_t *len)
{
	const br_ec_impl *c = eccode(curve);

	*len = 0;
	return c ? c->order(curve, len) : NULL;
}

static size_t
ecxoff(int curve, size_t *len)
{
	const br_ec_impl *c = eccode(curve);

	*len = 0;
	return c ? c->xoff(curve, len) : 0;
}

static uint32_t
ecmul(unsigned char *g, size_t glen, const unsigned char *x, size_t xlen,
      int curve)
{
	const br_ec_impl *c = eccode(curve);

	return c ? c->mul(g, glen, x, xlen, curve) : 0;
}

static size_t
ecmulgen(unsigned char *r, const unsigned char *x, size_t xlen, int curve)
{
	const br_ec_impl *c = eccode(curve);

	return c ? c->mulgen(r, x, xlen, curve) : 0;
}

static uint32_t
ecmuladd(unsigned char *a, const unsigned char *b, size_t len,
         const unsigned char *x, size_t xlen, const unsigned char *y,
         size_t ylen, int curve)
{
	const br_ec_impl *c = eccode(curve);

	return c ? c->muladd(a, b, len, x, xlen, y, ylen, curve) : 0;
}

static void
ecinit(br_ec_impl *ec)
{
	size_t i;

	memset(ec, 0, sizeof(*ec));
	for (i = 0; i < LEN(tlscurves); i++)
		ec->supported_curves |= (uint32_t)1 << tlscurves[i].curve;
	ec->generator = ecgenerator;
	ec->order = ecorder;
	ec->xoff = ecxoff;
	ec->mul = ecmul;
	ec->mulgen = ecmulgen;
	ec->muladd = ecmuladd;
}

/* br_ssl_client_init_full, but only TLS 1.2, config.h's suites, ciphers
 * and curves, and the SHA-2 hashes, so that only those are linked in.
 * Both signature verifiers are always there: a chain may mix RSA and
 * ECDSA keys whatever the suite. */
/* BearSSL's X.509 engine, with these anchors; the verifiers are the
 * TLS engine's. */
/* Days from 1 January of year 0 (BearSSL's count) to that of the date
 * y-m-d, in the Gregorian calendar. */
static long
civildays(long y, int m, int d)
{
	static const int before[] = {
		0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334
	};
	long n = 365 * y + before[m - 1] + d - 1;

	if (m <= 2)
		y--;	/* this year's 29 February is not behind yet */
	return n + (y + 4) / 4 - (y + 100) / 100 + (y + 400) / 400;
}

/* The day this file was compiled: no certificate the build trusts was
 * checked before it, so a clock behind it is a clock that was never set
 * (a board boots at 1970), not a time to check certificates at. */
static long
builddays(void)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
	const char *d = __DATE__;	/* "Mmm dd yyyy" */
	char mon[4];

	memcpy(mon, d, 3);
	mon[3] = '\0';
	return civildays(atol(d + 7), (strstr(months, mon) - months) / 3 + 1,
	                 atoi(d + 4));
}

/* Certificates are checked at the clock's time, or at the build's date
 * when the clock is behind it: a floor, not a pass (one expired before
 * the build is still refused); said once a run. */
static void
x509clock(Tls *t)
{
	time_t now = time(NULL);
	long today = civildays(1970, 1, 1) + (long)(now / 86400);
	long build = builddays();

	if (now >= 0 && today >= build)
		return;
	br_x509_minimal_set_time(&t->xc, build, 0);
	if (t->ch.x->clocktold++)
		return;
	fprintf(stderr, "agent: the clock is behind this build's date "
	        "(%s): certificates are checked as at that date\n", __DATE__);
}

static void
x509init(Tls *t, const br_x509_trust_anchor *ta, size_t nta)
{
	br_ssl_engine_context *e = &t->sc.eng;
	size_t i;
	int id;

	br_x509_minimal_init(&t->xc, &br_sha256_vtable, ta, nta);
	x509clock(t);
	for (i = 0; i < LEN(tlshashes); i++) {
		id = tlshashes[i]->desc >> BR_HASHDESC_ID_OFF &
		     BR_HASHDESC_ID_MASK;
		br_x509_minimal_set_hash(&t->xc, id, tlshashes[i]);
	}
	br_x509_minimal_set_rsa(&t->xc, br_ssl_engine_get_rsavrfy(e));
	br_x509_minimal_set_ecdsa(&t->xc, br_ssl_engine_get_ec(e),
	                          br_ssl_engine_get_ecdsa(e));
}

static void
tlsinit(Tls *t, Tlsctx *x)
{
	br_ssl_engine_context *e = &t->sc.eng;
	uint16_t ids[LEN(tlssuites)];
	size_t i;
	int id;

	br_ssl_client_zero(&t->sc);
	br_ssl_engine_set_versions(e, BR_TLS12, BR_TLS12);
	for (i = 0; i < LEN(tlshashes); i++) {
		id = tlshashes[i]->desc >> BR_HASHDESC_ID_OFF &
		     BR_HASHDESC_ID_MASK;
		br_ssl_engine_set_hash(e, id, tlshashes[i]);
	}
	for (i = 0; i < LEN(tlssuites); i++) {
		ids[i] = tlssuites[i].id;
		tlssuites[i].cipher(e);
	}
	br_ssl_engine_set_suites(e, ids, LEN(ids));
	/* i31, not the default i62: 3 KB less, and a certificate's RSA
	 * signature is quick to check with either */
	br_ssl_engine_set_rsavrfy(e, br_rsa_i31_pkcs1_vrfy);
	ecinit(&t->ec);
	br_ssl_engine_set_ec(e, &t->ec);
	br_ssl_engine_set_ecdsa(e, br_ecdsa_i31_vrfy_asn1);
	t->ch.vtable = &chainclass;
	t->ch.t = t;
	t->ch.x = x;
	x509init(t, x->ta, x->nta);
	br_ssl_engine_set_x509(e, &t->ch.vtable);
	br_ssl_engine_set_prf_sha256(e, &br_tls12_sha256_prf);
	br_ssl_engine_set_prf_sha384(e, &br_tls12_sha384_prf);
}

Tls *
tlsnew(Tlsctx *x)
{
	Tls *t = xcalloc(1, sizeof(*t));

	tlsinit(t, x);
	br_ssl_engine_set_buffer(&t->sc.eng, t->buf, sizeof(t->buf), 1);
	br_sslio_init(&t->io, &t->sc.eng, tlsrecv, t, tlssend, t);
	return t;
}

void
tlsbind(Tls *t, const Tlsio *io)
{
	t->sock = *io;
}

int
tlsconnect(Tls *t, const char *host)
{
	Tlsctx *x = t->ch.x;
	int resume;

	snprintf(t->host, sizeof(t->host), "%s", host);
	/* the name is both the SNI and the one checked in the certificate;
	 * an address is neither (RFC 6066): its iPAddress is checked */
	if (inet_pton(AF_INET, host, t->ch.ip) == 1)
		t->ch.iplen = 4;
	else if (inet_pton(AF_INET6, host, t->ch.ip) == 1)
		t->ch.iplen = 16;
	resume = !strcmp(x->sesshost, host);
	if (resume)
		br_ssl_engine_set_session_parameters(&t->sc.eng, &x->sess);
	if (!br_ssl_client_reset(&t->sc, t->ch.iplen ? NULL : host, resume))
		return tlsfail(t, br_ssl_engine_last_error(&t->sc.eng));
	return 0;
}

/* After a br_sslio failure: 0 for a closed stream, -1 otherwise. */
static int
tlsend(Tls *t)
{
	int e = br_ssl_engine_last_error(&t->sc.eng);

	if (t->ioerr)
		return -1;	/* the stream's own error */
	if (e == BR_ERR_OK)
		return 0;	/* close_notify */
	/* Closed without close_notify: common. http.c's parser still
	 * catches a body cut short of its Content-Length or last chunk. */
	if (e == BR_ERR_IO && t->eof)
		return 0;
	return tlsfail(t, e);
}

int
tlsread(Tls *t, void *p, size_t n)
{
	int k;

	if ((k = br_sslio_read(&t->io, p, n)) > 0)
		return k;
	return tlsend(t);
}

/* After a failed br_sslio write or flush. */
static int
tlswritefail(Tls *t)
{
	if (tlsend(t) < 0)
		return -1;
	/* the engine takes data only once the handshake is done */
	return tfail(t, "%s: connection closed %s", t->host, t->sent ?
	             "while sending the request" : "during the TLS handshake");
}

int
tlswrite(Tls *t, const void *p, size_t n)
{
	if (br_sslio_write_all(&t->io, p, n) < 0)
		return tlswritefail(t);
	t->sent = 1;
	return 0;
}

int
tlsflush(Tls *t)
{
	if (br_sslio_flush(&t->io) < 0)
		return tlswritefail(t);
	return tlsout(t);
}

const char *
tlserror(const Tls *t)
{
	return t->ioerr ? NULL : t->err;
}

void
tlssave(Tls *t)
{
	Tlsctx *x = t->ch.x;

	br_ssl_engine_get_session_parameters(&t->sc.eng, &x->sess);
	snprintf(x->sesshost, sizeof(x->sesshost), "%s", t->host);
}

void
tlsfree(Tls *t)
{
	if (t) {
		buffree(&t->ch.chain);
		buffree(&t->out);
	}
	free(t);
}
