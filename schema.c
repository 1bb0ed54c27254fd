/* See LICENSE file for copyright and license details. */
/* schema.c: -o's JSON Schema: read and checked once, at start; an
 * answer checked against it, the first mismatch said in words at a JSON
 * pointer.  The keywords are those OpenAI's strict mode takes (type,
 * properties, required, additionalProperties, items, enum, const, anyOf,
 * the bounds, pattern, $ref to $defs), and allOf, oneOf; others, such as
 * format and description, are for the model and pass unchecked. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "regex.h"
#include "schema.h"

/* A $ref may loop and anyOf of $refs may branch at each level: the walk
 * is bounded in depth and in steps, so that no schema hangs us. */
enum { SCHEMADEPTH = 256, SCHEMASTEPS = 200000 };

/* A walk of a schema, or of a document against it. */
typedef struct {
	const Json *s;		/* the schema */
	const Json *d;		/* the document; NULL: the schema is read */
	Buf path;		/* where the walk is, a JSON pointer */
	Buf *why;		/* the words of the first mismatch */
	long steps;
	int depth;
	int strict, plain;	/* reading: as Schema's */
} Swalk;

/* The mismatch at the walk's place: its pointer ("/" the top), words. */
static int
schfail(Swalk *w, const char *fmt, ...)
{
	char words[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(words, sizeof(words), fmt, ap);
	va_end(ap);
	bufreset(w->why);
	bufadds(w->why, w->path.len ? w->path.p : "/");
	bufadds(w->why, ": ");
	bufadds(w->why, words);
	return -1;
}

/* One more step down the pointer: a key (~ and / escaped, RFC 6901) or
 * an index.  The length before, to go back to. */
static size_t
schpush(Swalk *w, const Json *j, int key, int index)
{
	size_t at = w->path.len;
	Buf k = { 0 };
	size_t i;

	bufaddc(&w->path, '/');
	if (key < 0) {
		bufaddf(&w->path, "%d", index);
		return at;
	}
	jsonstrbuf(j, key, &k);
	for (i = 0; i < k.len; i++) {
		if (k.p[i] == '~')
			bufadds(&w->path, "~0");
		else if (k.p[i] == '/')
			bufadds(&w->path, "~1");
		else
			bufaddc(&w->path, k.p[i]);
	}
	buffree(&k);
	return at;
}

static void
schpop(Swalk *w, size_t at)
{
	w->path.len = at;
	if (w->path.p)
		w->path.p[at] = '\0';
}

/* Token i's text as it stands, a string's quotes too, for words: its
 * length (200 bytes at most), and where, for "%.*s".  RAW: without the
 * quotes (a type's name). */
#define SPAN(j, i) schlen(j, i, 1), schat(j, i, 1)
#define RAW(j, i) schlen(j, i, 0), schat(j, i, 0)

static const char *
schat(const Json *j, int i, int quotes)
{
	return j->s + j->t[i].start - (quotes && j->t[i].type == JSTR);
}

static int
schlen(const Json *j, int i, int quotes)
{
	return MIN(j->t[i].end - j->t[i].start +
	           2 * (quotes && j->t[i].type == JSTR), 200);
}

/* What JSON calls the value i. */
static const char *
schkind(const Json *j, int i)
{
	int c;

	switch (j->t[i].type) {
	case JOBJ: return "object";
	case JARR: return "array";
	case JSTR: return "string";
	}
	c = j->s[j->t[i].start];
	return c == 't' || c == 'f' ? "boolean" : c == 'n' ? "null" : "number";
}

static int
schisnum(const Json *j, int i)
{
	return i >= 0 && !strcmp(schkind(j, i), "number");
}

/* Whether number i has no fraction: past 2^63 every double has none. */
static int
schisint(const Json *j, int i)
{
	double v;

	if (!schisnum(j, i) || jsonnum(j, i, &v) < 0)
		return 0;
	return v < 9e18 && v > -9e18 ? v == (double)(long long)v : 1;
}

/* Whether the values a[i] and b[k] are equal as JSON Schema has it:
 * numbers by value (1 is 1.0), strings unescaped, members in any order. */
static int
schsame(const Json *a, int i, const Json *b, int k)
{
	Buf x = { 0 }, y = { 0 };
	double u, v;
	char *key;
	int eq, m, n;

	if (strcmp(schkind(a, i), schkind(b, k)) ||
	    a->t[i].size != b->t[k].size)
		return 0;
	switch (a->t[i].type) {
	case JSTR:
		jsonstrbuf(a, i, &x);
		jsonstrbuf(b, k, &y);
		eq = x.len == y.len && (!x.len || !memcmp(x.p, y.p, x.len));
		buffree(&x);
		buffree(&y);
		return eq;
	case JARR:
		m = jsonat(a, i, 0);
		for (n = jsonat(b, k, 0); m >= 0 && n >= 0;
		     m = jsonnext(a, m), n = jsonnext(b, n))
			if (!schsame(a, m, b, n))
				return 0;
		return 1;
	case JOBJ:
		for (m = i + 1, n = 0; n < a->t[i].size; n++) {
			key = jsonstr(a, m);
			eq = key && jsonget(b, k, key) >= 0 &&
			     schsame(a, m + 1, b, jsonget(b, k, key));
			free(key);
			if (!eq)
				return 0;
			m = jsonskip(a, m + 1);
		}
		return 1;
	}
	if (schisnum(a, i))
		return jsonnum(a, i, &u) == 0 && jsonnum(b, k, &v) == 0 &&
		       u == v;
	return a->s[a->t[i].start] == b->s[b->t[k].start];
}

/* The schema a $ref names: "#", or one of the top's $defs or
 * definitions by name; -1 if none. */
static int
schtarget(const Json *s, int ref)
{
	char *p = jsonstr(s, ref);
	int t = -1;

	if (!p)
		return -1;
	if (!strcmp(p, "#"))
		t = 0;
	else if (!strncmp(p, "#/$defs/", 8))
		t = jsonget(s, jsonget(s, 0, "$defs"), p + 8);
	else if (!strncmp(p, "#/definitions/", 14))
		t = jsonget(s, jsonget(s, 0, "definitions"), p + 14);
	free(p);
	return t;
}

static int schmatch(Swalk *w, int sc, int i);

/* Checking a document */

/* Whether value i is of the type named by string token ty. */
static int
schtypeis(Swalk *w, int ty, int i)
{
	if (jsoneq(w->s, ty, "integer"))
		return schisint(w->d, i);
	return jsoneq(w->s, ty, schkind(w->d, i));
}

static int
schtype(Swalk *w, int sc, int i)
{
	int ty = jsonget(w->s, sc, "type"), k, rc;
	Buf names = { 0 };

	if (ty < 0 || (w->s->t[ty].type == JSTR && schtypeis(w, ty, i)))
		return 0;
	if (w->s->t[ty].type == JSTR)
		return schfail(w, "expected %.*s, got %s", RAW(w->s, ty),
		               schkind(w->d, i));
	for (k = jsonat(w->s, ty, 0); k >= 0; k = jsonnext(w->s, k)) {
		if (schtypeis(w, k, i))
			break;
		bufaddf(&names, "%s%.*s", names.len ? " or " : "",
		        RAW(w->s, k));
	}
	rc = k >= 0 ? 0 : schfail(w, "expected %s, got %s", bstr(&names),
	                          schkind(w->d, i));
	buffree(&names);
	return rc;
}

static int
schvalue(Swalk *w, int sc, int i)
{
	int e = jsonget(w->s, sc, "enum"), c = jsonget(w->s, sc, "const"), k;

	if (c >= 0 && !schsame(w->s, c, w->d, i))
		return schfail(w, "expected %.*s, got %.*s", SPAN(w->s, c),
		               SPAN(w->d, i));
	if (e < 0)
		return 0;
	for (k = jsonat(w->s, e, 0); k >= 0; k = jsonnext(w->s, k))
		if (schsame(w->s, k, w->d, i))
			return 0;
	return schfail(w, "expected one of %.*s, got %.*s", SPAN(w->s, e),
	               SPAN(w->d, i));
}

static int
schnumber(Swalk *w, int sc, int i)
{
	static const char *const keys[] = {
		"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"
	};
	int val[4], ex[2] = { 0, 0 };
	double v, m;

	jsonkeys(w->s, sc, keys, 4, val);
	if (jsonnum(w->d, i, &v) < 0)
		return 0;
	/* draft 4's exclusiveMinimum is a boolean that moves minimum */
	jsonbool(w->s, val[2], &ex[0]);
	jsonbool(w->s, val[3], &ex[1]);
	if (schisnum(w->s, val[0]) && jsonnum(w->s, val[0], &m) == 0 &&
	    (v < m || (ex[0] && v == m)))
		return schfail(w, "%.*s is below the minimum %.*s",
		               SPAN(w->d, i), SPAN(w->s, val[0]));
	if (schisnum(w->s, val[1]) && jsonnum(w->s, val[1], &m) == 0 &&
	    (v > m || (ex[1] && v == m)))
		return schfail(w, "%.*s is over the maximum %.*s",
		               SPAN(w->d, i), SPAN(w->s, val[1]));
	if (schisnum(w->s, val[2]) && jsonnum(w->s, val[2], &m) == 0 &&
	    v <= m)
		return schfail(w, "%.*s is not over %.*s", SPAN(w->d, i),
		               SPAN(w->s, val[2]));
	if (schisnum(w->s, val[3]) && jsonnum(w->s, val[3], &m) == 0 &&
	    v >= m)
		return schfail(w, "%.*s is not below %.*s", SPAN(w->d, i),
		               SPAN(w->s, val[3]));
	return 0;
}

/* Whether a pattern means in POSIX ERE (regex.c) what it means in
 * ECMA-262, JSON Schema's: not with \d, \w, \b and the like, nor with
 * (?...), which ERE refuses.  Those are left to the provider. */
static int
schpattern(const char *pat, const char *s, size_t n)
{
	Regex r;
	char err[128];
	const char *p;
	int m;

	for (p = strchr(pat, '\\'); p; p = strchr(p + 2, '\\'))
		if (!p[1] || (p[1] >= '0' && p[1] <= '9') ||
		    ((p[1] | 32) >= 'a' && (p[1] | 32) <= 'z'))
			return 1;
	if (memchr(s, '\0', n) || recomp(&r, pat, 0, err, sizeof(err)) < 0)
		return 1;
	m = rematch(&r, s, n, NULL, NULL);
	refree(&r);
	return m != 0;
}

static int
schstring(Swalk *w, int sc, int i)
{
	static const char *const keys[] = {
		"minLength", "maxLength", "pattern"
	};
	Buf b = { 0 };
	char *pat;
	double m;
	long n = 0;
	size_t k;
	int val[3], rc = 0;

	jsonkeys(w->s, sc, keys, 3, val);
	jsonstrbuf(w->d, i, &b);
	for (k = 0; k < b.len; k++)	/* code points, not bytes */
		n += ((unsigned char)b.p[k] & 0xc0) != 0x80;
	if (jsonnum(w->s, val[0], &m) == 0 && n < m)
		rc = schfail(w, "%ld characters, fewer than minLength %.*s",
		             n, SPAN(w->s, val[0]));
	else if (jsonnum(w->s, val[1], &m) == 0 && n > m)
		rc = schfail(w, "%ld characters, more than maxLength %.*s",
		             n, SPAN(w->s, val[1]));
	else if ((pat = jsonstr(w->s, val[2]))) {
		if (!schpattern(pat, b.p ? b.p : "", b.len))
			rc = schfail(w, "does not match the pattern %.*s",
			             SPAN(w->s, val[2]));
		free(pat);
	}
	buffree(&b);
	return rc;
}

static int
scharray(Swalk *w, int sc, int i)
{
	int mn = jsonget(w->s, sc, "minItems"), mx = jsonget(w->s, sc,
	    "maxItems"), it = jsonget(w->s, sc, "items"), k, n;
	size_t at;
	double m;

	if (jsonnum(w->s, mn, &m) == 0 && w->d->t[i].size < m)
		return schfail(w, "%d items, fewer than minItems %.*s",
		               w->d->t[i].size, SPAN(w->s, mn));
	if (jsonnum(w->s, mx, &m) == 0 && w->d->t[i].size > m)
		return schfail(w, "%d items, more than maxItems %.*s",
		               w->d->t[i].size, SPAN(w->s, mx));
	if (it < 0)
		return 0;
	for (k = jsonat(w->d, i, 0), n = 0; k >= 0; k = jsonnext(w->d, k)) {
		at = schpush(w, NULL, -1, n++);
		if (schmatch(w, it, k) < 0)
			return -1;
		schpop(w, at);
	}
	return 0;
}

/* Each member: by properties, else by additionalProperties. */
static int
schmembers(Swalk *w, int sc, int i)
{
	int props = jsonget(w->s, sc, "properties"), more = jsonget(w->s, sc,
	    "additionalProperties"), k, m, v;
	char *key;
	size_t at;

	for (m = i + 1, k = 0; k < w->d->t[i].size; k++) {
		key = jsonstr(w->d, m);
		v = key ? jsonget(w->s, props, key) : -1;
		free(key);
		if (v < 0 && (v = more) >= 0 && w->s->t[v].type == JPRIM &&
		    w->s->s[w->s->t[v].start] == 'f')
			return schfail(w, "property %.*s is not allowed",
			               SPAN(w->d, m));
		at = schpush(w, w->d, m, 0);
		if (v >= 0 && schmatch(w, v, m + 1) < 0)
			return -1;
		schpop(w, at);
		m = jsonskip(w->d, m + 1);
	}
	return 0;
}

static int
schobject(Swalk *w, int sc, int i)
{
	int req = jsonget(w->s, sc, "required"), k;
	char *name;

	for (k = jsonat(w->s, req, 0); k >= 0; k = jsonnext(w->s, k)) {
		name = jsonstr(w->s, k);
		if (name && jsonget(w->d, i, name) < 0) {
			free(name);
			return schfail(w, "the required property %.*s is "
			               "missing", SPAN(w->s, k));
		}
		free(name);
	}
	return schmembers(w, sc, i);
}

/* anyOf, allOf, oneOf: each branch tried with words of its own; anyOf's
 * mismatch says the first branch's. */
static int
schcombine(Swalk *w, int sc, int i)
{
	static const char *const keys[] = { "anyOf", "allOf", "oneOf" };
	Buf first = { 0 }, tmp = { 0 }, *why = w->why;
	int val[3], k, n, ok, rc = 0;

	jsonkeys(w->s, sc, keys, 3, val);
	for (k = jsonat(w->s, val[1], 0); k >= 0 && !rc; k = jsonnext(w->s, k))
		rc = schmatch(w, k, i);
	if (rc)
		return rc;
	w->why = &first;
	for (k = jsonat(w->s, val[0], 0), ok = 0; k >= 0 && !ok;
	     k = jsonnext(w->s, k), w->why = &tmp)
		ok = schmatch(w, k, i) == 0;
	w->why = &tmp;
	for (k = jsonat(w->s, val[2], 0), n = 0; k >= 0; k = jsonnext(w->s, k))
		n += schmatch(w, k, i) == 0;
	w->why = why;
	if (val[0] >= 0 && !ok)
		rc = schfail(w, "matches none of anyOf (the first: %s)",
		             bstr(&first));
	else if (val[2] >= 0 && n != 1)
		rc = schfail(w, "matches %d of oneOf, not one", n);
	buffree(&first);
	buffree(&tmp);
	return rc;
}

/* Whether value i matches the schema at sc: 0, or -1 with the words. */
static int
schmatch(Swalk *w, int sc, int i)
{
	const char *kind = schkind(w->d, i);
	int ref, rc = 0;

	if (++w->steps > SCHEMASTEPS)
		return schfail(w, "the schema takes too long to check");
	if (w->depth >= SCHEMADEPTH)
		return schfail(w, "nested too deep to check");
	if (w->s->t[sc].type == JPRIM)	/* true, or false */
		return w->s->s[w->s->t[sc].start] == 't' ? 0 :
		       schfail(w, "no value is allowed here");
	w->depth++;
	/* a $ref's target was found when the schema was read */
	if ((ref = jsonget(w->s, sc, "$ref")) >= 0 &&
	    schtarget(w->s, ref) >= 0)
		rc = schmatch(w, schtarget(w->s, ref), i);
	if (!rc)
		rc = schtype(w, sc, i);
	if (!rc)
		rc = schvalue(w, sc, i);
	if (!rc && !strcmp(kind, "number"))
		rc = schnumber(w, sc, i);
	else if (!rc && !strcmp(kind, "string"))
		rc = schstring(w, sc, i);
	else if (!rc && !strcmp(kind, "array"))
		rc = scharray(w, sc, i);
	else if (!rc && !strcmp(kind, "object"))
		rc = schobject(w, sc, i);
	if (!rc)
		rc = schcombine(w, sc, i);
	w->depth--;
	return rc;
}

/* Whether value i of doc matches the schema: 0, or -1 with the first
 * mismatch in why, "/items/2/name: expected string, got number". */
int
schemacheck(const Schema *s, const Json *doc, int i, Buf *why)
{
	Swalk w;
	int rc;

	memset(&w, 0, sizeof(w));
	w.s = &s->j;
	w.d = doc;
	w.why = why;
	rc = i < 0 || i >= doc->n ? schfail(&w, "no value") :
	     schmatch(&w, 0, i);
	buffree(&w.path);
	return rc;
}

/* Reading a schema */

static int schsane(Swalk *w, int sc);

/* The object at v: each of its values a schema (properties, $defs). */
static int
schsaneeach(Swalk *w, int v)
{
	int k, m;
	size_t at;

	if (w->s->t[v].type != JOBJ)
		return schfail(w, "expected an object of schemas, got %s",
		               schkind(w->s, v));
	for (m = v + 1, k = 0; k < w->s->t[v].size; k++) {
		at = schpush(w, w->s, m, 0);
		if (schsane(w, m + 1) < 0)
			return -1;
		schpop(w, at);
		m = jsonskip(w->s, m + 1);
	}
	return 0;
}

/* The array at v: schemas (anyOf ...), or strings (required); one or
 * more of them. */
static int
schsanelist(Swalk *w, int v, int strings)
{
	int k, n = 0;
	size_t at;

	if (w->s->t[v].type != JARR || (!strings && !w->s->t[v].size))
		return schfail(w, strings ? "expected an array of strings" :
		               "expected an array of one schema or more");
	for (k = jsonat(w->s, v, 0); k >= 0; k = jsonnext(w->s, k)) {
		at = schpush(w, NULL, -1, n++);
		if (strings && w->s->t[k].type != JSTR)
			return schfail(w, "expected a string, got %s",
			               schkind(w->s, k));
		if (!strings && schsane(w, k) < 0)
			return -1;
		schpop(w, at);
	}
	return 0;
}

/* A type's name, or a list of them. */
static int
schsanetype(Swalk *w, int v)
{
	static const char *const types[] = {
		"string", "number", "integer", "boolean", "object", "array",
		"null"
	};
	size_t i;
	int k;

	if (w->s->t[v].type == JARR && !w->s->t[v].size)
		return schfail(w, "an empty list of types");
	k = w->s->t[v].type == JARR ? jsonat(w->s, v, 0) : v;
	for (; k >= 0; k = w->s->t[v].type == JARR ? jsonnext(w->s, k) : -1) {
		for (i = 0; i < LEN(types) && !jsoneq(w->s, k, types[i]); i++)
			;
		if (i == LEN(types))
			return schfail(w, "unknown type %.*s%s", SPAN(w->s, k),
			               w->s->t[k].type == JSTR ? "" :
			               " (a type is a string)");
	}
	return 0;
}

/* One keyword of a schema and its value v, as the keyword asks. */
static int
schsanekey(Swalk *w, int key, int v)
{
	const Json *s = w->s;
	const char *kind = schkind(s, v);
	size_t at = schpush(w, s, key, 0);
	int rc = 0, excl = jsoneq(s, key, "exclusiveMinimum") ||
	                   jsoneq(s, key, "exclusiveMaximum");

	if (jsoneq(s, key, "type"))
		rc = schsanetype(w, v);
	else if (jsoneq(s, key, "properties") || jsoneq(s, key, "$defs") ||
	         jsoneq(s, key, "definitions"))
		rc = schsaneeach(w, v);
	else if (jsoneq(s, key, "required"))
		rc = schsanelist(w, v, 1);
	else if (jsoneq(s, key, "anyOf") || jsoneq(s, key, "allOf") ||
	         jsoneq(s, key, "oneOf"))
		rc = schsanelist(w, v, 0);
	else if (jsoneq(s, key, "additionalProperties") ||
	         jsoneq(s, key, "items"))
		rc = schsane(w, v);
	else if (jsoneq(s, key, "enum") && s->t[v].type != JARR)
		rc = schfail(w, "expected an array, got %s", kind);
	else if ((excl || jsoneq(s, key, "minimum") ||
	          jsoneq(s, key, "maximum")) && strcmp(kind, "number") &&
	         (!excl || strcmp(kind, "boolean")))	/* draft 4's */
		rc = schfail(w, "expected a number, got %s", kind);
	else if ((jsoneq(s, key, "minLength") || jsoneq(s, key, "maxLength") ||
	          jsoneq(s, key, "minItems") || jsoneq(s, key, "maxItems")) &&
	         (!schisint(s, v) || s->s[s->t[v].start] == '-'))
		rc = schfail(w, "expected a whole number, 0 or more, got %.*s",
		             SPAN(s, v));
	else if (jsoneq(s, key, "pattern") && s->t[v].type != JSTR)
		rc = schfail(w, "expected a string, got %s", kind);
	else if (jsoneq(s, key, "$ref") && schtarget(s, v) < 0)
		rc = schfail(w, "%.*s names no schema here: \"#\", "
		             "\"#/$defs/NAME\" or \"#/definitions/NAME\"",
		             SPAN(s, v));
	if (!rc)
		schpop(w, at);
	return rc;
}

/* Whether the names in list (a type, or an array of them) hold name. */
static int
schnames(const Json *s, int list, const char *name)
{
	int k;

	if (jsoneq(s, list, name))
		return 1;
	for (k = jsonat(s, list, 0); k >= 0; k = jsonnext(s, k))
		if (jsoneq(s, k, name))
			return 1;
	return 0;
}

/* What the providers' own checks make of schema sc, an object. */
static void
schflags(Swalk *w, int sc)
{
	static const char *const keys[] = {
		"type", "properties", "additionalProperties", "required",
		"allOf", "oneOf", "minItems", "minimum", "maximum",
		"exclusiveMinimum", "exclusiveMaximum", "minLength",
		"maxLength", "maxItems"
	};
	const Json *s = w->s;
	int v[LEN(keys)], k, m;
	double n;
	char *name;

	jsonkeys(s, sc, keys, LEN(keys), v);
	if (v[1] >= 0 || schnames(s, v[0], "object")) {
		if (v[2] < 0 || s->t[v[2]].type != JPRIM ||
		    s->s[s->t[v[2]].start] != 'f')
			w->strict = w->plain = 0;
		for (m = v[1] + 1, k = 0; v[1] >= 0 && k < s->t[v[1]].size;
		     k++) {
			name = jsonstr(s, m);
			if (!name || !schnames(s, v[3], name))
				w->strict = 0;
			free(name);
			m = jsonskip(s, m + 1);
		}
	}
	if (v[4] >= 0 || v[5] >= 0)
		w->strict = 0;
	if (v[5] >= 0 || (jsonnum(s, v[6], &n) == 0 && n > 1))
		w->plain = 0;
	for (k = 7; k < (int)LEN(keys); k++)
		if (v[k] >= 0)
			w->plain = 0;
}

static int
schsane(Swalk *w, int sc)
{
	int k, m, rc = 0;

	if (w->depth >= SCHEMADEPTH)
		return schfail(w, "nested too deep");
	if (!strcmp(schkind(w->s, sc), "boolean"))	/* true, false */
		return 0;
	if (w->s->t[sc].type != JOBJ)
		return schfail(w, "a schema is an object, not %s",
		               schkind(w->s, sc));
	w->depth++;
	schflags(w, sc);
	for (m = sc + 1, k = 0; k < w->s->t[sc].size && !rc; k++) {
		rc = schsanekey(w, m, m + 1);
		m = jsonskip(w->s, m + 1);
	}
	w->depth--;
	return rc;
}

/* Read the schema in text: 0, or -1 with why it is none. */
int
schemaload(Schema *s, const char *text, size_t len, Buf *why)
{
	Json j;
	Buf b = { 0 };
	Swalk w;
	int rc, top;

	memset(s, 0, sizeof(*s));
	if (jsonparse(&j, text, len) < 0) {
		bufadds(why, "not JSON");
		return -1;
	}
	memset(&w, 0, sizeof(w));
	w.s = &j;
	w.why = why;
	w.strict = w.plain = 1;
	rc = j.t[0].type != JOBJ ? schfail(&w, "a schema is an object, not %s",
	                                   schkind(&j, 0)) : schsane(&w, 0);
	if (rc == 0) {
		jsoncanon(&b, &j, 0);
		s->text = bufdetach(&b);
		if (jsonparse(&s->j, s->text, strlen(s->text)) < 0)
			die("schema: its own compact text is no JSON");
		/* the strict modes want an object at the top */
		top = jsoneq(&j, jsonget(&j, 0, "type"), "object");
		s->strict = w.strict && top;
		s->plain = w.plain && top;
	}
	jsonfree(&j);
	buffree(&w.path);
	return rc;
}

/* Read the schema in file path, of max bytes at most: 0, or -1 with why
 * not, the path named. */
int
schemafile(Schema *s, const char *path, size_t max, Buf *why)
{
	Buf b = { 0 }, w = { 0 };
	int fd, rc = -1;

	memset(s, 0, sizeof(*s));
	if ((fd = open(path, O_RDONLY)) < 0 || (rc = readall(fd, &b, max)) < 0)
		bufaddf(why, "%s: %s", path, strerror(errno));
	else if (rc > 0)
		bufaddf(why, "%s: over %zu bytes", path, max);
	else if ((rc = schemaload(s, b.p, b.len, &w)) < 0)
		bufaddf(why, "%s: %s", path, w.p);
	if (fd >= 0)
		close(fd);
	buffree(&b);
	buffree(&w);
	return rc ? -1 : 0;
}

/* An answer: the JSON document alone, or in a single code fence, as
 * local models often write it. */
int
schemaanswer(const Schema *s, const char *text, size_t len, Buf *doc,
             Buf *why)
{
	const char *p = text, *e = text + len, *nl;
	Json d;
	int rc;

	while (p < e && strchr(" \t\r\n", *p))
		p++;
	while (e > p && strchr(" \t\r\n", e[-1]))
		e--;
	if (e - p >= 6 && !strncmp(p, "```", 3) && !strncmp(e - 3, "```", 3) &&
	    (nl = memchr(p, '\n', e - p)) && nl < e - 3) {
		p = nl + 1;
		e -= 3;
	}
	bufreset(why);
	if (p == e || jsonparse(&d, p, e - p) < 0) {
		bufadds(why, "the answer is not a JSON document");
		return -1;
	}
	/* What is checked is what is printed: the compact form, where a
	 * byte that is not UTF-8 has become U+FFFD, which a pattern may
	 * take otherwise than the byte. */
	jsoncanon(doc, &d, 0);
	jsonfree(&d);
	if (jsonparse(&d, doc->p, doc->len) < 0) {
		bufadds(why, "the answer is not a JSON document");
		return -1;
	}
	if ((rc = schemacheck(s, &d, 0, why)) < 0)
		bufreset(doc);
	jsonfree(&d);
	return rc;
}

/* For a provider that takes no schema: the system prompt says it. */
void
schemaprompt(Buf *b, const Schema *s)
{
	bufadds(b, "\n\nYour final answer must be a single JSON document "
	        "matching this JSON Schema: ");
	bufadds(b, s->text);
}

/* The message that asks once more. */
void
schemaretry(Buf *b, const char *why)
{
	bufaddf(b, "Your answer does not match the schema: %s; answer again "
	        "with only the JSON document.", why);
}

void
schemafree(Schema *s)
{
	jsonfree(&s->j);
	free(s->text);
	memset(s, 0, sizeof(*s));
}
