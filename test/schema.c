/* See LICENSE file for copyright and license details. */
/* test/schema.c: schema.c's reading of schemas, and its check of
 * documents against them: each keyword, the words and pointer of a
 * mismatch, what the providers' strict modes are told. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "../schema.h"
#include "t.h"

static Buf why;

/* The words of doc's check against schema: "" a match, "bad schema: ..."
 * a schema refused, "bad document" no JSON. */
static const char *
words(const char *schema, const char *doc)
{
	Schema s;
	Json d;

	bufreset(&why);
	if (schemaload(&s, schema, strlen(schema), &why) < 0) {
		bufadds(&why, " (bad schema)");
		return why.p;
	}
	if (jsonparse(&d, doc, strlen(doc)) < 0) {
		schemafree(&s);
		return "bad document";
	}
	if (schemacheck(&s, &d, 0, &why) == 0)
		bufreset(&why);
	jsonfree(&d);
	schemafree(&s);
	return bstr(&why);
}

/* check that doc's words against schema are want */
#define W(schema, doc, want) do { \
	const char *got_ = words(schema, doc); \
	T(!strcmp(got_, want), "%s against %s: \"%s\" (want \"%s\")", doc, \
	  schema, got_, want); \
} while (0)

static void
types(void)
{
	W("{\"type\":\"string\"}", "\"a\"", "");
	W("{\"type\":\"string\"}", "1", "/: expected string, got number");
	W("{\"type\":\"number\"}", "1.5", "");
	W("{\"type\":\"integer\"}", "2", "");
	W("{\"type\":\"integer\"}", "2.0", "");
	W("{\"type\":\"integer\"}", "2.5",
	  "/: expected integer, got number");
	W("{\"type\":\"boolean\"}", "false", "");
	W("{\"type\":\"boolean\"}", "null", "/: expected boolean, got null");
	W("{\"type\":\"null\"}", "null", "");
	W("{\"type\":\"array\"}", "{}", "/: expected array, got object");
	W("{\"type\":\"object\"}", "[]", "/: expected object, got array");
	/* nullable, as strict mode writes it */
	W("{\"type\":[\"string\",\"null\"]}", "null", "");
	W("{\"type\":[\"string\",\"null\"]}", "\"x\"", "");
	W("{\"type\":[\"string\",\"null\"]}", "true",
	  "/: expected string or null, got boolean");
	W("{}", "[1,{\"a\":null}]", "");
}

static void
objects(void)
{
	const char *s = "{\"type\":\"object\",\"properties\":{"
	    "\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"}},"
	    "\"required\":[\"name\"],\"additionalProperties\":false}";
	const char *open = "{\"type\":\"object\",\"properties\":{"
	    "\"a\":{\"type\":\"string\"}},"
	    "\"additionalProperties\":{\"type\":\"number\"}}";

	W(s, "{\"name\":\"x\",\"age\":3}", "");
	W(s, "{\"name\":\"x\"}", "");
	W(s, "{\"age\":3}", "/: the required property \"name\" is missing");
	W(s, "{\"name\":\"x\",\"agee\":3}",
	  "/: property \"agee\" is not allowed");
	W(s, "{\"name\":7}", "/name: expected string, got number");
	W(s, "{\"name\":\"x\",\"age\":\"3\"}",
	  "/age: expected integer, got string");
	W(open, "{\"a\":\"x\",\"b\":1}", "");
	W(open, "{\"a\":\"x\",\"b\":\"y\"}",
	  "/b: expected number, got string");
	W("{\"additionalProperties\":true}", "{\"z\":1}", "");
	/* a key's ~ and / escaped in the pointer, as RFC 6901 has it */
	W("{\"properties\":{\"a/b~\":{\"type\":\"null\"}}}", "{\"a/b~\":0}",
	  "/a~1b~0: expected null, got number");
}

static void
arrays(void)
{
	const char *s = "{\"type\":\"object\",\"properties\":{\"items\":"
	    "{\"type\":\"array\",\"items\":{\"type\":\"object\","
	    "\"properties\":{\"name\":{\"type\":\"string\"}}}}}}";
	const char *n = "{\"type\":\"array\",\"minItems\":1,\"maxItems\":2}";

	W(s, "{\"items\":[{\"name\":\"a\"},{},{\"name\":\"c\"}]}", "");
	W(s, "{\"items\":[{\"name\":\"a\"},{},{\"name\":3}]}",
	  "/items/2/name: expected string, got number");
	W(n, "[1]", "");
	W(n, "[1,2]", "");
	W(n, "[]", "/: 0 items, fewer than minItems 1");
	W(n, "[1,2,3]", "/: 3 items, more than maxItems 2");
	W("{\"items\":false}", "[]", "");
	W("{\"items\":false}", "[0]", "/0: no value is allowed here");
}

