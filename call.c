/* See LICENSE file for copyright and license details. */
/* call.c: the tools offered to the model (config.h's, then those of
 * MCP servers, fetched before a request when first needed or changed),
 * and one call: checked, put to the guard, asked about on the terminal
 * when the guard says ask, run, traced, its result made the message the
 * conversation gets. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "entry.h"
#include "tools.h"
#include "sandbox.h"
#include "gitguard.h"
#include "guard.h"
#include "events.h"
#include "mcp.h"
#include "task.h"
#include "line.h"
#include "call.h"

/* The row in tools[] of a tool by that name, or -1. */
int
callrow(const Calls *c, const char *name)
{
	int i;

	for (i = 0; i < c->ntools; i++)
		if (!strcmp(c->tools[i].name, name))
			return i;
	return -1;
}

/* The offered tool by that name, or -1; *row its row for the guard's
 * always: in tools[], or past them, in the MCP servers' list. */
static int
offered(const Calls *c, const char *name, int *row)
{
	int k;

	for (k = 0; k < c->noffer; k++)
		if (!strcmp(c->offer[k].name, name))
			break;
	if (k == c->noffer)
		return -1;
	*row = k < c->nfixed ? callrow(c, name) : c->ntools + k - c->nfixed;
	return k;
}

static void
offerrow(Calls *c, int row)
{
	c->offer = xrealloc(c->offer, (c->noffer + 1) * sizeof(*c->offer));
	c->offer[c->noffer] = c->tools[row];
	c->offer[c->noffer].desc = c->desc[row];
	c->offer[c->noffer++].schema = c->schema[row];
	c->nfixed = c->noffer;
}

/* config.h's tools the profile does not keep off (off), or those of
 * -t's list (comma-separated, empty for none): -1 when it names one
 * there is not. */
int
calloffer(Calls *c, const char *list, const char *off)
{
	char *s, *p, *name;
	int i, row;

	c->noffer = c->nfixed = 0;
	c->always = xcalloc(c->ntools, sizeof(*c->always));
	for (i = 0; !list && i < c->ntools; i++)
		if (!guardlisted(off, c->tools[i].name))
			offerrow(c, i);
	if (!list)
		return 0;
	c->nomcp = 1;
	s = xstrdup(list);
	for (p = s; (name = strtok(p, ", ")); p = NULL) {
		if ((i = callrow(c, name)) < 0) {
			warn("-t: no tool named %s", name);
			free(s);
			return -1;
		}
		if (guardlisted(off, name))
			warn("-t: the %s profile offers no %s",
			     c->guard->prof->name, name);
		else if (offered(c, name, &row) < 0)
			offerrow(c, i);
	}
	free(s);
	return 0;
}

/* A server whose tools the profile keeps off: said once. */
static void
withhold(Calls *c, const Mcpserver *s)
{
	if (guardlisted(c->withheld.p, s->name))
		return;
	bufaddf(&c->withheld, "%s%s", c->withheld.len ? "," : "", s->name);
	if (!c->ev->quiet)
		warn("mcp: %s's tools are not offered under the %s profile: "
		     "the server runs outside the sandbox, and may write (a "
		     "row that says it only reads, or a rule that ALLOWs a "
		     "tool by name, offers it)", s->name,
		     c->guard->prof->name);
}

/* Before a request: the MCP servers' tools after config.h's, each
 * server started when they are first offered, their list fetched anew
 * when one said it changed; under a profile that cannot write, only
 * those the guard lets through. */
void
callmcp(Calls *c)
{
	const Mcpserver *s;
	const Tool *t;
	int n, gen, k;

	if (!c->mcp || c->nomcp)
		return;
	n = mcptools(c->mcp, &t, &gen);
	if (gen == c->mcpgen)
		return;
	c->mcpgen = gen;
	c->noffer = c->nfixed;
	c->offer = xrealloc(c->offer, (c->nfixed + n) * sizeof(*c->offer));
	c->always = xrealloc(c->always, (c->ntools + n) * sizeof(*c->always));
	for (k = 0; k < n; k++) {
		s = mcprow(c->mcp, k);
		if (!guardmcp(c->guard, t[k].name, s->readonly)) {
			withhold(c, s);
			continue;
		}
		/* the list is new */
		c->always[c->ntools + c->noffer - c->nfixed] = 0;
		c->offer[c->noffer++] = t[k];
	}
}

/* JSON text made readable: a member or an element a line, two spaces
 * an indent.  The text was parsed: a quote begins a string. */
