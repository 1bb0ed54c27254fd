/* See LICENSE file for copyright and license details. */
/* agent.c: main, flags and setup from config.h (the one file that
 * includes it), the turn loop with its budget and -o's check of the
 * answer, and the moves line mode (chat.c) and -r (serve.c) ask of the
 * run's state (agent.h): model, level, branch, session.  The
 * context is context.c's, asking the model ask.c's, a tool call's life
 * (approval, guard, run, trace) call.c's, what the answer shows
 * events.c's, what the run spent budget.c's. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

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
#include "tools.h"
#include "search.h"
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
#include "scratch.h"
#include "agent.h"
#include "config.h"

static const Model *
modelof(const Agent *a)
{
	return wiremodel(models, LEN(models), a->model);
}

/* The model, m, in place of the one before; the context is told its
 * window, the output tokens asked of it (its own, or the provider's) and
 * its tokens for one estimated token of text. */
void
agentusemodel(Agent *a, char *m)
{
	const Model *mo;

	free(a->model);
	a->model = m;
	mo = modelof(a);
	a->ctx.window = mo && mo->context > 0 ? mo->context : a->prov->context;
	a->ctx.maxout = mo && mo->maxout > 0 ? mo->maxout : a->prov->maxout;
	a->ctx.tokens = mo && mo->tokens > 0 ? mo->tokens : 1;
}

static volatile sig_atomic_t intr;	/* SIGINT came: stop the turn */
static volatile sig_atomic_t toolpg;	/* the running bash group, or 0 */
static volatile sig_atomic_t taskpg[64];	/* the running tasks' groups */
static volatile sig_atomic_t quitsig;	/* SIGTERM or SIGHUP came: stop the
					 * turn, then leave */
static volatile sig_atomic_t outoftime;	/* the budget's time ran out: a
					 * quit too (SIGALRM) */

/* A signal stops the turn: the tool group gets TERM, a grace, then
 * KILL, and the session is synced on the way out; after SIGTERM or
 * SIGHUP we then leave.  A second Ctrl-C does not wait.  A second TERM
 * does not hurry us: timeout(1) and process managers send it to the
 * whole group, so it often comes twice. */
static void
onsignal(int sig)
{
	size_t i;

	if (sig == SIGALRM) {
		outoftime = 1;
		quitsig = sig;
	} else if (sig != SIGINT) {
		quitsig = sig;
	} else if (intr) {
		if (toolpg > 0)
			kill(-toolpg, SIGKILL);
		for (i = 0; i < LEN(taskpg); i++)
			if (taskpg[i] > 0)
				kill(-taskpg[i], SIGKILL);
		_exit(128 + (quitsig ? quitsig : sig));
	}
	intr = 1;
}

/* SIGBUS: the session file was cut short under us, where session.c had
 * mapped the context's lines: said, and not a crash. */
static void
onbus(int sig)
{
	static const char msg[] = "agent: the session file was cut short "
	                          "while in use\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);

	(void)sig;
	(void)r;
	_exit(1);
}

/* The exit status: 3 when the budget's time ran out, 0 when the reader
 * of stdout went away (events.c's SIGPIPE), 128 and the signal when one
 * asked us to quit. */
static int
exitstatus(int rc)
{
	if (quitsig == SIGPIPE)
		return 0;	/* or 1, events.c's failed: main's */
	return outoftime ? 3 : quitsig ? 128 + quitsig : rc;
}

static const char usagetext[] =
	"usage: agent [-cdnqyjrvhlK] [-s file | id] [-f file | id]\n"
	"             [-P provider] [-m model] [-t tools] [-g profile] "
	"[-T level]\n"
	"             [-i image] [-b budget] [-o schema] [-C dir] [-w dir]\n"
	"             [prompt ...]\n"
	"       agent -e file [out.html | out.md]\n";

static void
usage(void)
{
	fputs(usagetext, stderr);
	exit(2);
}

/* A message joins the context and, at once, the session file. */
static void
recordmsg(Agent *a, char *json)
{
	if (ctxrecord(&a->ctx, json) < 0)
		a->ioerr = 1;
}

/* The last message of the context. */
static const char *
lastmsg(const Agent *a)
{
	return a->ctx.msgs.v[a->ctx.msgs.n - 1];
}

/* The session says which model answered, as pi's do, when it changes. */
void
agentnotemodel(Agent *a)
{
	Buf f = { 0 };

	if (a->modelnoted)
		return;
	bufadds(&f, "\"provider\":");
	jsonescs(&f, a->prov->name);
	bufadds(&f, ",\"modelId\":");
	jsonescs(&f, a->model);
	if (sessappend(&a->sess, "model_change", f.p) < 0)
		a->ioerr = 1;
	buffree(&f);
	a->modelnoted = 1;
}

/* A change of thinking level, as pi notes it. */
void
agentnotelevel(Agent *a)
{
	Buf f = { 0 };

	if (a->level == a->branchlevel)
		return;
	bufaddf(&f, "\"thinkingLevel\":\"%s\"", wirelevelname(a->level));
	if (sessappend(&a->sess, "thinking_level_change", f.p) < 0)
		a->ioerr = 1;
	buffree(&f);
	a->branchlevel = a->level;
}

/* Whether -o's schema goes to the provider in its own way; else the
 * system prompt says it.  Anthropic's structured outputs refuse some
 * schemas that OpenAI's take (bounds, open objects): those go in the
 * prompt. */
static int
nativeschema(const Agent *a)
{
	return a->answer.text && a->prov->schema &&
	       (a->prov->wire != ANTHROPIC || a->answer.plain);
}

/* The request for the conversation so far. */
static void
makerequest(Agent *a, Wirereq *q)
{
	Json j;

	memset(q, 0, sizeof(*q));
	q->wire = a->prov->wire;
	q->model = a->model;
	q->provider = a->prov->name;
	q->system = a->system;
	q->msgs = a->ctx.msgs.v;
	q->msglens = a->ctx.msgs.len;
	q->msgplain = a->ctx.msgs.plain;
	q->nmsgs = a->ctx.msgs.n;
	q->forms = a->ctx.msgs.form;
	callmcp(&a->calls);	/* MCP servers start here, when first asked */
	q->tools = callwire(&a->calls, &q->ntools);
	q->maxout = a->ctx.maxout;
	q->maxfield = a->prov->maxfield;
	q->level = a->level;
	q->think = a->prov->think;
	q->thinkas = modelof(a) ? modelof(a)->thinking : TKADAPTIVE;
	q->cachehour = cachehour;
	q->images = a->prov->images;
	/* the same key for a session's requests: they hit one cache */
	bufreset(&a->sid);
	if (a->sess.head && jsonparse(&j, a->sess.head,
	    strlen(a->sess.head)) == 0) {
		jsonstrbuf(&j, jsonget(&j, 0, "id"), &a->sid);
		jsonfree(&j);
	}
	q->cachekey = a->sid.len ? a->sid.p : NULL;
	ctxenv(&a->env, a->sess.head);
	q->env = a->env.p;
	if (nativeschema(a)) {
		q->schema = a->answer.text;
		q->strict = a->answer.strict;
	}
}

