/* See LICENSE file for copyright and license details. */
/* gauth.c: Google Cloud's access tokens from a service account's key
 * file (GOOGLE_APPLICATION_CREDENTIALS): the file read once, an RS256
 * JWT signed with its key by BearSSL, exchanged at its token URI for an
 * access token (RFC 7523's jwt-bearer grant), kept until it expires;
 * and the Vertex URL's {project} and {location} filled in. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bearssl.h>

#include "util.h"
#include "json.h"
#include "http.h"
#include "gauth.h"

enum {
	GAUTHMAXFILE = 64 << 10,	/* bytes of a key file (~2.4 KB) */
	GAUTHMAXREPLY = 64 << 10,	/* bytes of the token endpoint's reply */
	GAUTHLIFE = 3600,	/* seconds a JWT asks for: Google's most */
	GAUTHEARLY = 60		/* seconds before its end a token is renewed */
};

static const char gauthscope[] =
	"https://www.googleapis.com/auth/cloud-platform";
static const char gauthgrant[] =
	"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
	"&assertion=";

/* The decoder holds the key's numbers that br_rsa_private_key points
 * into: it is kept, in memory of its own, for as long as the key. */
struct Gkey {
	br_skey_decoder_context dc;
};

/* Overwrite n bytes of p: a key or a token is not left in freed memory.
 * Through a volatile pointer, that the compiler keeps it. */
static void
gauthwipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n--)
		*v++ = 0;
}

static void
gauthwipestr(char *s)
{
	if (s)
		gauthwipe(s, strlen(s));
	free(s);
}

static void
gauthwipebuf(Buf *b)
{
	if (b->p)
		gauthwipe(b->p, b->cap);
	buffree(b);
}

/* br_pem_decoder's destination: the object's bytes. */
static void
gauthder(void *arg, const void *p, size_t n)
{
	bufadd(arg, p, n);
}

/* The DER of the first private key in the PEM text p, into der: 0, or
 * -1 if there is none. */
static int
gauthpem(const char *p, size_t n, Buf *der)
{
	br_pem_decoder_context pc;
	const char *name;
	size_t k;
	int in = 0, last = 0;

	br_pem_decoder_init(&pc);
	/* a last line without its newline ends no object: one is added */
	while (n > 0 || !last) {
		if (n == 0) {
			last = 1;
			p = "\n";
			n = 1;
		}
		k = br_pem_decoder_push(&pc, p, n);
		p += k;
		n -= k;
		switch (br_pem_decoder_event(&pc)) {
		case BR_PEM_BEGIN_OBJ:
			name = br_pem_decoder_name(&pc);
			in = !strcmp(name, "PRIVATE KEY") ||
			     !strcmp(name, "RSA PRIVATE KEY");
			br_pem_decoder_setdest(&pc, in ? gauthder : NULL, der);
			break;
		case BR_PEM_END_OBJ:
			if (in)
				return 0;
			break;
		case BR_PEM_ERROR:
			return -1;
		}
	}
	return -1;
}

/* The RSA key of a PEM text (PKCS#8, as Google writes them, or PKCS#1),
 * or NULL with why in err. */
static struct Gkey *
gauthkey(const char *pem, size_t n, Buf *err)
{
	struct Gkey *k;
	Buf der = { 0 };

	if (gauthpem(pem, n, &der) < 0 || !der.len) {
		gauthwipebuf(&der);
		bufadds(err, "private_key holds no PEM private key");
		return NULL;
	}
	k = xcalloc(1, sizeof(*k));
	br_skey_decoder_init(&k->dc);
	br_skey_decoder_push(&k->dc, der.p, der.len);
	gauthwipebuf(&der);
	if (br_skey_decoder_last_error(&k->dc) ||
	    br_skey_decoder_key_type(&k->dc) != BR_KEYTYPE_RSA) {
		bufadds(err, br_skey_decoder_last_error(&k->dc) ?
		        "private_key cannot be read" :
		        "private_key is not an RSA key");
		gauthwipe(k, sizeof(*k));
		free(k);
		return NULL;
	}
	return k;
}

/* A member's string, or NULL if it is absent or no string. */
static char *
gauthmember(const Json *j, const char *name)
{
	return jsonstr(j, jsonget(j, 0, name));
}

/*
 * A service account's key file, as text: its type, client_email,
 * private_key, private_key_id, token_uri and project_id into g.  0, or
 * -1 with why in err (never a byte of the key).  g is gauthfree's in
 * both cases.
 */