static void
prettyjson(Buf *b, const char *p, size_t n)
{
	size_t i, k;
	int depth = 0, instr = 0;

	for (i = 0; i < n; i++) {
		if (instr) {
			bufaddc(b, p[i]);
			if (p[i] == '\\' && i + 1 < n)
				bufaddc(b, p[++i]);
			else if (p[i] == '"')
				instr = 0;
			continue;
		}
		if (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
		    p[i] == '\r')
			continue;
		for (k = i + 1; k < n && strchr(" \t\n\r", p[k]); k++)
			;
		if ((p[i] == '{' || p[i] == '[') && k < n &&
		    (p[k] == '}' || p[k] == ']')) {
			bufaddc(b, p[i]);	/* empty: {} or [] */
			bufaddc(b, p[k]);
			i = k;
			continue;
		}
		if (p[i] == '}' || p[i] == ']')
			bufaddf(b, "\n%*s", 2 * --depth, "");
		bufaddc(b, p[i]);
		if (p[i] == '"')
			instr = 1;
		else if (p[i] == ':')
			bufaddc(b, ' ');
		else if (p[i] == '{' || p[i] == '[')
			bufaddf(b, "\n%*s", 2 * ++depth, "");
		else if (p[i] == ',')
			bufaddf(b, "\n%*s", 2 * depth, "");
	}
	bufaddc(b, '\n');
}

/* One line of what a call will do, made safe (an escape sequence from
 * the model must not reach the terminal), coloured as a diff's. */
static void
showline(Buf *b, const char *p, size_t n, int diff, int color)
{
	const char *sgr = "";

	if (diff && color)
		sgr = *p == '+' ? "\033[32m" : *p == '-' ? "\033[31m" :
		    *p == '@' ? "\033[36m" : "\033[2m";
	bufadds(b, sgr);
	safetext(b, p, n, 1);
	bufadds(b, *sgr ? "\033[0m\n" : "\n");
}

/* The text shown before a call is asked about, a line at a time: when
 * it has over 2 * max lines (max not 0), its first and last max. */
static void
previewlines(Buf *b, const char *p, size_t n, int max, int diff, int color)
{
	size_t i, at, lines = 0, k = 0;

	for (i = 0; i < n; i++)
		lines += p[i] == '\n' || i == n - 1;
	for (i = at = 0; i < n; i++) {
		if (p[i] != '\n' && i != n - 1)
			continue;
		if (!max || lines <= 2 * (size_t)max || k < (size_t)max ||
		    k >= lines - max)
			showline(b, p + at, i + (p[i] != '\n') - at, diff,
			         color);
		else if (k == (size_t)max)
			bufaddf(b, "... %zu lines not shown\n",
			        lines - 2 * max);
		k++;
		at = i + 1;
	}
}

/* What the user sees before a call is allowed: write's and edit's
 * change, bash's command whole when the question cannot hold it, an
 * MCP call's arguments. */
static void
callshow(Calls *c, const Tool *t, const Wirecall *w, const Json *j,
         Buf *show)
{
	Buf raw = { 0 };
	int diff = 0, max = c->showlines;

	if (c->yes)	/* nothing is asked */
		return;
	if (t->fn == toolwrite || t->fn == tooledit) {
		diff = toolpreview(c->tenv, t->name, j, &raw) == 0;
	} else if (t->fn == toolbash) {
		jsonstrbuf(j, jsonget(j, 0, "command"), &raw);
		if (raw.len <= 70 && !memchr(raw.p, '\n', raw.len))
			bufreset(&raw);	/* the question holds it */
		max = 0;
	} else if (!t->fn) {
		prettyjson(&raw, w->args.p ? w->args.p : "{}",
		           w->args.len ? MIN(w->args.len, c->showbytes) : 2);
		if (w->args.len > c->showbytes)
			bufadds(&raw, "...\n");
	}
	previewlines(show, raw.p, raw.len, max, diff, c->color);
	buffree(&raw);
}

/* Ask on the terminal whether a call may run: 1 yes, 0 no, -1 no terminal.
 * What it will do (show, made safe, or NULL) comes first.  One key
 * answers, no Enter (line.c's linekey): y, n, a; Esc and Ctrl-C say no,
 * other keys are ignored.  An ASK of a rule (its number in config.h,
 * or 0) asks every time: "a" is not offered, and answers yes for this
 * call alone; "a" to the profile's question stops it for that tool (row
 * of tools[]). */
static int
callask(Calls *c, const Tool *t, int row, const char *what,
        const char *show, int rule)
{
	int fd, k;
	Buf q = { 0 };

	if (c->yes || (!rule && c->always[row]))
		return 1;
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	if (show)	/* before the terminal is raw: its newlines hold */
		writeall(fd, show, strlen(show));
	bufaddf(&q, "%sagent: allow %s %s? ", c->color ? "\033[1m" : "",
	        t->name, what);
	if (rule)
		bufaddf(&q, "(rule %d of config.h asks) [y/n] ", rule);
	else
		bufadds(&q, "[y/n/a] ");
	bufadds(&q, c->color ? "\033[0m" : "");
	k = linekey(fd, q.p, "yYnNaA\033\003");
	bufreset(&q);
	bufadds(&q, k == 'y' || k == 'Y' ? "yes\n" : k == 'a' || k == 'A' ?
	        (rule ? "yes\n" : "always\n") : "no\n");
	writeall(fd, q.p, q.len);
	buffree(&q);
	close(fd);
	if (k == 'a' || k == 'A') {
		if (!rule)
			c->always[row] = 1;
		return 1;
	}
	return k == 'y' || k == 'Y';
}