static void
values(void)
{
	W("{\"enum\":[\"yes\",\"no\",null,1]}", "\"no\"", "");
	W("{\"enum\":[\"yes\",\"no\",null,1]}", "null", "");
	W("{\"enum\":[\"yes\",\"no\",null,1]}", "1.0", "");
	W("{\"enum\":[\"yes\",\"no\"]}", "\"maybe\"",
	  "/: expected one of [\"yes\",\"no\"], got \"maybe\"");
	W("{\"enum\":[{\"a\":[1,2],\"b\":\"\\u0041\"}]}",
	  "{\"b\":\"A\",\"a\":[1,2]}", "");
	W("{\"enum\":[{\"a\":[1,2]}]}", "{\"a\":[2,1]}",
	  "/: expected one of [{\"a\":[1,2]}], got {\"a\":[2,1]}");
	W("{\"const\":\"v1\"}", "\"v1\"", "");
	W("{\"const\":\"v1\"}", "\"v2\"", "/: expected \"v1\", got \"v2\"");
	W("{\"const\":false}", "0", "/: expected false, got 0");
}

static void
bounds(void)
{
	const char *n = "{\"minimum\":1,\"maximum\":10}";
	const char *x = "{\"exclusiveMinimum\":0,\"exclusiveMaximum\":1}";
	const char *s = "{\"minLength\":2,\"maxLength\":3}";

	W(n, "1", "");
	W(n, "10", "");
	W(n, "0.5", "/: 0.5 is below the minimum 1");
	W(n, "11", "/: 11 is over the maximum 10");
	W(n, "\"11\"", "");	/* a string: the bounds are for numbers */
	W(x, "0.5", "");
	W(x, "0", "/: 0 is not over 0");
	W(x, "1", "/: 1 is not below 1");
	W("{\"minimum\":1,\"exclusiveMinimum\":true}", "1",
	  "/: 1 is below the minimum 1");
	W(s, "\"ab\"", "");
	W(s, "\"\xc3\xa9t\xc3\xa9\"", "");	/* 3 code points, 5 bytes */
	W(s, "\"a\"", "/: 1 characters, fewer than minLength 2");
	W(s, "\"abcd\"", "/: 4 characters, more than maxLength 3");
	W("{\"pattern\":\"^[a-z]+-[0-9]+$\"}", "\"abc-12\"", "");
	W("{\"pattern\":\"^[a-z]+-[0-9]+$\"}", "\"abc-\"",
	  "/: does not match the pattern \"^[a-z]+-[0-9]+$\"");
	/* ECMA's \\d is no ERE: left to the provider */
	W("{\"pattern\":\"^\\\\d+$\"}", "\"x\"", "");
}

static void
combined(void)
{
	const char *any = "{\"anyOf\":[{\"type\":\"string\"},"
	    "{\"type\":\"object\",\"required\":[\"id\"]}]}";

	W(any, "\"a\"", "");
	W(any, "{\"id\":1}", "");
	W(any, "{\"di\":1}", "/: matches none of anyOf (the first: "
	  "/: expected string, got object)");
	W("{\"properties\":{\"v\":{\"anyOf\":[{\"type\":\"integer\"},"
	  "{\"type\":\"null\"}]}}}", "{\"v\":\"1\"}",
	  "/v: matches none of anyOf (the first: /v: expected integer, "
	  "got string)");
	W("{\"allOf\":[{\"minimum\":1},{\"maximum\":2}]}", "3",
	  "/: 3 is over the maximum 2");
	W("{\"oneOf\":[{\"minimum\":1},{\"maximum\":2}]}", "0", "");
	W("{\"oneOf\":[{\"minimum\":1},{\"maximum\":2}]}", "1.5",
	  "/: matches 2 of oneOf, not one");
}

