/* See LICENSE file for copyright and license details. */
/* gauth.h: Google Cloud's access tokens from a service account's key
 * file: an RS256 JWT signed with its key, exchanged at its token URI */

/* A service account, read once from its key file, and the last token.
 * The key and the token never leave this room but in a request's
 * header; gauthfree wipes them. */
typedef struct Gauth {
	char *email;		/* client_email: the JWT's issuer */
	char *keyid;		/* private_key_id, or NULL */
	char *tokenuri;		/* token_uri: the JWT's audience */
	char *project;		/* project_id, or NULL */
	struct Gkey *key;	/* the RSA private key, gauth.c's */
	char *token;		/* the access token, or NULL */
	long long expires;	/* monoms() after which it is renewed */
} Gauth;

int gauthload(Gauth *g, const char *path, Buf *err);
int gauthparse(Gauth *g, const char *p, size_t n, Buf *err);
int gauthjwt(const Gauth *g, long long now, Buf *out);
int gauthreply(int status, const char *p, size_t n, Buf *tok, long *ttl,
               Buf *err);
const char *gauthtoken(Gauth *g, Httpclient *c, Buf *err);
int gauthurl(Buf *out, const char *tmpl, const char *project,
             const char *location);
void gauthfree(Gauth *g);
