/* See LICENSE file for copyright and license details. */
/* fuzz_json.c: libFuzzer target for json.c. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"

#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#define JSMN_STRICT
#include <jsmn.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* json.c counts the tokens before jsmn makes them: a jsmn of its own,
 * given that many, must make the same. */
static void
asjsmn(const Json *j, const char *s, size_t n)
{
	jsmn_parser p;
	jsmntok_t *t;
	int k, i;

	if (j->t[0].type == JPRIM)
		return;	/* strict jsmn wants a container */
	t = malloc(j->n * sizeof(*t));
	jsmn_init(&p);
	if ((k = jsmn_parse(&p, s, n, t, j->n)) != j->n)
		abort();
	for (i = 0; i < k; i++)
		if ((int)t[i].type != j->t[i].type ||
		    t[i].start != j->t[i].start || t[i].end != j->t[i].end ||
		    t[i].size != j->t[i].size ||
		    t[i].parent != j->t[i].parent)
			abort();
	free(t);
}

/* Whether m's span is value v of j, or none when v is -1. */
static int
spanis(const Json *j, const Jmember *m, int v)
{
	size_t from, to;

	if (v < 0)
		return !m->at && !m->len;
	from = j->t[v].start - (j->t[v].type == JSTR);
	to = j->t[v].end + (j->t[v].type == JSTR);
	return m->at == from && m->at + m->len == to;
}

/* jsonmembers must take what jsonparse takes, and find what jsonget
 * finds. */
static void
members(const char *s, size_t n, const Json *j, int parsed)
{
	Jmember m[] = {
		{ "a", -1, 0, 0 }, { "message", -1, 0, 0 }, { "role", 1, 0, 0 },
		{ "\\", -1, 0, 0 }
	};
	int k, msg;

	if ((jsonmembers(s, n, m, LEN(m)) == 0) != parsed)
		abort();
	if (!parsed || j->t[0].type != JOBJ)
		return;
	msg = jsonget(j, 0, "message");
	if (!spanis(j, &m[0], jsonget(j, 0, "a")) ||
	    !spanis(j, &m[1], msg) || !spanis(j, &m[3], jsonget(j, 0, "\\")) ||
	    !spanis(j, &m[2], msg >= 0 ? jsonget(j, msg, "role") : -1))
		abort();
	for (k = 0; k < (int)LEN(m); k++)
		if (m[k].at + m[k].len > n)
			abort();
}

/* The input's lines, one document after another through jsonreparse,
 * which reads a line's start as the line before left it: each must come
 * out as jsonparse makes it, refused or the same tokens. */
static void
lines(const char *s, size_t n)
{
	Json r = { 0 }, j;
	const char *e;
	size_t len;
	int a, b, i;

	for (; n; s += len + (e != NULL), n -= len + (e != NULL)) {
		e = memchr(s, '\n', n);
		len = e ? (size_t)(e - s) : n;
		a = jsonreparse(&r, s, len);
		b = jsonparse(&j, s, len);
		if (a != b || (!a && r.n != j.n))
			abort();
		for (i = 0; !a && i < j.n; i++)
			if (memcmp(&r.t[i], &j.t[i], sizeof(j.t[i])))
				abort();
		jsonfree(&j);
		if (!e)
			break;
	}
	jsonfree(&r);
}

/* jsoncanon: valid JSON in valid UTF-8 on one line, which it writes
 * again as it is. */
static void
canonical(const Json *j)
{
	Buf a = { 0 }, b = { 0 };
	Json back;

	jsoncanon(&a, j, 0);
	if (jsonparse(&back, a.p, a.len) < 0 || utf8valid(a.p, a.len) != a.len ||
	    memchr(a.p, '\n', a.len))
		abort();
	jsoncanon(&b, &back, 0);
	if (a.len != b.len || memcmp(a.p, b.p, a.len))
		abort();
	jsonfree(&back);
	buffree(&a);
	buffree(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Json j, back;
	Buf b = { 0 };
	double d;
	char *s;
	int i, v;

	lines((const char *)data, size);
	if (jsonparse(&j, (const char *)data, size) < 0) {
		members((const char *)data, size, &j, 0);
		return 0;
	}
	members((const char *)data, size, &j, 1);
	asjsmn(&j, (const char *)data, size);
	/* what jsonparse takes, jsonparseknown reads the same */
	if (jsonparseknown(&back, (const char *)data, size) < 0 ||
	    back.n != j.n || memcmp(back.t, j.t, j.n * sizeof(*j.t)))
		abort();
	jsonfree(&back);
	for (i = 0; i < j.n; i++) {
		free(jsonstr(&j, i));
		jsonnum(&j, i, &d);
		jsonbool(&j, i, &v);
		jsonget(&j, i, "a");
		jsonat(&j, i, 1);
	}
	/* what we copy on must always be valid JSON in valid UTF-8 */
	jsonraw(&b, &j, 0);
	if (jsonparse(&back, b.p, b.len) < 0 || utf8valid(b.p, b.len) != b.len)
		abort();
	jsonfree(&back);
	/* what hooks read: valid, one line, the same written again */
	canonical(&j);
	bufreset(&b);
	jsondupkey(&j, &b);
	if (j.t[0].type == JSTR) {
		s = jsonstr(&j, 0);
		bufreset(&b);
		jsonescs(&b, s);
		if (jsonparse(&back, b.p, b.len) < 0)
			abort();
		jsonfree(&back);
		free(s);
	}
	buffree(&b);
	jsonfree(&j);
	return 0;
}
