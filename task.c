/* See LICENSE file for copyright and license details. */
/* task.c: the task tool.  A task is this binary run again on a prompt
 * with a fresh context, its own session file, the tools and profile
 * agent.c chose (no wider than ours), and events (-j) on its stdout:
 * its last answer and its usage are read from them.  The key and the
 * prompt go in on its stdin (-K), never in its environment or argv.
 * Several run at once, watched by one poll loop that also sees SIGINT,
 * -r's abort and each one's time limit. */
#include <sys/types.h>
#include <sys/wait.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "http.h"
#include "wire.h"
#include "tools.h"
#include "proc.h"
#include "entry.h"
#include "session.h"
#include "events.h"
#include "guard.h"
#include "task.h"

extern char **environ;

enum { WAITING, RUNNING, OVER };	/* a task's state */
enum { ENDED, TIMEDOUT, ABORTED, NOSTART };	/* why it is over */
enum {
	POLLMS = 100,
	MAXLINE = 8 << 20,	/* bytes of an event line we keep */
	IDLEMS = 1000,		/* its pipes, once it has exited */
	MAXFDS = 3 * 64 + 1,
};

struct Taskrun {
	char *desc, *prompt;	/* the call's */
	char *session;		/* its session file, or NULL */
	int state, why, label;
	pid_t pid;
	int in, out, err;	/* our ends of its stdin, stdout, stderr */
	Buf input;		/* the key's line and the prompt */
	size_t inoff;		/* written of it */
	Buf line;		/* the event line read so far */
	int skip;		/* the rest of that line is not wanted */
	Buf errline;		/* the stderr line read so far */
	Buf lasterr;		/* its last whole line */
	Buf answer;		/* the last answer's text */
	char *failed;		/* that answer's errorMessage, or NULL */
	long long tok[4];	/* its usage, as entryusage counts it */
	double cost;
	long calls;		/* its model calls */
	int status, reaped;
	long long startat, termat, exitat;
};

Taskrun *
tasknew(int n)
{
	Taskrun *r = xcalloc(n, sizeof(*r));
	int i;

	for (i = 0; i < n; i++)
		r[i].in = r[i].out = r[i].err = -1;
	return r;
}

/* The tools a child is offered, for its -t: those offered here (n of
 * them) that its profile keeps on (not those of off), task only if the
 * child may start tasks. */
char *
tasktools(const Task *t, const Tool *offer, int n, const char *off)
{
	Buf b = { 0 };
	int k;

	for (k = 0; k < n; k++)
		if (!guardlisted(off, offer[k].name) &&
		    (strcmp(offer[k].name, "task") ||
		     t->depth + 1 < t->conf->depth))
			bufaddf(&b, "%s%s", b.len ? "," : "", offer[k].name);
	return bufdetach(&b);
}

/* The arguments of task k's call: 0, or -1 with why for the model. */
int
taskprep(Taskrun *r, int k, const Json *j, int args, Buf *why)
{
	r += k;
	r->desc = jsonstr(j, jsonget(j, args, "description"));
	r->prompt = jsonstr(j, jsonget(j, args, "prompt"));
	if (r->prompt && *r->prompt && r->desc)
		return 0;
	bufadds(why, "task needs a description and a prompt, both strings, "
	        "the prompt not empty");
	r->state = OVER;
	r->why = NOSTART;
	return -1;
}

/* This binary: Linux names it in /proc; elsewhere argv[0], looked up in
 * PATH if it has no slash.  NULL if it is not found. */
#ifdef __linux__
static const char *
selfpath(const char *argv0, Buf *b)
{
	(void)argv0;
	(void)b;
	return "/proc/self/exe";
}
#else
static const char *
selfpath(const char *argv0, Buf *b)
{
	const char *p, *e;

	if (strchr(argv0, '/'))
		return argv0;
	for (p = getenv("PATH"); p && *p; p = e + !!*e) {
		e = p + strcspn(p, ":");
		bufreset(b);
		bufaddf(b, "%.*s/%s", (int)(e - p), p, argv0);
		if (access(b->p, X_OK) == 0)
			return b->p;
	}
	return NULL;
}
#endif

/* The first 8 letters and digits of a header's id, the JSON value
 * p[n], onto b: a UUID's start, and nothing a name must escape. */
static void
idstart(Buf *b, const char *p, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n && k < 8; i++)
		if (isalnum((unsigned char)p[i]) && ++k)
			bufaddc(b, p[i]);
}

