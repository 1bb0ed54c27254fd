/* See LICENSE file for copyright and license details. */
/* rpc.h: -r, pi's rpc mode: one JSON command a line on stdin */
#include <signal.h>

/* What serve.c is to do: a prompt, a compaction, a new session, another
 * model, another thinking level, a message to record (the user's bash
 * command's), a fork at a user message, another session, an export. */
enum {
	RPCPROMPT = 1, RPCCOMPACT, RPCNEW, RPCMODEL, RPCLEVEL, RPCRECORD,
	RPCFORK, RPCSWITCH, RPCEXPORT
};
enum { RPCIDLE, RPCTURN, RPCBASH };	/* what runs */

typedef struct {
	int kind;		/* RPCPROMPT, ... */
	char *arg;		/* the prompt, the focus, the model, the level,
				 * the message (JSON), the entry's id or the
				 * path; or NULL */
	char *data;		/* the response's data that serve.c made
				 * (JSON), or NULL */
	char *id;		/* the request's id as JSON, or NULL */
	char *type;		/* the command's name */
} Rpccmd;

typedef struct {
	char **v;
	size_t n, cap;
} Rpcq;

typedef struct {
	/* serve.c's state, shown to the commands that ask about it; what
	 * changes it goes back to serve.c through rpcnext */
	const char *provider;
	char *const *model;	/* the model */
	const int *level;	/* the thinking level */
	int wire;
	const long *context, *maxout;	/* the model's window and output */
	long (*used)(const void *);	/* the context's tokens, of */
	const void *usedarg;	/* this; NULL: not known */
	int autocompact;
	Session *sess;		/* only read: lines from its file too */
	char **const *msgs;	/* the context's messages, */
	size_t *const *lens;	/* their lengths (NULL: each ends in a
				 * NUL), */
	const size_t *nmsgs;	/* and how many */
	Toolenv *tenv;		/* where the bash command runs */
	volatile sig_atomic_t *intr;	/* abort sets it */
	volatile sig_atomic_t *quit;	/* a signal asks us to leave */
	int out;		/* where responses go: 1 */
	/* rpc.c's */
	int busy;		/* RPCIDLE, RPCTURN or RPCBASH */
	int eof;		/* stdin ended or stdout went away */
	Buf in;			/* stdin not yet a whole line */
	int skip;		/* in a line too long: drop to its end */
	Rpcq steer, follow;	/* messages waiting for the turn */
	Rpcq later;		/* commands waiting for it to end */
	Buf after;		/* answers sent when it ends */
} Rpc;

void rpcfeed(Rpc *r, const char *p, size_t n);
int rpcwatch(void *r);
int rpcnext(Rpc *r, Rpccmd *c);
int rpcpending(const Rpc *r, int follow);
char *rpctake(Rpc *r, int follow);
void rpcdone(Rpc *r, Rpccmd *c, const char *err);
void rpcfree(Rpc *r);
