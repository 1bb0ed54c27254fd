/* See LICENSE file for copyright and license details. */
/* noschema.c: schema.c's stand-in in a build without -o (make tiny): a
 * schema asked for is a bad flag, said before any request. */
#include <stddef.h>

#include "util.h"
#include "json.h"
#include "regex.h"
#include "schema.h"

int
schemaload(Schema *s, const char *text, size_t len, Buf *why)
{
	(void)s;
	(void)text;
	(void)len;
	bufadds(why, "JSON Schemas are not in this build");
	return -1;
}

int
schemafile(Schema *s, const char *path, size_t max, Buf *why)
{
	(void)path;
	(void)max;
	return schemaload(s, NULL, 0, why);
}

int
schemacheck(const Schema *s, const Json *doc, int i, Buf *why)
{
	(void)s;
	(void)doc;
	(void)i;
	(void)why;
	return 0;
}

int
schemaanswer(const Schema *s, const char *text, size_t len, Buf *doc,
             Buf *why)
{
	(void)s;
	(void)why;
	bufadd(doc, text, len);
	return 0;
}

void
schemaprompt(Buf *b, const Schema *s)
{
	(void)b;
	(void)s;
}

void
schemaretry(Buf *b, const char *why)
{
	(void)b;
	(void)why;
}

void
schemafree(Schema *s)
{
	(void)s;
}
