/* See LICENSE file for copyright and license details. */
/* test/json.c: unit tests of json.c. */
#include <stdlib.h>
#include <string.h>

#include "../agent.h"
#include "t.h"

static int
parses(const char *s)
{
	Json j;
	int r = jsonparse(&j, s, strlen(s));

	jsonfree(&j);
	return r == 0;
}

static void
testvalid(void)
{
	static const char *good[] = {
		"{}", "[]", "0", "-0.5e+3", "\"\"", "true", "null",
		" {\"a\" : [1, 2, {\"b\": null}], \"c\": \"\\u00e9\"} ",
		"[[[[]]]]", "\"\\ud83c\\udf89\"",
	};
	static const char *bad[] = {
		"", "{", "{\"a\":1,}", "[1 2]", "[1,]", "{\"a\"}", "{\"a\" 1}",
		"tru", "nul", "01", "1.", "-", "1e", "\"\\x\"", "\"abc",
		"\"a\nb\"", "{} {}", "[}", "{]", "{1:2}", "\"\\u12g4\"",
		"[\"a\",,\"b\"]", ",", "[1]]",
	};
	size_t i;

	for (i = 0; i < LEN(good); i++)
		T(parses(good[i]), "valid: %s", good[i]);
	for (i = 0; i < LEN(bad); i++)
		T(!parses(bad[i]), "invalid: %s", bad[i]);
}

static void
testlookup(void)
{
	const char *s = "{\"a\":{\"x\":[1,{\"y\":2}]},\"b\":\"str\","
	                "\"n\":\"42\",\"t\":\"true\",\"f\":false,\"z\":null,"
	                "\"k\\u0065y\":7}";
	Json j;
	double d;
	int v, a, x;
	char *str;

	T(jsonparse(&j, s, strlen(s)) == 0, "parse lookup document");
	a = jsonget(&j, 0, "a");
	T(a > 0 && j.t[a].type == JOBJ, "get object value");
	x = jsonget(&j, a, "x");
	T(x > 0 && j.t[x].type == JARR && j.t[x].size == 2, "get array");
	T(jsonnum(&j, jsonat(&j, x, 0), &d) == 0 && d == 1, "array item 0");
	T(jsonnum(&j, jsonget(&j, jsonat(&j, x, 1), "y"), &d) == 0 && d == 2,
	  "array item 1 key");
	T(jsonat(&j, x, 2) == -1, "array item out of range");
	str = jsonstr(&j, jsonget(&j, 0, "b"));
	T(str && !strcmp(str, "str"), "string after nested value");
	free(str);
	T(jsonnum(&j, jsonget(&j, 0, "n"), &d) == 0 && d == 42,
	  "number given as string");
	T(jsonbool(&j, jsonget(&j, 0, "t"), &v) == 0 && v == 1,
	  "bool given as string");
	T(jsonbool(&j, jsonget(&j, 0, "f"), &v) == 0 && v == 0, "bool");
	T(jsonisnull(&j, jsonget(&j, 0, "z")), "null");
	T(jsonnum(&j, jsonget(&j, 0, "b"), &d) == -1, "string is no number");
	T(jsonnum(&j, jsonget(&j, 0, "z"), &d) == -1, "null is no number");
	T(jsonget(&j, 0, "missing") == -1, "missing key");
	T(jsonget(&j, 0, "key") > 0, "escaped key matches");
	T(jsonget(&j, a, "y") == -1, "no key from a nested object");
	jsonfree(&j);
	/* a key the same length as its escaped form, backslash and all, is
	 * not it; one with a real backslash is found through the escape */
	s = "{\"a\\nb\":1,\"c\\\\d\":2,\"ef\":3}";
	T(jsonparse(&j, s, strlen(s)) == 0, "parse escaped keys");
	T(jsonget(&j, 0, "a\\nb") == -1 && jsonget(&j, 0, "a\nb") == 2,
	  "an escape is not its letters");
	T(jsonget(&j, 0, "c\\d") == 4 && jsoneq(&j, 3, "c\\d") &&
	  !jsoneq(&j, 3, "c\\\\d"), "a backslash key, escaped");
	T(jsonget(&j, 0, "eg") == -1 && jsonget(&j, 0, "ef") == 6,
	  "keys of one length");
	jsonfree(&j);
}

