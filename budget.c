/* See LICENSE file for copyright and license details. */
/* budget.c: what a run may spend and what it spent: -b's list, the check
 * before each model call, the ledger that runs in parallel add their
 * costs to under a lock, and the summary -j's last event carries. */
#include <sys/types.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "entry.h"
#include "budget.h"

enum {
	MAXLEDGER = 64 << 20	/* bytes of a ledger read for its total */
};

/* A number of the list: digits, and with frac a fraction after a dot;
 * > 0, up to a billion.  -1 if it is none.  By hand, not strtod: that
 * brought a static build the whole of musl's float parser (6 KB) for
 * this alone.  The digits as one integer over one power of ten: the
 * nearest double, as strtod's, for up to 15 digits. */
static int
budgetnum(const char *s, size_t n, int frac, double *v)
{
	size_t i, dots = 0;
	double m = 0, p = 1;

	if (!n || n >= 32)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i] == '.' && frac)
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return -1;
		else {
			m = m * 10 + (s[i] - '0');
			p *= dots ? 10 : 1;
		}
	if (dots > 1 || s[0] == '.' || s[n - 1] == '.')
		return -1;
	*v = m / p;
	return !(*v > 0) || *v > 1e9 ? -1 : 0;
}

/* One item, key=value, into b. */
static int
budgetitem(Budget *b, const char *s, size_t n, Buf *why)
{
	static const char *const keys[] = { "turns", "cost", "time" };
	const char *eq = memchr(s, '=', n);
	size_t k, kn = eq ? (size_t)(eq - s) : n;
	double v;

	for (k = 0; k < LEN(keys); k++)
		if (strlen(keys[k]) == kn && !memcmp(s, keys[k], kn))
			break;
	if (k == LEN(keys)) {
		bufaddf(why, "unknown budget \"%.*s\": the keys are turns, "
		        "cost and time", (int)MIN(kn, 32), s);
		return -1;
	}
	if (!eq || budgetnum(eq + 1, n - kn - 1, k == 1, &v) < 0) {
		bufaddf(why, "%s needs %s above 0, as %s=%s", keys[k],
		        k == 1 ? "a number of dollars" : k ? "whole seconds" :
		        "a whole number", keys[k], k == 1 ? "0.50" : "20");
		return -1;
	}
	if (k == 0)
		b->turns = (long)v;
	else if (k == 1)
		b->cost = v;
	else
		b->time = (long)v;
	return 0;
}

/* -b's list, as turns=N,cost=DOLLARS,time=SECONDS, any of them, into b
 * (what it does not name is left as it was).  -1 with why. */
int
budgetparse(Budget *b, const char *list, Buf *why)
{
	const char *s = list, *e;

	for (;; s = e + 1) {
		e = s + strcspn(s, ",");
		if (e == s) {
			bufadds(why, "an empty item in the budget list");
			return -1;
		}
		if (budgetitem(b, s, e - s, why) < 0)
			return -1;
		if (!*e)
			return 0;
	}
}

/* What is left of b, as -b takes it, for a task's child (empty: no
 * bound).  A bound spent is left as the least the list can say, so the
 * child stops at its first check.  With a ledger the cost is the whole
 * of it: the child counts the ledger too. */
void
budgetleft(const Budget *b, const Spent *s, int ledger, Buf *out)
{
	long ms = monoms() - s->startms;
	const char *sep = "";

	if (b->turns) {
		bufaddf(out, "turns=%ld", MAX(b->turns - s->calls, 1));
		sep = ",";
	}
	if (b->cost) {
		bufaddf(out, "%scost=%.6f", sep, ledger ? b->cost :
		        MAX(b->cost - s->cost, 1e-6));
		sep = ",";
	}
	if (b->time)
		bufaddf(out, "%stime=%ld", sep,
		        MAX(b->time - ms / 1000, 1));
}

/* Whether the run may ask the model once more: 1 and why not if a bound
 * is reached.  ledger is the ledger's total, or -1 with none: then the
 * cost is the run's own. */
int
budgetover(const Budget *b, const Spent *s, double ledger, Buf *why)
{
	double cost = ledger >= 0 ? ledger : s->cost;

	if (b->turns && s->calls >= b->turns) {
		bufaddf(why, "the budget of %ld model calls is spent",
		        b->turns);
		return 1;
	}
	if (b->cost && cost >= b->cost) {
		bufaddf(why, "the budget of $%.2f is spent ($%.4f%s)",
		        b->cost, cost, ledger >= 0 ? " in the ledger" : "");
		return 1;
	}
	if (b->time && monoms() - s->startms >= b->time * 1000LL) {
		bufaddf(why, "the budget of %ld seconds is spent", b->time);
		return 1;
	}
	return 0;
}

/* A path written or edited, noted once. */
static void
budgetfile(Spent *s, const char *path)
{
	size_t i, n = strlen(path);

	for (i = 0; i < s->files.len; i += strlen(s->files.p + i) + 1)
		if (!strcmp(s->files.p + i, path))
			return;
	bufadd(&s->files, path, n);
	bufaddc(&s->files, '\0');
}

/* An answer's usage and cost, as its message (as pi stores it) says
 * them, in s; its cost, -1 if it cannot be read. */
double
budgetanswer(Spent *s, const char *msg)
{
	Json j = { 0 };
	double cost = -1;

	s->calls++;
	if (jsonparse(&j, msg, strlen(msg)) == 0 && j.t[0].type == JOBJ) {
		cost = entryusage(&j, 0, s->tok);
		s->cost += cost;
	}
	jsonfree(&j);
	return cost;
}

/* A call run (name, its arguments' JSON text) and its result message:
 * a write or an edit that succeeded names a file changed. */