/* What arrived of an answer that failed, and why: into the session if
 * anything did, and to the events in any case. */
static void
recordfailed(Agent *a, Reply *r)
{
	char *m;

	evtextdone(&a->ev);
	m = evwitherror(wiremessage(&r->w, a->prov->name, a->model,
	              intr ? "aborted" : "error"), bstr(&r->why));
	evmsg(&a->ev, m, 0);
	if (r->w.text.len || r->w.think.len || r->w.ncalls ||
	    (intr && a->rpc))	/* -r: pi keeps an aborted one */
		recordmsg(a, m);
	else
		free(m);
}

/* What the branch (path, n; the context's from start) says besides its
 * messages: the thinking level last set holds, from before a compaction
 * too; a model_change since says whether the model in use is noted. */
static void
branchsettings(Agent *a, const Entry **path, size_t n, size_t start)
{
	Json j;
	char *v, *w;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(path[i]->type, "thinking_level_change") &&
		    (i < start || strcmp(path[i]->type, "model_change")))
			continue;
		if (jsonparse(&j, path[i]->line, path[i]->len) < 0)
			continue;
		if (!strcmp(path[i]->type, "thinking_level_change")) {
			v = jsonstr(&j, jsonget(&j, 0, "thinkingLevel"));
			if (!a->levelset && wirelevel(v) >= 0)
				a->level = wirelevel(v);
			a->branchlevel = wirelevel(v);
			free(v);
		} else {
			v = jsonstr(&j, jsonget(&j, 0, "provider"));
			w = jsonstr(&j, jsonget(&j, 0, "modelId"));
			a->modelnoted = v && w && !strcmp(v, a->prov->name) &&
			                !strcmp(w, a->model);
			free(v);
			free(w);
		}
		jsonfree(&j);
	}
}

/* The context of the session's branch, in place of the one before, and
 * the model and thinking level it says; the model the session was
 * switched to, unless -m says. */
void
agentloadbranch(Agent *a)
{
	const Entry **path;
	size_t n, start;
	char *m;

	n = sesscontext(&a->sess, &path);
	if (!a->modelset && (m = entrymodel(path, n, a->prov->name)))
		agentusemodel(a, m);
	start = ctxload(&a->ctx, path, n);
	branchsettings(a, path, n, start);
	sessdone(&a->sess, path);
}

/* Ask the model for the summary k plans, silently, with the summariser's
 * prompt and no tools; the summary goes to out. */
int
agentsummarize(Agent *a, const Ctxcut *k, Buf *out)
{
	Wirereq q;
	Reply r;
	Http h;
	int rc;

	makerequest(a, &q);
	q.system = k->system;
	q.msgs = &k->ask;
	q.msglens = NULL;
	q.msgplain = NULL;
	q.nmsgs = 1;
	q.forms = NULL;
	q.tools = NULL;
	q.ntools = 0;
	q.maxout = k->maxout;
	q.schema = NULL;
	rc = askmodel(&a->ask, &q, &r, &h, 1);
	if (rc == 0 && (!strcmp(r.w.finish, "length") || r.w.cut)) {
		warn("the summary was cut short by the output token limit");
		rc = -1;
	}
	if (rc == 0)
		bufadd(out, bstr(&r.w.text), r.w.text.len);
	askfree(&r);
	return rc == 0 && out->len ? 0 : -1;
}

/* Replace the older part of the conversation by a summary: a compaction
 * entry, as pi writes them; nothing is deleted.  The last keeptokens stay
 * as they are.  0 done, -1 not. */
int
agentcompact(Agent *a, const char *why, const char *focus)
{
	Ctxcut k;
	Buf sum = { 0 }, f = { 0 };
	int rc = -1;

	if (ctxplan(&a->ctx, focus, &k) < 0) {
		if (!a->ev.quiet)
			warn("nothing to compact: the conversation is short");
		return -1;
	}
	if (!a->ev.quiet)
		warn("compacting the conversation (%s, about %ld tokens)", why,
		     k.tokensbefore);
	bufaddf(&f, "\"reason\":\"%s\"", why);
	evemit(&a->ev, "compaction_start", f.p);
	if (agentsummarize(a, &k, &sum) < 0) {
		warn("compaction failed: the conversation is kept whole");
		evcompacted(&a->ev, why, NULL, NULL, k.tokensbefore,
		            intr ? NULL : "Compaction failed: no summary",
		            intr != 0);
		goto done;
	}
	if (ctxcompact(&a->ctx, &k, &sum) < 0)
		a->ioerr = 1;
	agentloadbranch(a);
	evcompacted(&a->ev, why, &sum, k.firstkept, k.tokensbefore, NULL,
	            0);
	rc = 0;
done:
	ctxcutfree(&k);
	buffree(&sum);
	buffree(&f);
	return rc;
}

/* A turn begins: the counts start again, the session notes the model
 * and level, and a context near the window is compacted first. */
static void
beginturn(Agent *a)
{
	intr = quitsig != 0;	/* a quit stays asked for (outoftime too) */
	a->ioerr = 0;
	a->turnin = a->turnout = a->turncached = 0;
	a->turncost = 0;
	bufreset(&a->stopped);	/* each turn's summary gives its own reason */
	undobegin(&a->undo);	/* only the last turn is undone */
	if (!taskconf.model && a->task.samewire)	/* /model moves it */
		a->task.model = a->model;
	a->task.level = wirelevelname(a->level);
	a->task.quiet = a->ev.quiet;	/* -j's is set after setup */
	agentnotemodel(a);
	agentnotelevel(a);
	evemit(&a->ev, "agent_start", NULL);
	if (autocompact && ctxfull(&a->ctx))
		agentcompact(a, "threshold", NULL);
}

/* An answer's spending, msg its message: in the run's, and in the
 * ledger where runs share one. */
static void
spendanswer(Agent *a, const char *msg)
{
	double cost = budgetanswer(&a->spent, msg);
	Buf why = { 0 };

	if (a->ledger && cost >= 0 && ledgeradd(a->ledger, a->runid,
	    a->model, cost, &why) < 0)
		warn("%s", why.p);
	buffree(&why);
}

/* Whether the budget forbids another model call: 0 it does not; 3 it
 * does, or 1 the ledger cannot be read; said on stderr. */
static int
overbudget(Agent *a)
{
	double total = -1;
	Buf why = { 0 };
	int rc = 0;

	if (a->ledger && a->budget.cost &&
	    ledgertotal(a->ledger, &total, &why) < 0)
		rc = 1;
	else if (budgetover(&a->budget, &a->spent, total, &why))
		rc = 3;
	if (rc) {
		warn("%s", why.p);
		bufreset(&a->stopped);
		bufadd(&a->stopped, why.p, why.len);
	}
	buffree(&why);
	return rc;
}

/* Why a turn was stopped, said: the budget's time, or an interrupt. */
static int
stopword(Agent *a)
{
	bufreset(&a->stopped);
	if (quitsig == SIGPIPE)	/* stdout went away: nothing to say */
		return 130;
	if (outoftime)
		bufaddf(&a->stopped, "the budget of %ld seconds is spent",
		        a->budget.time);
	else
		bufadds(&a->stopped, "interrupted");
	warn("%s", a->stopped.p);
	return outoftime ? 3 : 130;
}

