/* See LICENSE file for copyright and license details. */
/* guard.c: whether a tool call may run: config.h's rules, the profile's
 * default, the hooks before and after a call, and the question on the
 * terminal.  The sandbox that holds what does run is in tools.c. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

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
known(const Tool *tools, int ntools, const char *name)
{
	int i;

	for (i = 0; i < ntools; i++)
		if (!strcmp(tools[i].name, name))
			return 1;
	return 0;
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
		if (!known(tools, ntools, name)) {
			bufaddf(why, "profile %s: no tool named %s", p->name,
			        name);
			return -1;
		}
		list += k + (list[k] == ',');
	}
	return 0;
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
		if (!known(tools, ntools, r->tool))
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
		         !known(tools, ntools, h->tool)))
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
 * named, and the sandbox it asks of the tools; an unknown name ends the
 * run with the list of names. */
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
	g->tenv->write = g->prof->write;
	g->tenv->net = g->prof->net;
	g->tenv->plan = g->prof->plan;
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
 * call has none). */
static char *
subject(const char *tool, const Json *j)
{
	char *s = jsonstr(j, jsonget(j, 0, strcmp(tool, "bash") ?
	                                   "path" : "command"));

	return s ? s : xstrdup("");
}

/* The first rule that matches the call, or NULL. */
static const Rule *
rulefor(const Rule *rules, const char *tool, const char *s)
{
	const Rule *r;

	for (r = rules; r->tool; r++)
		if (!strcmp(r->tool, tool) && namematch(r->glob, s))
			return r;
	return NULL;
}

/* The call as hooks read it: {"tool":..., "args":{...}}, and after it
 * ran, "result":{"text":..., "isError":...}. */
static void
calljson(Buf *b, const char *tool, const Json *j, const Buf *res, int iserr)
{
	bufadds(b, "{\"tool\":");
	jsonescs(b, tool);
	bufadds(b, ",\"args\":");
	jsonraw(b, j, 0);
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
hooks(Guard *g, int when, const char *tool, const Json *j, const Buf *out,
      int iserr, Buf *res)
{
	const Hook *h;
	Buf in = { 0 }, err = { 0 }, safe = { 0 };
	int rc, ok = 1;

	for (h = g->hooks; h->when && ok; h++) {
		if (h->when != when || (strcmp(h->tool, "*") &&
		    strcmp(h->tool, tool)))
			continue;
		if (!in.len)
			calljson(&in, tool, j, out, iserr);
		bufreset(&err);
		rc = toolhook(g->tenv, h->cmd, in.p, in.len, h->timeout, &err);
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

/* Ask on the terminal whether a call may run: 1 yes, 0 no, -1 no terminal. */
static int
approve(Guard *g, const Tool *t, int row, const char *what)
{
	char c, first = 0;
	int fd;
	Buf q = { 0 };

	if (g->yes || g->always[row])
		return 1;
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	bufaddf(&q, "%sagent: allow %s %s? [y/n/a] %s",
	        g->color ? "\033[1m" : "", t->name, what,
	        g->color ? "\033[0m" : "");
	writeall(fd, q.p, q.len);
	buffree(&q);
	/* the whole answer line, so none of it is left to be read later */
	while (read(fd, &c, 1) == 1 && c != '\n')
		if (!first && c != ' ')
			first = c;
	close(fd);
	if (first == 'a' || first == 'A')
		g->always[row] = 1;
	return first == 'y' || first == 'Y' || g->always[row];
}

/* Whether the call of tool t (row of tools[]) may run: the first rule
 * that matches, else the profile, says whether to run, ask or refuse;
 * the pre hooks may then block it, before anyone is asked.  1 yes; 0 no,
 * and why in res. */
int
guardcall(Guard *g, const Tool *t, int row, const Json *j, const char *what,
          Buf *res)
{
	const Rule *r;
	char *s = subject(t->name, j);
	int action, ok;

	r = rulefor(g->rules, t->name, s);
	free(s);
	if (r)
		action = r->action;
	else if (g->prof->ask)
		action = guardlisted(g->prof->ask, t->name) ? ASK : ALLOW;
	else
		action = t->approve ? ASK : ALLOW;
	if (action == DENY) {
		bufaddf(res, "Denied by rule %d of config.h (%s \"%s\")",
		        (int)(r - g->rules) + 1, r->tool, r->glob);
		return 0;
	}
	if (!hooks(g, PRE, t->name, j, NULL, 0, res))
		return 0;
	if (action == ALLOW)
		return 1;
	ok = approve(g, t, row, what);
	if (ok < 0)
		bufadds(res, "Not run: there is no terminal to ask the user "
		        "for approval (the user can allow tools with -y).");
	else if (!ok)
		bufadds(res, "The user did not allow this call.");
	return ok > 0;
}

/* After a call ran: the post hooks see it and its result. */
void
guardafter(Guard *g, const char *tool, const Json *j, const Buf *res,
           int iserr)
{
	hooks(g, POST, tool, j, res, iserr, NULL);
}