/* Its file: a new session whose header names ours as its parent, made
 * now in our sessions' directory; none with -n.  pi's session_info
 * names it "task N of ID" (ours), so that a list of sessions (-l, pi's
 * /resume) tells it from the user's own. */
static void
makesession(Task *t, Taskrun *r)
{
	Jmember m[] = { { "id", -1, 0, 0 } };
	Session s;
	Buf name = { 0 };
	char cwd[PATH_MAX], *dir;

	if (!t->sess || !t->sess->path || !getcwd(cwd, sizeof(cwd)))
		return;
	dir = dirof(t->sess->path);
	if (sessfork(&s, t->sess, "", t->sess->path, dir, cwd) == 0) {
		r->session = xstrdup(s.path);
		bufaddf(&name, "\"name\":\"task %d of ", r->label);
		if (t->sess->head && jsonmembers(t->sess->head,
		    strlen(t->sess->head), m, 1) == 0)
			idstart(&name, t->sess->head + m[0].at, m[0].len);
		bufadds(&name, "\"");
		sessappend(&s, "session_info", name.p);
	}
	sessfree(&s);	/* whole or not */
	free(dir);
	buffree(&name);
}

/* Whether var is one of the proxies' variables, in either case. */
static int
proxyvar(const char *var)
{
	return !strncasecmp(var, "HTTPS_PROXY=", 12) ||
	       !strncasecmp(var, "HTTP_PROXY=", 11);
}

/* Whether var is AGENT_RECORD or AGENT_REPLAY. */
static int
recordvar(const char *var)
{
	return !strncmp(var, "AGENT_RECORD=", 13) ||
	       !strncmp(var, "AGENT_REPLAY=", 13);
}

/* Whether var is one of the credentials given whole (t->creds). */
static int
credvar(const Task *t, const char *var)
{
	size_t n;
	int i;

	for (i = 0; t->creds && t->creds[i]; i++) {
		n = strcspn(t->creds[i], "=") + 1;
		if (!strncmp(var, t->creds[i], n))
			return 1;
	}
	return 0;
}

/* The child's environment: ours (the secrets' values are gone from it:
 * prochide), the proxies and the provider's credentials whole, as read
 * at start (they lost their values too, and the child needs them to
 * reach the model), its
 * depth one more, what is left of our budget, and AGENT_BASE_URL only
 * for the provider it was set for; not AGENT_SCHEMA, which is our
 * answer's, not the child's.  A recording or replayed run's task n
 * records to, or replays from, FILE.task-n: its exchanges are its own,
 * in an order of their own, and n counts the tasks in the order the
 * model asked for them.  tmp holds the strings made here. */
static char **
taskenv(const Task *t, int label, Buf *tmp)
{
	const char *px[2] = { NULL, NULL };
	char **env;
	size_t n, c, k = 0, i, off[6];
	int m = 0;

	if (t->proxy)
		px[0] = t->proxy->https, px[1] = t->proxy->http;
	for (n = 0; environ[n]; n++)
		;
	for (c = 0; t->creds && t->creds[c]; c++)
		;
	env = xmalloc((n + c + 5) * sizeof(*env));
	for (i = 0; i < n; i++) {
		if (recordvar(environ[i]) && environ[i][13]) {
			off[m++] = tmp->len;
			bufaddf(tmp, "%s.task-%d", environ[i], label);
			bufaddc(tmp, '\0');
		} else if (strncmp(environ[i], "AGENT_TASKDEPTH=", 16) &&
		    strncmp(environ[i], "AGENT_BUDGET=", 13) &&
		    strncmp(environ[i], "AGENT_SCHEMA=", 13) &&
		    (t->samewire ||
		     strncmp(environ[i], "AGENT_BASE_URL=", 15)) &&
		    !((px[0] || px[1]) && proxyvar(environ[i])) &&
		    !recordvar(environ[i]) && !credvar(t, environ[i])) {
			env[k++] = environ[i];
		}
	}
	for (i = 0; t->creds && t->creds[i]; i++)
		env[k++] = t->creds[i];
	for (i = 0; i < 2; i++)
		if (px[i]) {
			off[m++] = tmp->len;
			bufaddf(tmp, "%s=%s", i ? "HTTP_PROXY" : "HTTPS_PROXY",
			        px[i]);
			bufaddc(tmp, '\0');
		}
	off[m++] = tmp->len;
	bufaddf(tmp, "AGENT_TASKDEPTH=%d", t->depth + 1);
	bufaddc(tmp, '\0');
	off[m++] = tmp->len;	/* the parent's budget counts its tasks */
	bufaddf(tmp, "AGENT_BUDGET=%s", t->budget ? t->budget : "");
	bufaddc(tmp, '\0');
	for (i = 0; i < (size_t)m; i++)
		env[k++] = tmp->p + off[i];	/* tmp grows no more */
	env[k] = NULL;
	return env;
}

