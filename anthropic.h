/* See LICENSE file for copyright and license details. */
/* anthropic.h: Anthropic's messages wire, on Anthropic's API and on
 * Bedrock: its stream, forms and body */

/* One SSE event's data into w: its pieces passed to w->fn and kept,
 * the calls, usage and end; nonzero stops the stream. */
int anthropicevent(Wire *w, const char *data, size_t len);
/* Bedrock's: a chunk's payload, the event in it base64'd */
int anthropicbedrock(Wire *w, const char *data, size_t len);
void anthropicform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void anthropicbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
const char *anthropicbeta(const Wirereq *q);
int anthropicstore(Buf *b, const Wire *w);
