/* See LICENSE file for copyright and license details. */
/* guard.c: whether a tool call may run: config.h's rules, the profile's
 * default, the hooks before and after a call.  It decides and asks
 * nobody: the question on the terminal is call.c's; the sandbox that
 * holds what does run is sandbox.c's; hooks run in proc.c; bash's line
 * is split by shsplit.c. */
#define _XOPEN_SOURCE 700	/* realpath(3) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "tools.h"
#include "sandbox.h"
#include "proc.h"
#include "gitguard.h"
#include "shsplit.h"
#include "guard.h"

enum { MAXREASON = 2000 };	/* bytes of a hook's stderr told the model */

/* Whether name is in the comma-separated list. */
int
guardlisted(const char *list, const char *name)
{
	size_t n = strlen(name), k;

	while (list && *list) {
		k = strcspn(list, ",");
		if (k == n && !strncmp(list, name, n))
			return 1;
		list += k + (list[k] == ',');
	}
	return 0;
}

static int
toolknown(const Tool *tools, int ntools, const char *name)
{
	int i;

	for (i = 0; i < ntools; i++)
		if (!strcmp(tools[i].name, name))
			return 1;
	return 0;
}

/* Whether a rule's or hook's tool names MCP servers' tools: server__tool,
 * or a glob of such names (memory__*), known only once they start. */
static int
mcpname(const char *name)
{
	return strstr(name, "__") != NULL;
}

/* A glob fnmatch(3) takes: its brackets closed, no escape at the end.
 * fnmatch cannot say a pattern is bad, only that it does not match. */
static int
goodglob(const char *g)
{
	const char *p;

	for (p = g; *p; p++) {
		if (*p == '\\') {
			if (!*++p)
				return 0;	/* an escape of nothing */
			continue;
		}
		if (*p != '[')
			continue;
		p += 1 + (p[1] == '!' || p[1] == '^');
		p += *p == ']';
		while (*p && *p != ']')
			p++;
		if (!*p)
			return 0;
	}
	return 1;
}

/* A list of tool names in a profile's row: each must be a tool. */
static int
checklist(const Tool *tools, int ntools, const Profile *p,
          const char *list, Buf *why)
{
	char name[65];
	size_t k;

	while (list && *list) {
		k = strcspn(list, ",");
		snprintf(name, sizeof(name), "%.*s", (int)MIN(k, 64), list);
		if (!toolknown(tools, ntools, name)) {
			bufaddf(why, "profile %s: no tool named %s", p->name,
			        name);
			return -1;
		}
		list += k + (list[k] == ',');
	}
	return 0;
}

/* Whether the plan file's path stays beneath the working directory by
 * its letters: relative, no ".", ".." or empty component. */
static int
planname(const char *p)
{
	size_t k;

	for (;; p += k + 1) {
		k = strcspn(p, "/");
		if (!k || (k == 1 && *p == '.') || (k == 2 && !strncmp(p,
		    "..", 2)))
			return 0;
		if (!p[k])
			return 1;
	}
}

static int
checkprofiles(const Profile *profiles, int n, const Tool *tools,
              int ntools, Buf *why)
{
	const Profile *p;

	for (p = profiles; p < profiles + n; p++) {
		if (!p->name || !*p->name || strchr(p->name, ' ')) {
			bufaddf(why, "profile %d: a name is needed",
			        (int)(p - profiles) + 1);
			return -1;
		}
		if (checklist(tools, ntools, p, p->ask, why) < 0 ||
		    checklist(tools, ntools, p, p->off, why) < 0)
			return -1;
		if (p->write < WALL || p->write > WNONE)
			bufaddf(why, "profile %s: write must be WALL, WTREE, "
			        "WPLAN or WNONE", p->name);
		else if (p->write == WPLAN && (!p->plan || !*p->plan))
			bufaddf(why, "profile %s: WPLAN needs a plan file",
			        p->name);
		else if (p->write == WPLAN && !planname(p->plan))
			bufaddf(why, "profile %s: the plan file must be a "
			        "path from the working directory with no "
			        "\".\", \"..\" or empty part", p->name);
		if (why->len)
			return -1;
	}
	return 0;
}

