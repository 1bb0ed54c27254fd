/* See LICENSE file for copyright and license details. */
/* proc.c: child processes: bash's commands and the guard's hooks, each
 * in a process group of its own, their output pumped and kept in bash's
 * logs, timed out, killed group and all; what they leave running reaped
 * and killed, at a call's end or at exit. */
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "util.h"
#include "sandbox.h"
#include "proc.h"

extern char **environ;

enum {
	IDLEMS = 150,		/* idle pipe after the shell exited */
	DRAINMS = 1000,		/* bash: read no longer than this after exit */
	POLLMS = 100,		/* bash: how often to look at the child */
	KILLMS = 1000,		/* ms past the KILL to wait for the last */
};

enum { CUTLINES = 1, CUTBYTES };	/* why the output shown was cut */

/* The tail of a command's output, and all of it (up to maxlog bytes) in a
 * file once it is cut. */
typedef struct {
	Procs *e;
	Buf win;		/* the last bytes of output */
	int trimmed;		/* bytes before win were dropped */
	int prevnl;		/* and the last of them was a newline */
	unsigned long long total, nl;	/* bytes and newlines seen */
	size_t linelen, lastlen;	/* the open line, the last whole one */
	int fd;			/* the log file, -1 until needed */
	char *file;
	size_t saved;		/* bytes in it */
	int logcut;		/* more came past maxlog, not saved */
	int saveerr;		/* errno if the log could not be written */
} Tail;

/* A bash child: the shell, the group it leads, the pipe it writes to. */
typedef struct {
	pid_t pid;
	int fd;
	int status;
	int reaped;
	int nostatus;		/* reaped by someone else: status unknown */
	int eof;
	int held;		/* the shell exited, others hold the pipe */
} Proc;

/* bash's logs */

/* This run's directory of bash logs, made when first needed.  mkdtemp(3)
 * makes it mode 0700: nobody else reads the output, or puts a file where
 * we are about to make one. */
static const char *
logdir(Procs *e)
{
	const char *tmp = getenv("TMPDIR");
	Buf b = { 0 };

	if (e->logdir)
		return e->logdir;
	if (!tmp || !*tmp)
		tmp = "/tmp";
	bufaddf(&b, "%s/agent-XXXXXX", tmp);
	if (!mkdtemp(b.p)) {
		buffree(&b);
		return NULL;
	}
	return e->logdir = bufdetach(&b);
}

static void
logname(const Procs *e, int k, Buf *b)
{
	bufreset(b);
	bufaddf(b, "%s/bash-%d.log", e->logdir, k);
}

/* A new log file in that directory, mode 0600. */
static int
tmplog(Procs *e, char **name)
{
	Buf b = { 0 };
	int fd;

	if (!logdir(e))
		return -1;
	logname(e, ++e->nlogs, &b);
	if ((fd = open(b.p, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0) {
		buffree(&b);
		return -1;
	}
	*name = bufdetach(&b);
	return fd;
}

/* Save more of the output, up to maxlog bytes in all: endless output
 * must not fill the disk.  Past that, win still keeps the end. */
static void
logput(Tail *t, const char *p, size_t n)
{
	if (t->fd < 0)
		return;
	if (n > t->e->lim->maxlog - t->saved) {
		n = t->e->lim->maxlog - t->saved;
		t->logcut = 1;
	}
	if (n && writeall(t->fd, p, n) < 0) {
		t->saveerr = errno;
		close(t->fd);
		unlink(t->file);
		t->fd = -1;
		return;
	}
	t->saved += n;
}

/* Start saving the whole output: win still holds all of it. */
static void
tailsave(Tail *t)
{
	if ((t->fd = tmplog(t->e, &t->file)) < 0) {
		t->saveerr = errno;
		return;
	}
	logput(t, t->win.p, t->win.len);
}

/* Take more output: count it, keep its tail, save it once it is too much
 * to show.  win holds at most twice maxbytes; trimming keeps maxbytes. */
static void
tailadd(Tail *t, const char *p, size_t n)
{
	const Procs *e = t->e;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '\n') {
			t->nl++;
			t->lastlen = t->linelen;
			t->linelen = 0;
		} else {
			t->linelen++;
		}
	}
	t->total += n;
	bufadd(&t->win, p, n);
	if (t->fd < 0 && !t->saveerr && (t->total > e->lim->maxbytes ||
	    t->nl > (unsigned long long)e->lim->maxlines))
		tailsave(t);
	else
		logput(t, p, n);
	if (t->win.len > 2 * e->lim->maxbytes) {
		i = t->win.len - e->lim->maxbytes;
		t->prevnl = t->win.p[i - 1] == '\n';
		memmove(t->win.p, t->win.p + i, e->lim->maxbytes);
		t->win.len = e->lim->maxbytes;
		t->win.p[t->win.len] = '\0';
		t->trimmed = 1;
	}
}

