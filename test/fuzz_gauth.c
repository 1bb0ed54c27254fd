/* See LICENSE file for copyright and license details. */
/* fuzz_gauth.c: libFuzzer target for gauth.c's readers of outside
 * bytes: a key file (GOOGLE_APPLICATION_CREDENTIALS), the token
 * endpoint's reply, a project and location in the Vertex URL.  The first
 * byte says which.  A key file that reads must make a JWT of three
 * base64url parts; a reply that reads must hold a token. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "../http.h"
#include "../gauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A key file: when it reads, its JWT. */
static void
gfzkey(const char *p, size_t n)
{
	Gauth g;
	Buf err = { 0 }, jwt = { 0 };
	size_t i, dots = 0;

	if (gauthparse(&g, p, n, &err) == 0) {
		if (!err.len && gauthjwt(&g, 1700000000, &jwt) == 0) {
			for (i = 0; i < jwt.len; i++)
				if (jwt.p[i] == '.')
					dots++;
				else if (!strchr("abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
				    jwt.p[i]))
					abort();
			if (dots != 2)
				abort();
		}
	} else if (!err.len) {
		abort();	/* a refusal says why */
	}
	gauthfree(&g);
	buffree(&err);
	buffree(&jwt);
}

static void
gfzreply(int status, const char *p, size_t n)
{
	Buf tok = { 0 }, err = { 0 };
	long ttl = -1;

	if (gauthreply(status, p, n, &tok, &ttl, &err) == 0) {
		if (!tok.len || ttl < 0 || ttl > 86400 || status / 100 != 2)
			abort();
	} else if (!err.len) {
		abort();
	}
	buffree(&tok);
	buffree(&err);
}

/* project NUL location: a URL made of names that pass holds nothing a
 * URL cannot carry as it is, and no placeholder left. */
static void
gfzurl(const char *p, size_t n)
{
	char *s = xcalloc(1, n + 2);
	const char *loc;
	Buf u = { 0 };
	size_t i;

	memcpy(s, p, n);
	loc = s + strlen(s) + 1;
	if (gauthurl(&u, "https://{location-}h/p/{project}/l/{location}", s,
	             loc) == 0)
		for (i = 0; i < u.len; i++)
			if (u.p[i] <= ' ' || u.p[i] >= 0x7f || u.p[i] == '{' ||
			    u.p[i] == '}' || u.p[i] == '?' || u.p[i] == '#')
				abort();
	buffree(&u);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1;

	if (size < 1)
		return 0;
	switch (data[0] % 3) {
	case 0: gfzkey(p, size - 1); break;
	case 1: gfzreply(100 + data[0] % 500, p, size - 1); break;
	default: gfzurl(p, size - 1); break;
	}
	return 0;
}
