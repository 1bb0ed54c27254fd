/* See LICENSE file for copyright and license details. */
/* responses.h: OpenAI's Responses */

int respevent(Wire *w, const char *data, size_t len);
void respform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void respbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
int respstore(Buf *b, const Wire *w);
