/* See LICENSE file for copyright and license details. */
/* tools.h: the tools the model calls (tools.c's), the limits they
 * take from config.h, and the Toolenv of a run they share with the
 * rooms below them (proc.c, sandbox.c, gitguard.c, undo.c) */
#include <signal.h>
#include <sys/types.h>

enum { WALL, WTREE, WPLAN, WNONE };	/* where tool processes may write */

/* config.h's bounds and lists, as the tools take them: made once at
 * setup, read only after. */
typedef struct {
	int maxlines;		/* output cut after this many lines */
	size_t maxbytes;	/* or this many bytes */
	int greplinemax;	/* grep cuts a matched line to this many
				 * bytes */
	int greplimit;		/* default match limit */
	int findlimit;		/* default result limit */
	int lslimit;		/* default entry limit */
	int bashtimeout;	/* seconds, 0 for none */
	int killgrace;		/* milliseconds between TERM and KILL */
	size_t maxedit;		/* bytes of a file edit loads, of write's
				 * content */
	size_t maxlog;		/* bytes of bash output saved to a file */
	size_t maximage;	/* bytes of an image file read returns */
	size_t maxundo;		/* bytes of files kept for /undo in a turn */
	int diffcontext;	/* lines around a change in a diff */
	/* what grep and find take in of .gitignore files (walk.c's
	 * Walkopt), and how long grep, find and ls may search */
	size_t ignorebytes;
	int ignorelines, maxrules;
	size_t rulebytes;
	int searchtime;		/* seconds, 0 for no limit */
	const char *const *shells;	/* first that exists runs bash */
	const char *const *scrubenv;	/* variables removed for bash */
	const char *const *secretwords;	/* variables whose names hold one
					 * are removed for bash too, */
	const char *const *keepenv;	/* unless named here */
} Toollimits;

typedef struct {
	const Toollimits *lim;
	volatile sig_atomic_t *intr;	/* set by SIGINT: stop the tool */
	volatile sig_atomic_t *pgid;	/* the running bash group, or 0: a
					 * second SIGINT kills it and exits */
	/* the tools' state in a run: zero to begin with, toolcleanup at
	 * the end */
	char *logdir;		/* bash logs' directory, or NULL till needed */
	int nlogs;		/* files made in it */
	int logkept;		/* the model was told of one: keep it */
	/* the sandbox: write, net and plan from the profile, the rest made
	 * by sandboxinit, freed by toolcleanup */
	int write;		/* WALL (no sandbox), WTREE, WPLAN, WNONE */
	int net;		/* tool processes may use TCP */
	const char *plan;	/* WPLAN: the one file that may be written */
	char *root;		/* the working directory, links resolved
				 * (under WALL too) */
	char *planpath;		/* the plan file from the root */
	char *tmpdir;		/* the run's own temporary directory */
	char **wdirs;		/* -w: more directories WTREE may write,
				 * links resolved, NULL-terminated; or NULL */
	int abi;		/* the Landlock ABI in force, 0 for none */
	int filter;		/* a seccomp filter holds what it does not */
	char *unheld;		/* what it does not hold, said when a tool
				 * that it would hold first runs */
	Buf image;		/* read: an image's content block, with its
				 * comma, for the caller's result */
	Buf details;		/* the result's details, members of an
				 * object, or empty */
	struct Task *task;	/* what task starts a child with, or NULL */
	/* the read rules over what grep, find and ls come to in a tree:
	 * nonzero (a rule's number), the file is left out, never opened nor
	 * listed; NULL, none is.  The guard's (guardunseen), set by agent.c:
	 * the guard is above the tools, which know no rules. */
	int (*unseen)(void *arg, const char *path);
	void *unseenarg;
	/* bash's output as it comes, to progress(progarg, ...), or NULL */
	void (*progress)(void *arg, const char *p, size_t n);
	void *progarg;
	int (*watch)(void *);	/* or NULL: called while bash runs when */
	int watchfd;		/* watchfd is readable; nonzero: no more */
	void *watcharg;
	int keepnl;		/* bash's output ends as printed, with its
				 * last newline: the user's, not the model's */
	/* .git's config and hooks: gitwrite from the profile; 0, a .git
	 * at start is kept as it was by gitguard.c (gitinit) */
	int gitwrite;		/* tools may change git's configuration */
	struct Gitguard *git;	/* or NULL */
	struct Undo *undo;	/* or NULL: what write and edit changed in
				 * the turn, for /undo (undo.c) */
	int stay;		/* what a call leaves running may stay (the
				 * profile's); else it is killed at its end */
	int reaper;		/* agent is the subreaper of tool processes:
				 * every child is theirs (procreaper) */
	int gitbad;		/* at exit, .git could not be put back
				 * (gitexit): agent exits 1 */
	pid_t groups[64];	/* the live groups of calls whose processes
				 * stay, killed whole at exit; past 64, */
	int ngroups;		/* the scan of /proc alone finds them */
	pid_t servers[16];	/* MCP servers' groups (procserve): a call's */
	int nservers;		/* end does not kill them */
} Toolenv;

/* Fill out with the result text; return 0 on success, 1 if the text is an
 * error for the model.  args is the index of the arguments object in j. */
typedef int (*Toolfn)(Toolenv *e, const Json *j, int args, Buf *out);

typedef struct Tool {
	const char *name;
	Toolfn fn;
	int approve;		/* ask the user before running it */
	const char *desc;
	const char *schema;	/* JSON schema of the parameters */
} Tool;

int toolread(Toolenv *e, const Json *j, int args, Buf *out);
int toolwrite(Toolenv *e, const Json *j, int args, Buf *out);
int tooledit(Toolenv *e, const Json *j, int args, Buf *out);
int toolpreview(Toolenv *e, const char *tool, const Json *j, Buf *out);
int toolbash(Toolenv *e, const Json *j, int args, Buf *out);
int toolgrep(Toolenv *e, const Json *j, int args, Buf *out);
int toolfind(Toolenv *e, const Json *j, int args, Buf *out);
int toolls(Toolenv *e, const Json *j, int args, Buf *out);
int tooltask(Toolenv *e, const Json *j, int args, Buf *out);
const char *toolimage(const char *path, size_t max, Buf *b, Buf *out);
const char *toolimagetype(const char *p, size_t n);
void toolcleanup(Toolenv *e);
int toolgoodname(const char *s);
char *toolnumbers(const Toollimits *lim, const char *text, Buf *why);
int toolschema(const char *schema, Buf *why);
