/* See LICENSE file for copyright and license details. */
/* gemini.h: Google's Gemini wire (generateContent): its stream, forms
 * and body */

/* One SSE event's data into w: its pieces passed to w->fn and kept,
 * the calls, usage and end; nonzero stops the stream. */
int geminievent(Wire *w, const char *data, size_t len);
void geminiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void geminibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
int geministore(Buf *b, const Wire *w);
