/* See LICENSE file for copyright and license details. */
/* serve.c: -r's loop: the commands rpc.c reads from stdin (prompt,
 * compact, fork, switch_session, export_html, ...) done on agent.c's
 * state, each answered by rpc.c. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "sse.h"
#include "eventstream.h"
#include "sigv4.h"
#include "http.h"
#include "record.h"
#include "gauth.h"
#include "wire.h"
#include "entry.h"
#include "session.h"
#include "sessdir.h"
#include "tree.h"
#include "tools.h"
#include "undo.h"
#include "sandbox.h"
#include "proc.h"
#include "gitguard.h"
#include "guard.h"
#include "events.h"
#include "ask.h"
#include "context.h"
#include "rpc.h"
#include "export.h"
#include "prompt.h"
#include "mcp.h"
#include "call.h"
#include "task.h"
#include "budget.h"
#include "schema.h"
#include "agent.h"

/* -r's fork, as pi's: at a user message, a new session holding the path
 * before it; the message's text is the response's.  NULL, or why not. */
static const char *
servefork(Agent *a, Rpccmd *c)
{
	Buf t = { 0 }, d = { 0 };
	long i = c->arg ? sessfind(&a->sess, c->arg) : -1;

	if (i < 0 || !treeuser(&a->sess, i, &t))
		return "Invalid entry ID for forking";
	if (agentforkto(a, a->sess.e[i].parent ? a->sess.e[i].parent : "") < 0) {
		buffree(&t);
		return "the fork failed";
	}
	bufadds(&d, "{\"text\":");
	jsonesc(&d, t.p, t.len);
	bufadds(&d, ",\"cancelled\":false}");
	c->data = bufdetach(&d);
	buffree(&t);
	return NULL;
}

/* -r's switch_session: the run goes on in that session.  NULL, or why
 * not. */
static const char *
serveswitch(Agent *a, const char *path)
{
	Session s;

	if (!path || !*path)
		return "sessionPath must be a string";
	if (sessload(&s, path) < 0)
		return errno == ENOENT ? "no such session file" :
		       "the session could not be loaded";
	agentusesession(a, &s);
	return NULL;
}

/* -r's export_html: the branch as a page, named as -e names it unless
 * outputPath says.  NULL, or why not. */
static const char *
serveexport(Agent *a, Rpccmd *c)
{
	Buf d = { 0 };
	char *out;

	if (!a->sess.path)
		return "no session file (-n): nothing to export";
	out = c->arg && *c->arg ? xstrdup(c->arg) : exportdefault(a->sess.path);
	if (exportsession(a->sess.path, a->sess.leaf, out) == 0) {
		bufadds(&d, "{\"path\":");
		jsonescs(&d, out);
		bufaddc(&d, '}');
		c->data = bufdetach(&d);
	}
	free(out);
	return c->data ? NULL : "the export failed";
}

/* Do what rpc.c read: NULL, or why it failed. */
static const char *
servedo(Agent *a, Rpccmd *c)
{
	Session s;
	int ok = 1;

	if (c->kind == RPCFORK)
		return servefork(a, c);
	if (c->kind == RPCSWITCH)
		return serveswitch(a, c->arg);
	if (c->kind == RPCEXPORT)
		return serveexport(a, c);
	if (c->kind == RPCPROMPT) {
		agentturn(a, c->arg, strlen(c->arg));
	} else if (c->kind == RPCCOMPACT) {
		ok = agentcompact(a, "manual", c->arg) == 0;
	} else if (c->kind == RPCMODEL) {	/* saved now, as /model */
		agentusemodel(a, xstrdup(c->arg));
		a->modelnoted = 0;
		agentnotemodel(a);
	} else if (c->kind == RPCLEVEL) {	/* and as /thinking */
		ok = agentsetlevel(a, c->arg) == 0;
		agentnotelevel(a);
	} else if (c->kind == RPCNEW) {	/* in memory, as this one, or not */
		if (sessdirnext(&s, &a->sess, 0, NULL) < 0)
			return "getcwd failed";
		agentusesession(a, &s);
	} else {	/* a message in this one */
		if (ctxappend(&a->ctx, c->arg) < 0)
			warn("the bash command is not saved in the session "
			     "file");
		a->modelnoted = 0;
		agentloadbranch(a);
	}
	if (!ok || sesssync(&a->sess) < 0 || a->ioerr)
		return c->kind == RPCCOMPACT ? "compaction failed" :
		       "the session file could not be written";
	return NULL;
}

static long
serveused(const void *ctx)
{
	return ctxtokens(ctx);
}

/* -r: what rpc.c reads from stdin, till it ends or a signal says quit */
int
servemode(Agent *a, int autocompact)
{
	Rpc r = { .provider = a->prov->name, .model = &a->model,
	          .level = &a->level,
	          .wire = a->prov->wire, .context = &a->ctx.window,
	          .maxout = &a->ctx.maxout, .used = serveused,
	          .usedarg = &a->ctx, .autocompact = autocompact,
	          .sess = &a->sess, .msgs = &a->ctx.msgs.v,
	          .lens = &a->ctx.msgs.len,
	          .nmsgs = &a->ctx.msgs.n,
	          .tenv = &a->tenv, .intr = a->intr, .quit = a->quit, .out = 1 };
	Rpccmd c;

	a->rpc = &r;
	httpwatch(a->http, 0, rpcwatch, &r);
	a->procs.watch = rpcwatch;
	a->procs.watcharg = &r;	/* and watchfd 0 */
	while (rpcnext(&r, &c)) {
		*a->intr = *a->quit != 0;	/* outoftime is a quit */
		a->ioerr = 0;
		rpcdone(&r, &c, servedo(a, &c));
	}
	rpcfree(&r);
	return 0;
}
