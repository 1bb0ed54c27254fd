/* See LICENSE file for copyright and license details. */
/* proc.h: child processes: bash's commands and the guard's hooks, what
 * they leave running.  The Procs of a run is proc.c's: agent.c sets its
 * limits, flags and watchers, proc.c keeps the rest; zero to begin
 * with, prockillall and proclogexit at the end. */
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* config.h's bounds on a command, as proc.c takes them. */
typedef struct {
	int maxlines;		/* output cut after this many lines */
	size_t maxbytes;	/* or this many bytes */
	size_t maxlog;		/* bytes of bash output saved to a file */
	int killgrace;		/* milliseconds between TERM and KILL */
	const char *const *shells;	/* first that exists runs bash */
	const char *const *scrubenv;	/* variables removed for bash */
	const char *const *secretwords;	/* variables whose names hold one
					 * are removed for bash too, */
	const char *const *keepenv;	/* unless named here */
} Proclimits;

typedef struct Procs {
	const Proclimits *lim;
	const struct Sandbox *box;	/* or NULL: none; commands run
					 * under it, in its tmpdir */
	volatile sig_atomic_t *intr;	/* set by SIGINT: stop the command */
	volatile sig_atomic_t *pgid;	/* the running bash group, or 0: a
					 * second SIGINT kills it and exits */
	/* bash's output as it comes, to progress(progarg, ...), or NULL */
	void (*progress)(void *arg, const char *p, size_t n);
	void *progarg;
	int (*watch)(void *);	/* or NULL: called while bash runs when */
	int watchfd;		/* watchfd is readable; nonzero: no more */
	void *watcharg;
	int keepnl;		/* bash's output ends as printed, with its
				 * last newline: the user's, not the model's */
	int stay;		/* what a call leaves running may stay (the
				 * profile's); else it is killed at its end */
	/* proc.c's own */
	char *logdir;		/* bash logs' directory, or NULL till needed */
	int nlogs;		/* files made in it */
	int logkept;		/* the model was told of one: keep it */
	int reaper;		/* agent is the subreaper of tool processes:
				 * every child is theirs (procreaper) */
	pid_t groups[64];	/* the live groups of calls whose processes
				 * stay, killed whole at exit; past 64, */
	int ngroups;		/* the scan of /proc alone finds them */
	pid_t servers[16];	/* MCP servers' groups (procserve): a call's */
	int nservers;		/* end does not kill them */
} Procs;

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
int procrun(Procs *e, const char *cmd, double secs, Procend *end,
            Buf *out);
int prochook(const Procs *e, const char *cmd, const char *in, size_t n,
             int ms, Buf *err);
void procreaper(Procs *e);
pid_t procstart(const Procs *e, char **argv, char **env, int *to,
                int *from, int *err);
pid_t procserve(Procs *e, const char *cmd, int *to, int *from, int *err);
void procunserve(Procs *e, pid_t pid);
void prockillall(Procs *e);
void proclogexit(Procs *e);
void prochide(const Proclimits *lim);