static void
testunescape(void)
{
	const char *s = "[\"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83c\\udf89\","
	                "\"\\ud800x\", \"\\udc00\", \"\\u0000z\"]";
	Json j;
	Buf b = { 0 };
	char *str;

	T(jsonparse(&j, s, strlen(s)) == 0, "parse escapes");
	str = jsonstr(&j, jsonat(&j, 0, 0));
	T(str && !strcmp(str, "a\"b\\c/d\n\t\xc3\xa9\xf0\x9f\x8e\x89"),
	  "escapes and surrogate pair");
	free(str);
	str = jsonstr(&j, jsonat(&j, 0, 1));
	T(str && !strcmp(str, "\xef\xbf\xbdx"), "lone high surrogate");
	free(str);
	str = jsonstr(&j, jsonat(&j, 0, 2));
	T(str && !strcmp(str, "\xef\xbf\xbd"), "lone low surrogate");
	free(str);
	jsonstrbuf(&j, jsonat(&j, 0, 3), &b);
	T(b.len == 2 && b.p[0] == 0 && b.p[1] == 'z', "NUL kept in buffer");
	buffree(&b);
	T(jsonstr(&j, 0) == NULL, "container is no string");
	jsonfree(&j);
}

static int
validjson(Buf *b)
{
	Json j;
	int r = jsonparse(&j, b->p, b->len);

	jsonfree(&j);
	return r == 0 && utf8valid(b->p, b->len) == b->len;
}

static void
testwrite(void)
{
	Buf b = { 0 };
	Json j;
	char all[256];
	char *back;
	int i;

	for (i = 0; i < 256; i++)
		all[i] = i;
	jsonesc(&b, all, sizeof(all));
	T(validjson(&b), "every byte escapes to valid JSON");
	bufreset(&b);
	jsonescs(&b, "q\"b\\n\nc\x01\xc3\xa9\xff\xed\xa0\x80\xf0\x9f");
	T(!strcmp(b.p, "\"q\\\"b\\\\n\\nc\\u0001\xc3\xa9"
	           "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
	           "\xef\xbf\xbd\xef\xbf\xbd\""), "escapes and repairs: %s", b.p);
	jsonparse(&j, b.p, b.len);
	back = jsonstr(&j, 0);
	T(back && !strncmp(back, "q\"b\\n\nc\x01\xc3\xa9", 10), "round trip");
	free(back);
	jsonfree(&j);
	buffree(&b);
}

static void
testraw(void)
{
	const char *s = "{\"a\": [1, \"x\xffy\", {\"b\": true}], \"c\": \"d\"}";
	Json j;
	Buf b = { 0 };

	T(jsonparse(&j, s, strlen(s)) == 0, "parse raw source");
	jsonraw(&b, &j, jsonget(&j, 0, "a"));
	T(!strcmp(b.p, "[1, \"x\xef\xbf\xbdy\", {\"b\": true}]"),
	  "raw copy repairs strings: %s", b.p);
	bufreset(&b);
	jsonraw(&b, &j, jsonget(&j, 0, "c"));
	T(!strcmp(b.p, "\"d\""), "raw string keeps quotes");
	bufreset(&b);
	jsonraw(&b, &j, 0);
	T(validjson(&b), "raw whole document is valid");
	buffree(&b);
	jsonfree(&j);
}

static void
testdeep(void)
{
	Buf b = { 0 };
	int i;

	for (i = 0; i < 5000; i++)
		bufaddc(&b, '[');
	for (i = 0; i < 5000; i++)
		bufaddc(&b, ']');
	T(!parses(b.p), "too deep is refused, not crashed on");
	buffree(&b);
}

/* Numbers, as JSON and as strings the model sends: what JSON writes, no
 * hex, inf or nan. */