/* An answer that came whole: counted, each call given an id if it came
 * without (its result must name one), recorded and shown. */
static void
takeanswer(Agent *a, Reply *r)
{
	int i;

	a->turnin += r->w.in;
	a->turnout += r->w.out;
	a->turncached += r->w.cached;
	a->turncost += wirecost(&r->w, NULL);
	for (i = 0; i < r->w.ncalls; i++)
		if (!r->w.calls[i].id.len)
			bufaddf(&r->w.calls[i].id, "call_%d_%04x%04x",
			        ++a->nids, rand() & 0xffff, rand() & 0xffff);
	if (r->w.dropped)
		warn("the answer holds more than %d tool calls: the rest are "
		     "left out", askconf.maxcalls);
	evtextdone(&a->ev);
	recordmsg(a, wiremessage(&r->w, a->prov->name, a->model, NULL));
	spendanswer(a, lastmsg(a));
	evends(&a->ev, lastmsg(a));
	evmsg(&a->ev, lastmsg(a), 0);
}

/* -o: the last answer checked, its document alone on stdout (with -j
 * the events hold it), or the model asked once more, then given up on.
 * -1 asked again, else the turn's status. */
static int
checkanswer(Agent *a, const Reply *r, int *asked)
{
	Buf doc = { 0 }, why = { 0 }, msg = { 0 };
	int rc = 0;

	if (schemaanswer(&a->answer, bstr(&r->w.text), r->w.text.len, &doc,
	    &why) == 0) {
		bufaddc(&doc, '\n');
		if (!a->json)
			evwrite(&a->ev, doc.p, doc.len);
	} else if (!(*asked)++) {
		if (!a->ev.quiet)
			warn("the answer does not match the schema: %s: "
			     "asking once more", why.p);
		schemaretry(&msg, why.p);
		recordmsg(a, entryuser(msg.p, msg.len, NULL));
		evmsg(&a->ev, lastmsg(a), 1);
		rc = -1;
	} else {
		bufreset(&a->stopped);
		bufaddf(&a->stopped, "the answer does not match the schema: "
		        "%s", why.p);
		warn("%s", a->stopped.p);
		rc = 4;
	}
	buffree(&doc);
	buffree(&why);
	buffree(&msg);
	return rc;
}

/* The status of a last answer, one without calls: 1 if it was cut; with
 * -o, checkanswer's. */
static int
answerstatus(Agent *a, const Reply *r, int *asked)
{
	if (!strcmp(r->w.finish, "length") || r->w.cut) {
		bufreset(&a->stopped);
		bufaddf(&a->stopped, "the answer was cut short: %s",
		        strcmp(r->w.finish, "length") ? r->w.finish :
		        "the output token limit was reached");
		warn("%s", a->stopped.p);
		return 1;
	}
	return a->answer.text ? checkanswer(a, r, asked) : 0;
}

/* A turn ends: the answer ends its line, the usage is said, the session
 * synced.  Its status, 1 if the session could not be written. */
static int
endturn(Agent *a, int rc)
{
	Buf f = { 0 };

	bufadds(&f, "\"summary\":");
	budgetsummary(&f, &a->spent, bstr(&a->sid), a->sess.path,
	              exitstatus(rc), a->stopped.len ? a->stopped.p :
	              rc ? "failed" : "the model finished");
	evemit(&a->ev, "agent_end", f.p);
	buffree(&f);
	if (a->ev.textseen && a->ev.lastc != '\n')	/* it ends its line */
		evwrite(&a->ev, "\n", 1);
	evshowusage(&a->ev, a->turnin, a->turncached, a->turnout,
	            wireprice(prices, LEN(prices), a->model) ? a->turncost : -1);
	if (sesssync(&a->sess) < 0)
		a->ioerr = 1;
	return rc == 0 && a->ioerr ? 1 : rc;
}

/* The calls of an answer, in order, each result recorded as it comes;
 * the usage of the tasks among them counted in the turn's. */
static void
runcalls(Agent *a, Reply *r)
{
	char **msg = xcalloc(r->w.ncalls, sizeof(*msg));
	Tooluse use = { { 0 }, 0, 0 };
	Wirecall *c;
	int i, k, m;

	bufreset(&a->taskbudget);
	budgetleft(&a->budget, &a->spent, a->ledger != NULL,
	           &a->taskbudget);
	a->task.budget = bstr(&a->taskbudget);
	for (i = 0; i < r->w.ncalls && !intr; i += k) {
		k = callrun(&a->calls, r->w.calls + i, r->w.ncalls - i, msg,
		            &use);
		for (m = 0; m < k; m++) {
			c = &r->w.calls[i + m];
			budgetcall(&a->spent, bstr(&c->name), &c->args, msg[m]);
			recordmsg(a, msg[m]);
			evmsg(&a->ev, lastmsg(a), 1);
		}
	}
	free(msg);
	for (i = 0; i < 4; i++)
		a->spent.tok[i] += use.tok[i];
	a->spent.cost += use.cost;
	a->spent.calls += use.calls;
	a->turnin += use.tok[0] + use.tok[2] + use.tok[3];
	a->turncached += use.tok[2];
	a->turnout += use.tok[1];
	a->turncost += use.cost;
}

/* One user message and the model rounds it sets off: 0 done, 1 failed,
 * 130 interrupted. */
int
agentturn(Agent *a, const char *text, size_t len)
{
	Reply r;
	Http h;
	Wirereq q;
	int round, i, compacted = 0, follow = 0, asked = 0;
	char *s;

	beginturn(a);
	recordmsg(a, entryuser(text, len, &a->attach));
	buffree(&a->attach);
	for (round = 0; round < maxrounds; round++) {
		if ((i = overbudget(a)) != 0)
			return endturn(a, i);
		evemit(&a->ev, "turn_start", NULL);
		if (!round && !compacted)
			evmsg(&a->ev, lastmsg(a), 1);
		/* -r: a message sent while the agent works, as pi's */
		if (a->rpc && (s = rpctake(a->rpc, follow))) {
			recordmsg(a, entryuser(s, strlen(s), NULL));
			evmsg(&a->ev, lastmsg(a), 1);
			free(s);
		}
		/* the context's lines lie in the file, mapped */
		if (sessshort(&a->sess)) {
			warn("the session file was cut short while in use");
			bufadds(&a->stopped, "the session file was cut short");
			return endturn(a, 1);
		}
		if (ctxrewritten(&a->ctx)) {
			warn("the session file was rewritten while in use");
			bufadds(&a->stopped, "the session file was rewritten");
			return endturn(a, 1);
		}
		evstart(&a->ev, a->prov->wire, a->prov->name, a->model);
		makerequest(a, &q);
		ctxforms(&a->ctx, &q);
		i = askmodel(&a->ask, &q, &r, &h, 0);
		ctxsent(&a->ctx);
		if (i < 0) {
			recordfailed(a, &r);
			evemit(&a->ev, "turn_end", NULL);
			if (r.overflow && autocompact && !compacted &&
			    agentcompact(a, "overflow", NULL) == 0) {
				/* once: the same question on a shorter context */
				askfree(&r);
				compacted = 1;
				round--;
				continue;
			}
			askfree(&r);
			if (!a->stopped.len)
				bufadds(&a->stopped, intr ? "interrupted" :
				        bstr(&r.why));
			return endturn(a, intr ? 130 : 1);
		}
		takeanswer(a, &r);
		follow = !r.w.ncalls;
		if (!r.w.ncalls && !(a->rpc && rpcpending(a->rpc, 1))) {
			i = answerstatus(a, &r, &asked);
			evemit(&a->ev, "turn_end", NULL);
			askfree(&r);
			if (i < 0)	/* -o: asked again */
				continue;
			return endturn(a, i);
		}
		evendline(&a->ev);
		runcalls(a, &r);
		evemit(&a->ev, "turn_end", NULL);
		askfree(&r);
		if (intr && !a->rpc) {	/* -r: an aborted call, as pi's */
			evendline(&a->ev);
			return endturn(a, stopword(a));
		}
	}
	bufaddf(&a->stopped, "the budget of %d model calls in one turn is "
	        "spent (maxrounds in config.h)", maxrounds);
	warn("%s", a->stopped.p);
	return endturn(a, 3);
}

