/* See LICENSE file for copyright and license details. */
/* test/json.c: unit tests of json.c. */
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "t.h"

static int
parses(const char *s)
{
	Json j;
	int r = jsonparse(&j, s, strlen(s));

	jsonfree(&j);
	return r == 0;
}

static int
parses_n(const char *s, size_t n)
{
	Json j;
	int r = jsonparse(&j, s, n);

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

/* Strings are scanned eight bytes at a time: each stop byte (the quote,
 * a backslash, a control byte) is seen at every place in a word, the
 * string at every alignment, and bytes next to the stop bytes' values
 * are not taken for them. */
static void
testscan(void)
{
	static const char ctl[] = { 0, 1, '\n', 0x1f };
	static const char plain[] = { ' ', '!', '#', '[', ']', 0x7f,
	                              (char)0x80, (char)0xa2, (char)0xdc,
	                              (char)0xff };
	char s[64], *str;
	Json j;
	size_t a, len, at, k;
	int bad = 0;

	for (a = 0; a < 8; a++)
		for (len = 0; len < 24; len++) {
			/* ["<len bytes>","x"]: the quote ends it */
			memset(s, ' ', a);
			memcpy(s + a, "[\"", 2);
			memset(s + a + 2, 'q', len);
			memcpy(s + a + 2 + len, "\",\"x\"]", 6);
			if (jsonparse(&j, s, a + 8 + len) < 0 ||
			    j.t[1].end - j.t[1].start != (int)len)
				bad++;
			jsonfree(&j);
			for (at = 0; at < len; at++) {
				for (k = 0; k < LEN(ctl); k++) {
					s[a + 2 + at] = ctl[k];
					bad += parses_n(s, a + 8 + len);
				}
				for (k = 0; k < LEN(plain); k++) {
					s[a + 2 + at] = plain[k];
					bad += !parses_n(s, a + 8 + len);
				}
				s[a + 2 + at] = 'q';
			}
		}
	T(!bad, "strings at 8 alignments, 0 to 23 bytes: each control "
	  "byte refused and each byte near a stop taken, at every place "
	  "(%d wrong)", bad);
	bad = 0;
	for (a = 0; a < 8; a++)
		for (at = 0; at < 20; at++) {
			/* escapes at every place, across the words' ends; an
			 * escaped quote does not end the string */
			snprintf(s, sizeof(s), "%*s\"%.*s\\u00e9\\\"%.*s\"",
			         (int)a, "", (int)at, "abcdefghijklmnopqrst",
			         (int)(19 - at), "abcdefghijklmnopqrst");
			if (jsonparse(&j, s, strlen(s)) < 0) {
				bad++;
				continue;
			}
			str = jsonstr(&j, 0);
			if (!str || strlen(str) != 22 ||
			    memcmp(str + at, "\xc3\xa9\"", 3))
				bad++;
			free(str);
			jsonfree(&j);
			/* and cut short inside it */
			s[a + 1 + at + 4] = '"';
			s[a + 1 + at + 5] = '\0';
			bad += parses(s);
		}
	T(!bad, "escapes at every place and alignment: read, and refused "
	  "cut short (%d wrong)", bad);
}

static void
testkeys(void)
{
	static const char *const keys[] = {
		"b", "key", "a", "none", "c", "d", ""
	};
	const char *s = "{\"a\":{\"b\":1},\"b\":[2,{\"c\":3}],\"k\\u0065y\":4,"
	                "\"b\":5,\"c\":6,\"\\u0064\":7,\"\":8}";
	const char *big = "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,"
	                  "20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,"
	                  "36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,"
	                  "52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67]";
	Json j = { 0 };
	int v[LEN(keys)], k, ok = 1;
	double d;

	T(jsonreparse(&j, s, strlen(s)) == 0, "reparse into a zeroed Json");
	jsonkeys(&j, 0, keys, LEN(keys), v);
	for (k = 0; k < (int)LEN(keys); k++)
		ok &= v[k] == jsonget(&j, 0, keys[k]);
	T(ok && v[0] > 0 && j.t[v[0]].type == JARR && v[3] == -1 &&
	  v[5] > 0 && v[6] > 0, "jsonkeys: as jsonget each, in one walk (the "
	  "first of a repeated key, escaped ones, the empty one, none from "
	  "a nested object)");
	jsonkeys(&j, v[0], keys, LEN(keys), v);
	T(v[0] == -1 && v[1] == -1 && v[4] == -1, "jsonkeys: no object");
	T(jsonreparse(&j, big, strlen(big)) == 0 && j.n == 68 &&
	  jsonnum(&j, jsonat(&j, 0, 66), &d) == 0 && d == 67,
	  "reparse a document of more tokens than the last");
	T(jsonreparse(&j, "[1,]", 4) == -1 && j.n == 0,
	  "reparse refuses bad JSON and holds no tokens");
	T(jsonreparse(&j, "7", 1) == 0 && j.n == 1 && j.t[0].size == 0 &&
	  jsonnum(&j, 0, &d) == 0 && d == 7 && j.cap == 68,
	  "reparse a lone number into the array kept");
	jsonkeys(&j, 0, keys, LEN(keys), v);
	T(v[0] == -1 && v[2] == -1, "jsonkeys: a number is no object");
	jsonfree(&j);
}

/* Whether jsonreparse makes of s what jsonparse makes: both refuse it or
 * both give the same tokens. */
static int
reparsed(Json *r, const char *s)
{
	Json j;
	int a = jsonreparse(r, s, strlen(s)), b = jsonparse(&j, s, strlen(s));
	int same = a == b && (a || (r->n == j.n &&
	           !memcmp(r->t, j.t, j.n * sizeof(*j.t))));

	jsonfree(&j);
	return same;
}

/* jsonreparse reads a document's start as the last one left jsmn, where
 * the two start the same way: cut in a key, a string, a number, a
 * literal, after an escape, in a container; longer and shorter; refused
 * ones between. */
static void
teststream(void)
{
	static const char *docs[] = {
		"{\"id\":\"c1\",\"n\":17,\"d\":{\"text\":\"ab\"},\"f\":null}",
		"{\"id\":\"c1\",\"n\":17,\"d\":{\"text\":\"abc\"},\"f\":null}",
		"{\"id\":\"c1\",\"n\":17,\"d\":{\"text\":\"a\\u00e9\"},"
		"\"f\":\"stop\"}",
		"{\"id\":\"c1\",\"n\":170,\"d\":{},\"f\":true}",
		"{\"id\":\"c1\",\"n\":1,\"d\":{\"text\":\"ab\"}}",
		"{\"id\":\"c1\",\"n\":17,\"d\":{\"text\":\"ab\"},\"f\":nul}",
		"{\"id\":\"c1\",\"n\":17,\"d\":{\"text\":\"ab\"},\"f\":null} ",
		"{\"id\":\"c2\"}",
		"[\"c1\",17,[{\"text\":\"ab\"}],null]",
		"[\"c1\",17,[{\"text\":\"ab\"}],nulls]",
		"[\"c1\",17,[{\"text\":\"ab\"}],null,[]]",
		"\"c1\"", "17", "[]", "{}", "",
	};
	Json r = { 0 };
	size_t a, b, c;
	int bad = 0;

	for (a = 0; a < LEN(docs); a++)
		for (b = 0; b < LEN(docs); b++)
			for (c = 0; c < LEN(docs); c++)
				bad += !reparsed(&r, docs[a]) +
				       !reparsed(&r, docs[b]) +
				       !reparsed(&r, docs[c]);
	T(!bad, "reparse: documents that start alike, in every order of "
	  "three, as parsed alone (%d differ)", bad);
	jsonfree(&r);
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

/* canon: one line, strings unescaped and escaped only as JSON needs. */
static void
testcanon(void)
{
	static const char *const io[][2] = {
		{ "{\"command\":\n  \"\\u0072m -rf x\"}",
		  "{\"command\":\"rm -rf x\"}" },
		{ " [ 1 , -2.5e3 , true , null , \"\\/\" ] ",
		  "[1,-2.5e3,true,null,\"/\"]" },
		{ "{\"a\\u0062\": {\"c\": []}, \"d\": {}}",
		  "{\"ab\":{\"c\":[]},\"d\":{}}" },
		{ "\"tab\\tnl\\ncr\\r\\u0001\\\"\\\\\"",
		  "\"tab\\tnl\\ncr\\r\\u0001\\\"\\\\\"" },
		{ "\"\\u00e9\\ud83c\\udf89\"", "\"\xc3\xa9\xf0\x9f\x8e\x89\"" },
		{ "\"x\xffy\"", "\"x\xef\xbf\xbdy\"" },
		{ "\"a\\u0000b\"", "\"a\\u0000b\"" },
		{ "7", "7" },
	};
	Json j;
	Buf b = { 0 };
	size_t i;

	for (i = 0; i < LEN(io); i++) {
		bufreset(&b);
		if (jsonparse(&j, io[i][0], strlen(io[i][0])) < 0) {
			T(0, "canon: parse %s", io[i][0]);
			continue;
		}
		jsoncanon(&b, &j, 0);
		T(!strcmp(bstr(&b), io[i][1]) && !memchr(b.p, '\n', b.len),
		  "canon: %s -> %s", io[i][1], bstr(&b));
		jsonfree(&j);
	}
	buffree(&b);
}

/* dupkey: a key twice in any object, by its unescaped text. */
static void
testdupkey(void)
{
	static const struct {
		const char *s, *key;
	} t[] = {
		{ "{\"command\":\"echo ok\",\"command\":\"rm -rf x\"}",
		  "command" },
		{ "{\"command\":\"a\",\"comm\\u0061nd\":\"b\"}", "command" },
		{ "{\"a\":{\"b\":1,\"c\":2,\"b\":3}}", "b" },
		{ "[{\"x\":1},{\"x\":2,\"y\":{\"x\":3}}]", NULL },
		{ "{\"a\":\"a\",\"b\":[\"a\",\"a\"]}", NULL },
		{ "{\"a\":{\"a\":{\"a\":1}}}", NULL },
		{ "{}", NULL },
		{ "\"a\"", NULL },
	};
	Json j;
	Buf k = { 0 };
	size_t i;
	int d;

	for (i = 0; i < LEN(t); i++) {
		bufreset(&k);
		if (jsonparse(&j, t[i].s, strlen(t[i].s)) < 0) {
			T(0, "dupkey: parse %s", t[i].s);
			continue;
		}
		d = jsondupkey(&j, &k);
		T(t[i].key ? d && !strcmp(bstr(&k), t[i].key) : !d,
		  "dupkey: %s: %s", t[i].s, d ? bstr(&k) : "none");
		jsonfree(&j);
	}
	buffree(&k);
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

/* jsonparseknown makes of a text known to be JSON what jsonparse makes:
 * with the guess of its tokens enough and short, white space first, a
 * lone value; a torn text is still refused (jsmn lets a missing or extra
 * comma through: it is only for texts known to be JSON). */
static void
testknown(void)
{
	static const char *docs[] = {
		"{\"role\":\"toolResult\",\"content\":[{\"type\":\"text\","
		"\"text\":\"a\\nb\"}],\"isError\":false}",
		"[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22]",
		"  \n{\"a\":[[],{},[{}],\"x\"]}",
		"\"lone\"", "12", "{\"a\":[1,", "{", "",
	};
	Buf big = { 0 };
	Json a, b;
	size_t k;
	int ok = 1, ra, rb, i;

	bufaddc(&big, '[');
	for (i = 0; i < 3000; i++)	/* far more tokens than bytes / 16 */
		bufadds(&big, i ? ",0" : "0");
	bufaddc(&big, ']');
	for (k = 0; k <= LEN(docs); k++) {
		const char *s = k < LEN(docs) ? docs[k] : big.p;

		ra = jsonparseknown(&a, s, strlen(s));
		rb = jsonparse(&b, s, strlen(s));
		ok &= ra == rb && (ra || (a.n == b.n &&
		      !memcmp(a.t, b.t, a.n * sizeof(*a.t))));
		if (!ra)
			jsonfree(&a);
		if (!rb)
			jsonfree(&b);
	}
	T(ok, "parseknown: the tokens jsonparse makes, and its refusals");
	buffree(&big);
}

/* jsonmembersof: whether every string is as jsonesc writes it: ASCII,
 * with \u only for the control characters that have no short form, in
 * lower case, and no \/ */
static void
testplain(void)
{
	static const struct { const char *s; int plain; } c[] = {
		{ "{\"a\":\"x\\n\\t\\\"\\\\y\"}", 1 },
		{ "{\"a\":\"\\u001b[0m\",\"b\":[\"\\u0000\"]}", 1 },
		{ "{\"a\":\"\\u000a\"}", 0 },
		{ "{\"a\":\"\\u001B\"}", 0 },
		{ "{\"a\":\"\\u00e9\"}", 0 },
		{ "{\"a\":\"a\\/b\"}", 0 },
		{ "{\"a\":\"caf\xc3\xa9 au lait, long enough\"}", 0 },
		{ "{\"\xc3\xa9\":1}", 0 },
		{ "{\"a\":1,\"b\":[true,null,\"plain text, some length\"]}",
		  1 },
	};
	Jmember m[] = { { "a", -1, 0, 0 } };
	unsigned fl;
	size_t i;

	for (i = 0; i < LEN(c); i++)
		T(jsonmembersof(c[i].s, strlen(c[i].s), m, 1, &fl) == 0 &&
		  (!(fl & JSONNOTPLAIN)) == c[i].plain,
		  "plain: %s %s", c[i].s, c[i].plain ? "is" : "is not");
}

int
main(void)
{
	testknown();
	testmembers();
	testplain();
	testvalid();
	testlookup();
	testscan();
	testkeys();
	teststream();
	testunescape();
	testwrite();
	testraw();
	testcanon();
	testdupkey();
	testdeep();
	testnumbers();
	return tfail != 0;
}
