/* See LICENSE file for copyright and license details. */
/* tools.h: the tools the model calls (tools.c's), the limits they
 * take from config.h, and the Toolenv of a run: the limits, and
 * pointers to the state of the rooms below them, each the owner of its
 * own (sandbox.h's Sandbox, proc.h's Procs, gitguard.h's Gitguard,
 * undo.h's Undo).  agent.c makes them and sets the pointers. */
#include <signal.h>

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
} Toollimits;

typedef struct {
	const Toollimits *lim;
	volatile sig_atomic_t *intr;	/* set by SIGINT: stop the tool */
	struct Sandbox *box;	/* where tools may write (sandbox.c) */
	struct Procs *procs;	/* bash's processes and logs (proc.c) */
	struct Gitguard *git;	/* .git kept (gitguard.c), or NULL */
	struct Undo *undo;	/* or NULL: what write and edit changed in
				 * the turn, for /undo (undo.c) */
	struct Task *task;	/* what task starts a child with, or NULL */
	/* the read rules over what grep, find and ls come to in a tree:
	 * nonzero (a rule's number), the file is left out, never opened nor
	 * listed; NULL, none is.  The guard's (guardunseen), set by agent.c:
	 * the guard is above the tools, which know no rules. */
	int (*unseen)(void *arg, const char *path);
	void *unseenarg;
} Toolenv;

/* What a task's children used of their models, as entryusage counts
 * it: added up by whoever runs the calls. */
typedef struct {
	long long tok[4];
	double cost;
	long calls;		/* their model calls */
} Tooluse;

/* A tool's result, the caller's (zero to begin with, toolresfree): the
 * text for the model, and what else it brings back. */
typedef struct {
	Buf text;
	Buf image;		/* read: an image's content block, with its
				 * comma, or empty */
	Buf details;		/* members of an object, or empty */
	Tooluse use;		/* task: what its child used */
} Toolres;

/* Fill res; return 0 on success, 1 if its text is an error for the
 * model.  args is the index of the arguments object in j. */
typedef int (*Toolfn)(Toolenv *e, const Json *j, int args, Toolres *res);

typedef struct Tool {
	const char *name;
	Toolfn fn;
	int approve;		/* ask the user before running it */
	const char *desc;
	const char *schema;	/* JSON schema of the parameters */
} Tool;

int toolread(Toolenv *e, const Json *j, int args, Toolres *res);
int toolwrite(Toolenv *e, const Json *j, int args, Toolres *res);
int tooledit(Toolenv *e, const Json *j, int args, Toolres *res);
int toolpreview(Toolenv *e, const char *tool, const Json *j, Buf *out);
int toolbash(Toolenv *e, const Json *j, int args, Toolres *res);
/* what the tools share with search.c's: their arguments, and output
 * built line by line from the top, cut at the limits */
enum { CUTLINES = 1, CUTBYTES };	/* why a listing was cut */
typedef struct {
	Buf *out;
	size_t base;		/* where the listing starts in out */
	int lines;
	int cut;		/* CUTLINES or CUTBYTES: a line did not fit */
} Head;
int toolstrarg(const Json *j, int args, const char *tool, const char *key,
               int need, char **v, Buf *out);
int toolintarg(const Json *j, int args, const char *tool, const char *key,
               long *v, Buf *out);
int toolboolarg(const Json *j, int args, const char *tool, const char *key,
                int *v, Buf *out);
int toolpatharg(const Json *j, int args, const char *tool, int need,
                char **path, Buf *out);
int toolheadline(const Toolenv *e, Head *h, const char *s, size_t n);
const char *toolimage(const char *path, size_t max, Buf *b, Buf *out);
const char *toolimagetype(const char *p, size_t n);
void toolcleanup(Toolenv *e);
void toolresfree(Toolres *res);
int toolgoodname(const char *s);
char *toolnumbers(const Toollimits *lim, const char *text, Buf *why);
int toolschema(const char *schema, Buf *why);
