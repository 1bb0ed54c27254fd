/* See LICENSE file for copyright and license details. */
/* rpc.c: -r, pi's rpc mode: one JSON command a line on stdin, the
 * responses with the agent's events on stdout.  Lines are framed and
 * parsed here and answered from what serve.c shows of the run's state;
 * what needs the agent itself or changes its state (a prompt, a
 * compaction, a new session, another model or thinking level, the bash
 * command's result to record) goes back to it through rpcnext, and
 * serve.c does it. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "entry.h"
#include "session.h"
#include "tools.h"
#include "proc.h"
#include "gitguard.h"
#include "rpc.h"

enum { MAXLINE = 16 << 20 };	/* bytes of one command line */

static void
qpush(Rpcq *q, char *s)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? q->cap * 2 : 8;
		q->v = xrealloc(q->v, q->cap * sizeof(*q->v));
	}
	q->v[q->n++] = s;
}

/* The oldest of q, or NULL; the caller owns it. */
static char *
qshift(Rpcq *q)
{
	char *s;

	if (!q->n)
		return NULL;
	s = q->v[0];
	memmove(q->v, q->v + 1, --q->n * sizeof(*q->v));
	return s;
}

static void
qfree(Rpcq *q)
{
	while (q->n)
		free(q->v[--q->n]);
	free(q->v);
	memset(q, 0, sizeof(*q));
}

/* A line to stdout.  A reader gone ends the run as the end of stdin
 * does. */
static void
writeout(Rpc *r, const Buf *b)
{
	if (b->len && !r->eof && writeall(r->out, b->p, b->len) < 0) {
		r->eof = 1;
		*r->intr = 1;
	}
}

/* A response, as pi writes them: the request's id first, if it had one;
 * data (a JSON text) on success, err on failure.  Into later, to be sent
 * when the turn ends, or at once. */
static void
respond(Rpc *r, Buf *later, const char *id, const char *cmd, int ok,
        const char *data, const char *err)
{
	Buf b = { 0 };

	bufaddc(&b, '{');
	if (id)
		bufaddf(&b, "\"id\":%s,", id);
	bufadds(&b, "\"type\":\"response\",\"command\":");
	jsonescs(&b, cmd);
	bufaddf(&b, ",\"success\":%s", ok ? "true" : "false");
	if (ok && data)
		bufaddf(&b, ",\"data\":%s", data);
	if (!ok) {
		bufadds(&b, ",\"error\":");
		jsonescs(&b, err);
	}
	bufadds(&b, "}\n");
	if (later)
		bufadd(later, b.p, b.len);
	else
		writeout(r, &b);
	buffree(&b);
}

/* Member key of j's top object (a command, the session's head) as a
 * string, unescaped; NULL if it is none. */
static char *
rpcmember(const Json *j, const char *key)
{
	return jsonstr(j, jsonget(j, 0, key));
}

/* The request's id as JSON (a string or a number), or NULL. */
static char *
idof(const Json *j)
{
	Buf b = { 0 };
	int i = jsonget(j, 0, "id");

	if (i < 0 || (j->t[i].type != JSTR && j->t[i].type != JPRIM) ||
	    jsonisnull(j, i))
		return NULL;
	jsonraw(&b, j, i);
	return bufdetach(&b);
}

/* The session's file (if it has one) and id, as members of d. */
static void
sessionids(Rpc *r, Buf *d)
{
	Json j;
	char *sid = NULL;

	if (r->sess->head &&
	    jsonparse(&j, r->sess->head, strlen(r->sess->head)) == 0) {
		sid = rpcmember(&j, "id");
		jsonfree(&j);
	}
	if (r->sess->path) {
		bufadds(d, "\"sessionFile\":");
		jsonescs(d, r->sess->path);
		bufaddc(d, ',');
	}
	bufadds(d, "\"sessionId\":");
	jsonescs(d, sid ? sid : "");
	free(sid);
}

