/* See LICENSE file for copyright and license details. */
/* eventstream.h: AWS's binary event-stream framing (application/
 * vnd.amazon.eventstream), a push parser with no I/O: a message's
 * headers and payload point into the parser's buffer, valid during the
 * callback alone */
#include <stddef.h>

/* A header value's type, as the frame numbers them. */
enum { ESTRUE, ESFALSE, ESBYTE, ESSHORT, ESINT, ESLONG, ESBYTES, ESSTRING,
       ESTIME, ESUUID };

typedef struct {
	const char *name;
	size_t namelen;
	int type;		/* ESTRUE ... ESUUID */
	long long num;		/* bool (1, 0), byte ... long, time (ms) */
	const char *p;		/* bytes, string, uuid: not NUL-ended */
	size_t len;
} Eshead;

enum { ESMAXHEAD = 32 };	/* headers of one message */

typedef int (*Esfn)(void *arg, const Eshead *h, int nh, const char *payload,
                    size_t len);

typedef struct {
	Buf msg;		/* the message being read */
	size_t max;		/* bytes of one message, 0 for no bound */
	Esfn fn;
	void *arg;
	char err[96];		/* why a frame was refused */
} Es;

enum { ESBAD = -3, ESBIG = -2 };	/* esfeed: a bad frame (err says
					 * why), one over max */

void esinit(Es *s, Esfn fn, void *arg);
int esfeed(Es *s, const char *p, size_t n);
int esend(Es *s);
void esfree(Es *s);
const Eshead *eshead(const Eshead *h, int nh, const char *name);
int esis(const Eshead *h, const char *s);
unsigned long escrc(unsigned long crc, const void *p, size_t n);
