/* See LICENSE file for copyright and license details. */
/* schema.h: -o's JSON Schema, read once; answers checked against it */

/* A schema as read, and what the providers' own checks make of it. */
typedef struct {
	char *text;		/* compact, as sent */
	Json j;			/* its tokens, over text */
	int strict;		/* OpenAI's strict mode takes it: each object
				 * closed (additionalProperties false), its
				 * properties all required, no allOf, oneOf */
	int plain;		/* Anthropic's takes it: each object closed,
				 * no bounds but minItems 0 or 1, no oneOf */
} Schema;

int schemaload(Schema *s, const char *text, size_t len, Buf *why);
int schemafile(Schema *s, const char *path, size_t max, Buf *why);
int schemacheck(const Schema *s, const Json *doc, int i, Buf *why);
int schemaanswer(const Schema *s, const char *text, size_t len, Buf *doc,
                 Buf *why);
void schemaprompt(Buf *b, const Schema *s);
void schemaretry(Buf *b, const char *why);
void schemafree(Schema *s);
