/* See LICENSE file for copyright and license details. */
/* sse.h: server-sent events push parser; an event's data may point into
 * the bytes fed, with no NUL after it: len says where it ends */
#include <stddef.h>

typedef int (*Ssefn)(void *arg, const char *event, const char *data,
                     size_t len);

typedef struct {
	Buf line, data, event;
	int gotdata;	/* a data field was seen in this event */
	int cr;		/* the last byte fed was a CR */
	int bom;	/* still at the very start: a BOM may follow */
	size_t max;	/* bytes of one event, 0 for no bound */
	Ssefn fn;
	void *arg;
} Sse;

enum { SSEBIG = -2 };	/* ssefeed: an event over max bytes */

void sseinit(Sse *s, Ssefn fn, void *arg);
int ssefeed(Sse *s, const char *p, size_t n);
int sseend(Sse *s);
void ssefree(Sse *s);