/* Name the log to the model, which may read it later in the session:
 * from now on the log directory outlives the run. */
static void
addfull(Tail *t, Buf *out)
{
	const char *tmp = getenv("TMPDIR");

	if (t->fd < 0 && !t->saveerr)
		tailsave(t);
	/* a read-only TMPDIR: the tail above is all there is */
	if (t->fd < 0) {
		bufaddf(out, "Full output not saved in %s: %s]", tmp && *tmp ?
		        tmp : "/tmp", strerror(t->saveerr));
		return;
	}
	t->e->logkept = 1;
	bufaddf(out, "Full output: %s", t->file);
	if (t->logcut)
		bufaddf(out, " (cut at %lu bytes)", (unsigned long)t->saved);
	bufaddc(out, ']');
}

/* How many whole lines at the end of win fit the limits; from is where
 * they start.  CUTLINES or CUTBYTES if there is more before them. */
static int
tailfit(Tail *t, size_t end, unsigned long long lines, int *n, size_t *from)
{
	const Procs *e = t->e;
	size_t pos = end, start, used = 0;

	*n = 0;
	*from = end;
	for (;;) {
		if ((unsigned long long)*n == lines)
			return 0;
		if (*n == e->lim->maxlines)
			return CUTLINES;
		for (start = pos; start > 0 && t->win.p[start - 1] != '\n';)
			start--;
		if (start == 0 && t->trimmed && !t->prevnl)
			return CUTBYTES;	/* begun before win */
		if (used + (pos - start) + (*n > 0) > e->lim->maxbytes)
			return CUTBYTES;
		used += (pos - start) + (*n > 0);
		(*n)++;
		*from = start;
		if (start == 0)
			return t->trimmed ? CUTBYTES : 0;
		pos = start - 1;
	}
}

/* The output as the model sees it: the last lines that fit, a notice if
 * some were cut, "(no output)" if there was none. */
static int
tailtext(Tail *t, Buf *out)
{
	const Procs *e = t->e;
	unsigned long long lines;
	size_t end, from;
	int n, cut, endnl;

	if (!t->total) {
		bufadds(out, "(no output)");
		return 0;
	}
	endnl = t->win.p[t->win.len - 1] == '\n';
	end = t->win.len - endnl;
	lines = t->nl + !endnl;
	cut = tailfit(t, end, lines, &n, &from);
	if (n == 0) {
		from = end > e->lim->maxbytes ? end - e->lim->maxbytes : 0;
		while (from < end && (t->win.p[from] & 0xc0) == 0x80)
			from++;
	}
	bufadd(out, t->win.p + from, end - from);
	if (endnl && e->keepnl)
		bufaddc(out, '\n');
	if (!cut)
		return 0;
	if (n == 0) {
		bufadds(out, "\n\n[Showing last ");
		bufaddsize(out, end - from);
		bufaddf(out, " of line %llu (line is ", lines);
		bufaddsize(out, endnl ? t->lastlen : t->linelen);
		bufadds(out, "). ");
	} else {
		bufaddf(out, "\n\n[Showing lines %llu-%llu of %llu",
		        lines - n + 1, lines, lines);
		if (cut == CUTBYTES) {
			bufadds(out, " (");
			bufaddsize(out, e->lim->maxbytes);
			bufadds(out, " limit)");
		}
		bufadds(out, ". ");
	}
	addfull(t, out);
	return cut;
}

/* the shell and its environment */

static const char *
findshell(const Procs *e)
{
	const char *const *s;

	for (s = e->lim->shells; s && *s; s++)
		if (access(*s, X_OK) == 0)
			return *s;
	return NULL;
}

/* Why no shell runs the command: the ones tried. */
static void
noshell(const Procs *e, Buf *out)
{
	const char *const *s = e->lim->shells;
	int k;

	bufadds(out, "bash: no shell to run the command: ");
	for (k = 0; s && s[k]; k++)
		bufaddf(out, "%s%s", k ? ", " : "", s[k]);
	bufadds(out, k ? " not found or not executable (shells in "
	        "config.h)" : "config.h's shells is empty");
}

static int
scrubbed(const char *var, const char *const *drop)
{
	size_t n;

	for (; drop && *drop; drop++) {
		n = strlen(*drop);
		if (!strncmp(var, *drop, n) && var[n] == '=')
			return 1;
	}
	return 0;
}

/* Whether the name of var holds one of words, in any case: CI puts its
 * secrets in variables of every name (GITHUB_TOKEN, DB_PASSWORD...). */
static int
secretname(const char *var, const char *const *words)
{
	size_t n = strcspn(var, "="), w, i;

	for (; words && *words; words++) {
		w = strlen(*words);
		for (i = 0; w && i + w <= n; i++)
			if (!strncasecmp(var + i, *words, w))
				return 1;
	}
	return 0;
}

/* Whether var is a proxy's, as HTTPS_PROXY or npm_config_proxy: the
 * name ends in "proxy", in any case. */