/* Whether a call may run; if not, why, in res. */
static int
mayrun(Calls *c, Wirecall *w, int k, int row, Json *j, Buf *res)
{
	Buf what = { 0 }, show = { 0 };
	int ok, rule;

	if (k < 0) {
		bufaddf(res, "Tool %s not found", bstr(&w->name));
		return 0;
	}
	if (w->over) {
		bufadds(res, "The arguments were over 16 MB, and were not "
		        "kept: write a big file in parts");
		return 0;
	}
	if (jsonparse(j, w->args.len ? w->args.p : "{}",
	              w->args.len ? w->args.len : 2) < 0) {
		bufadds(res, "The arguments are not valid JSON: ");
		utf8repair(res, w->args.p, MIN(w->args.len, 500));
		return 0;
	}
	if (j->t[0].type != JOBJ) {
		bufadds(res, "The arguments must be a JSON object");
		return 0;
	}
	/* the tool would take the first, a hook's reader maybe the last */
	if (jsondupkey(j, &what)) {
		bufadds(res, "The arguments give the key ");
		jsonesc(res, what.p, what.len);
		bufadds(res, " more than once: give each key once");
		buffree(&what);
		return 0;
	}
	if ((ok = guardcall(c->guard, &c->offer[k], j, res, &rule)) != ASK)
		return ok == ALLOW;
	evcallwhat(&what, j, 0, 70);	/* the question is one line */
	callshow(c, &c->offer[k], w, j, &show);
	ok = callask(c, &c->offer[k], row, what.p, show.p, rule);
	if (ok < 0)
		bufadds(res, "Not run: there is no terminal to ask the user "
		        "for approval (the user can allow tools with -y).");
	else if (!ok)
		bufadds(res, "The user did not allow this call.");
	buffree(&what);
	buffree(&show);
	return ok > 0;
}

/* A call under way: checked, shown, started. */
typedef struct {
	Wirecall *w;
	const Tool *t;		/* or NULL: no such tool offered */
	int ok;			/* it may run */
	int iserr;
	Json j;
	Toolres res;		/* its result: why it was refused, or what
				 * the tool gave back */
	Buf what;		/* what it works on, as the trace shows it */
} Callrun;

/* Before a call runs: found, checked, put to the guard, shown. */
static void
callbegin(Calls *c, Wirecall *w, Callrun *r)
{
	Buf *what = &r->what;
	int k, row = -1;

	memset(r, 0, sizeof(*r));
	r->w = w;
	r->iserr = 1;
	k = offered(c, bstr(&w->name), &row);
	r->t = k >= 0 ? &c->offer[k] : NULL;
	r->ok = mayrun(c, w, k, row, &r->j, &r->res.text);
	if (r->t && r->j.n && r->j.t[0].type == JOBJ)	/* run or refused */
		evcallwhat(what, &r->j, 0, 70);
	else if (!r->t)
		safetext(what, bstr(&w->name), w->name.len, 1);
	bufgrow(what, 0);
	if (r->ok) {
		/* a process a tool left may have changed .git since */
		gitcheck(c->tenv->git);
		sandboxsay(c->tenv->box);	/* what is not held, on its line */
	}
	evshowcall(c->ev, r->t ? r->t->name : "tool", what->p);
	evcall(c->ev, w, "tool_execution_start", r->ok ? &r->j : NULL, NULL,
	       NULL, 0);
}

/* What a write or an edit that ran changed, for the trace, into b:
 * "+3 -1" counted in the diff of its details, or "(new, 12 lines)" for a
 * file write made. */
static void
changesaid(Callrun *r, Buf *b)
{
	Buf d = { 0 }, obj = { 0 };
	Json dj = { 0 };
	size_t i, add = 0, del = 0;
	const Tool *t = r->t;

	if (!r->ok || r->iserr || (t->fn != toolwrite && t->fn != tooledit))
		return;
	bufaddf(&obj, "{%.*s}", (int)r->res.details.len,
	        bstr(&r->res.details));
	if (jsonparse(&dj, obj.p, obj.len) == 0 &&
	    jsonstrbuf(&dj, jsonget(&dj, 0, "diff"), &d) == 0) {
		for (i = 0; i < d.len; i++)
			if (i == 0 || d.p[i - 1] == '\n') {
				add += d.p[i] == '+';
				del += d.p[i] == '-';
			}
		bufaddf(b, "+%zu -%zu", add, del);
	} else if (t->fn == toolwrite &&
	           jsonstrbuf(&r->j, jsonget(&r->j, 0, "content"), &d) == 0) {
		for (i = 0; i < d.len; i++)
			add += d.p[i] == '\n' || i == d.len - 1;
		bufaddf(b, "(new, %zu line%s)", add, add == 1 ? "" : "s");
	}
	jsonfree(&dj);
	buffree(&obj);
	buffree(&d);
}