static void
getstate(Rpc *r, Buf *d)
{
	bufadds(d, "{\"model\":{\"id\":");
	jsonescs(d, *r->model);
	bufadds(d, ",\"name\":");
	jsonescs(d, *r->model);
	bufaddf(d, ",\"api\":\"%s\",\"provider\":", wireapi(r->wire));
	jsonescs(d, r->provider);
	bufaddf(d, ",\"contextWindow\":%ld,\"maxTokens\":%ld},",
	        *r->context, *r->maxout);
	bufaddf(d, "\"thinkingLevel\":\"%s\",\"isStreaming\":%s,"
	        "\"isCompacting\":false,\"steeringMode\":\"one-at-a-time\","
	        "\"followUpMode\":\"one-at-a-time\",",
	        wirelevelname(r->level ? *r->level : LEVELOFF),
	        r->busy == RPCTURN ? "true" : "false");
	sessionids(r, d);
	bufaddf(d, ",\"autoCompactionEnabled\":%s,\"messageCount\":%zu,"
	        "\"pendingMessageCount\":%zu}", r->autocompact ? "true" :
	        "false", *r->nmsgs, r->steer.n + r->follow.n);
}

/* What get_session_stats counts of the context's messages. */
typedef struct {
	size_t user, assistant, calls, results;
	long long tok[4];
	double cost;
} Stats;

static void
countmsg(Stats *st, const char *msg, size_t len)
{
	Json j;
	int c, k;

	if (jsonparse(&j, msg, len) < 0)
		return;
	c = jsonget(&j, 0, "content");
	if (jsoneq(&j, jsonget(&j, 0, "role"), "user"))
		st->user++;
	else if (jsoneq(&j, jsonget(&j, 0, "role"), "toolResult"))
		st->results++;
	else if (jsoneq(&j, jsonget(&j, 0, "role"), "assistant")) {
		st->assistant++;
		for (k = jsonat(&j, c, 0); k >= 0; k = jsonnext(&j, k))
			st->calls += jsoneq(&j, jsonget(&j, k, "type"),
			                    "toolCall");
		st->cost += entryusage(&j, 0, st->tok);
	}
	jsonfree(&j);
}

/* The length of the context's message i. */
static size_t
rpcmsglen(const Rpc *r, size_t i)
{
	return r->lens ? (*r->lens)[i] : strlen((*r->msgs)[i]);
}

/* pi's get_session_stats, of the context's messages. */
static void
sessionstats(Rpc *r, Buf *d)
{
	Stats st;
	size_t i;
	long used = r->used ? r->used(r->usedarg) : -1;

	memset(&st, 0, sizeof(st));
	for (i = 0; i < *r->nmsgs; i++)
		countmsg(&st, (*r->msgs)[i], rpcmsglen(r, i));
	bufaddc(d, '{');
	sessionids(r, d);
	bufaddf(d, ",\"userMessages\":%zu,\"assistantMessages\":%zu,"
	        "\"toolCalls\":%zu,\"toolResults\":%zu,\"totalMessages\":%zu,"
	        "\"tokens\":{\"input\":%lld,\"output\":%lld,\"cacheRead\":"
	        "%lld,\"cacheWrite\":%lld,\"total\":%lld},\"cost\":%.6f,"
	        "\"contextUsage\":{\"tokens\":", st.user, st.assistant,
	        st.calls, st.results, *r->nmsgs, st.tok[0], st.tok[1],
	        st.tok[2], st.tok[3], st.tok[0] + st.tok[1] + st.tok[2] +
	        st.tok[3], st.cost);
	if (used < 0 || *r->context <= 0)
		bufaddf(d, "null,\"contextWindow\":%ld,\"percent\":null}}",
		        *r->context);
	else
		bufaddf(d, "%ld,\"contextWindow\":%ld,\"percent\":%.2f}}",
		        used, *r->context, 100.0 * used / *r->context);
}

/* One of get_fork_messages' entries into d, if e is a user's message. */
static void
forkmessage(const Entry *e, void *arg)
{
	Buf *d = arg, t = { 0 };

	if (e->hidden || (e->role && strcmp(e->role, "user")) ||
	    strcmp(entrybrief(&t, e->type, e->line, e->len), "user") ||
	    !t.len) {
		buffree(&t);
		return;
	}
	bufadds(d, d->p[d->len - 1] == '[' ? "{\"entryId\":" :
	        ",{\"entryId\":");
	jsonescs(d, e->id);
	bufadds(d, ",\"text\":");
	jsonesc(d, t.p, t.len);
	bufaddc(d, '}');
	buffree(&t);
}

