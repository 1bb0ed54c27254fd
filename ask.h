/* See LICENSE file for copyright and license details. */
/* ask.h: asking the model: one request, signed if need be, its answer
 * streamed, tried again when that may succeed */
#include <signal.h>

/* config.h's bounds on asking (its askconf). */
typedef struct {
	const Price *prices;	/* the models' prices */
	size_t nprices;
	size_t maxerrbody;	/* bytes of an error body kept */
	size_t maxevent;	/* bytes of one streamed event */
	size_t maxkeep;		/* bytes of one answer kept */
	int maxcalls;		/* tool calls kept from one answer */
	int maxattempts;	/* tries of one request */
	int retrybase;		/* milliseconds before the first retry */
	int retrymax;		/* seconds: a longer Retry-After gives up */
} Askconf;

/* Where and how to ask, set up once. */
typedef struct {
	const char *url;	/* the provider's base URL, without the
				 * endpoint */
	const char *key;	/* its API key, or NULL */
	const char *headers;	/* the provider row's extra header lines */
	const char *query;	/* and its query, or NULL */
	struct Gauth *gauth;	/* whose token is the key, or NULL */
	Httpclient *http;
	struct Rec *rec;	/* what records or replays the exchanges, or
				 * NULL */
	const struct Sigv4 *aws;	/* Bedrock without a key: the
					 * credentials each request is signed
					 * with (SigV4), or NULL */
	Events *ev;		/* what shows the answer as it comes */
	int json;		/* -j: the pieces as events */
	volatile sig_atomic_t *intr;	/* set: stop at once */
	const Askconf *conf;	/* config.h's askconf */
	void (*sent)(void *arg, const char *end);	/* Http's: the body */
	void *sentarg;		/* as it goes, or NULL */
} Ask;

/* One model call: its exchange, and what streamed back. */
typedef struct {
	Wire w;			/* the answer */
	Buf err;		/* an error body, the start of a body that is
				 * no stream, or why the stream was cut */
	Buf why;		/* why it failed, as said on stderr */
	int overflow;		/* the provider says the context is too long */
	int silent;		/* an answer for us, not the user: a summary */
	Http *http;
	Sse sse;
	Es es;			/* or AWS's frames, as Bedrock streams */
	const Ask *ask;
} Reply;

int askmodel(const Ask *k, const Wirereq *q, Reply *r, Http *h, int silent);
void askfree(Reply *r);