/* Profiles, rules and hooks that cannot work stop the run at start. */
int
guardcheck(const Profile *profiles, int nprofiles, const Rule *rules,
           const Hook *hooks, const Tool *tools, int ntools, Buf *why)
{
	const Rule *r;
	const Hook *h;

	if (checkprofiles(profiles, nprofiles, tools, ntools, why) < 0)
		return -1;
	for (r = rules; r->tool; r++) {
		if (!toolknown(tools, ntools, r->tool) && !mcpname(r->tool))
			bufaddf(why, "rule %d: no tool named %s",
			        (int)(r - rules) + 1, r->tool);
		else if (!r->glob || !*r->glob || !goodglob(r->glob))
			bufaddf(why, "rule %d: a bad glob",
			        (int)(r - rules) + 1);
		else if (r->action < ALLOW || r->action > DENY)
			bufaddf(why, "rule %d: the action must be ALLOW, ASK "
			        "or DENY", (int)(r - rules) + 1);
		if (why->len)
			return -1;
	}
	for (h = hooks; h->when; h++) {
		if (h->when != PRE && h->when != POST)
			bufaddf(why, "hook %d: when must be PRE or POST",
			        (int)(h - hooks) + 1);
		else if (!h->tool || (strcmp(h->tool, "*") &&
		         !toolknown(tools, ntools, h->tool) &&
		         !mcpname(h->tool)))
			bufaddf(why, "hook %d: no tool named %s",
			        (int)(h - hooks) + 1, h->tool ? h->tool : "");
		else if (!h->cmd || !h->cmd[strspn(h->cmd, " \t\n")])
			bufaddf(why, "hook %d: an empty command",
			        (int)(h - hooks) + 1);
		else if (h->timeout <= 0)
			bufaddf(why, "hook %d: the timeout must be positive "
			        "milliseconds", (int)(h - hooks) + 1);
		if (why->len)
			return -1;
	}
	return 0;
}

/* -g or AGENT_PROFILE: the profile by that name, the first if none is
 * named (agent.c hands the sandbox it asks for to the rooms below the
 * tools); an unknown name ends the run with the list of names. */
void
guardprofile(Guard *g, const Profile *profiles, int n, const char *name)
{
	int i;

	if (!name || !*name)
		name = getenv("AGENT_PROFILE");
	for (i = 0; name && *name && i < n; i++)
		if (!strcmp(profiles[i].name, name))
			break;
	if (i == n) {
		fprintf(stderr, "agent: no profile named %s; there are:",
		        name);
		for (i = 0; i < n; i++)
			fprintf(stderr, " %s", profiles[i].name);
		fputc('\n', stderr);
		exit(2);
	}
	g->prof = &profiles[name && *name ? i : 0];
}

/* Whether profile p asks before tool t runs. */
static int
asks(const Profile *p, const Tool *t)
{
	return p->ask ? guardlisted(p->ask, t->name) : t->approve;
}

/* The profile named want, or up if want would let a tool process or a
 * tool do more than up does: a task's is never wider than its
 * parent's.  NULL if there is none by that name. */
const Profile *
guardnarrower(const Profile *profiles, int n, const char *want,
              const Profile *up, const Tool *tools, int ntools)
{
	const Profile *p = NULL;
	int i;

	for (i = 0; i < n && !p; i++)
		if (!strcmp(profiles[i].name, want))
			p = &profiles[i];
	if (!p || p == up)
		return p;
	if (p->write < up->write || p->net > up->net ||
	    p->gitwrite > up->gitwrite || p->stay > up->stay ||
	    (p->write == WPLAN && up->write == WPLAN &&
	     strcmp(p->plan, up->plan)))
		return up;
	for (i = 0; i < ntools; i++)
		if ((asks(up, &tools[i]) && !asks(p, &tools[i])) ||
		    (guardlisted(up->off, tools[i].name) &&
		     !guardlisted(p->off, tools[i].name)))
			return up;
	return p;
}

/* The profile's paragraph of the system prompt, and its plan file. */
void
guardprompt(const Guard *g, Buf *b)
{
	if (g->prof->prompt)
		bufaddf(b, "\n\n%s", g->prof->prompt);
	if (g->prof->write == WPLAN)
		bufaddf(b, "\nThe plan file: %s", g->prof->plan);
}

/* What rules match: bash's command line, or the tool's path ("" if the
 * call has none); NULL if it holds a NUL, which would cut what runs
 * short of what rules and hooks read. */
static char *
callsubject(const char *tool, const Json *j)
{
	Buf b = { 0 };

	jsonstrbuf(j, jsonget(j, 0, strcmp(tool, "bash") ? "path" :
	                            "command"), &b);
	if (b.len && memchr(b.p, '\0', b.len)) {
		buffree(&b);
		return NULL;
	}
	bufgrow(&b, 1);
	return bufdetach(&b);
}

