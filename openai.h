/* See LICENSE file for copyright and license details. */
/* openai.h: OpenAI's chat completions wire: its stream, forms and body */

/* One SSE event's data into w: its pieces passed to w->fn and kept,
 * the calls, usage and end; nonzero stops the stream. */
int openaievent(Wire *w, const char *data, size_t len);
void openaiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void openaibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