static int
proxyname(const char *var)
{
	size_t n = strcspn(var, "=");

	return n >= 5 && !strncasecmp(var + n - 5, "proxy", 5);
}

/* The authority of the next URL at s ("scheme://" found, or s itself
 * if bare: a proxy's may lack its scheme), from *auth to *end, and its
 * "user:pass@"'s @ (the last, as a password may hold one), or NULL;
 * *auth NULL when there is no URL. */
static const char *
userat(const char *s, int bare, const char **auth, const char **end)
{
	const char *sch = strstr(s, "://"), *at = NULL, *p;

	*auth = sch ? sch + 3 : bare ? s : NULL;
	if (!*auth)
		return NULL;
	*end = *auth + strcspn(*auth, "/?# \t\n");
	for (p = *auth; p < *end; p++)
		if (*p == '@')
			at = p;
	return at;
}

/* Append var to b without the "user:pass@" of the URLs in its value (a
 * proxy's, or any URL: DATABASE_URL, a list of PIP_EXTRA_INDEX_URL's),
 * with its NUL; 0 if it has none (nothing appended). */
static int
stripuser(const char *var, Buf *b)
{
	const char *s = strchr(var, '='), *auth, *end, *at;
	size_t start = b->len;
	int bare = proxyname(var), n = 0;

	if (!s)
		return 0;
	bufadd(b, var, ++s - var);
	for (;;) {
		at = userat(s, bare, &auth, &end);
		bare = 0;
		if (!auth)
			break;
		bufadd(b, s, auth - s);
		if (at)
			n++;
		bufadd(b, at ? at + 1 : auth, end - (at ? at + 1 : auth));
		s = end;
	}
	if (!n) {
		b->len = start;
		return 0;
	}
	bufadds(b, s);
	bufaddc(b, '\0');
	return 1;
}

/* The run's own temporary directory, or NULL. */
static const char *
proctmp(const Procs *e)
{
	return e->box ? e->box->tmpdir : NULL;
}

/* Whether var is left out of the tools' environment: a key of ours
 * (scrubenv), a name that says it holds a secret unless keepenv names
 * it, or TMPDIR when the run has its own. */
static int
secretvar(const Procs *e, const char *var)
{
	static const char *const tmpdir[] = { "TMPDIR", NULL };

	if (scrubbed(var, e->lim->scrubenv) ||
	    (proctmp(e) && scrubbed(var, tmpdir)))
		return 1;
	return !scrubbed(var, e->lim->keepenv) &&
	       secretname(var, e->lim->secretwords);
}

/* The environment of tool processes: without the variables that hold
 * secrets, URLs without their credentials, and with TMPDIR the run's
 * own directory when it has one.  tmp holds the strings made here, one
 * after the other in the order of env, which points into it once tmp
 * has stopped growing. */
static char **
cleanenv(const Procs *e, Buf *tmp)
{
	char **env, *p;
	size_t n, i, k = 0;

	for (n = 0; environ[n]; n++)
		;
	env = xmalloc((n + 2) * sizeof(*env));
	for (i = 0; i < n; i++) {
		if (secretvar(e, environ[i]))
			continue;
		if (stripuser(environ[i], tmp))
			env[k++] = NULL;	/* in tmp: set below */
		else
			env[k++] = environ[i];
	}
	if (proctmp(e)) {
		bufaddf(tmp, "TMPDIR=%s", proctmp(e));
		bufaddc(tmp, '\0');
		env[k++] = NULL;
	}
	for (i = 0, p = tmp->p; i < k; i++)
		if (!env[i]) {
			env[i] = p;
			p += strlen(p) + 1;
		}
	env[k] = NULL;
	return env;
}

/* Blank in our own environment, in place, every value the tools'
 * environment leaves out and the credentials of URLs: a tool that
 * runs as root reads /proc/PID/environ, which shows the very bytes the
 * environment started in, whatever getenv now says.  What agent needs
 * of them (the keys, MCP's header values, the proxies) was copied
 * before.  And other processes of the user are kept out of our memory
 * and environ (not root: only the sandbox can). */
void
prochide(const Proclimits *lim)
{
	Procs e = { 0 };
	Buf b = { 0 };
	char **v, *eq;
	size_t n;

	e.lim = lim;
	for (v = environ; *v; v++) {
		if (!(eq = strchr(*v, '=')))
			continue;
		if (secretvar(&e, *v)) {
			memset(eq + 1, 0, strlen(eq + 1));
		} else if (stripuser(*v, &b)) {	/* shorter */
			n = strlen(*v);
			memcpy(*v, b.p, b.len);
			memset(*v + b.len, 0, n + 1 - b.len);
			bufreset(&b);
		}
	}
	buffree(&b);
#ifdef __linux__
	prctl(PR_SET_DUMPABLE, 0);
#endif
}

/* spawn and pump */

