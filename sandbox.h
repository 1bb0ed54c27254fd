/* See LICENSE file for copyright and license details. */
/* sandbox.h: what tool processes may do.  The Sandbox is sandbox.c's:
 * agent.c sets the profile's part, sandboxinit makes the rest,
 * sandboxfree frees it; the tools, proc.c, undo.c and the guard read
 * it. */

enum { WALL, WTREE, WPLAN, WNONE };	/* where tool processes may write */

typedef struct Sandbox {
	/* from the profile */
	int write;		/* WALL (no sandbox), WTREE, WPLAN, WNONE */
	int net;		/* tool processes may use TCP */
	const char *plan;	/* WPLAN: the one file that may be written */
	int gitwrite;		/* tools may change git's configuration */
	char **wdirs;		/* -w: more directories WTREE may write,
				 * links resolved, NULL-terminated; or NULL
				 * (agent.c's) */
	/* made by sandboxinit */
	char *root;		/* the working directory, links resolved
				 * (under WALL too) */
	char *planpath;		/* the plan file from the root */
	char *tmpdir;		/* the run's own temporary directory */
	int abi;		/* the Landlock ABI in force, 0 for none */
	int filter;		/* a seccomp filter holds what it does not */
	char *unheld;		/* what it does not hold, said when a tool
				 * that it would hold first runs */
} Sandbox;

typedef int (*Jobfn)(void *arg, Buf *out);

int sandboxinit(Sandbox *e, Buf *why);
void sandboxfree(Sandbox *e);
int sandboxplan(const Sandbox *e, int flags, int mode);
void sandboxsay(Sandbox *e);
int sandboxheld(const Sandbox *e);
int sandboxruleset(const Sandbox *e);
int sandboxenter(const Sandbox *e, int rs);
char *sandboxlanding(const char *path);
int sandboxwalk(const char *from, const char *path, const char **last);
int sandboxwritable(const Sandbox *e, const char *tool, const char *path,
                    Buf *out);
int sandboxrun(const Sandbox *e, Jobfn fn, void *arg, Buf *out);
