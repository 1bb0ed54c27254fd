/* See LICENSE file for copyright and license details. */
/* task.h: the task tool's sub-agents: this binary run again on a prompt,
 * with a fresh context, several at once; their answers and usage
 * brought back */

/* config.h's */
typedef struct {
	const char *provider;	/* NULL: the parent's */
	const char *model;	/* NULL: the parent's, or another provider's
				 * own */
	const char *profile;	/* the child's, unless it is wider than
				 * the parent's: then the parent's */
	int depth;		/* levels of tasks: 1, a task starts none */
	int parallel;		/* tasks run at once */
	int timeout;		/* seconds a task may run, 0 for no limit */
} Taskconf;

/* What a child is started with, set by agent.c (and each turn, for what
 * a turn may change); what it used comes back in its result. */
typedef struct Task {
	const Taskconf *conf;
	const char *self;	/* this binary */
	const char *provider, *model, *level;	/* -P, -m, -T */
	const char *key;	/* written to the child's stdin, never to
				 * its environment or argv; or NULL */
	int samewire;		/* the child's provider is the parent's: it
				 * may keep AGENT_BASE_URL */
	const struct Httpproxy *proxy;	/* the proxies, credentials and
					 * all, in place of ours */
	char *const *creds;	/* NAME=value, NULL-ended: what the child's
				 * provider signs or fetches its token with
				 * (Bedrock's AWS keys, a Google key file's
				 * path), whole in place of ours; or NULL */
	const char *profile;	/* -g */
	char *tools;		/* -t: the tools offered to the child */
	int yes;		/* -y */
	int depth;		/* this run's (AGENT_TASKDEPTH) */
	struct Session *sess;	/* ours: a child's file is made beside it,
				 * its header naming ours; none with -n */
	int quiet;		/* no trace of the children on stderr */
	volatile sig_atomic_t *pg;	/* the running children's groups, 0 */
	int npg;		/* for none, for a second Ctrl-C to kill */
	int next;		/* tasks started in the run, for their labels */
	const char *budget;	/* what is left of ours, as -b takes it, for
				 * a child's AGENT_BUDGET; "" for none */
} Task;

typedef struct Taskrun Taskrun;

char *tasktools(const Task *t, const Tool *offer, int n, const char *off);
Taskrun *tasknew(int n);
int taskprep(Taskrun *r, int k, const Json *j, int args, Buf *why);
void taskrunall(Task *t, Toolenv *e, Taskrun *r, int n);
int taskcall(Toolenv *e, const Json *j, int args, Toolres *res);
int taskresult(Task *t, const Toolenv *e, Taskrun *r, int k, Toolres *res);
void taskfree(Taskrun *r, int n);
