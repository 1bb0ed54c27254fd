/* See LICENSE file for copyright and license details. */
/* call.c: the tools offered to the model (config.h's, then those of
 * MCP servers, fetched before a request when first needed or changed),
 * and one call: checked, put to the guard, run, traced, its result made
 * the message the conversation gets. */
#include <stdlib.h>
#include <string.h>

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
	c->guard->always = c->always;
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

/* Before a request: the MCP servers' tools after config.h's, each
 * server started when they are first offered, their list fetched anew
 * when one said it changed. */
void
callmcp(Calls *c)
{
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
	c->guard->always = c->always;	/* it moved */
	for (k = 0; k < n; k++) {
		c->always[c->ntools + k] = 0;	/* the list is new */
		c->offer[c->noffer++] = t[k];
	}
}

/* Whether a call may run; if not, why, in res. */
static int
mayrun(Calls *c, Wirecall *w, int k, int row, Json *j, Buf *res)
{
	Buf what = { 0 };
	int ok;

	if (k < 0) {
		bufaddf(res, "Tool %s not found", bstr(&w->name));
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
	evcallwhat(&what, j, 0, 0);
	ok = guardcall(c->guard, &c->offer[k], row, j, what.p, res);
	buffree(&what);
	return ok;
}

/* Run one call: its result, success or error, as the message that
 * joins the conversation. */
char *
callrun(Calls *c, Wirecall *w)
{
	Buf res = { 0 }, what = { 0 };
	Json j = { 0 };
	int k, row = -1, iserr = 1, ok;
	const Tool *t;
	char *msg;

	k = offered(c, bstr(&w->name), &row);
	t = k >= 0 ? &c->offer[k] : NULL;
	ok = mayrun(c, w, k, row, &j, &res);
	if (t && j.n && j.t[0].type == JOBJ)	/* run or refused */
		evcallwhat(&what, &j, 0, 70);
	else if (!t)
		safetext(&what, bstr(&w->name), w->name.len, 1);
	bufgrow(&what, 0);
	if (ok) {
		/* a process a tool left may have changed .git since */
		gitcheck(c->tenv);
		sandboxsay(c->tenv);	/* what is not held, on its line */
	}
	evshowcall(c->ev, t ? t->name : "tool", what.p);
	evcall(c->ev, w, "tool_execution_start", ok ? &j : NULL, NULL,
	       NULL, 0);
	if (ok && t->fn)
		iserr = t->fn(c->tenv, &j, 0, &res) != 0;
	else if (ok)
		iserr = mcpcall(c->mcp, t->name, &j, &res, &c->tenv->image);
	evshowresult(c->ev, iserr, &res);
	if (ok)
		gitcheck(c->tenv);
	gitnote(c->tenv, &res);
	if (ok)
		guardafter(c->guard, t->name, &j, &res, iserr);
	evcall(c->ev, w, "tool_execution_end", NULL, &res, &c->tenv->image,
	       iserr);
	msg = entryresult(&w->id, &w->name, &res, iserr, &c->tenv->image);
	bufreset(&c->tenv->image);
	jsonfree(&j);
	buffree(&res);
	buffree(&what);
	return msg;
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
	free(c->always);
}