/* The first rule that matches the call, or NULL. */
static const Rule *
rulefor(const Rule *rules, const char *tool, const char *s)
{
	const Rule *r;

	for (r = rules; r->tool; r++)
		if ((!strcmp(r->tool, tool) || (mcpname(r->tool) &&
		    namematch(r->tool, tool))) && namematch(r->glob, s))
			return r;
	return NULL;
}

/* What the rules say of a call: the first DENY and ASK rules found for
 * any form of its subject, and whether ALLOW rules allow it whole. */
typedef struct {
	const Rule *deny, *ask;
	int allow;
} Verdict;

/* The first rule for one form of the subject, counted in v: 1 if it
 * says ALLOW. */
static int
weighform(const Guard *g, const char *tool, const char *form, Verdict *v)
{
	const Rule *r = rulefor(g->rules, tool, form);

	if (r && r->action == DENY && !v->deny)
		v->deny = r;
	if (r && r->action == ASK && !v->ask)
		v->ask = r;
	return r && r->action == ALLOW;
}

/* The line whole: each DENY and ASK rule that matches counts, not only
 * the first rule, as an ALLOW rule for the line's first command must not
 * hide a DENY rule for "*| sh*". */
static void
weighline(const Guard *g, const char *line, Verdict *v)
{
	const Rule *r;

	for (r = g->rules; r->tool; r++) {
		if (r->action == ALLOW || strcmp(r->tool, "bash") ||
		    !namematch(r->glob, line))
			continue;
		if (r->action == DENY && !v->deny)
			v->deny = r;
		if (r->action == ASK && !v->ask)
			v->ask = r;
	}
}

/* Whether path is dir or beneath it. */
static int
pathunder(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!dir[1])
		return 1;	/* the root */
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* The run's sandbox, or NULL. */
static const Sandbox *
guardbox(const Guard *g)
{
	return g->tenv ? g->tenv->box : NULL;
}

/* The working directory, links resolved, to be freed. */
static char *
treeroot(const Guard *g)
{
	if (guardbox(g) && guardbox(g)->root)
		return xstrdup(guardbox(g)->root);
	return realpath(".", NULL);
}

/* The forms of a path that rules match: as written, then with "." and
 * ".." taken out by letters, then where it lands (links followed), each
 * of these absolute and, beneath the working directory, from it.  f[k]
 * NULL for a form that cannot be told.  Where it lands is f[3], f[4]. */
static void
pathforms(const char *path, const char *root, char *f[5])
{
	const char *p = *path ? path : ".";
	int k;

	f[0] = xstrdup(path);
	f[1] = abspath(p);
	f[3] = sandboxlanding(p);
	f[2] = f[4] = NULL;
	for (k = 1; k <= 3 && root; k += 2) {
		if (!f[k] || !pathunder(f[k], root))
			continue;
		f[k + 1] = xstrdup(!strcmp(f[k], root) ? "." :
		                   f[k] + strlen(root) + !!root[1]);
	}
}

/* Whether a tool reads what lies at its path, as read does: read rules
 * hold grep, find and ls too (as Claude Code's do), or grep SECRET .env
 * would give what read .env may not; and edit, whose "not found" and
 * "found 2 times" would tell it bit by bit. */
static int
readstoo(const char *tool)
{
	return wordin(tool, "grep find ls edit");
}

/* The rules of a tool that takes a path: DENY or ASK if any form of it
 * matches one (or, for grep, find and ls, a read rule), ALLOW only if
 * where it lands does. */
static void
pathweigh(const Guard *g, const char *tool, const char *path, Verdict *v)
{
	Verdict r = { 0 };
	char *f[5], *root = treeroot(g);
	int k, allow = 0;

	pathforms(path, root, f);
	for (k = 0; k < 5; k++) {
		if (f[k])
			allow |= weighform(g, tool, f[k], v) && k >= 3;
		if (f[k] && readstoo(tool))
			weighform(g, "read", f[k], &r);
	}
	v->allow = allow;
	v->deny = v->deny ? v->deny : r.deny;
	v->ask = v->ask ? v->ask : r.ask;
	for (k = 0; k < 5; k++)
		free(f[k]);
	free(root);
}

/* pathweigh for the path as written and as the tools read it ("@" and
 * "~/" taken, as modelpath does for them), both to be allowed: "@.env"
 * is the .env that a rule names. */