/* pi's get_fork_messages: every user message of the file, with its
 * entry's id, in file order; the file read once, a window at a time. */
static void
forkmessages(Rpc *r, Buf *d)
{
	bufadds(d, "{\"messages\":[");
	sesseach(r->sess, "message", forkmessage, d);
	bufadds(d, "]}");
}

static void
getmessages(Rpc *r, Buf *d)
{
	size_t i;

	bufadds(d, "{\"messages\":[");
	for (i = 0; i < *r->nmsgs; i++) {
		if (i)
			bufaddc(d, ',');
		bufadd(d, (*r->msgs)[i], rpcmsglen(r, i));
	}
	bufadds(d, "]}");
}

/* The text of the last assistant message that has some, as pi's
 * get_last_assistant_text: null if there is none. */
static void
lasttext(Rpc *r, Buf *d)
{
	Json j;
	Buf t = { 0 };
	size_t i = *r->nmsgs;
	int c, k, n;

	while (i-- > 0 && !t.len) {
		if (jsonparse(&j, (*r->msgs)[i], rpcmsglen(r, i)) < 0)
			continue;
		c = jsonget(&j, 0, "content");
		if (jsoneq(&j, jsonget(&j, 0, "role"), "assistant") &&
		    c >= 0 && j.t[c].type == JARR)
			for (k = 0; (n = jsonat(&j, c, k)) >= 0; k++)
				if (jsoneq(&j, jsonget(&j, n, "type"), "text"))
					jsonstrbuf(&j, jsonget(&j, n, "text"),
					           &t);
		jsonfree(&j);
	}
	bufadds(d, "{\"text\":");
	if (t.len)
		jsonesc(d, t.p, t.len);
	else
		bufadds(d, "null");
	bufaddc(d, '}');
	buffree(&t);
}

/* A message for the running turn (prompt with streamingBehavior, steer,
 * follow_up); 0 queued, -1 with why in err. */
static int
queuemsg(Rpc *r, const Json *j, const char *type, const char **err)
{
	char *msg, *how = NULL;
	int follow = !strcmp(type, "follow_up");

	if (!(msg = rpcmember(j, "message"))) {
		*err = "message must be a string";
		return -1;
	}
	if (!strcmp(type, "prompt")) {
		how = rpcmember(j, "streamingBehavior");
		follow = how && !strcmp(how, "followUp");
		if (!how || (!follow && strcmp(how, "steer"))) {
			*err = "Agent is already processing. Specify "
			       "streamingBehavior ('steer' or 'followUp') "
			       "to queue the message.";
			free(how);
			free(msg);
			return -1;
		}
	}
	qpush(follow ? &r->follow : &r->steer, msg);
	free(how);
	return 0;
}

/* The commands that need the agent idle: held until it is. */
static int
needsidle(const char *type)
{
	return wordin(type, "compact new_session set_model bash "
	              "set_thinking_level fork switch_session export_html");
}

/* Answer one command as it arrives, or hold it for rpcnext. */
static void
answercommand(Rpc *r, const Json *j, const char *type, const char *id,
        const char *line, size_t n)
{
	Buf d = { 0 };
	const char *err = NULL;

	if ((!strcmp(type, "prompt") && r->busy == RPCIDLE) || needsidle(type)) {
		qpush(&r->later, xstrndup(line, n));
		return;
	}
	if (wordin(type, "prompt steer follow_up")) {
		queuemsg(r, j, type, &err);
	} else if (!strcmp(type, "abort")) {
		if (r->busy != RPCIDLE) {
			*r->intr = 1;	/* answered when the turn ends */
			respond(r, &r->after, id, type, 1, NULL, NULL);
			return;
		}
	} else if (!strcmp(type, "abort_bash")) {
		if (r->busy == RPCBASH)
			*r->intr = 1;
	} else if (!strcmp(type, "get_state")) {
		getstate(r, &d);
	} else if (!strcmp(type, "get_messages")) {
		getmessages(r, &d);
	} else if (!strcmp(type, "get_last_assistant_text")) {
		lasttext(r, &d);
	} else if (!strcmp(type, "get_session_stats")) {
		sessionstats(r, &d);
	} else if (!strcmp(type, "get_fork_messages")) {
		forkmessages(r, &d);
	} else {
		bufadds(&d, "Unknown command: ");
		bufadds(&d, type);
		respond(r, NULL, id, type, 0, NULL, d.p);
		buffree(&d);
		return;
	}
	respond(r, NULL, id, type, !err, d.len ? d.p : NULL, err);
	buffree(&d);
}

