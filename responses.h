/* See LICENSE file for copyright and license details. */
/* responses.h: OpenAI's Responses wire: its stream, forms and body */

/* One SSE event's data into w: its pieces passed to w->fn and kept,
 * the calls, usage and end; nonzero stops the stream. */
int respevent(Wire *w, const char *data, size_t len);
void respform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void respbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
int respstore(Buf *b, const Wire *w);