static void
pathrules(const Guard *g, const char *tool, const char *path, Verdict *v)
{
	char *read = modelpath(path);
	Verdict w = { 0 };

	pathweigh(g, tool, path, v);
	if (!strcmp(read, path)) {
		free(read);
		return;
	}
	pathweigh(g, tool, read, &w);
	free(read);
	v->allow = v->allow && w.allow;
	v->deny = v->deny ? v->deny : w.deny;
	v->ask = v->ask ? v->ask : w.ask;
}

/* Whether path is beneath one of -w's directories. */
static int
inwdir(const Guard *g, const char *path)
{
	char **d = guardbox(g) ? guardbox(g)->wdirs : NULL;

	for (; d && *d; d++)
		if (pathunder(path, *d))
			return 1;
	return 0;
}

/* The read rule that refuses (or, with ask, asks for) the file at path,
 * its number in rules[] from 1, or 0: g is a Guard. */
static int
readrule(void *g, const char *path, int ask)
{
	const Rule *r;
	Verdict v = { 0 };

	/* most configurations have no read rule: no path forms to make */
	for (r = ((Guard *)g)->rules; r->tool; r++)
		if (r->action != ALLOW && !strcmp(r->tool, "read"))
			break;
	if (!r->tool)
		return 0;
	pathrules(g, "read", path, &v);
	r = v.deny ? v.deny : ask ? v.ask : NULL;
	return r ? (int)(r - ((Guard *)g)->rules) + 1 : 0;
}

/* Whether grep, find or ls, walking a tree, leave out path: a read rule
 * denies it or asks for it (no one is asked for each file of a walk).
 * Handed down to tools.c (Toolenv's unseen), which is below the guard.
 * The rule's number, or 0. */
int
guardunseen(void *g, const char *path)
{
	return readrule(g, path, 1);
}

/* Whether the file at path may not be attached as an @file: a read rule
 * denies it.  The user named it, so an ASK rule is answered.  Handed to
 * prompt.c (Promptconf's denied).  The rule's number, or 0. */
int
guarddenied(void *g, const char *path)
{
	return readrule(g, path, 0);
}

/* Whether no rule may allow a write to path unasked: it lands outside
 * the working directory, -w's directories and the run's TMPDIR, or a
 * write rule would ask or refuse it. */
static int
farwrite(const Guard *g, const char *path, const char *root)
{
	static const char *const dev[] = {
		"/dev/null", "/dev/stdout", "/dev/stderr", NULL
	};
	const char *tmp = guardbox(g) ? guardbox(g)->tmpdir : NULL;
	Verdict v = { 0 };
	char *to;
	int k, far;

	for (k = 0; dev[k]; k++)
		if (!strcmp(path, dev[k]))
			return 0;
	if (!(to = sandboxlanding(path)))
		return 1;
	far = !root || !(pathunder(to, root) || (tmp && pathunder(to, tmp)) ||
	                 inwdir(g, to));
	free(to);
	pathrules(g, "write", path, &v);
	return far || v.deny || v.ask;
}

/* The rules of bash: each simple command of the line is matched, in
 * both its forms, and the line whole as well; ALLOW only if every
 * command is allowed as written and nothing in the line hides what it
 * runs or writes. */
static void
bashrules(const Guard *g, const char *cmd, Verdict *v)
{
	Shline l;
	const char *p;
	char *root = treeroot(g);
	int k, allow;

	shsplit(cmd, &l);
	weighline(g, cmd, v);
	allow = l.n > 0;
	for (k = 0, p = bstr(&l.parts); k < l.n; k++) {
		allow &= weighform(g, "bash", p, v);
		p += strlen(p) + 1;
		weighform(g, "bash", p, v);
		p += strlen(p) + 1;
	}
	allow &= !l.unsure;
	for (k = 0, p = bstr(&l.writes); k < l.nwrites && allow; k++) {
		allow &= !farwrite(g, p, root);
		p += strlen(p) + 1;
	}
	v->allow = allow;
	shsplitfree(&l);
	free(root);
}

/* The call as hooks read it: {"tool":..., "args":{...}}, and after it
 * ran, "result":{"text":..., "isError":...}.  The arguments are written
 * anew (jsoncanon), not passed on as the model wrote them: one line, and
 * strings a hook's grep reads as the tool will, with no escapes but
 * those JSON needs. */
static void
calljson(Buf *b, const char *tool, const Json *j, const Buf *res, int iserr)
{
	bufadds(b, "{\"tool\":");
	jsonescs(b, tool);
	bufadds(b, ",\"args\":");
	jsoncanon(b, j, 0);
	if (res) {
		bufadds(b, ",\"result\":{\"text\":");
		jsonesc(b, res->p ? res->p : "", res->len);
		bufaddf(b, ",\"isError\":%s}", iserr ? "true" : "false");
	}
	bufadds(b, "}\n");
}