/* Read all of a piped stdin, up to maxstdin bytes. */
static void
readstdin(Agent *a, Buf *b)
{
	char buf[65536];
	ssize_t n;

	for (;;) {
		n = read(0, buf, sizeof(buf));
		if (n < 0 && errno == EINTR && !intr)
			continue;
		if (n < 0)
			toolcleanup(&a->tenv);
		if (n < 0 && intr)
			exit(exitstatus(130));
		if (n < 0)
			die("read stdin:");
		if (n == 0)
			break;
		if (b->len + n > maxstdin) {
			warn("stdin is over %zu bytes: the rest is not attached",
			     maxstdin);
			bufadd(b, buf, maxstdin - b->len);
			break;
		}
		bufadd(b, buf, n);
	}
}

/* Whether the prompt's words are all empty, as `agent ''` gives. */
static int
emptyprompt(char **w)
{
	for (; *w; w++)
		if (**w)
			return 0;
	return 1;
}

static int
oneshot(Agent *a, char **prompt)
{
	Buf msg = { 0 }, in = { 0 };
	int rc;

	if (!isatty(0))
		readstdin(a, &in);
	rc = promptargv(&a->pc, &msg, &a->attach, prompt, &in);
	if (rc == 0 && !msg.len && !a->attach.len) {	/* -K, stdin empty */
		warn("no prompt");
		rc = -1;
	}
	rc = rc < 0 ? 1 : agentturn(a, msg.p, msg.len);
	buffree(&msg);
	buffree(&in);
	return rc;
}

/* Set the thinking level by name: -1 if there is none such.  A provider
 * that takes none is said to once. */
int
agentsetlevel(Agent *a, const char *name)
{
	int l = wirelevel(name);

	if (l < 0) {
		warn("no thinking level %s: off, minimal, low, medium, "
		     "high, xhigh or max", name);
		return -1;
	}
	if (l != LEVELOFF && a->prov->think == THNONE)
		warn("%s takes no thinking level: %s is not sent",
		     a->prov->name, name);
	a->level = l;
	return 0;
}

/* The run goes on in session s, in place of the one before. */
void
agentusesession(Agent *a, Session *s)
{
	sessfree(&a->sess);
	a->sess = *s;
	a->modelnoted = 0;
	agentloadbranch(a);
}

/* The run goes on in a new session holding the path to entry at (NULL:
 * the leaf; an id of none: nothing); the file forked from is only read.
 * 0, or -1. */
int
agentforkto(Agent *a, const char *at)
{
	Session s;

	if (sessdirnext(&s, &a->sess, 1, at) < 0)
		return -1;
	agentusesession(a, &s);
	return 0;
}

static const Provider *
findprovider(const char *name)
{
	size_t i;

	for (i = 0; i < LEN(providers); i++)
		if (!strcmp(providers[i].name, name))
			return &providers[i];
	return NULL;
}