int
gauthparse(Gauth *g, const char *p, size_t n, Buf *err)
{
	Json j;
	char *type = NULL, *pem = NULL;
	int rc = -1;

	memset(g, 0, sizeof(*g));
	if (jsonparse(&j, p, n) < 0 || j.t[0].type != JOBJ) {
		bufadds(err, "not a JSON object");
		if (j.t)
			jsonfree(&j);	/* an object it was not */
		return -1;
	}
	type = gauthmember(&j, "type");
	if (!type || strcmp(type, "service_account")) {
		bufaddf(err, "type is %s, not service_account (for a user's "
		        "login, set GOOGLE_CLOUD_ACCESS_TOKEN to what gcloud "
		        "auth print-access-token says)",
		        type ? "another" : "missing");
		goto done;
	}
	g->email = gauthmember(&j, "client_email");
	g->keyid = gauthmember(&j, "private_key_id");
	g->tokenuri = gauthmember(&j, "token_uri");
	g->project = gauthmember(&j, "project_id");
	pem = gauthmember(&j, "private_key");
	if (!g->tokenuri)
		g->tokenuri = xstrdup("https://oauth2.googleapis.com/token");
	if (!g->email || !*g->email)
		bufadds(err, "no client_email");
	else if (!pem)
		bufadds(err, "no private_key");
	else if ((g->key = gauthkey(pem, strlen(pem), err)))
		rc = 0;
done:
	free(type);
	gauthwipestr(pem);
	jsonfree(&j);
	return rc;
}

/* The key file at path, read once and wiped from memory after; as
 * gauthparse, err saying the path too. */
int
gauthload(Gauth *g, const char *path, Buf *err)
{
	Buf b = { 0 };
	int fd, rc;

	memset(g, 0, sizeof(*g));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		bufaddf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = readall(fd, &b, GAUTHMAXFILE);
	close(fd);
	if (rc != 0) {
		bufaddf(err, "%s: %s", path, rc < 0 ? strerror(errno) :
		        "too big for a key file");
		gauthwipebuf(&b);
		return -1;
	}
	if ((rc = gauthparse(g, bstr(&b), b.len, err)) < 0) {
		/* said with the file's name: its bytes are a key's */
		bufaddf(err, " in %s", path);
	}
	gauthwipebuf(&b);
	return rc;
}

/* base64url of p, without padding, onto b (RFC 7515's). */
static void
gauthb64(Buf *b, const void *p, size_t n)
{
	size_t i = b->len;

	b64enc(b, p, n);
	for (; i < b->len; i++)
		if (b->p[i] == '+')
			b->p[i] = '-';
		else if (b->p[i] == '/')
			b->p[i] = '_';
	while (b->len && b->p[b->len - 1] == '=')
		b->len--;
	b->p[b->len] = '\0';
}

/* The signed JWT asking for a cloud-platform token at now (seconds of
 * the epoch) onto the end of out: 0, or -1 if BearSSL would not sign. */
int
gauthjwt(const Gauth *g, long long now, Buf *out)
{
	const br_rsa_private_key *sk = br_skey_decoder_get_rsa(&g->key->dc);
	Buf part = { 0 };
	br_sha256_context h;
	unsigned char hash[br_sha256_SIZE], *sig;
	size_t siglen = (sk->n_bitlen + 7) / 8, from = out->len;
	int rc = 0;

	bufadds(&part, "{\"alg\":\"RS256\",\"typ\":\"JWT\"");
	if (g->keyid) {
		bufadds(&part, ",\"kid\":");
		jsonescs(&part, g->keyid);
	}
	bufadds(&part, "}");
	gauthb64(out, part.p, part.len);
	bufreset(&part);
	bufadds(&part, "{\"iss\":");
	jsonescs(&part, g->email);
	bufadds(&part, ",\"scope\":");
	jsonescs(&part, gauthscope);
	bufadds(&part, ",\"aud\":");
	jsonescs(&part, g->tokenuri);
	bufaddf(&part, ",\"iat\":%lld,\"exp\":%lld}", now, now + GAUTHLIFE);
	bufaddc(out, '.');
	gauthb64(out, part.p, part.len);
	buffree(&part);
	br_sha256_init(&h);
	br_sha256_update(&h, out->p + from, out->len - from);
	br_sha256_out(&h, hash);
	sig = xmalloc(siglen);
	if (br_rsa_i31_pkcs1_sign(BR_HASH_OID_SHA256, hash, sizeof(hash), sk,
	                          sig) != 1) {
		rc = -1;
	} else {
		bufaddc(out, '.');
		gauthb64(out, sig, siglen);
	}
	free(sig);
	return rc;
}

/*
 * The token endpoint's reply (status, its body p): the access token into
 * tok and its life in seconds into ttl (3600 if it says none), 0; or -1
 * with the endpoint's own words in err: OAuth's error and
 * error_description, Google's error.message.
 */