static void
launch(Task *t, Toolenv *e, Taskrun *r)
{
	char *argv[] = {
		NULL, t->yes ? "-yjK" : "-jK", "-P", (char *)t->provider,
		"-m", (char *)t->model, "-T", (char *)t->level, "-g",
		(char *)t->profile, "-t", t->tools, "-n", NULL, NULL
	};
	char **env;
	Buf self = { 0 }, tmp = { 0 };
	int k;

	r->label = ++t->next;
	r->state = RUNNING;
	r->startat = monoms();
	makesession(t, r);
	argv[0] = (char *)selfpath(t->self, &self);
	if ((argv[13] = r->session))
		argv[12] = "-s";
	if (t->key)
		bufadds(&r->input, t->key);
	bufaddc(&r->input, '\n');
	bufadds(&r->input, r->prompt);
	env = taskenv(t, r->label, &tmp);
	r->pid = argv[0] ? procstart(e->procs, argv, env, &r->in, &r->out,
	                             &r->err) : -1;
	free(env);
	buffree(&tmp);
	buffree(&self);
	for (k = 0; r->pid > 0 && k < t->npg; k++)
		if (!t->pg[k]) {
			t->pg[k] = r->pid;
			break;
		}
	if (r->pid < 0) {
		r->status = argv[0] ? errno : ENOENT;
		r->state = OVER;
		r->why = NOSTART;
	}
}

/* Its trace on stderr, one line: label, then what. */
static void
say(const Task *t, const Taskrun *r, const char *what, size_t n)
{
	Buf b = { 0 };

	if (t->quiet)
		return;
	safetext(&b, what, n, 1);
	fprintf(stderr, "  task %d: %s\n", r->label, bstr(&b));
	buffree(&b);
}

/* An event line: an answer's text and usage, or a call to trace. */
static void
event(const Task *t, Taskrun *r, const char *p, size_t n)
{
	Json j = { 0 };
	Buf b = { 0 };
	int m;

	if (jsonparse(&j, p, n) < 0 || j.t[0].type != JOBJ)
		goto out;
	m = jsonget(&j, 0, "message");
	if (jsoneq(&j, jsonget(&j, 0, "type"), "message_end") &&
	    jsoneq(&j, jsonget(&j, m, "role"), "assistant")) {
		r->cost += entryusage(&j, m, r->tok);
		r->calls++;
		bufreset(&r->answer);
		jsontext(&r->answer, &j, jsonget(&j, m, "content"));
		free(r->failed);
		r->failed = jsonstr(&j, jsonget(&j, m, "errorMessage"));
	} else if (jsoneq(&j, jsonget(&j, 0, "type"),
	                  "tool_execution_start")) {
		jsonstrbuf(&j, jsonget(&j, 0, "toolName"), &b);
		bufaddc(&b, ' ');
		evcallwhat(&b, &j, jsonget(&j, 0, "args"), 70);
		say(t, r, b.p, b.len - (b.p[b.len - 1] == ' '));
	}
out:
	jsonfree(&j);
	buffree(&b);
}

/* The events it wrote: whole lines, those we want up to MAXLINE. */
static void
events(const Task *t, Taskrun *r, const char *p, size_t n)
{
	static const char *want[] = {
		"{\"type\":\"message_end\"", "{\"type\":\"tool_execution_start\""
	};
	const char *nl;
	size_t k, i;

	for (; n; p += k, n -= k) {
		nl = memchr(p, '\n', n);
		k = nl ? (size_t)(nl - p) + 1 : n;
		if (!r->skip)
			bufadd(&r->line, p, k - !!nl);
		for (i = 0; !r->skip && r->line.len && i < LEN(want); i++)
			if (!strncmp(r->line.p, want[i], MIN(r->line.len,
			             strlen(want[i]))))
				break;
		if (i == LEN(want) || r->line.len > MAXLINE)
			r->skip = 1;
		if (nl && !r->skip && r->line.len)
			event(t, r, r->line.p, r->line.len);
		if (nl || r->skip)
			bufreset(&r->line);
		if (nl)
			r->skip = 0;
	}
}

