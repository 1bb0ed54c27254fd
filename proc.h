/* See LICENSE file for copyright and license details. */
/* proc.h: child processes: bash's commands and the guard's hooks, what
 * they leave running */
#include <stddef.h>
#include <sys/types.h>

enum { PROCDONE, PROCTIMEDOUT, PROCABORTED };	/* how a command ended */
enum { PROCNONELEFT, PROCKILLED, PROCUNKILLED };	/* what it left */

/* How bash's command ended, for the caller to tell the model. */
typedef struct {
	int why;		/* PROCDONE, PROCTIMEDOUT or PROCABORTED */
	int status;		/* the shell's wait status, */
	int nostatus;		/* unknown: it was reaped by someone else */
	int left;		/* PROCNONELEFT, or the processes it left
				 * were PROCKILLED at its end, or not all
				 * could be (PROCUNKILLED) */
	int held;		/* background processes still hold its
				 * output: no more of it was read */
} Procend;

/* Run cmd with the first shell that exists, in a process group of its
 * own, its output pumped into out as the model sees it (its tail, cut
 * to the limits; all of it, up to maxlog bytes, in a log file); at secs
 * (0: no limit), or on SIGINT, the group gets TERM, then KILL after the
 * grace. */
int procrun(Toolenv *e, const char *cmd, double secs, Procend *end,
            Buf *out);
int prochook(const Toolenv *e, const char *cmd, const char *in, size_t n,
             int ms, Buf *err);
void procreaper(Toolenv *e);
pid_t procstart(const Toolenv *e, char **argv, char **env, int *to,
                int *from, int *err);
pid_t procserve(Toolenv *e, const char *cmd, int *to, int *from, int *err);
void procunserve(Toolenv *e, pid_t pid);
void prockillall(Toolenv *e);
void proclogexit(Toolenv *e);
void prochide(const Toollimits *lim);
