/* See LICENSE file for copyright and license details. */
/* guard.h: whether a call may run: the profile, the rules, the hooks */

enum { ALLOW = 1, ASK, DENY };	/* what a rule says */
enum { PRE = 1, POST };		/* when a hook runs */

typedef struct {
	const char *name;
	const char *ask;	/* tools that ask first, comma-separated; NULL:
				 * those whose row in tools[] says approve */
	const char *off;	/* tools not offered, or NULL */
	int write;		/* WALL, WTREE, WPLAN or WNONE */
	int net;		/* tool processes may use TCP */
	const char *plan;	/* WPLAN: the plan file */
	const char *prompt;	/* added to the system prompt, or NULL */
	int gitwrite;		/* tools may change git's config */
	int stay;		/* a call's background processes may run on
				 * till agent exits */
} Profile;

typedef struct {
	const char *tool;	/* NULL ends the table */
	const char *glob;	/* over bash's command, other tools' path */
	int action;		/* ALLOW, ASK or DENY */
} Rule;

typedef struct {
	int when;		/* PRE or POST; 0 ends the table */
	const char *tool;	/* a tool's name, or "*" for all */
	const char *cmd;	/* run with /bin/sh -c */
	int timeout;		/* milliseconds before it is killed */
} Hook;

typedef struct {
	const Profile *prof;
	const Rule *rules;
	const Hook *hooks;
	Toolenv *tenv;		/* hooks run with bash's environment */
} Guard;

int guardlisted(const char *list, const char *name);
int guardcheck(const Profile *profiles, int nprofiles, const Rule *rules,
               const Hook *hooks, const Tool *tools, int ntools, Buf *why);
const Profile *guardnarrower(const Profile *profiles, int n,
                             const char *want, const Profile *up,
                             const Tool *tools, int ntools);
void guardprofile(Guard *g, const Profile *profiles, int n,
                  const char *name);
void guardprompt(const Guard *g, Buf *b);
int guardunseen(void *g, const char *path);
int guarddenied(void *g, const char *path);
int guardmcp(const Guard *g, const char *tool, int readonly);
int guardcall(Guard *g, const Tool *t, const Json *j, Buf *res, int *rule);
void guardafter(Guard *g, const char *tool, const Json *j, const Buf *res,
                int iserr);