/* What it said on stderr: traced a line at a time, the last one kept
 * for a failure's reason. */
static void
errors(const Task *t, Taskrun *r, const char *p, size_t n)
{
	const char *nl;
	size_t k;

	for (; n; p += k, n -= k) {
		nl = memchr(p, '\n', n);
		k = nl ? (size_t)(nl - p) + 1 : n;
		if (r->errline.len < 4096)
			bufadd(&r->errline, p, MIN(k - !!nl, 4096));
		if (!nl)
			continue;
		say(t, r, r->errline.p, r->errline.len);
		bufreset(&r->lasterr);
		bufadd(&r->lasterr, r->errline.p, r->errline.len);
		bufreset(&r->errline);
	}
}

/* Read from or write to one of its pipes, ready: closed at its end. */
static void
pipeio(const Task *t, Taskrun *r, int *fd)
{
	char buf[65536];
	ssize_t k;

	if (fd == &r->in) {
		k = write(*fd, r->input.p + r->inoff, r->input.len - r->inoff);
		if (k > 0 && (r->inoff += k) < r->input.len)
			return;
	} else if ((k = read(*fd, buf, sizeof(buf))) > 0) {
		if (fd == &r->out)
			events(t, r, buf, k);
		else
			errors(t, r, buf, k);
		return;
	}
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	close(*fd);
	*fd = -1;
}

/* Its group TERMed once, KILLed if it is still there after twice the
 * grace and a little: the child, on TERM, gives its own tool the grace
 * to go before it KILLs it, and must be let do so, or its tool would
 * outlive it. */
static void
stop(const Toolenv *e, Taskrun *r, int why, long long now)
{
	if (r->reaped)
		return;
	if (!r->termat) {
		r->why = why;
		r->termat = now;
		kill(-r->pid, SIGTERM);
		kill(-r->pid, SIGCONT);
	} else if (now - r->termat >= 2LL * e->lim->killgrace + 500) {
		kill(-r->pid, SIGKILL);
	}
}

/* After a poll: reaped, timed out, stopped, over. */
static void
look(Task *t, const Toolenv *e, Taskrun *r, int abort, long long now)
{
	int k;

	if (!r->reaped && (k = waitpid(r->pid, &r->status, WNOHANG)) != 0 &&
	    (k > 0 || errno != EINTR)) {
		r->reaped = 1;	/* < 0: reaped by another, status 0 */
		r->exitat = now;
		for (k = 0; k < t->npg; k++)
			if (t->pg[k] == r->pid)
				t->pg[k] = 0;
	}
	if (abort || (r->termat && !r->reaped))
		stop(e, r, ABORTED, now);
	else if (t->conf->timeout && !r->reaped &&
	         now - r->startat >= t->conf->timeout * 1000LL)
		stop(e, r, TIMEDOUT, now);
	if (!r->reaped || (r->out >= 0 && now - r->exitat < IDLEMS))
		return;
	r->state = OVER;
	if (r->in >= 0)
		close(r->in);
	if (r->out >= 0)
		close(r->out);
	if (r->err >= 0)
		close(r->err);
	r->in = r->out = r->err = -1;
}

/* The pipes of the running tasks, and -r's stdin, to poll. */
static int
pollset(const Toolenv *e, Taskrun *r, int n, struct pollfd *pf,
        int **which, Taskrun **whose)
{
	int i, k = 0, *fds[3], f;

	for (i = 0; i < n; i++) {
		if (r[i].state != RUNNING)
			continue;
		fds[0] = &r[i].in;
		fds[1] = &r[i].out;
		fds[2] = &r[i].err;
		for (f = 0; f < 3 && k < MAXFDS - 1; f++) {
			if (*fds[f] < 0)
				continue;
			pf[k].fd = *fds[f];
			pf[k].events = f ? POLLIN : POLLOUT;
			which[k] = fds[f];
			whose[k++] = &r[i];
		}
	}
	if (e->procs->watch) {
		pf[k].fd = e->procs->watchfd;
		pf[k].events = POLLIN;
		which[k++] = NULL;
	}
	return k;
}

/* Run the tasks prepared, up to conf->parallel at once, until every one
 * is over: on SIGINT, or when -r says abort, all are stopped. */
