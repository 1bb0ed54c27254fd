/* See LICENSE file for copyright and license details. */
/* fuzz_cert.c: libFuzzer target for tls.c's reading of certificates
 * (the bundle's, and the server's chain): no read outside the bytes,
 * and where BearSSL's own decoder takes a certificate, the same subject,
 * key and CA flag. */
#include "../tls.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
dnadd(void *ctx, const void *p, size_t n)
{
	bufadd(ctx, p, n);
}

/* An unsigned big-endian integer without its leading zeros. */
static int
sameint(const unsigned char *a, size_t an, const unsigned char *b, size_t bn)
{
	for (; an && !*a; an--)
		a++;
	for (; bn && !*b; bn--)
		b++;
	return an == bn && !memcmp(a, b, an);
}

static int
samekey(const br_x509_pkey *a, const br_x509_pkey *b)
{
	if (a->key_type != b->key_type)
		return 0;
	if (a->key_type == BR_KEYTYPE_RSA)
		return sameint(a->key.rsa.n, a->key.rsa.nlen, b->key.rsa.n,
		               b->key.rsa.nlen) &&
		       sameint(a->key.rsa.e, a->key.rsa.elen, b->key.rsa.e,
		               b->key.rsa.elen);
	return a->key.ec.curve == b->key.ec.curve &&
	       a->key.ec.qlen == b->key.ec.qlen &&
	       !memcmp(a->key.ec.q, b->key.ec.q, a->key.ec.qlen);
}

/* How many times the bytes hold the OID of Basic Constraints: where a
 * certificate has it twice, which X.509 forbids, BearSSL and tls.c
 * read its CA flag differently. */
static int
nbasic(const uint8_t *p, size_t n)
{
	size_t i;
	int k = 0;

	for (i = 0; i + 5 <= n; i++)
		k += !memcmp(p + i, "\x06\x03\x55\x1d\x13", 5);
	return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	br_x509_decoder_context dc;
	const unsigned char *iss, *sub, *end = data + size;
	const br_x509_pkey *bk;
	br_x509_pkey k;
	size_t ilen, slen;
	Buf dn = { 0 };
	int ca, mine, hers;
	unsigned char ip[4] = { 127, 0, 0, 1 };

	certhasip(data, size, ip, 4);
	if (certnames(data, size, &iss, &ilen, &sub, &slen) == 0 &&
	    (iss < data || iss + ilen > end || sub < data || sub + slen > end))
		abort();
	mine = certkey(data, size, &k, &ca) == 0;
	if (mine && k.key_type == BR_KEYTYPE_RSA &&
	    (k.key.rsa.n < data || k.key.rsa.n + k.key.rsa.nlen > end ||
	     k.key.rsa.e < data || k.key.rsa.e + k.key.rsa.elen > end))
		abort();
	if (mine && k.key_type == BR_KEYTYPE_EC &&
	    (k.key.ec.q < data || k.key.ec.q + k.key.ec.qlen > end))
		abort();
	br_x509_decoder_init(&dc, dnadd, &dn);
	br_x509_decoder_push(&dc, data, size);
	bk = br_x509_decoder_get_pkey(&dc);
	hers = bk && (bk->key_type == BR_KEYTYPE_RSA ||
	       (bk->key_type == BR_KEYTYPE_EC &&
	        bk->key.ec.curve >= BR_EC_secp256r1 &&
	        bk->key.ec.curve <= BR_EC_secp521r1));
	if (hers && (!mine || !samekey(&k, bk) ||
	    (ca != br_x509_decoder_isCA(&dc) && nbasic(data, size) < 2) ||
	    certnames(data, size, &iss, &ilen, &sub, &slen) < 0 ||
	    slen != dn.len || memcmp(sub, dn.p, slen)))
		abort();
	buffree(&dn);
	return 0;
}
