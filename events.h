/* See LICENSE file for copyright and license details. */
/* events.h: what a run shows: the answer as text, or pi's json-mode
 * events */
#include <signal.h>
#include <stddef.h>

enum { EVOUT, EVERR, EVHOLD };	/* where a message's text goes */
typedef struct {
	int on;			/* events on stdout, not text */
	volatile sig_atomic_t *intr;	/* set when stdout goes away: */
	volatile sig_atomic_t *quit;	/* the turn stops, the run ends (quit
					 * set to SIGPIPE, agent.c's to see) */
	int failed;		/* stdout failed otherwise than EPIPE: said */
	Buf pending;		/* stdout held while one read is parsed: */
	int hold;		/* its deltas go out in one write */
	int lastc;		/* last byte written to stdout, -1 none */
	/* text: stdout for the answer, stderr for the rest */
	int quiet, color;	/* -q; colour on stderr */
	int noanswer;		/* -o: the answer's text is never shown: its
				 * document is, once checked (agent.c) */
	int ttyout;		/* stdout is read by a person: end lines */
	int ttyesc;		/* stdout is a terminal: the answer's control
				 * characters are shown, not obeyed */
	size_t maxhold;		/* bytes held before they go to stdout */
	int thinking;		/* thinking is being shown on stderr */
	int textseen;		/* stdout has text from an earlier message */
	int textto;		/* where this message's text goes: EVOUT,
				 * EVERR (tools follow), or EVHOLD: */
	Buf held;		/* not known yet, stdout being no terminal */
	int began;		/* this message's text has gone to stdout */
	int narrated;		/* the last byte of narration on stderr */
	/* events: the answer streaming, its blocks' contentIndex, -1 until
	 * begun */
	int blocks;		/* begun so far */
	int text, think;
	int *calls;		/* by call */
	int ncalls;
	/* what the run and the round made, for agent_end and turn_end */
	Buf run;		/* the messages, comma-separated */
	Buf results;		/* the round's tool results, the same */
	size_t last, lastlen;	/* where the round's answer is in run */
	/* the tool running, for tool_execution_update */
	size_t maxtail;		/* bytes of its output in an update */
	Buf call;		/* its toolCallId, toolName and args fields */
	Buf tail;		/* the end of its output so far */
	long long updated;	/* when the last update went, ms */
	int dirty;		/* output came since */
	/* the trace line of the call running, on stderr till its result */
	Buf shown;		/* its start, "name what" */
	int traceopen;		/* 1 it waits for its end; 2 another line
				 * (an MCP server's log) broke it */
} Events;
void evwrite(Events *e, const char *p, size_t n);
void evflush(Events *e);
void evendline(Events *e);
void evendthinking(Events *e);
void evtextstart(Events *e);
void evsettle(Events *e, int to);
void evtextdone(Events *e);
void evtext(Events *e, const char *p, size_t n);
void evthink(Events *e, const char *p, size_t n);
void evshowcall(Events *e, const char *name, const char *what);
void evshowwait(Events *e);
void evshowresult(Events *e, int iserr, const Buf *res,
                  const char *change);
void evshowusage(Events *e, long long in, long long cached, long long out,
                 double cost);
void evemit(Events *e, const char *type, const char *fields);
void evmsg(Events *e, const char *json, int start);
void evstart(Events *e, int wire, const char *provider,
             const char *model);
void evpiece(Events *e, const Wire *w, int kind, const char *p, size_t n);
void evends(Events *e, const char *json);
void evcall(Events *e, const Wirecall *c, const char *type,
            const Json *args, const Buf *res, const Buf *image,
            int iserr);
void evoutput(void *e, const char *p, size_t n);
void evcompacted(Events *e, const char *why, const Buf *sum,
                 const char *firstkept, long before, const char *err,
                 int aborted);
char *evwitherror(char *msg, const char *err);
void evfree(Events *e);
void evcallwhat(Buf *b, const Json *j, int args, size_t max);