/* Run the hooks of that tool and time; a pre hook that fails (or hangs
 * past its timeout) blocks the call: 0, and its reason in res. */
static int
callhooks(Guard *g, int when, const char *tool, const Json *j,
          const Buf *out, int iserr, Buf *res)
{
	const Hook *h;
	Buf in = { 0 }, err = { 0 }, safe = { 0 };
	int rc, ok = 1;

	for (h = g->hooks; h->when && ok; h++) {
		if (h->when != when || (strcmp(h->tool, "*") &&
		    strcmp(h->tool, tool) && !(mcpname(h->tool) &&
		    namematch(h->tool, tool))))
			continue;
		if (!in.len)
			calljson(&in, tool, j, out, iserr);
		bufreset(&err);
		gitcheck(g->tenv->git);	/* the hook runs unsandboxed */
		rc = prochook(g->tenv->procs, h->cmd, in.p, in.len, h->timeout, &err);
		if (rc == 0)
			continue;
		if (when == POST) {
			/* its words may echo the model's: made safe */
			bufreset(&safe);
			safetext(&safe, err.p ? err.p : "", MIN(err.len, 200),
			         1);
			warn("hook %d after %s %s: %s",
			     (int)(h - g->hooks) + 1, tool,
			     rc < 0 ? "killed at its timeout" : "failed",
			     safe.p ? safe.p : "");
			continue;
		}
		bufaddf(res, "Blocked by hook %d of config.h",
		        (int)(h - g->hooks) + 1);
		if (rc < 0)
			bufaddf(res, " (killed after %d ms)", h->timeout);
		else
			bufaddf(res, " (exit %d)", rc);
		if (err.len) {
			bufadds(res, ": ");
			utf8repair(res, err.p, MIN(err.len, MAXREASON));
		}
		ok = 0;
	}
	buffree(&in);
	buffree(&err);
	buffree(&safe);
	return ok;
}

/* Whether an MCP server's tool (server__tool) is offered.  Its server
 * runs outside the sandbox: under a profile that cannot write, only a
 * server its row says only reads, or a tool an ALLOW rule names. */
int
guardmcp(const Guard *g, const char *tool, int readonly)
{
	const Rule *r;

	if (g->prof->write == WTREE || g->prof->write == WALL || readonly)
		return 1;
	for (r = g->rules; r->tool; r++)
		if (r->action == ALLOW && mcpname(r->tool) &&
		    namematch(r->tool, tool))
			return 1;
	return 0;
}

/* Whether the call of tool t may run.  The rules first: a DENY rule
 * that matches refuses it; then the pre hooks, which may block it; then
 * an ASK rule that matches asks, every time; an ALLOW rule runs it
 * unasked, if it allows the call whole; else the profile says whether
 * to run or ask.  ALLOW; DENY, and why in res; or ASK: the caller asks
 * the user (call.c), *rule the number in config.h of the ASK rule that
 * asks every time, or 0 for the profile's question. */
int
guardcall(Guard *g, const Tool *t, const Json *j, Buf *res, int *rule)
{
	Verdict v = { 0 };
	char *s = callsubject(t->name, j);
	int ask;

	*rule = 0;
	if (!s) {
		bufaddf(res, "Not run: the %s holds a NUL character (\\u0000)",
		        strcmp(t->name, "bash") ? "path" : "command");
		return DENY;
	}
	if (!strcmp(t->name, "bash"))
		bashrules(g, s, &v);
	else
		pathrules(g, t->name, s, &v);
	free(s);
	if (v.deny) {
		bufaddf(res, "Denied by rule %d of config.h (%s \"%s\")",
		        (int)(v.deny - g->rules) + 1, v.deny->tool,
		        v.deny->glob);
		return DENY;
	}
	if (!callhooks(g, PRE, t->name, j, NULL, 0, res))
		return DENY;
	if (!v.ask && v.allow)
		return ALLOW;
	if (g->prof->ask)
		ask = guardlisted(g->prof->ask, t->name);
	else
		ask = t->approve;
	if (!v.ask && !ask)
		return ALLOW;
	if (v.ask)
		*rule = (int)(v.ask - g->rules) + 1;
	return ASK;
}

/* After a call ran: the post hooks see it and its result. */
void
guardafter(Guard *g, const char *tool, const Json *j, const Buf *res,
           int iserr)
{
	callhooks(g, POST, tool, j, res, iserr, NULL);
}