int
gauthreply(int status, const char *p, size_t n, Buf *tok, long *ttl,
           Buf *err)
{
	Json j;
	double d;
	int e, ok = status / 100 == 2, rc = -1;

	if (jsonparse(&j, p, n) < 0 || j.t[0].type != JOBJ) {
		bufaddf(err, "HTTP %d, and no JSON object", status);
		if (j.t)
			jsonfree(&j);	/* an object it was not */
		return -1;
	}
	e = jsonget(&j, 0, "error");
	if (ok && e < 0 && jsonstrbuf(&j, jsonget(&j, 0, "access_token"),
	                              tok) == 0 && tok->len) {
		*ttl = 3600;
		if (jsonnum(&j, jsonget(&j, 0, "expires_in"), &d) == 0)
			*ttl = d < 0 ? 0 : d > 86400 ? 86400 : (long)d;
		rc = 0;
	} else if (e >= 0 && j.t[e].type == JSTR) {
		bufaddf(err, "HTTP %d: ", status);
		jsonstrbuf(&j, e, err);
		if (jsonget(&j, 0, "error_description") >= 0) {
			bufadds(err, ": ");
			jsonstrbuf(&j, jsonget(&j, 0, "error_description"), err);
		}
	} else if (e >= 0 && jsonget(&j, e, "message") >= 0) {
		bufaddf(err, "HTTP %d: ", status);
		jsonstrbuf(&j, jsonget(&j, e, "message"), err);
	} else {
		bufaddf(err, "HTTP %d, and no access_token", status);
	}
	jsonfree(&j);
	return rc;
}

/* httpdo's body callback: the reply, up to its bound. */
static int
gauthbody(void *arg, const char *p, size_t n)
{
	Buf *b = arg;

	if (b->len + n > GAUTHMAXREPLY)
		return 1;
	bufadd(b, p, n);
	return 0;
}

/* A token from the token endpoint into g: 0, or -1 with why in err. */
static int
gauthfetch(Gauth *g, Httpclient *c, Buf *err)
{
	static const char *const hdrs[] = {
		"Content-Type: application/x-www-form-urlencoded",
		"Accept: application/json", NULL
	};
	Buf body = { 0 }, reply = { 0 }, tok = { 0 };
	Http h;
	long ttl;
	int rc = -1;

	bufadds(&body, gauthgrant);
	if (gauthjwt(g, nowms() / 1000, &body) < 0) {
		bufadds(err, "the key would not sign the token's request");
		goto done;
	}
	memset(&h, 0, sizeof(h));
	h.method = "POST";
	h.url = g->tokenuri;
	h.headers = hdrs;
	h.body = body.p;
	h.bodylen = body.len;
	h.fn = gauthbody;
	h.arg = &reply;
	if (httpdo(c, &h) < 0) {
		bufaddf(err, "%s", h.status ? "the reply broke off" : h.err);
		goto done;
	}
	if (gauthreply(h.status, bstr(&reply), reply.len, &tok, &ttl,
	               err) < 0)
		goto done;
	gauthwipestr(g->token);
	g->token = bufdetach(&tok);
	g->expires = monoms() + (ttl > GAUTHEARLY ? ttl - GAUTHEARLY : 0) *
	             1000LL;
	rc = 0;
done:
	gauthwipebuf(&body);
	gauthwipebuf(&reply);
	gauthwipebuf(&tok);
	return rc;
}

/* The access token, fetched anew when the last has expired (or is about
 * to); NULL with why in err ("the token endpoint URI: why"). */
const char *
gauthtoken(Gauth *g, Httpclient *c, Buf *err)
{
	Buf why = { 0 };

	if (g->token && monoms() < g->expires)
		return g->token;
	if (gauthfetch(g, c, &why) < 0) {
		bufaddf(err, "the token endpoint %s: %s", g->tokenuri,
		        bstr(&why));
		buffree(&why);
		return NULL;
	}
	return g->token;
}

/*
 * A URL template into out, its {project} and {location} filled in, and
 * {location-} as the location and a '-' before a regional host
 * (us-east5-aiplatform.googleapis.com), nothing before the global one
 * (aiplatform.googleapis.com).  0, or -1 if a name would not be a plain
 * part of a URL (Google's are lower-case letters, digits, '-'; an old
 * project's may hold a domain: example.com:name).
 */
int
gauthurl(Buf *out, const char *tmpl, const char *project,
         const char *location)
{
	const char *p, *v;
	size_t i;

	for (v = project; *v; v++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-.:", *v))
			return -1;
	for (v = location; *v; v++)
		if (!strchr("abcdefghijklmnopqrstuvwxyz0123456789-", *v))
			return -1;
	for (p = tmpl; *p; p += i) {
		if (!strncmp(p, "{project}", i = 9))
			bufadds(out, project);
		else if (!strncmp(p, "{location}", i = 10))
			bufadds(out, location);
		else if (!strncmp(p, "{location-}", i = 11))
			bufaddf(out, "%s%s", strcmp(location, "global") ?
			        location : "", strcmp(location, "global") ?
			        "-" : "");
		else {
			bufaddc(out, *p);
			i = 1;
		}
	}
	return 0;
}

void
gauthfree(Gauth *g)
{
	free(g->email);
	free(g->keyid);
	free(g->tokenuri);
	free(g->project);
	if (g->key) {
		gauthwipe(g->key, sizeof(*g->key));
		free(g->key);
	}
	gauthwipestr(g->token);
	memset(g, 0, sizeof(*g));
}