/* A mistake in config.h: said, and the run ends before any request. */
static void
badconfig(const char *fmt, ...)
{
	va_list ap;

	fputs("agent: config.h: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* Whether a provider row's header lines are bad: too many, a line with
 * no name before its colon, a CR or a control character in one. */
static int
badheaders(const char *h)
{
	const char *p, *nl;
	int n = 0;

	for (p = h; p && *p; p = *nl ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		if (*p == ':' || p[strcspn(p, ":\n")] != ':' ||
		    ++n > WIREHDRS - 3)
			return 1;
		for (; p < nl; p++)
			if ((unsigned char)*p < ' ' || *p == 0x7f)
				return 1;
	}
	return 0;
}

/* config.h's limits, for the tools: set once, before they are named in
 * the tools' texts.  bash's are a part of them. */
static void
setlimits(Agent *a)
{
	static Proclimits plim;
	const Toollimits *lim = &toollimits;

	a->tenv.lim = lim;
	plim.maxlines = lim->maxlines;
	plim.maxbytes = lim->maxbytes;
	plim.maxlog = lim->maxlog;
	plim.killgrace = lim->killgrace;
	plim.shells = shells;
	plim.secretwords = secretwords;
	plim.keepenv = keepenv;
	plim.scrubenv = a->scrub;	/* buildscrub's */
	a->procs.lim = &plim;
	a->undo.max = lim->maxundo;
	a->undo.maxedit = lim->maxedit;
}

/* config.h's tables checked, before any request; the tools' texts with
 * their numbers filled in (tools.c's toolnumbers). */
static void
checkconfig(Agent *a)
{
	Buf why = { 0 };
	size_t i, k;

	a->desc = xcalloc(LEN(tools), sizeof(*a->desc));
	a->schema = xcalloc(LEN(tools), sizeof(*a->schema));
	for (i = 0; i < LEN(tools); i++) {
		if (!tools[i].name || !toolgoodname(tools[i].name))
			badconfig("tool %zu: a name of 1 to 64 letters, digits, "
			          "_ and - is needed", i + 1);
		for (k = 0; k < i; k++)
			if (!strcmp(tools[k].name, tools[i].name))
				badconfig("tool %s: two rows", tools[i].name);
		if (!tools[i].fn || !tools[i].desc || !tools[i].schema)
			badconfig("tool %s: a function, a description and a "
			          "schema are needed", tools[i].name);
		if (!(a->desc[i] = toolnumbers(a->tenv.lim, tools[i].desc,
		                               &why)) ||
		    !(a->schema[i] = toolnumbers(a->tenv.lim, tools[i].schema,
		                                 &why)) ||
		    toolschema(a->schema[i], &why) < 0)
			badconfig("tool %s: %s", tools[i].name, why.p);
	}
	for (i = 0; i < LEN(providers); i++)
		if (providers[i].wire == OPENAI && (!providers[i].maxfield ||
		    !toolgoodname(providers[i].maxfield)))
			badconfig("provider %s: the max tokens field must be a "
			          "plain name", providers[i].name);
	for (i = 0; i < LEN(providers); i++)
		if (badheaders(providers[i].headers))
			badconfig("provider %s: headers: at most %d lines of "
			          "Name: value, '\\n' between them", providers[i].name,
			          WIREHDRS - 3);
	if (guardcheck(profiles, LEN(profiles), rules, hooks, tools,
	               LEN(tools), &why) < 0)
		badconfig("%s", why.p);
}

/* The tools offered: config.h's, -t's; the MCP servers', lazily. */
static void
offertools(Agent *a, const char *list)
{
	Calls *c = &a->calls;
	const char *off = a->guard.prof->off, *v;
	Buf b = { 0 };

	v = getenv("AGENT_TASKDEPTH");
	a->task.depth = v ? MAX(atoi(v), 0) : 0;
	if (a->task.depth >= taskconf.depth) {	/* no task from here */
		bufaddf(&b, "%s,task", off ? off : "");
		off = b.p;
	}

	c->tools = tools;
	c->ntools = LEN(tools);
	c->desc = a->desc;
	c->schema = a->schema;
	c->guard = &a->guard;
	c->color = a->ev.color;
	c->ev = &a->ev;
	c->tenv = &a->tenv;
	c->showlines = showlines;
	c->showbytes = showbytes;
	if (calloffer(c, list, off) < 0)
		usage();
	buffree(&b);
	a->mcpconf.servers = mcpservers;
	a->mcpconf.calltimeout = mcptimeout;
	a->mcpconf.listtimeout = mcpstarttimeout;
	a->mcpconf.maxmsg = askconf.maxevent;
	a->mcpconf.cafiles = cafiles;
	a->mcpconf.conntimeout = conntimeout;
	a->mcpconf.proxy = &a->proxy;
	a->mcpconf.tenv = &a->tenv;
	a->mcpconf.traceopen = &a->ev.traceopen;
	c->mcp = mcpnew(&a->mcpconf);
}

static void
buildsystem(Agent *a)
{
	Buf b = { 0 }, sk = { 0 };
	int k, read = 0;

	bufadds(&b, sysprompt);
	for (k = 0; k < a->calls.noffer; k++)
		read |= !strcmp(a->calls.offer[k].name, "read");
	guardprompt(&a->guard, &b);
	a->pc = (Promptconf){ skilldirs, promptdirs, maxskill, maxattach,
	                      toollimits.maximage, guarddenied, &a->guard };
	if (read)	/* as pi: skills are read */
		promptskills(&sk, &a->pc);
	ctxsystem(&b, contextfiles, maxcontext, &sk);
	if (a->answer.text && !nativeschema(a))
		schemaprompt(&b, &a->answer);
	a->system = bufdetach(&b);
	buffree(&sk);
}

/* What a task's child is started with: the task row's provider (its key
 * taken now, before the keys are hidden) and profile, no wider than
 * ours, and the tools we offer that it may have. */
/* One NAME=value of the credentials a task's child is given whole,
 * where the variable is set. */
static void
taskcred(Agent *a, int *n, const char *name)
{
	const char *v = getenv(name);
	Buf b = { 0 };

	if (!v || !*v)
		return;
	bufaddf(&b, "%s=%s", name, v);
	a->taskcreds[(*n)++] = bufdetach(&b);
}

/* The credentials a child on our provider needs besides its key, read
 * before prochide blanks them: Bedrock's AWS keys when we sign, the
 * Google key file we take our tokens from. */
static char *const *
taskcreds(Agent *a)
{
	int n = 0;

	if (a->ask.aws || (a->prov->wire == BEDROCK && !a->key)) {
		taskcred(a, &n, "AWS_ACCESS_KEY_ID");
		taskcred(a, &n, "AWS_SECRET_ACCESS_KEY");
		taskcred(a, &n, "AWS_SESSION_TOKEN");
	} else if (a->gauth.key) {
		taskcred(a, &n, "GOOGLE_APPLICATION_CREDENTIALS");
	}
	return n ? a->taskcreds : NULL;
}

static void
settask(Agent *a)
{
	Task *t = &a->task;
	const Provider *p = a->prov;
	const Profile *g;
	const char *v;

	if (callrow(&a->calls, "task") < 0)
		return;
	if (taskconf.parallel < 1 || taskconf.timeout < 0)
		diecfg("config.h: taskconf needs one task at once or more, and "
		    "no time limit below 0");
	if (taskconf.provider && !(p = findprovider(taskconf.provider)))
		diecfg("config.h: the task row's provider %s is not in providers",
		    taskconf.provider);
	g = guardnarrower(profiles, LEN(profiles), taskconf.profile ?
	                  taskconf.profile : a->guard.prof->name,
	                  a->guard.prof, tools, LEN(tools));
	if (!g)
		diecfg("config.h: the task row's profile %s is not in profiles",
		    taskconf.profile);
	t->conf = &taskconf;
	t->samewire = p == a->prov;
	t->provider = p->name;
	t->key = a->key;
	t->model = taskconf.model;
	if (!t->samewire) {	/* its own key, never ours */
		v = p->keyenv ? getenv(p->keyenv) : NULL;
		t->key = a->taskkey = v && *v ? xstrdup(v) : NULL;
		if (!t->model && !(t->model = p->model))
			diecfg("config.h: the task row names provider %s and no "
			    "model, and the provider has none", p->name);
	}
	if (t->samewire)
		t->creds = taskcreds(a);
	t->profile = g->name;
	t->yes = a->calls.yes;
	t->sess = &a->sess;
	t->pg = taskpg;
	t->npg = LEN(taskpg);
	t->tools = tasktools(t, a->calls.offer, a->calls.nfixed, g->off);
	t->proxy = &a->proxy;
	a->tenv.task = t;
}

/* Keys must never reach a tool: the bash tool drops these variables. */
static void
buildscrub(Agent *a)
{
	size_t i, n = 0;

	a->scrub = xcalloc(LEN(providers) + LEN(secretenv) + LEN(mcpservers) +
	                   2, sizeof(*a->scrub));
	a->scrub[n++] = "AGENT_API_KEY";
	for (i = 0; i < LEN(providers); i++)
		if (providers[i].keyenv)
			a->scrub[n++] = providers[i].keyenv;
	for (i = 0; secretenv[i]; i++)
		a->scrub[n++] = secretenv[i];
	for (i = 0; mcpservers[i].name; i++)	/* MCP servers' tokens */
		if (mcpservers[i].env)
			a->scrub[n++] = mcpservers[i].env;
	a->scrub[n] = NULL;
}

/* The guard: the profile, config.h's rules and hooks, the sandbox. */
static void
setguard(Agent *a, const char *gname)
{
	a->guard.rules = rules;
	a->guard.hooks = hooks;
	a->guard.tenv = &a->tenv;
	guardprofile(&a->guard, profiles, LEN(profiles), gname);
	/* the sandbox it asks of the tools */
	a->box.write = a->guard.prof->write;
	a->box.net = a->guard.prof->net;
	a->box.plan = a->guard.prof->plan;
	a->box.gitwrite = a->guard.prof->gitwrite;
	a->git.write = a->guard.prof->gitwrite;
	a->procs.stay = a->guard.prof->stay;
	/* read rules hold grep, find and ls too, in their walks */
	a->tenv.unseen = guardunseen;
	a->tenv.unseenarg = &a->guard;
}

/* -T, else AGENT_THINKING, else the provider's default; a session
 * resumed keeps its own unless one was named. */
static void
setthinking(Agent *a, const char *name)
{
	const char *def = a->prov->thinking ? a->prov->thinking : "off";

	if (!name || !*name)
		name = getenv("AGENT_THINKING");
	a->levelset = name && *name;
	a->branchlevel = wirelevel(def);	/* a branch that says none */
	if (agentsetlevel(a, a->levelset ? name : def) < 0)
		usage();
}

/* A copy of variable name's value, kept in a->awsown[i]; NULL if unset
 * or empty. */
static const char *
awsvar(Agent *a, int i, const char *name)
{
	const char *v = getenv(name);

	return a->awsown[i] = v && *v ? xstrdup(v) : NULL;
}

/* Bedrock: the region (AWS_REGION, else AWS_DEFAULT_REGION) into the
 * base URL's {region}, and without a Bedrock API key the credentials
 * each request is signed with (SigV4).  A replay asks no one: it needs
 * neither. */
static void
setaws(Agent *a)
{
	const char *region, *at, *replay = getenv("AGENT_REPLAY");
	int sign = !a->key && !(replay && *replay);
	Buf url = { 0 };

	if (!(region = awsvar(a, 3, "AWS_REGION")))
		region = awsvar(a, 3, "AWS_DEFAULT_REGION");
	if (region && strspn(region, "abcdefghijklmnopqrstuvwxyz0123456789-")
	    != strlen(region))
		diecfg("%s: AWS region %s: not a region's name", a->prov->name,
		       region);
	if (!region && (sign || strstr(a->url, "{region}")))
		diecfg("%s: no AWS region: set AWS_REGION or "
		       "AWS_DEFAULT_REGION", a->prov->name);
	if ((at = strstr(a->url, "{region}"))) {
		bufadd(&url, a->url, at - a->url);
		bufadds(&url, region);
		bufadds(&url, at + 8);
		a->url = a->urlmade = bufdetach(&url);
	}
	if (!sign)
		return;
	a->aws.id = awsvar(a, 0, "AWS_ACCESS_KEY_ID");
	a->aws.secret = awsvar(a, 1, "AWS_SECRET_ACCESS_KEY");
	a->aws.token = awsvar(a, 2, "AWS_SESSION_TOKEN");
	a->aws.region = region;
	a->aws.service = "bedrock";
	if (!a->aws.id || !a->aws.secret)
		diecfg("%s: no credentials: set %s, or AWS_ACCESS_KEY_ID and "
		       "AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN with "
		       "temporary ones)", a->prov->name, a->prov->keyenv ?
		       a->prov->keyenv : "AGENT_API_KEY");
	a->ask.aws = &a->aws;
}

/* Google's: with no token given, the service account's key file, read
 * once (prochide blanks its name after); the URL's {project} (the
 * first of GOOGLE_CLOUD_PROJECT, Claude Code's ANTHROPIC_VERTEX_PROJECT_ID
 * and the key file's project_id) and {location} (GOOGLE_CLOUD_LOCATION,
 * else Claude Code's CLOUD_ML_REGION, else global) filled in. */
static void
setgoogle(Agent *a, int needkey)
{
	const char *creds = getenv("GOOGLE_APPLICATION_CREDENTIALS");
	const char *proj = getenv("GOOGLE_CLOUD_PROJECT");
	const char *loc = getenv("GOOGLE_CLOUD_LOCATION");
	Buf err = { 0 }, url = { 0 };

	if (needkey && creds && *creds) {
		if (gauthload(&a->gauth, creds, &err) < 0)
			diecfg("%s: GOOGLE_APPLICATION_CREDENTIALS: %s",
			       a->prov->name, err.p);
	} else if (needkey) {
		diecfg("%s: no access token: set %s (gcloud auth "
		       "print-access-token says one), or "
		       "GOOGLE_APPLICATION_CREDENTIALS to a service "
		       "account's key file", a->prov->name, a->prov->keyenv);
	}
	if (!proj || !*proj)
		proj = getenv("ANTHROPIC_VERTEX_PROJECT_ID");
	if (!proj || !*proj)
		proj = a->gauth.project;
	if (!loc || !*loc)
		loc = getenv("CLOUD_ML_REGION");
	if (!loc || !*loc)
		loc = "global";
	if (!proj)
		proj = "";
	if (strstr(a->url, "{project}") && !*proj)
		diecfg("%s: no project: set GOOGLE_CLOUD_PROJECT",
		       a->prov->name);
	if (gauthurl(&url, a->url, proj, loc) < 0)
		diecfg("%s: the project \"%s\" or the location \"%s\" is no "
		       "name Google gives", a->prov->name, proj, loc);
	a->url = a->urlmade = bufdetach(&url);
	buffree(&err);
}

/* -P, else AGENT_PROVIDER, else config.h's first; -m, else AGENT_MODEL,
 * else the provider's model; the base URL and the key, from the
 * environment or config.h. */
static void
setprovider(Agent *a, const char *pname, const char *model)
{
	Buf names = { 0 };	/* for the message before exit */
	const char *v, *replay = getenv("AGENT_REPLAY");
	size_t i;
	int envp;
	Url u;

	if ((envp = !pname))
		pname = getenv("AGENT_PROVIDER");
	a->prov = pname && *pname ? findprovider(pname) : &providers[0];
	for (i = 0; !a->prov && i < LEN(providers); i++)
		bufaddf(&names, "%s%s", i ? ", " : "", providers[i].name);
	if (!a->prov)
		diecfg("%s%s: no provider of that name in config.h, which has "
		       "%s", envp ? "AGENT_PROVIDER=" : "-P ", pname, names.p);
	if (!(a->modelset = model && *model))
		model = getenv("AGENT_MODEL");
	if (!(model && *model) && !(model = a->prov->model))
		diecfg("%s: no model: use -m or AGENT_MODEL", a->prov->name);
	agentusemodel(a, xstrdup(model));
	v = getenv("AGENT_BASE_URL");
	if (!(a->url = v && *v ? v : a->prov->url))
		diecfg("%s: no base URL: set AGENT_BASE_URL (Azure's: "
		       "https://RESOURCE.openai.azure.com/openai/v1)",
		       a->prov->name);
	v = getenv("AGENT_API_KEY");
	if ((!v || !*v) && a->prov->keyenv)
		v = getenv(a->prov->keyenv);
	a->key = a->keyin ? fdline(0, 65536) : v && *v ? xstrdup(v) : NULL;
	if (a->prov->auth == AUTHGOOGLE)	/* a replay asks no one */
		setgoogle(a, !a->key && !(replay && *replay));
	else if (!a->key && a->prov->keyenv && !(replay && *replay) &&
	    a->prov->wire != BEDROCK)	/* which may sign instead */
		diecfg("%s: no API key: set %s or AGENT_API_KEY", a->prov->name,
		    a->prov->keyenv);
	if (a->prov->wire == BEDROCK)
		setaws(a);
	if ((v = httpurl(&u, a->url)))
		diecfg("%s: %s", a->url, v);
}

/* How the model is asked: where, with config.h's bounds. */
static void
setask(Agent *a)
{
	a->ask.url = a->url;
	a->ask.key = a->key;
	a->ask.headers = a->prov->headers;
	a->ask.query = a->prov->query;
	a->ask.gauth = a->gauth.key ? &a->gauth : NULL;
	a->ask.http = a->http;
	if (recopen(&a->rec, getenv("AGENT_RECORD"), getenv("AGENT_REPLAY"),
	            a->key) < 0)
		exit(2);
	a->ask.rec = &a->rec;
	a->ask.ev = &a->ev;
	a->ask.json = a->json;
	a->ask.intr = &intr;
	a->ask.conf = &askconf;
	a->ask.sent = ctxsentupto;
	a->ask.sentarg = &a->ctx;
}

/* What the context takes of config.h, and the session it is of. */
static void
setcontext(Agent *a)
{
	a->ctx.conf = &ctxconf;
	a->ctx.sess = &a->sess;
}

/* AGENT_TIMEOUT's seconds, up to a million: digits alone, as atol would
 * take; else config.h's readtimeout. */
static long
envtimeout(void)
{
	const char *v;
	long n;

	for (v = getenv("AGENT_TIMEOUT"), n = 0; v && *v >= '0' && *v <= '9' &&
	     n < 1000000; v++)
		n = n * 10 + (*v - '0');
	return n > 0 ? MIN(n, 1000000) : readtimeout;
}

/* SIGINT, SIGTERM, SIGHUP and the budget's SIGALRM stop the turn
 * (onsignal); SIGBUS ends the run (onbus); SIGPIPE is ignored, and so
 * is SIGXFSZ: a session's append past ulimit -f fails (EFBIG) and is
 * taken back whole, where the signal would end the run in mid-line. */
static void
catchsignals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = onsignal;	/* no SA_RESTART: reads see EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = onbus;
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGXFSZ, &sa, NULL);
}

/* The budget: -b's, else AGENT_BUDGET's (set, even empty: a task's
 * child is given what is left of its parent's), else config.h's; the
 * ledger it may count; the run's id in it. */
static void
setbudget(Agent *a, const char *list)
{
	const char *v = getenv("AGENT_BUDGET");
	Buf why = { 0 };

	if (!list)
		list = v ? v : defbudget;
	if (*list && budgetparse(&a->budget, list, &why) < 0) {
		diecfg("-b: %s", why.p);
	}
	a->spent.startms = monoms();
	a->spent.costknown = wireprice(prices, LEN(prices), a->model) != NULL;
	if (a->budget.cost && !a->spent.costknown) {
		diecfg("-b: cost=%g cannot be kept: config.h's prices name "
		       "no model %s", a->budget.cost, a->model);
	}
	if ((v = getenv("AGENT_LEDGER")) && *v)
		a->ledger = v;
	uuid(a->runid);
}

/* -w's directories, which the workspace profile may write too: each
 * must be one, its links resolved. */
static void
setwdirs(Agent *a, const Buf *dirs)
{
	struct stat st;
	size_t i, n = 0;
	char *p;

	for (i = 0; i < dirs->len; i += strlen(dirs->p + i) + 1)
		n++;
	a->box.wdirs = xcalloc(n + 1, sizeof(*a->box.wdirs));
	for (i = 0, n = 0; i < dirs->len; i += strlen(dirs->p + i) + 1) {
		if (!(p = sandboxlanding(dirs->p + i)) || stat(p, &st) < 0) {
			diecfg("-w %s:", dirs->p + i);
		}
		if (!S_ISDIR(st.st_mode)) {
			diecfg("-w %s: not a directory", dirs->p + i);
		}
		a->box.wdirs[n++] = p;
	}
}

/* What the flags name, for setup and the run. */
typedef struct {
	const char *pname, *model, *toollist, *gname, *level;
	const char *file;	/* -s's or -f's */
	const char *export;	/* -e's */
	const char *schema;	/* -o's */
	int mode;		/* the session: 'c', 's', 'f', or 0 */
	int nosave;		/* -n: it is kept in memory alone */
	int rpc;		/* -r */
	int diff;		/* -d */
	const char *budget;	/* -b's */
	const char *dir;	/* -C's */
	Buf wdirs;		/* -w's, each ended by a NUL */
} Flags;

static void
setup(Agent *a, const Flags *f)
{
	long timeout;

	/* the tools reach each room's own state by these */
	a->tenv.box = &a->box;
	a->tenv.procs = &a->procs;
	a->tenv.git = &a->git;
	a->tenv.undo = &a->undo;
	a->procs.box = &a->box;
	httpproxyenv(&a->proxy);	/* before prochide blanks them */
	buildscrub(a);
	setlimits(a);
	checkconfig(a);
	setprovider(a, f->pname, f->model);
	setcontext(a);
	setbudget(a, f->budget);
	setwdirs(a, &f->wdirs);
	timeout = envtimeout();
	a->ev.color = isatty(2) && !getenv("NO_COLOR");
	setguard(a, f->gname);
	offertools(a, f->toollist);
	settask(a);
	prochide(a->procs.lim);
	a->intr = &intr;
	a->quit = &quitsig;
	a->tenv.intr = &intr;
	a->procs.intr = &intr;
	a->procs.pgid = &toolpg;
	a->http = httpnew(cafiles, conntimeout * 1000, timeout * 1000,
	                  maxhead, &intr, &a->proxy);
	a->ev.intr = &intr;
	a->ev.quit = &quitsig;
	a->ev.ttyesc = isatty(1);
	a->ev.ttyout = a->ev.ttyesc || samefile(1, 2);
	a->ev.lastc = -1;
	a->ev.maxhold = maxhold;
	a->ev.maxtail = toollimits.maxbytes;
	setask(a);
	srand(time(NULL) ^ getpid());
	catchsignals();
	if (a->budget.time)
		alarm(a->budget.time);	/* onsignal: outoftime */
}

/* The flags of argv into f, and a's own (-q -y -j -i); -v and -h end the
 * run.  The index of the first word that is no flag. */
static int
readflags(Agent *a, char **argv, Flags *f)
{
	const char *arg = NULL;
	Buf why = { 0 };
	int c, ind = 1, pos = 1;

	memset(f, 0, sizeof(*f));
	while ((c = flagnext(argv, "cdnqyjrvhlKs:f:P:m:t:g:T:i:e:b:C:w:o:",
	                     &ind, &pos, &arg)) != -1) {
		switch (c) {
		case 'n': f->nosave = 1; break;
		case 'c': case 's': case 'f':
			if (f->mode && f->mode != c)
				usage();	/* one session choice */
			f->mode = c;
			f->file = arg;
			break;
		case 'l':
			sessdirshow(stdout, termcols());
			if (fflush(stdout) == EOF)
				die("write stdout:");
			exit(0);
		case 'q': a->ev.quiet = 1; break;
		case 'y': a->calls.yes = 1; break;
		case 'v':
			if (puts("agent " VERSION) == EOF || fflush(stdout))
				die("write stdout:");
			exit(0);
		case 'h':
			if (fputs(usagetext, stdout) == EOF || fflush(stdout))
				die("write stdout:");
			exit(0);
		case 'P': f->pname = arg; break;
		case 'm': f->model = arg; break;
		case 't': f->toollist = arg; break;
		case 'g': f->gname = arg; break;
		case 'T': f->level = arg; break;
		case 'j': a->json = 1; break;
		case 'K': a->keyin = 1; break;
		case 'i':
			if (!toolimage(arg, toollimits.maximage, &a->attach,
			    &why))
				diecfg("-i: %s", why.p);
			break;
		case 'r': f->rpc = a->json = 1; break;
		case 'd': f->diff = 1; break;
		case 'e': f->export = arg; break;
		case 'b': f->budget = arg; break;
		case 'C': f->dir = arg; break;
		case 'w': bufadd(&f->wdirs, arg, strlen(arg) + 1); break;
		case 'o': f->schema = arg; break;
		default:
			usage();
		}
	}
	return ind;
}

/* -d: the run works in a copy of the tree, its session still this
 * directory's; a tree that cannot be copied is the user's to fix. */
static void
startscratch(Scratch *s, Scratchconf *c)
{
	Buf why = { 0 };
	const Toollimits *l = &toollimits;

	*c = (Scratchconf){ maxscratch, maxscratchfiles, l->diffcontext,
	                    l->ignorebytes, l->ignorelines, l->maxrules,
	                    l->rulebytes };
	if (scratchmake(s, c, &why) < 0) {
		warn("%s", why.p);
		exit(2);
	}
}

/* The sandbox and the git guard: from here on, toolcleanup; what cannot
 * start is config's (2). */
static int
startsandbox(Agent *a)
{
	Buf why = { 0 };

	if (sandboxinit(&a->box, &why) < 0 && !why.len)
		die("cannot make the sandbox:");
	if (why.len || gitinit(&a->git, maxgitbytes, maxgitfiles, &why) < 0) {
		toolcleanup(&a->tenv);
		warn("%s", why.p);
		return 2;
	}
	a->undo.root = a->box.root;
	procreaper(&a->procs);
	buffree(&why);
	return 0;
}

/* -j and -r: events only on stdout, the session's header first (not with
 * -r); stderr only for errors. */
static void
showevents(Agent *a, int rpc)
{
	a->ev.ttyout = a->ev.ttyesc = 0;
	a->ev.quiet = 1;
	a->ev.on = 1;
	a->procs.progress = evoutput;
	a->procs.progarg = &a->ev;
	if (!rpc) {
		evwrite(&a->ev, a->sess.head, strlen(a->sess.head));
		evwrite(&a->ev, "\n", 1);
	}
}

/* -o, else AGENT_SCHEMA: the schema the answer must match, read before
 * anything is asked.  A one-shot run's alone: line mode and -r answer
 * in text. */
static void
loadschema(Agent *a, const char *path, int oneshot)
{
	Buf why = { 0 };

	if (!path || !*path)
		path = getenv("AGENT_SCHEMA");
	if (!path || !*path)
		return;
	if (!oneshot || schemafile(&a->answer, path, maxschema, &why) < 0) {
		warn("-o: %s", oneshot ? why.p :
		     "for a one-shot run (a prompt, or -K) alone");
		exit(2);
	}
	a->ev.noanswer = !a->json;
}

/* All that a run holds, at its end. */
static void
agentfree(Agent *a)
{
	int i;

	sessfree(&a->sess);
	httpfree(a->http);
	recclose(&a->rec);
	evfree(&a->ev);
	ctxfree(&a->ctx);
	free(a->system);
	free(a->scrub);
	callfree(&a->calls);	/* the texts; their arrays are ours */
	free(a->desc);
	free(a->schema);
	free(a->task.tools);
	free(a->taskkey);
	for (i = 0; a->taskcreds[i]; i++)
		free(a->taskcreds[i]);
	httpproxyfree(&a->proxy);
	free(a->key);
	free(a->urlmade);
	gauthfree(&a->gauth);
	free(a->model);
	buffree(&a->attach);
	buffree(&a->sid);
	buffree(&a->env);
	buffree(&a->stopped);
	buffree(&a->taskbudget);
	buffree(&a->spent.files);
	schemafree(&a->answer);
	for (i = 0; i < (int)LEN(a->awsown); i++)
		free(a->awsown[i]);
	toolcleanup(&a->tenv);
	for (i = 0; a->box.wdirs && a->box.wdirs[i]; i++)
		free(a->box.wdirs[i]);
	free(a->box.wdirs);
}

int
main(int argc, char *argv[])
{
	Agent a;
	Flags f;
	Scratch sc;
	Scratchconf scc;
	int ind, rc;

#ifndef SMALL	/* musl, where the locale moves nothing agent uses */
	setlocale(LC_CTYPE, "");
#endif
	memset(&a, 0, sizeof(a));
	a.task.self = argv[0];
	ind = readflags(&a, argv, &f);
	if (f.dir && chdir(f.dir) < 0)
		diecfg("-C %s:", f.dir);
	if (f.export && (f.mode || f.nosave || f.rpc ||
	    (argv[ind] && argv[ind + 1])))
		usage();
	if (f.diff && (f.export || a.json))	/* -d's diff is stdout */
		usage();
	if (f.export)
		return exportcmd(f.export, argv[ind]);
	if (!f.rpc && ind < argc && emptyprompt(argv + ind))
		diecfg("the prompt is empty: give words, or none for line "
		       "mode");
	loadschema(&a, f.schema, !f.rpc && (ind < argc || a.keyin));
	setup(&a, &f);
	buffree(&f.wdirs);
	setthinking(&a, f.level);
	if ((rc = sessdiropen(&a.sess, f.mode, f.file, !f.nosave)) != 0)
		exit(rc);
	agentloadbranch(&a);
	if (intr)	/* during a long load */
		exit(exitstatus(130));
	if (f.diff)
		startscratch(&sc, &scc);
	buildsystem(&a);	/* it names where the tools work */
	if ((rc = startsandbox(&a)) != 0) {
		if (f.diff)
			scratchfree(&sc);
		exit(rc);
	}
	if (a.json)
		showevents(&a, f.rpc);
	if (f.rpc)
		rc = ind < argc ? (usage(), 2) : servemode(&a, autocompact);
	else
		rc = ind < argc || a.keyin ? oneshot(&a, argv + ind) :
		     chatmode(&a, histmax);
	rc = a.ev.failed ? 1 : exitstatus(rc);
	agentfree(&a);	/* the tools gone before the diff */
	if (f.diff && scratchdiff(&sc) < 0 && rc == 0)
		rc = 1;
	if (f.diff)
		scratchfree(&sc);
	return rc == 0 && a.git.bad ? 1 : rc;
}
