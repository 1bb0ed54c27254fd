/* See LICENSE file for copyright and license details. */
/* anthropic.h: messages */

int anthropicevent(Wire *w, const char *data, size_t len);
void anthropicform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void anthropicbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
const char *anthropicbeta(const Wirereq *q);
int anthropicstore(Buf *b, const Wire *w);