void
budgetcall(Spent *s, const char *name, const Buf *args, const char *res)
{
	Json j = { 0 }, r = { 0 };
	char *path = NULL;
	int err = 1;

	s->toolcalls++;
	if (strcmp(name, "write") && strcmp(name, "edit"))
		return;
	if (jsonparse(&r, res, strlen(res)) == 0)
		jsonbool(&r, jsonget(&r, 0, "isError"), &err);
	if (!err && jsonparse(&j, args->p ? args->p : "", args->len) == 0 &&
	    j.t[0].type == JOBJ && (path = jsonstr(&j, jsonget(&j, 0, "path"))))
		budgetfile(s, path);
	free(path);
	jsonfree(&j);
	jsonfree(&r);
}

/* The ledger, open and locked (F_WRLCK to add, F_RDLCK to read): a lock
 * of the whole file, which every run takes, so a line is whole when
 * another run reads it.  -1 with why. */
static int
ledgeropen(const char *path, int type, Buf *why)
{
	struct flock l;
	int fd;

	fd = open(path, (type == F_WRLCK ? O_RDWR | O_APPEND | O_CREAT :
	          O_RDONLY) | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (type == F_RDLCK && errno == ENOENT)
			return -2;	/* no ledger yet: nothing spent */
		bufaddf(why, "ledger %s: %s", path, strerror(errno));
		return -1;
	}
	memset(&l, 0, sizeof(l));
	l.l_type = type;
	l.l_whence = SEEK_SET;
	while (fcntl(fd, F_SETLKW, &l) < 0)
		if (errno != EINTR) {
			bufaddf(why, "ledger %s: cannot lock it: %s", path,
			        strerror(errno));
			close(fd);
			return -1;
		}
	return fd;
}

/* A cost of this run, a line of the ledger, appended in one write under
 * the lock. */
int
ledgeradd(const char *path, const char *run, const char *model,
          double cost, Buf *why)
{
	Buf b = { 0 };
	struct stat st;
	char t[32];
	int fd, rc;

	if ((fd = ledgeropen(path, F_WRLCK, why)) < 0)
		return -1;
	isonow(t);
	/* a line torn by a full disk is ended: ours is not glued to it */
	if (fstat(fd, &st) == 0 && lacksnewline(fd, st.st_size))
		bufaddc(&b, '\n');
	bufadds(&b, "{\"run\":");
	jsonescs(&b, run);
	bufadds(&b, ",\"time\":");
	jsonescs(&b, t);
	bufadds(&b, ",\"model\":");
	jsonescs(&b, model);
	bufaddf(&b, ",\"cost\":%.10f}\n", cost);
	rc = writeall(fd, b.p, b.len);
	if (rc < 0)
		bufaddf(why, "ledger %s: %s", path, strerror(errno));
	if (close(fd) < 0 && rc == 0) {
		bufaddf(why, "ledger %s: %s", path, strerror(errno));
		rc = -1;
	}
	buffree(&b);
	return rc;
}

/* The cost of one line, 0 and a warning for a line that holds none. */
static double
ledgerline(const char *path, const char *p, size_t n, long line)
{
	Json j = { 0 };
	double v = 0;

	if (jsonparse(&j, p, n) < 0 || j.t[0].type != JOBJ ||
	    jsonnum(&j, jsonget(&j, 0, "cost"), &v) < 0 || !(v >= 0)) {
		warn("ledger %s: line %ld is no cost: skipped", path, line);
		v = 0;
	}
	jsonfree(&j);
	return v;
}

/* The sum of the ledger's costs, every run's; 0 for a ledger not made
 * yet.  -1 with why. */
int
ledgertotal(const char *path, double *total, Buf *why)
{
	Buf b = { 0 };
	size_t i, e;
	long line = 0;
	int fd, rc;

	*total = 0;
	if ((fd = ledgeropen(path, F_RDLCK, why)) == -2)
		return 0;
	if (fd < 0)
		return -1;
	rc = readall(fd, &b, MAXLEDGER);
	close(fd);
	if (rc != 0) {
		bufaddf(why, "ledger %s: %s", path, rc < 0 ? strerror(errno) :
		        "over 64 MB");
		buffree(&b);
		return -1;
	}
	for (i = 0; i < b.len; i = e + 1) {
		e = i + strcspn(b.p + i, "\n");
		line++;
		if (e > i)
			*total += ledgerline(path, b.p + i, e - i, line);
		if (e >= b.len)
			break;
	}
	buffree(&b);
	return 0;
}

/* -j's summary of the run: a JSON object. */
void
budgetsummary(Buf *out, const Spent *s, const char *sessid,
              const char *sessfile, int status, const char *reason)
{
	size_t i;

	bufadds(out, "{\"sessionId\":");
	jsonescs(out, sessid ? sessid : "");
	bufadds(out, ",\"sessionFile\":");
	if (sessfile)
		jsonescs(out, sessfile);
	else
		bufadds(out, "null");
	bufaddf(out, ",\"modelCalls\":%ld,\"toolCalls\":%ld,\"tokens\":"
	        "{\"input\":%lld,\"output\":%lld,\"cacheRead\":%lld,"
	        "\"cacheWrite\":%lld},\"cost\":", s->calls, s->toolcalls,
	        s->tok[0], s->tok[1], s->tok[2], s->tok[3]);
	if (s->costknown)
		bufaddf(out, "%.6f", s->cost);
	else
		bufadds(out, "null");
	bufadds(out, ",\"files\":[");
	for (i = 0; i < s->files.len; i += strlen(s->files.p + i) + 1) {
		if (i)
			bufaddc(out, ',');
		jsonescs(out, s->files.p + i);
	}
	bufaddf(out, "],\"exitStatus\":%d,\"reason\":", status);
	jsonescs(out, reason ? reason : "");
	bufaddc(out, '}');
}