static void
refs(void)
{
	const char *tree = "{\"$defs\":{\"node\":{\"type\":\"object\","
	    "\"properties\":{\"v\":{\"type\":\"integer\"},\"kids\":{\"type\":"
	    "\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}}}},"
	    "\"$ref\":\"#/$defs/node\"}";
	const char *loop = "{\"definitions\":{\"a\":{\"$ref\":"
	    "\"#/definitions/a\"}},\"$ref\":\"#/definitions/a\"}";

	W(tree, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[]},{\"v\":3}]}", "");
	W(tree, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{\"v\":\"x\"}]}]}",
	  "/kids/0/kids/0/v: expected integer, got string");
	W("{\"properties\":{\"a\":{\"$ref\":\"#\"}}}", "{\"a\":{\"a\":{}}}",
	  "");
	W(loop, "1", "/: nested too deep to check");
}

static void
badschemas(void)
{
	W("{\"type\":", "1", "not JSON (bad schema)");
	W("[]", "1", "/: a schema is an object, not array (bad schema)");
	W("{\"type\":\"strin\"}", "1",
	  "/type: unknown type \"strin\" (bad schema)");
	W("{\"type\":[]}", "1", "/type: an empty list of types (bad schema)");
	W("{\"properties\":{\"a\":{\"type\":[\"string\",7]}}}", "1",
	  "/properties/a/type: unknown type 7 (a type is a string) "
	  "(bad schema)");
	W("{\"required\":\"a\"}", "1",
	  "/required: expected an array of strings (bad schema)");
	W("{\"required\":[\"a\",1]}", "1",
	  "/required/1: expected a string, got number (bad schema)");
	W("{\"properties\":[]}", "1", "/properties: expected an object of "
	  "schemas, got array (bad schema)");
	W("{\"anyOf\":[]}", "1",
	  "/anyOf: expected an array of one schema or more (bad schema)");
	W("{\"items\":3}", "1",
	  "/items: a schema is an object, not number (bad schema)");
	W("{\"minLength\":-1}", "1", "/minLength: expected a whole number, "
	  "0 or more, got -1 (bad schema)");
	W("{\"maximum\":\"9\"}", "1",
	  "/maximum: expected a number, got string (bad schema)");
	W("{\"enum\":1}", "1", "/enum: expected an array, got number "
	  "(bad schema)");
	W("{\"$ref\":\"#/$defs/x\"}", "1", "/$ref: \"#/$defs/x\" names no "
	  "schema here: \"#\", \"#/$defs/NAME\" or \"#/definitions/NAME\" "
	  "(bad schema)");
	W("{\"description\":1,\"format\":\"date\",\"title\":[]}", "1", "");
}

/* what the providers' strict modes are told */
static void
flags(void)
{
	static const struct {
		const char *schema;
		int strict, plain;
	} c[] = {
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"string\"}},\"required\":[\"a\"],"
		  "\"additionalProperties\":false}", 1, 1 },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"string\"}},\"additionalProperties\":false}", 0, 1 },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"string\"}},\"required\":[\"a\"]}", 0, 0 },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"object\",\"properties\":{}}},\"required\":[\"a\"],"
		  "\"additionalProperties\":false}", 0, 0 },
		{ "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":"
		  "\"integer\",\"minimum\":1}},\"required\":[\"a\"],"
		  "\"additionalProperties\":false}", 1, 0 },
		{ "{\"type\":\"array\"}", 0, 0 },
	};
	Schema s;
	size_t i;

	for (i = 0; i < LEN(c); i++) {
		bufreset(&why);
		if (schemaload(&s, c[i].schema, strlen(c[i].schema), &why)) {
			T(0, "flags %zu: %s", i, why.p);
			continue;
		}
		T(s.strict == c[i].strict && s.plain == c[i].plain,
		  "flags %zu: strict %d plain %d", i, s.strict, s.plain);
		schemafree(&s);
	}
}

/* an answer: one compact line, a single code fence stripped */
static void
answers(void)
{
	const char *sc = "{\"type\":\"object\",\"required\":[\"ok\"]}";
	const char *a;
	Schema s;
	Buf doc = { 0 };

	schemaload(&s, sc, strlen(sc), &why);
	a = "{\n  \"ok\": true,\n  \"why\": \"\\u00e9\"\n}\n";
	T(schemaanswer(&s, a, strlen(a), &doc, &why) == 0 &&
	  !strcmp(bstr(&doc),
	  "{\"ok\":true,\"why\":\"\xc3\xa9\"}"), "compact: %s", bstr(&doc));
	bufreset(&doc);
	T(schemaanswer(&s, "```json\n{\"ok\": 1}\n```\n", 23, &doc, &why) ==
	  0 && !strcmp(bstr(&doc), "{\"ok\":1}"), "fenced: %s", bstr(&doc));
	bufreset(&doc);
	T(schemaanswer(&s, "```\n{\"ok\": 1}```", 16, &doc, &why) == 0 &&
	  !strcmp(bstr(&doc), "{\"ok\":1}"), "bare fence: %s", bstr(&doc));
	bufreset(&doc);
	T(schemaanswer(&s, "Sure! {\"ok\": 1}", 15, &doc, &why) < 0 &&
	  !strcmp(why.p, "the answer is not a JSON document") && !doc.len,
	  "prose: %s", why.p);
	T(schemaanswer(&s, "", 0, &doc, &why) < 0, "empty: %s", why.p);
	T(schemaanswer(&s, "{}", 2, &doc, &why) < 0 && !strcmp(why.p,
	  "/: the required property \"ok\" is missing"), "checked: %s",
	  why.p);
	T(!doc.len, "a mismatch leaves no document: %s", bstr(&doc));
	schemafree(&s);
	/* a byte that is not UTF-8 is printed as U+FFFD: it is that
	 * character the pattern must take (found by fuzz_schema) */
	sc = "{\"pattern\":\"^[^\xef\xbf\xbd]+$\"}";
	schemaload(&s, sc, strlen(sc), &why);
	T(schemaanswer(&s, "\"ab\xe3\"", 5, &doc, &why) < 0 &&
	  strstr(why.p, "does not match the pattern"), "bad UTF-8: %s",
	  why.len ? why.p : bstr(&doc));
	T(schemaanswer(&s, "\"ab\"", 4, &doc, &why) == 0, "plain: %s",
	  why.p);
	schemafree(&s);
	buffree(&doc);
}

int
main(void)
{
	types();
	objects();
	arrays();
	values();
	bounds();
	combined();
	refs();
	badschemas();
	flags();
	answers();
	buffree(&why);
	return tfail != 0;
}
