/* See LICENSE file for copyright and license details. */
/* budget.h: what a run may spend (model calls, dollars, seconds), what it
 * spent, the ledger many runs share, and the summary a run ends with.
 * agent.c owns the Budget and the Spent of its run. */
#include <stddef.h>

typedef struct {
	long turns;		/* model calls, 0 for no bound */
	double cost;		/* dollars, 0 for no bound */
	long time;		/* seconds, 0 for no bound */
} Budget;

/* What the run spent so far, its tasks' children's included. */
typedef struct {
	long calls;		/* model calls */
	long toolcalls;		/* tool calls run */
	long long tok[4];	/* input, output, cache read, cache write */
	double cost;		/* dollars; */
	int costknown;		/* 0: some model had no price */
	long long startms;	/* monoms() at start */
	Buf files;		/* paths written or edited, each ended by a
				 * NUL, each once */
} Spent;

int budgetparse(Budget *b, const char *list, Buf *why);
void budgetleft(const Budget *b, const Spent *s, int ledger, Buf *out);
int budgetover(const Budget *b, const Spent *s, double ledger, Buf *why);
double budgetanswer(Spent *s, const char *msg);
void budgetcall(Spent *s, const char *name, const Buf *args,
                const char *res);
int ledgeradd(const char *path, const char *run, const char *model,
              double cost, Buf *why);
int ledgertotal(const char *path, double *total, Buf *why);
void budgetsummary(Buf *out, const Spent *s, const char *sessid,
                   const char *sessfile, int status, const char *reason);