/* In the child: a message on stderr (fd, the pipe it will be) before
 * it gives up; what went wrong is all the model will see.  err is errno,
 * or 0. */
static void
childsay(int fd, const char *what, const char *arg, int err)
{
	Buf b = { 0 };

	bufaddf(&b, "agent: %s%s%s%s%s\n", what, arg ? " " : "",
	        arg ? arg : "", err ? ": " : "", err ? strerror(err) : "");
	if (fd >= 0 && writeall(fd, b.p, b.len) < 0)
		fd = -1;	/* nobody to tell */
	buffree(&b);
}

/* What stands for /dev/null when there is none (a bare chroot, an
 * initramfs): for stdin an empty pipe, at its end at once; for an output
 * nobody reads the root directory, open for reading, so that a write
 * fails (EBADF) and the descriptor is not free for the next open. */
static int
nullfd(int input)
{
	int fd, p[2];

	if ((fd = open("/dev/null", O_RDWR)) >= 0)
		return fd;
	if (!input)
		return open("/", O_RDONLY);
	if (pipe(p) < 0)
		return -1;
	close(p[1]);
	return p[0];
}

/* In the child: a session and process group of its own (the terminal's
 * ^C does not reach it; we kill the whole group instead), default signal
 * dispositions (ours, SIGPIPE and SIGXFSZ ignored, would be inherited),
 * stdin from in and stdout to out (-1: /dev/null), stderr to err; the
 * sandbox's ruleset rs and e's filter, if rs is not -1.  The pipes
 * given are close-on-exec: only their copies as 0, 1 and 2 are left.
 * A failure is said on err before exit status 126 or 127, as a shell
 * says it. */