static void
testnumbers(void)
{
	static const struct {
		const char *json;
		int ok;
		double want;
	} c[] = {
		{ "[1.5]", 0, 1.5 }, { "[-0.25]", 0, -0.25 },
		{ "[1e3]", 0, 1000 }, { "[2E-2]", 0, 0.02 },
		{ "[9007199254740993]", 0, 9007199254740992.0 },
		{ "[123456789012345678901]", 0, 1.2345678901234568e20 },
		{ "[\"7\"]", 0, 7 }, { "[\" +3 \"]", 0, 3 },
		{ "[\"5.\"]", 0, 5 }, { "[\"0x10\"]", -1, 0 },
		{ "[\"inf\"]", -1, 0 }, { "[\"nan\"]", -1, 0 },
		{ "[\"-\"]", -1, 0 }, { "[\"1e\"]", -1, 0 },
		{ "[\"1 2\"]", -1, 0 }, { "[\"\"]", -1, 0 },
	};
	size_t i;
	double d, err;
	Json j;

	for (i = 0; i < LEN(c); i++) {
		d = -1;
		if (jsonparse(&j, c[i].json, strlen(c[i].json)) < 0) {
			T(0, "number %s: not parsed", c[i].json);
			continue;
		}
		if (jsonnum(&j, jsonat(&j, 0, 0), &d) != c[i].ok) {
			T(0, "number %s: %s", c[i].json, c[i].ok ? "taken" :
			  "refused");
		} else {
			err = d - c[i].want;
			err = err < 0 ? -err : err;
			T(c[i].ok || err <= 1e-15 * (c[i].want < 0 ?
			  -c[i].want : c[i].want + 1),
			  "number %s: %s %.17g", c[i].json, c[i].ok ?
			  "refused" : "is", d);
		}
		jsonfree(&j);
	}
	d = 0;
	jsonparse(&j, "[1e999]", 7);
	T(jsonnum(&j, jsonat(&j, 0, 0), &d) == 0 && d > 1e308,
	  "number 1e999: past the largest double, for the caller to refuse");
	jsonfree(&j);
}

/* The value jsonmembers found for m, as a string ("" if none). */
static int
at(const char *s, const Jmember *m, const char *want)
{
	size_t n = strlen(want);

	if (!m->at)
		return !n && !m->len;
	return m->len == n && !memcmp(s + m->at, want, n);
}

static void
testmembers(void)
{
	enum { TYPE, ID, MSG, ROLE };
	Jmember m[] = {
		{ "type", -1, 0, 0 }, { "id", -1, 0, 0 },
		{ "message", -1, 0, 0 }, { "role", MSG, 0, 0 }
	};
	const char *s;

	s = "{\"type\":\"message\",\"id\":\"a\\\"b\",\"message\":"
	    "{\"content\":[{\"role\":\"no\"}],\"role\":\"user\"}}";
	T(jsonmembers(s, strlen(s), m, LEN(m)) == 0 &&
	  at(s, &m[TYPE], "\"message\"") && at(s, &m[ID], "\"a\\\"b\"") &&
	  at(s, &m[MSG], "{\"content\":[{\"role\":\"no\"}],"
	     "\"role\":\"user\"}") && at(s, &m[ROLE], "\"user\""),
	  "members: found, escapes kept, a role deeper down not taken");
	s = " {\"message\" :\t{ \"role\" : 1.5e3 } , \"a\":{\"type\":2},"
	    "\"\\u0069d\":[1, \"}\"],\"type\":null,\"id\":7} ";
	T(jsonmembers(s, strlen(s), m, LEN(m)) == 0 &&
	  at(s, &m[MSG], "{ \"role\" : 1.5e3 }") && at(s, &m[ROLE], "1.5e3") &&
	  at(s, &m[ID], "[1, \"}\"]") && at(s, &m[TYPE], "null"),
	  "members: white space, any order, a key with escapes, the first "
	  "of two, a nested type not taken");
	s = "{\"message\":\"text\",\"x\":{\"message\":{\"role\":1}}}";
	T(jsonmembers(s, strlen(s), m, LEN(m)) == 0 &&
	  at(s, &m[MSG], "\"text\"") && at(s, &m[ROLE], "") &&
	  at(s, &m[TYPE], ""),
	  "members: a message inside another member is not the message");
	s = "{\"id\":[],\"message\":{},\"type\":{\"a\":[]}}";
	T(jsonmembers(s, strlen(s), m, LEN(m)) == 0 && at(s, &m[ID], "[]") &&
	  at(s, &m[MSG], "{}") && at(s, &m[TYPE], "{\"a\":[]}"),
	  "members: empty containers end where they close");
	s = "[{\"message\":{\"role\":1}},{\"type\":1}]";
	T(jsonmembers(s, strlen(s), m, LEN(m)) == 0 && at(s, &m[MSG], "") &&
	  at(s, &m[TYPE], ""), "members: none in an array");
	s = "{\"type\":\"message\",\"id\":\"a\"";
	T(jsonmembers(s, strlen(s), m, LEN(m)) < 0 && at(s, &m[TYPE], ""),
	  "members: a torn line is refused, nothing found");
	s = "{\"type\":\"m\",\"id\":\"a\"},";
	T(jsonmembers(s, strlen(s), m, LEN(m)) < 0,
	  "members: junk after the value is refused");
}

int
main(void)
{
	testmembers();
	testvalid();
	testlookup();
	testunescape();
	testwrite();
	testraw();
	testdeep();
	testnumbers();
	return tfail != 0;
}