/* One line of stdin, without its \n. */
static void
inputline(Rpc *r, const char *p, size_t n)
{
	Json j;
	char *type, *id;

	if (n && p[n - 1] == '\r')
		n--;
	if (!n)
		return;
	if (jsonparse(&j, p, n) < 0 || j.t[0].type != JOBJ) {
		if (j.t)
			jsonfree(&j);
		respond(r, NULL, NULL, "parse", 0, NULL,
		        "Failed to parse command: not a JSON object");
		return;
	}
	id = idof(&j);
	type = rpcmember(&j, "type");
	answercommand(r, &j, type ? type : "undefined", id, p, n);
	free(type);
	free(id);
	jsonfree(&j);
}

/* Bytes of stdin, in any pieces: each whole line is a command. */
void
rpcfeed(Rpc *r, const char *p, size_t n)
{
	const char *nl;
	size_t k;

	while (n) {
		nl = memchr(p, '\n', n);
		k = nl ? (size_t)(nl - p) : n;
		if (!r->skip)
			bufadd(&r->in, p, k);
		if (r->in.len > MAXLINE) {
			respond(r, NULL, NULL, "parse", 0, NULL,
			        "Failed to parse command: the line is too "
			        "long");
			bufreset(&r->in);
			r->skip = 1;	/* the rest of it too */
		}
		if (nl) {
			if (!r->skip)
				inputline(r, bstr(&r->in), r->in.len);
			bufreset(&r->in);
			r->skip = 0;
			k++;
		}
		p += k;
		n -= k;
	}
}

/* What stdin has now; at its end, a last line without \n counts. */
static void
readinput(Rpc *r)
{
	char buf[65536];
	ssize_t n;

	n = read(0, buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		rpcfeed(r, buf, n);
		return;
	}
	if (n < 0)
		warn("read stdin:");
	if (r->in.len && !r->skip)
		inputline(r, r->in.p, r->in.len);
	bufreset(&r->in);
	r->eof = 1;
}

/* http.c's and the bash pump's watch: stdin is readable while the agent
 * works.  Nonzero once it has ended. */
int
rpcwatch(void *arg)
{
	Rpc *r = arg;

	if (!r->eof)
		readinput(r);
	return r->eof;
}

/* Where the last "\n\nCommand ..." note of bash's result starts, or
 * NULL. */
static char *
lastnote(Buf *out)
{
	char *s, *last = NULL;

	bufgrow(out, 0);
	for (s = out->p; (s = strstr(s, "\n\nCommand ")); s++)
		last = s;
	return last;
}

/* The user's bash command: pi's result, and the bashExecution message
 * for serve.c to record in the session, in c. */