static void
childexec(const Procs *e, char **argv, char **env, int in, int out,
          int err, int rs)
{
	const int sigs[] = { SIGPIPE, SIGXFSZ, SIGINT, SIGQUIT, SIGTERM,
	                     SIGHUP, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU };
	sigset_t none;
	size_t i;
	int fd[3] = { in, out, err }, k;

	setsid();
	for (i = 0; i < LEN(sigs); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (k = 0; k < 3; k++)
		if (fd[k] < 0 && (fd[k] = nullfd(!k)) < 0) {
			childsay(err, "cannot open /dev/null or stand in for "
			         "it", NULL, errno);
			_exit(126);
		}
	for (k = 0; k < 3; k++)
		if (dup2(fd[k], k) < 0) {
			childsay(err, "cannot set up the command's input and "
			         "output", NULL, errno);
			_exit(126);
		}
	for (k = 0; k < 3; k++)
		if (fd[k] > 2 && fd[k] != in && fd[k] != out && fd[k] != err)
			close(fd[k]);
	if (rs >= 0 && sandboxenter(e->box, rs) < 0) {
		childsay(2, "the sandbox refused to start the command", NULL,
		         errno);
		_exit(126);
	}
	execve(argv[0], argv, env);
	k = errno;
	childsay(2, "cannot run", argv[0], k);
	_exit(k == ENOENT ? 127 : 126);
}

static int
spawn(const Procs *e, const char *sh, const char *cmd, Proc *p, Buf *out)
{
	char *argv[4];
	char **env;
	int fds[2], rs = -1;
	Buf tmp = { 0 };

	if (e->box && sandboxheld(e->box) &&
	    (rs = sandboxruleset(e->box)) < 0) {
		bufaddf(out, "bash: cannot make the sandbox: %s",
		        strerror(errno));
		return -1;
	}
	if (pipe(fds) < 0) {
		bufaddf(out, "bash: cannot make a pipe: %s", strerror(errno));
		if (rs >= 0)
			close(rs);
		return -1;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	argv[0] = (char *)sh;
	argv[1] = "-c";
	argv[2] = (char *)cmd;
	argv[3] = NULL;
	env = cleanenv(e, &tmp);
	if ((p->pid = fork()) == 0)
		childexec(e, argv, env, -1, fds[1], fds[1], rs);
	if (p->pid > 0 && e->pgid)	/* the child leads its own group */
		*e->pgid = p->pid;
	free(env);
	buffree(&tmp);
	if (rs >= 0)
		close(rs);
	close(fds[1]);
	if (p->pid < 0) {
		bufaddf(out, "bash: cannot fork: %s", strerror(errno));
		close(fds[0]);
		return -1;
	}
	p->fd = fds[0];
	return 0;
}

static void
reapshell(Proc *p, int flags)
{
	pid_t r;

	if (p->reaped)
		return;
	while ((r = waitpid(p->pid, &p->status, flags)) < 0 && errno == EINTR)
		;
	if (r == p->pid) {
		p->reaped = 1;
	} else if (r < 0) {
		p->reaped = 1;	/* SIGCHLD ignored: reaped for us */
		p->nostatus = 1;
	}
}

/* Read what the pipe has; the command's output goes into t. */
static void
drainpipe(Proc *p, Tail *t, long long *last)
{
	char buf[16384];
	ssize_t n;

	n = read(p->fd, buf, sizeof(buf));
	if (n > 0) {
		tailadd(t, buf, n);
		if (t->e->progress)
			t->e->progress(t->e->progarg, buf, n);
		*last = monoms();
	} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		p->eof = 1;
	}
}

/* Collect output until the command ends, times out or is interrupted.
 * Once the shell has exited, a background job it started may still hold
 * the pipe (`server &`): we read on only while output keeps coming, for at
 * most DRAINMS, then stop reading and leave the job running, as pi 1.5
 * does.  It is not killed: starting a server in the background is a
 * legitimate use; it dies of SIGPIPE if it writes to the pipe again. */
static int
pump(const Procs *e, Proc *p, Tail *t, double secs)
{
	long long now, start = monoms(), last = start, exitat = 0, deadline;
	struct pollfd pf[2];
	struct timespec ts;
	int (*watch)(void *) = e->watch;
	long nap = 100;	/* microseconds: the first wait for the exit */
	int ms;

	deadline = secs > 0 ? start + (long long)(secs * 1000) : 0;
	for (;;) {
		now = monoms();
		if (!p->reaped) {
			reapshell(p, WNOHANG);
			exitat = now;	/* ends up as when the exit was seen */
		}
		if (p->reaped && (p->eof || now - exitat >= DRAINMS ||
		    now - MAX(last, exitat) >= IDLEMS)) {
			p->held = !p->eof;
			return PROCDONE;
		}
		if (e->intr && *e->intr)
			return PROCABORTED;
		if (!p->reaped && deadline && now >= deadline)
			return PROCTIMEDOUT;
		if (p->eof) {
			/* the output is over and the exit comes in a moment:
			 * a short nap, doubled while it does not, where a
			 * fixed 10 ms cost every command 10 ms */
			ts.tv_sec = 0;
			ts.tv_nsec = nap * 1000;
			nanosleep(&ts, NULL);
			nap = MIN(nap * 2, 10000);
			continue;
		}
		ms = POLLMS;
		if (!p->reaped && deadline && deadline - now < ms)
			ms = deadline - now;
		pf[0].fd = p->fd;
		pf[1].fd = watch ? e->watchfd : -1;	/* -1: none */
		pf[0].events = pf[1].events = POLLIN;
		pf[0].revents = pf[1].revents = 0;
		if (poll(pf, 2, ms) <= 0)
			continue;
		if (pf[1].revents && watch(e->watcharg))
			watch = NULL;
		if (pf[0].revents)
			drainpipe(p, t, &last);
	}
}

/*
 * What the tools leave running.  Under a seccomp filter (sandbox.c) a
 * call's processes cannot leave its process group: killing the group
 * ends them all, at once.  On Linux agent is also the subreaper of what
 * they start: an orphan (cmd &, nohup, setsid, a double fork) is
 * reparented to us, not to init, so every process left is below us in
 * /proc and is found there, whatever its group or session: what has no
 * filter (hooks, the full profile, AGENT_NO_SECCOMP=1, another
 * architecture).  That scan is best effort: a process that forks on
 * and exits at once may be gone before each kill reaches it, its child
 * born after the scan.  Elsewhere only a call's own group can be found.
 */
#ifdef __linux__
#ifndef PR_SET_CHILD_SUBREAPER
#define PR_SET_CHILD_SUBREAPER 36
#endif

static int pidin(const pid_t *p, size_t n, pid_t pid);

typedef struct {
	pid_t pid, ppid;
	int live;	/* not a zombie */
} Procent;

static int
procentcmp(const void *a, const void *b)
{
	pid_t x = ((const Procent *)a)->pid, y = ((const Procent *)b)->pid;

	return x < y ? -1 : x > y;
}

/* The pid, ppid and state of process name from /proc/name/stat: the
 * command in parentheses may hold any byte, so its last ')' ends it;
 * what comes after is numbers, and 128 bytes hold the fields we need. */
static int
procent(const char *name, Procent *p)
{
	char path[32 + NAME_MAX], buf[128], st, *q;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* ") S 123 ...": no sscanf, which would bring a static build the
	 * whole of scanf's floating point */
	if (!(q = strrchr(buf, ')')) || q[1] != ' ' || !q[2] || q[3] != ' ')
		return -1;
	st = q[2];
	p->ppid = strtol(q + 4, &q, 10);
	if (*q != ' ')
		return -1;
	p->pid = strtol(name, NULL, 10);
	p->live = st != 'Z' && st != 'X' && st != 'x';
	return 0;
}

/* The live processes below us, from one scan of /proc, into *out (to be
 * freed): their number, or 0.  MCP servers (e->servers) and what they
 * run are not counted: they live for the run, not for a call. */
static size_t
descendants(const Procs *e, pid_t **out)
{
	DIR *d;
	struct dirent *de;
	Procent *all = NULL, *up, key;
	size_t n = 0, cap = 0, k, i, depth;
	pid_t self = getpid();

	*out = NULL;
	if (!(d = opendir("/proc")))
		return 0;
	while ((de = readdir(d))) {
		if (*de->d_name < '0' || *de->d_name > '9')
			continue;
		if (n == cap)
			all = xrealloc(all, (cap = cap ? 2 * cap : 256) *
			               sizeof(*all));
		if (procent(de->d_name, &all[n]) == 0)
			n++;
	}
	closedir(d);
	qsort(all, n, sizeof(*all), procentcmp);
	*out = xrealloc(NULL, (n ? n : 1) * sizeof(**out));
	for (i = k = 0; i < n; i++) {
		/* up the parents till us, or init, or a loop's bound */
		for (up = &all[i], depth = 0; up && up->ppid != self &&
		     depth < n; depth++) {
			key.pid = up->ppid;
			up = bsearch(&key, all, n, sizeof(*all), procentcmp);
		}
		if (up && pidin(e->servers, e->nservers, up->pid))
			continue;
		if (up && depth < n && all[i].live && all[i].pid != self)
			(*out)[k++] = all[i].pid;
	}
	free(all);
	return k;
}

void
procreaper(Procs *e)
{
	e->reaper = prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}
#else
static size_t
descendants(const Procs *e, pid_t **out)
{
	(void)e;
	*out = NULL;
	return 0;
}

void
procreaper(Procs *e)
{
	e->reaper = 0;
}
#endif

/* Reap the children that have ended (the tools' orphans, ours as the
 * subreaper): whether one is still alive.  When none is, the usual
 * case, this one waitpid is all a call's end costs.  The shell p, if
 * it is among them, keeps its status. */
static int
reapleft(Proc *p)
{
	pid_t r;
	int st;

	while ((r = waitpid(-1, &st, WNOHANG)) > 0 ||
	       (r < 0 && errno == EINTR)) {
		if (p && r == p->pid && !p->reaped) {
			p->status = st;
			p->reaped = 1;
		}
	}
	return r == 0;
}

static int
pidin(const pid_t *p, size_t n, pid_t pid)
{
	while (n--)
		if (p[n] == pid)
			return 1;
	return 0;
}

/* As the subreaper, end every process below us: TERM (and CONT, or a
 * stopped one would not see it) to each when first seen, KILL to what
 * is left after killgrace ms, scanned again till none is, for one may
 * fork while we look; KILLMS past the KILL we give up: PROCUNKILLED. */
static int
killbelow(const Procs *e, Proc *sh)
{
	long long until, now;
	pid_t *p, *seen = NULL;
	size_t n, nseen = 0, i;
	int nap = 1, any = PROCNONELEFT;

	if (!e->reaper || !reapleft(sh))
		return PROCNONELEFT;
	until = monoms() + e->lim->killgrace;
	while ((n = descendants(e, &p)) > 0 &&
	       (now = monoms()) < until + KILLMS) {
		any = PROCKILLED;
		for (i = 0; i < n; i++) {
			if (now >= until) {
				kill(p[i], SIGKILL);
			} else if (!pidin(seen, nseen, p[i])) {
				kill(p[i], SIGTERM);
				kill(p[i], SIGCONT);
			}
		}
		free(seen);
		seen = p;
		nseen = n;
		poll(NULL, 0, nap);
		nap = MIN(nap * 2, 10);
		reapleft(sh);
	}
	if (n > 0)
		any = PROCUNKILLED;
	free(p);
	free(seen);
	reapleft(sh);
	return any;
}

/* Whether group pg is empty, once what has ended in it is reaped: the
 * shell sh (or NULL), and as the subreaper, the orphans. */
static int
pggone(const Procs *e, pid_t pg, Proc *sh)
{
	if (sh)
		reapshell(sh, WNOHANG);
	if (e->reaper)
		reapleft(sh);
	return kill(-pg, 0) < 0 && errno == ESRCH;
}

/* Whether group pg empties within ms milliseconds. */
static int
pgwait(const Procs *e, pid_t pg, Proc *sh, long long ms)
{
	long long until = monoms() + ms;

	while (!pggone(e, pg, sh)) {
		if (monoms() >= until)
			return 0;
		poll(NULL, 0, 10);
	}
	return 1;
}

/* TERM (and CONT) the group pg, give it killgrace ms to go, KILL what
 * is left; KILLMS past it we give up.  PROCNONELEFT if it was empty,
 * else PROCKILLED or PROCUNKILLED.  kill(2) cannot tell a zombie from
 * the living: unless we are the subreaper, who reaps them, one that
 * another process leaves unreaped would keep the group: then the KILL
 * sent is taken for done. */
static int
pgkill(const Procs *e, pid_t pg, Proc *sh)
{
	if (pggone(e, pg, sh))
		return PROCNONELEFT;
	kill(-pg, SIGTERM);
	kill(-pg, SIGCONT);
	if (pgwait(e, pg, sh, e->lim->killgrace))
		return PROCKILLED;
	kill(-pg, SIGKILL);
	return !e->reaper || pgwait(e, pg, sh, KILLMS) ? PROCKILLED :
	       PROCUNKILLED;
}

/* Kill the shell's whole group, then read what it wrote before. */
static void
killgroup(const Procs *e, Proc *p, Tail *t)
{
	long long last;
	int k;

	pgkill(e, p->pid, p);
	reapshell(p, 0);
	for (k = 0; k < 64 && !p->eof; k++)
		drainpipe(p, t, &last);
}

/* At a call's end, when the profile does not let its processes stay:
 * kill its group, then what else is below us as the subreaper.
 * PROCNONELEFT, PROCKILLED or PROCUNKILLED. */
static int
killleft(const Procs *e, Proc *p)
{
	int g, b;

	g = pgkill(e, p->pid, p);
	b = killbelow(e, p);
	return MAX(g, b);
}

/* When a call's processes may stay: its group, kept to be killed at
 * exit, if anyone is left in it; the groups now empty are dropped. */
static void
keepgroup(Procs *e, pid_t pg)
{
	int i, n;

	for (i = n = 0; i < e->ngroups; i++)
		if (!pggone(e, e->groups[i], NULL))
			e->groups[n++] = e->groups[i];
	e->ngroups = n;
	if (n < (int)LEN(e->groups) && !pggone(e, pg, NULL))
		e->groups[e->ngroups++] = pg;
}

/* At exit: the groups kept, then anything else below us. */
void
prockillall(Procs *e)
{
	int i;

	for (i = 0; i < e->ngroups; i++)
		pgkill(e, e->groups[i], NULL);
	e->ngroups = 0;
	killbelow(e, NULL);
}

/* bash's command */

/* Run cmd with the first of shells that exists, for secs seconds (0: no
 * limit): its output as the model sees it into out, how it ended into
 * *end.  What it leaves running is killed at its end, or kept to be
 * killed at exit if the profile lets it stay.  -1 with the reason in out
 * if it could not run. */
int
procrun(Procs *e, const char *cmd, double secs, Procend *end, Buf *out)
{
	const char *sh;
	Proc p = { 0 };
	Tail t = { 0 };

	memset(end, 0, sizeof(*end));
	if (!(sh = findshell(e))) {
		noshell(e, out);
		return -1;
	}
	t.e = e;
	t.fd = -1;
	if (spawn(e, sh, cmd, &p, out) < 0)
		return -1;
	if ((end->why = pump(e, &p, &t, secs)) != PROCDONE)
		killgroup(e, &p, &t);
	if (!e->stay)
		end->left = killleft(e, &p);
	else
		keepgroup(e, p.pid);
	reapleft(&p);	/* what ended in the background, whatever stay is */
	if (e->pgid)
		*e->pgid = 0;
	close(p.fd);
	if (!tailtext(&t, out) && t.file)
		unlink(t.file);	/* saved early, but it all fits */
	end->status = p.status;
	end->nostatus = p.nostatus;
	end->held = p.held;
	if (t.fd >= 0 && close(t.fd) < 0)
		warn("close %s:", t.file);
	free(t.file);
	buffree(&t.win);
	return 0;
}

/* hooks */

/* A pipe whose ends are close-on-exec, ours (end k) not blocking. */
static int
hookpipe(int fds[2], int k)
{
	if (pipe(fds) < 0)
		return -1;
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fcntl(fds[k], F_SETFL, O_NONBLOCK);
	return 0;
}

/* Feed the hook its stdin and keep the start of its stderr until it has
 * exited and closed stderr, or the deadline: 1 if it has exited. */
static int
hookwait(pid_t pid, int *st, int ip, int ep, const char *in, size_t n,
         long long end, Buf *err)
{
	struct pollfd pf[2];
	char buf[4096];
	size_t off = 0;
	long long now, goneat = 0;
	ssize_t k;
	int eof = 0;

	for (; (now = monoms()) < end; ) {
		if (!goneat && waitpid(pid, st, WNOHANG) == pid)
			goneat = now;
		if (goneat && (eof || now - goneat > IDLEMS))
			break;
		if (ip >= 0 && off == n) {
			close(ip);
			ip = -1;
		}
		pf[0].fd = eof ? -1 : ep;
		pf[1].fd = ip;
		pf[0].events = POLLIN;
		pf[1].events = POLLOUT;
		if (poll(pf, 2, MIN(end - now, 20)) <= 0)
			continue;
		if (pf[0].revents && (k = read(ep, buf, sizeof(buf))) > 0)
			bufadd(err, buf, MIN((size_t)k, 4096 - MIN(err->len,
			       4096)));
		else if (pf[0].revents && (k == 0 || errno != EAGAIN))
			eof = 1;
		if (ip >= 0 && pf[1].revents) {
			if ((k = write(ip, in + off, n - off)) > 0)
				off += k;
			else if (errno != EAGAIN && errno != EINTR)
				off = n;	/* it reads no more */
		}
	}
	if (ip >= 0)
		close(ip);
	return goneat != 0;
}

/* Run a hook of the guard: cmd with /bin/sh -c, in on its stdin, the
 * start of its stderr into err, its stdout thrown away, with the
 * environment bash has (no keys) but unsandboxed: it is the user's own.
 * Its exit status, or -1 if it was killed at ms milliseconds or could
 * not run. */
int
prochook(const Procs *e, const char *cmd, const char *in, size_t n,
         int ms, Buf *err)
{
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	int ip, ep, st = 0, gone;
	pid_t pid;

	argv[2] = (char *)cmd;
	if ((pid = procstart(e, argv, NULL, &ip, NULL, &ep)) < 0)
		return -1;
	gone = hookwait(pid, &st, ip, ep, in, n, monoms() + ms, err);
	close(ep);
	if (!gone) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		return -1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* MCP servers and tasks */

/* In the child: a TERM when agent dies, however it dies (a SIGKILL, an
 * OOM kill), so that a task's child stops and cleans up at once rather
 * than at its next write to a pipe nobody reads.  Linux alone has it;
 * elsewhere that write, or the server's read of EOF, ends it. */
static void
diewithus(pid_t parent)
{
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)	/* gone before the prctl */
		_exit(1);
#else
	(void)parent;
#endif
}

/* Start argv[0] (a path) as a server or a task: its own group,
 * unsandboxed (it is the user's, as a hook is), with env, or the tools'
 * environment if NULL; stdin from *to, stdout to *from, stderr to *err,
 * our ends not blocking, each NULL for /dev/null.  Its pid, or -1. */
pid_t
procstart(const Procs *e, char **argv, char **env, int *to, int *from,
          int *err)
{
	int *ours[3], p[3][2], i, k, saved;
	char **clean = NULL;
	pid_t pid, parent;
	Buf tmp = { 0 };

	ours[0] = to;
	ours[1] = from;
	ours[2] = err;
	for (i = 0; i < 3; i++)
		p[i][0] = p[i][1] = -1;
	for (i = 0; i < 3; i++)
		if (ours[i] && hookpipe(p[i], !i) < 0)
			break;
	if (i == 3 && !env)
		env = clean = cleanenv(e, &tmp);
	parent = getpid();
	pid = i == 3 ? fork() : -1;
	if (pid == 0) {
		diewithus(parent);
		childexec(e, argv, env, p[0][0], p[1][1], p[2][1], -1);
	}
	saved = errno;	/* the pipe's or fork's, for the caller */
	free(clean);
	buffree(&tmp);
	for (k = 0; k < 3; k++) {
		if (p[k][0] < 0)
			continue;
		close(p[k][!!k]);	/* the child's end */
		if (pid < 0)
			close(p[k][!k]);
		else
			*ours[k] = p[k][!k];
	}
	errno = saved;
	return pid;
}

/* Start cmd with /bin/sh -c as an MCP server, its stderr to *err (the
 * shell's own words when the command is not there, the server's log):
 * procstart's, kept to be killed at exit. */
pid_t
procserve(Procs *e, const char *cmd, int *to, int *from, int *err)
{
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	pid_t pid;

	argv[2] = (char *)cmd;
	if (e->nservers == (int)LEN(e->servers))
		return -1;
	if ((pid = procstart(e, argv, NULL, to, from, err)) > 0)
		e->servers[e->nservers++] = pid;
	return pid;
}

/* Stop a server procserve started: its group killed and reaped. */
void
procunserve(Procs *e, pid_t pid)
{
	Proc p = { 0 };
	int i, n;

	for (i = n = 0; i < e->nservers; i++)
		if (e->servers[i] != pid)
			e->servers[n++] = e->servers[i];
	e->nservers = n;
	p.pid = pid;
	pgkill(e, pid, &p);
	reapshell(&p, 0);
}

/* At the end of the run, the log directory goes, unless the model was
 * told of a file in it: then we say where it is.  rmdir(2) fails if a
 * file we could not remove is left. */
void
proclogexit(Procs *e)
{
	Buf b = { 0 };
	int k;

	if (!e->logdir)
		return;
	if (e->logkept) {
		warn("bash output kept in %s", e->logdir);
	} else {
		for (k = 1; k <= e->nlogs; k++) {
			logname(e, k, &b);
			unlink(b.p);	/* most are gone already */
		}
		if (rmdir(e->logdir) < 0)
			warn("cannot remove %s:", e->logdir);
		buffree(&b);
	}
	free(e->logdir);
	e->logdir = NULL;
	e->nlogs = e->logkept = 0;
}