/* After it ran, or was refused: its result, success or error, as the
 * message that joins the conversation; what a task used added to use. */
static char *
callend(Calls *c, Callrun *r, Tooluse *use)
{
	Toolenv *e = c->tenv;
	Buf change = { 0 };
	char *msg;
	int i;

	changesaid(r, &change);
	evshowresult(c->ev, r->iserr, &r->res.text,
	             change.len ? change.p : NULL);
	buffree(&change);
	if (r->ok)
		gitcheck(e->git);
	gitnote(e->git, &r->res.text);
	if (r->ok)
		guardafter(c->guard, r->t->name, &r->j, &r->res.text,
		           r->iserr);
	evcall(c->ev, r->w, "tool_execution_end", NULL, &r->res.text,
	       &r->res.image, r->iserr);
	msg = entryresult(&r->w->id, &r->w->name, &r->res.text, r->iserr,
	                  &r->res.image, &r->res.details);
	for (i = 0; i < 4; i++)
		use->tok[i] += r->res.use.tok[i];
	use->cost += r->res.use.cost;
	use->calls += r->res.use.calls;
	jsonfree(&r->j);
	toolresfree(&r->res);
	buffree(&r->what);
	return msg;
}

/* Whether a call is of the task tool, to run with its neighbours. */
static int
istask(const Calls *c, const Wirecall *w)
{
	return c->tenv->task && !strcmp(bstr(&w->name), "task");
}

/* A run of task calls (one or more), side by side: the number run,
 * their messages into msg, their usage added to use.  Each call's line
 * on the trace is ended at its start, for the children's lines, and
 * shown again with its result. */
static int
calltasks(Calls *c, Wirecall *w, int n, char **msg, Tooluse *use)
{
	Callrun *cr;
	Taskrun *tr;
	int k, m;

	for (m = 0; m < n && istask(c, &w[m]); m++)
		;
	cr = xcalloc(m, sizeof(*cr));
	tr = tasknew(m);
	for (k = 0; k < m; k++) {
		callbegin(c, &w[k], &cr[k]);
		evshowwait(c->ev);
		if (cr[k].ok && taskprep(tr, k, &cr[k].j, 0, &cr[k].res.text) < 0)
			cr[k].ok = 0;
	}
	taskrunall(c->tenv->task, c->tenv, tr, m);
	for (k = 0; k < m; k++) {
		if (cr[k].ok)
			cr[k].iserr = taskresult(c->tenv->task, c->tenv, tr, k,
			                         &cr[k].res);
		evshowcall(c->ev, "task", cr[k].what.p);
		msg[k] = callend(c, &cr[k], use);
	}
	taskfree(tr, m);
	free(cr);
	return m;
}

/* Run the calls at w (n of them) from the first: one, or a run of task
 * calls at once.  The number run, their messages into msg, in order;
 * what tasks among them used added to use (the caller's). */
int
callrun(Calls *c, Wirecall *w, int n, char **msg, Tooluse *use)
{
	Callrun r;

	if (istask(c, w))
		return calltasks(c, w, n, msg, use);
	callbegin(c, w, &r);
	if (r.ok && r.t->fn)
		r.iserr = r.t->fn(c->tenv, &r.j, 0, &r.res) != 0;
	else if (r.ok)
		r.iserr = mcpcall(c->mcp, r.t->name, &r.j, &r.res.text,
		                  &r.res.image);
	*msg = callend(c, &r, use);
	return 1;
}

/* The tools offered, as the wires take them: n of them. */
const Wiretool *
callwire(Calls *c, int *n)
{
	int k;

	c->wire = xrealloc(c->wire, (c->noffer + 1) * sizeof(*c->wire));
	for (k = 0; k < c->noffer; k++) {
		c->wire[k].name = c->offer[k].name;
		c->wire[k].desc = c->offer[k].desc;
		c->wire[k].schema = c->offer[k].schema;
	}
	*n = c->noffer;
	return c->wire;
}

void
callfree(Calls *c)
{
	int i;

	mcpfree(c->mcp);
	for (i = 0; c->desc && i < c->ntools; i++) {
		free(c->desc[i]);
		free(c->schema[i]);
	}
	free(c->offer);
	free(c->wire);
	free(c->always);
	buffree(&c->withheld);
}