static void
userbash(Rpc *r, const Json *j, const char *id, Rpccmd *c)
{
	void (*progress)(void *, const char *, size_t);
	Buf out = { 0 }, d = { 0 }, m = { 0 };
	Toolres res;
	char *cmd, *s;
	int code = 0, cancelled, exited, trunc;
	size_t len;

	if (!(cmd = rpcmember(j, "command"))) {
		respond(r, NULL, id, "bash", 0, NULL,
		        "command must be a string");
		return;
	}
	memset(&res, 0, sizeof(res));
	r->busy = RPCBASH;
	*r->intr = 0;
	/* the output as printed, and no events while it runs, as pi's */
	r->tenv->procs->keepnl = 1;
	progress = r->tenv->procs->progress;
	r->tenv->procs->progress = NULL;
	/* when it fails, toolbash's last note says how */
	gitcheck(r->tenv->git);	/* what a tool left is put back first */
	s = toolbash(r->tenv, j, 0, &res) ? lastnote(&res.text) : NULL;
	out = res.text;		/* bash gives back its text alone */
	gitagain(r->tenv->git);	/* the user's command: what it did stays */
	r->tenv->procs->progress = progress;
	r->tenv->procs->keepnl = 0;
	bufgrow(&out, 0);
	cancelled = s && (!strncmp(s, "\n\nCommand aborted", 17) ||
	                  !strncmp(s, "\n\nCommand timed out", 19));
	exited = !s || !strncmp(s, "\n\nCommand exited with code ", 27);
	if (s && exited)
		code = (int)strtol(s + 27, NULL, 10);
	len = s ? (size_t)(s - out.p) : out.len;
	if (len == 11 && !strncmp(out.p, "(no output)", 11))
		len = 0;
	trunc = strstr(out.p, "\n\n[Showing ") != NULL;
	bufadds(&m, "{\"output\":");
	jsonesc(&m, out.p, len);
	if (!exited)
		bufadds(&m, ",\"exitCode\":null");
	else
		bufaddf(&m, ",\"exitCode\":%d", code);
	bufaddf(&m, ",\"cancelled\":%s,\"truncated\":%s}", cancelled ?
	        "true" : "false", trunc ? "true" : "false");
	respond(r, NULL, id, "bash", 1, m.p, NULL);
	bufadds(&d, "{\"role\":\"bashExecution\",\"command\":");
	jsonescs(&d, cmd);
	bufaddc(&d, ',');
	bufadd(&d, m.p + 1, m.len - 2);	/* m's fields */
	bufaddf(&d, ",\"timestamp\":%lld}", nowms());
	c->kind = RPCRECORD;
	c->arg = bufdetach(&d);
	free(cmd);
	buffree(&out);
	buffree(&m);
}

/* A held command, now that the agent is idle: 1 if c is for serve.c, 0
 * if it is answered. */
static int
startheld(Rpc *r, const char *line, Rpccmd *c)
{
	Json j;
	char *p = NULL;
	int ok = 0;

	memset(c, 0, sizeof(*c));
	if (jsonparse(&j, line, strlen(line)) < 0)
		return 0;	/* it was parsed once */
	c->id = idof(&j);
	c->type = rpcmember(&j, "type");
	if (!strcmp(c->type, "prompt")) {
		c->kind = RPCPROMPT;
		if ((c->arg = rpcmember(&j, "message")))
			respond(r, NULL, c->id, c->type, 1, NULL, NULL);
	} else if (!strcmp(c->type, "compact")) {
		c->kind = RPCCOMPACT;
		c->arg = rpcmember(&j, "customInstructions");
	} else if (!strcmp(c->type, "new_session")) {
		c->kind = RPCNEW;
	} else if (!strcmp(c->type, "set_model")) {
		p = rpcmember(&j, "provider");
		c->arg = rpcmember(&j, "modelId");
		/* another provider would need its key: not here */
		if ((ok = p && c->arg && *c->arg && !strcmp(p, r->provider)))
			c->kind = RPCMODEL;
	} else if (!strcmp(c->type, "set_thinking_level")) {
		c->arg = rpcmember(&j, "level");
		if ((ok = wirelevel(c->arg) >= 0))
			c->kind = RPCLEVEL;
	} else if (wordin(c->type, "fork switch_session export_html")) {
		c->kind = *c->type == 'f' ? RPCFORK : *c->type == 's' ?
		          RPCSWITCH : RPCEXPORT;
		c->arg = rpcmember(&j, *c->type == 'f' ? "entryId" :
		                   *c->type == 's' ? "sessionPath" :
		                   "outputPath");
	} else {
		userbash(r, &j, c->id, c);
	}
	if (c->kind == RPCPROMPT && !c->arg)
		respond(r, NULL, c->id, c->type, 0, NULL,
		        "message must be a string");
	else if (!strcmp(c->type, "set_model") && !ok)
		respond(r, NULL, c->id, c->type, 0, NULL, "Model not found");
	else if (!strcmp(c->type, "set_thinking_level") && !ok)
		respond(r, NULL, c->id, c->type, 0, NULL, "Invalid thinking "
		        "level: off, minimal, low, medium, high, xhigh or max");
	free(p);
	jsonfree(&j);
	if (c->kind && (c->kind != RPCPROMPT || c->arg)) {
		/* serve.c does it; recording the bash command's message
		 * is no turn */
		r->busy = c->kind == RPCRECORD ? RPCIDLE : RPCTURN;
		return 1;
	}
	free(c->arg);	/* a bad level's or model's */
	free(c->id);
	free(c->type);
	return 0;
}

