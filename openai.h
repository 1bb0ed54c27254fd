/* See LICENSE file for copyright and license details. */
/* openai.h: chat completions */

int openaievent(Wire *w, const char *data, size_t len);
void openaiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void openaibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
