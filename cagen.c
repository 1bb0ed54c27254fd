/* See LICENSE file for copyright and license details. */
/* cagen.c: the build's generator of ca.h, the trust anchors compiled into
 * agent: the certificates of a PEM file (make CAFILE=bundle.pem) as one C
 * array of their DER, which tls.c reads when no CA bundle is found at run
 * time.  Built and run on the build's machine, cross builds included, so
 * it uses nothing of the tree.
 *
 * usage: cagen [file.pem] >ca.h
 * Without a file, the array is empty.  A file with no certificate in it
 * is an error: a build that meant to carry anchors must not carry none. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	CAGENMAX = 16 << 20	/* bytes of PEM read at most */
};

static int
cagenb64(int c)
{
	const char *s = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                "0123456789+/";
	const char *p;

	if (!c || !(p = strchr(s, c)))
		return -1;
	return p - s;
}

/* Decode the base64 from s to the next '-' into out: the count of bytes,
 * or -1 on a stray character. */
static long
cagendecode(const char *s, unsigned char *out)
{
	unsigned long acc = 0;
	long n = 0;
	int k = 0, v;

	for (; *s && *s != '-'; s++) {
		if (strchr("= \t\r\n", *s))
			continue;
		if ((v = cagenb64((unsigned char)*s)) < 0)
			return -1;
		acc = acc << 6 | v;
		if (++k == 4) {
			out[n++] = acc >> 16 & 0xff;
			out[n++] = acc >> 8 & 0xff;
			out[n++] = acc & 0xff;
			acc = k = 0;
		}
	}
	if (k == 1)
		return -1;
	if (k == 3) {
		out[n++] = acc >> 10 & 0xff;
		out[n++] = acc >> 2 & 0xff;
	} else if (k == 2) {
		out[n++] = acc >> 4 & 0xff;
	}
	return n;
}

/* Whether p (n bytes) is one whole DER SEQUENCE: what tls.c walks. */
static int
cagender(const unsigned char *p, long n)
{
	unsigned long len = 0;
	long hdr = 2, k;

	if (n < 2 || p[0] != 0x30)
		return 0;
	if (p[1] < 0x80) {
		len = p[1];
	} else {
		k = p[1] & 0x7f;
		if (k < 1 || k > 3 || n < 2 + k)
			return 0;
		for (hdr += k; k; k--)
			len = len << 8 | p[hdr - k];
	}
	return (unsigned long)(n - hdr) == len;
}

static void
cagenout(const unsigned char *p, long n, long *col)
{
	long i;

	for (i = 0; i < n; i++, (*col)++)
		printf("%s%d,", *col % 16 ? "" : "\n\t", p[i]);
}

int
main(int argc, char *argv[])
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	char *pem, *s;
	unsigned char *der;
	long n, col = 0, certs = 0;
	size_t len;
	FILE *f;

	printf("/* ca.h: made by cagen%s%s: the trust anchors compiled in, "
	       "for tls.c */\n", argc > 1 ? " from " : "",
	       argc > 1 ? argv[1] : "");
	printf("static const unsigned char tlsbuiltin[] = {");
	if (argc > 1) {
		if (!(f = fopen(argv[1], "r"))) {
			fprintf(stderr, "cagen: %s: %s\n", argv[1],
			        strerror(errno));
			return 1;
		}
		if (!(pem = malloc(CAGENMAX + 1)) || !(der = malloc(CAGENMAX)))
			return 1;
		len = fread(pem, 1, CAGENMAX, f);
		pem[len] = '\0';
		fclose(f);
		for (s = pem; (s = strstr(s, begin)); ) {
			s += sizeof(begin) - 1;
			n = cagendecode(s, der);
			if (n > 0 && cagender(der, n)) {
				cagenout(der, n, &col);
				certs++;
			}
		}
		if (!certs) {
			fprintf(stderr, "cagen: %s: no certificate in it "
			        "(PEM, BEGIN CERTIFICATE)\n", argv[1]);
			return 1;
		}
		fprintf(stderr, "cagen: %ld certificates, %ld bytes, from %s\n",
		        certs, col, argv[1]);
	}
	/* C99 has no empty array: a lone 0, and the length says 0 */
	printf("%s0\n};\nstatic const size_t tlsbuiltinlen = %ld;\n",
	       col ? "\n\t" : "", col);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