/* The next thing for serve.c to do, read from stdin or held from before:
 * 1, or 0 when stdin has ended or a signal asks us to quit.  Commands
 * that need nothing of the agent are answered on the way. */
int
rpcnext(Rpc *r, Rpccmd *c)
{
	struct pollfd pf;
	char *line;
	int k;

	r->busy = RPCIDLE;
	writeout(r, &r->after);
	bufreset(&r->after);
	for (;;) {
		while (!*r->quit && (line = qshift(&r->later))) {
			k = startheld(r, line, c);
			free(line);
			if (k)
				return 1;
		}
		if (r->eof || *r->quit)
			return 0;
		/* a while at most: a signal may come just before poll */
		pf.fd = 0;
		pf.events = POLLIN;
		if (poll(&pf, 1, 500) > 0)
			readinput(r);
	}
}

/* Whether a message waits for the turn: a steer, or after an answer
 * without tool calls (follow) a follow-up. */
int
rpcpending(const Rpc *r, int follow)
{
	return r->steer.n || (follow && r->follow.n);
}

/* That message, or NULL; the caller owns it. */
char *
rpctake(Rpc *r, int follow)
{
	if (r->steer.n)
		return qshift(&r->steer);
	return follow ? qshift(&r->follow) : NULL;
}

/* The compaction just appended, as compact's data. */
static void
compactiondata(Rpc *r, Buf *d)
{
	Json j;
	const Entry *e = r->sess->n ? &r->sess->e[r->sess->n - 1] : NULL;
	static const char *keys[] = { "summary", "firstKeptEntryId",
	                              "tokensBefore" };
	size_t k;
	int i;

	bufaddc(d, '{');
	if (e && !strcmp(e->type, "compaction") &&
	    jsonparse(&j, e->line, e->len) == 0) {
		for (k = 0; k < LEN(keys); k++) {
			if ((i = jsonget(&j, 0, keys[k])) < 0)
				continue;
			bufaddf(d, "%s\"%s\":", d->len > 1 ? "," : "",
			        keys[k]);
			jsonraw(d, &j, i);
		}
		jsonfree(&j);
	}
	bufaddc(d, '}');
}

/* serve.c has done c: err is NULL, or why it failed.  Its response, and
 * c is freed. */
void
rpcdone(Rpc *r, Rpccmd *c, const char *err)
{
	Buf d = { 0 };

	if (c->kind == RPCCOMPACT && !err)
		compactiondata(r, &d);
	else if (c->kind == RPCNEW || c->kind == RPCSWITCH)
		bufadds(&d, "{\"cancelled\":false}");
	else if (c->kind == RPCMODEL) {
		bufadds(&d, "{\"id\":");
		jsonescs(&d, *r->model);
		bufadds(&d, ",\"provider\":");
		jsonescs(&d, r->provider);
		bufaddc(&d, '}');
	}
	if (c->kind != RPCPROMPT && c->kind != RPCRECORD)
		respond(r, NULL, c->id, c->type, !err, c->data ? c->data : d.p,
		        err);
	buffree(&d);
	free(c->data);
	free(c->arg);
	free(c->id);
	free(c->type);
	memset(c, 0, sizeof(*c));
}

void
rpcfree(Rpc *r)
{
	qfree(&r->steer);
	qfree(&r->follow);
	qfree(&r->later);
	buffree(&r->in);
	buffree(&r->after);
}