void
taskrunall(Task *t, Toolenv *e, Taskrun *r, int n)
{
	struct pollfd pf[MAXFDS];
	int *which[MAXFDS];
	Taskrun *whose[MAXFDS];
	int i, k, np, running, abort = 0, watching = 1;
	long long now;

	for (;;) {
		abort |= e->intr && *e->intr;
		for (i = running = 0; i < n; i++)
			running += r[i].state == RUNNING;
		for (i = 0; i < n && !abort && running < t->conf->parallel &&
		     running < t->npg; i++)
			if (r[i].state == WAITING && r[i].prompt) {
				launch(t, e, &r[i]);
				running += r[i].state == RUNNING;
			}
		if (!running)
			break;
		np = pollset(e, r, n, pf, which, whose);
		if (!watching && np && !which[np - 1])
			np--;
		if (poll(pf, np, POLLMS) > 0)
			for (k = 0; k < np; k++) {
				if (!pf[k].revents)
					continue;
				if (which[k])
					pipeio(t, whose[k], which[k]);
				else if (e->procs->watch(e->procs->watcharg))
					watching = 0;	/* an abort sets intr */
			}
		now = monoms();
		for (i = 0; i < n; i++)
			if (r[i].state == RUNNING)
				look(t, e, &r[i], abort, now);
	}
	for (i = 0; i < n; i++)	/* not started: aborted */
		if (r[i].state == WAITING) {
			r[i].state = OVER;
			r[i].why = ABORTED;
		}
}

/* Why it failed, into res: 1, or 0 if it did not. */
static int
failure(const Task *t, const Taskrun *r, Buf *res)
{
	if (r->why == NOSTART && !r->pid)
		return 1;	/* taskprep said */
	if (r->why == NOSTART)
		bufaddf(res, "The task could not start: %s",
		        strerror(r->status));
	else if (r->why == TIMEDOUT)
		bufaddf(res, "The task ran past its time limit of %d s and "
		        "was stopped.", t->conf->timeout);
	else if (r->why == ABORTED)
		bufadds(res, "The task was interrupted.");
	else if (r->failed)
		bufaddf(res, "The task failed: %s", r->failed);
	else if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0)
		bufaddf(res, "The task failed (exit %d)%s%s",
		        WIFEXITED(r->status) ? WEXITSTATUS(r->status) :
		        128 + WTERMSIG(r->status), r->lasterr.len ? ": " : "",
		        bstr(&r->lasterr));
	else
		return 0;
	if (r->answer.len)
		bufadds(res, "\n\nIts last answer:\n");
	return 1;
}

/* Task k, over: its answer, or why it failed, as res's text (cut to
 * the tools' limit), its session file in res's details, its usage in
 * res's use.  0, or 1 if the text is an error. */
int
taskresult(Task *t, const Toolenv *e, Taskrun *r, int k, Toolres *tr)
{
	Buf *res = &tr->text, *details = &tr->details;
	int bad, i;

	r += k;
	bad = failure(t, r, res);
	if (r->answer.len > e->lim->maxbytes) {
		bufadd(res, r->answer.p, utf8back(r->answer.p,
		       e->lim->maxbytes));
		bufadds(res, "\n\n[The answer was cut here");
		if (r->session)
			bufaddf(res, "; all of it is in %s", r->session);
		bufadds(res, ".]");
	} else if (r->answer.len) {
		bufadd(res, r->answer.p, r->answer.len);
	} else if (!bad) {
		bufadds(res, "(The task ended with no answer.)");
	}
	for (i = 0; i < 4; i++)
		tr->use.tok[i] += r->tok[i];
	tr->use.cost += r->cost;
	tr->use.calls += r->calls;
	if (r->session) {
		bufadds(details, "\"session\":");
		jsonescs(details, r->session);
	}
	return bad || !r->answer.len;
}

void
taskfree(Taskrun *r, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(r[i].desc);
		free(r[i].prompt);
		free(r[i].session);
		free(r[i].failed);
		buffree(&r[i].input);
		buffree(&r[i].line);
		buffree(&r[i].errline);
		buffree(&r[i].lasterr);
		buffree(&r[i].answer);
	}
	free(r);
}

/* The task tool's function (tools[]'s row) for a call run alone: one
 * task, run to its end.  call.c runs a run of task calls side by side
 * itself (taskprep, taskrunall, taskresult). */
int
taskcall(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	Taskrun *r = tasknew(1);
	int bad = 1;

	if (!e->task)
		bufadds(out, "task: no task can start here");
	else if (taskprep(r, 0, j, args, out) == 0) {
		taskrunall(e->task, e, r, 1);
		bad = taskresult(e->task, e, r, 0, res);
	}
	taskfree(r, 1);
	return bad;
}
