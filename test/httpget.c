/* See LICENSE file for copyright and license details. */
/* httpget.c: GET URLs through http.c, one client for them all, the
 * bodies to stdout (TLS tests). */
#include <stdio.h>
#include <string.h>

#include "../util.h"
#include "../http.h"

/* The same bundles as config.def.h. */
static const char *const cafiles[] = {
	"/etc/ssl/certs/ca-certificates.crt",
	"/etc/pki/tls/certs/ca-bundle.crt",
	"/etc/ssl/ca-bundle.pem",
	"/etc/ssl/cert.pem",
	NULL
};

static int
out(void *arg, const char *p, size_t n)
{
	(void)arg;
	return writeall(1, p, n);
}

int
main(int argc, char *argv[])
{
	Httpclient *c;
	Http h;
	int i, ret = 0;

	if (argc < 2) {
		fputs("usage: httpget url...\n", stderr);
		return 2;
	}
	c = httpnew(cafiles, 5000, 5000, 64 * 1024, NULL, NULL);
	for (i = 1; i < argc && ret == 0; i++) {
		memset(&h, 0, sizeof(h));
		h.method = "GET";
		h.url = argv[i];
		h.fn = out;
		if ((ret = httpdo(c, &h)) < 0)
			fprintf(stderr, "httpget: %s\n", h.err);
		else if (h.status >= 400)
			fprintf(stderr, "httpget: status %d\n", h.status);
		ret = ret < 0 || h.status >= 400;
	}
	httpfree(c);
	return ret;
}
