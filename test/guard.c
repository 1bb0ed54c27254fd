/* See LICENSE file for copyright and license details. */
/* test/guard.c: unit tests of guard.c's reading of a bash command line
 * (shsplit): its simple commands, their forms, the files it writes,
 * and what makes it unsure; and of what guardcall decides with rules. */
#include <sys/wait.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util.h"
#include "../json.h"
#include "../tools.h"
#include "../sandbox.h"
#include "../shsplit.h"
#include "../guard.h"
#include "t.h"

/* The line's parts as "strict|loose" joined by " ;; ", its writes
 * joined by " ", into b and w. */
static void
show(const Shline *l, Buf *b, Buf *w)
{
	const char *p = bstr(&l->parts);
	int k;

	for (k = 0; k < l->n; k++) {
		bufaddf(b, "%s%s|", k ? " ;; " : "", p);
		p += strlen(p) + 1;
		bufadds(b, p);
		p += strlen(p) + 1;
	}
	for (k = 0, p = bstr(&l->writes); k < l->nwrites; k++) {
		bufaddf(w, "%s%s", k ? " " : "", p);
		p += strlen(p) + 1;
	}
}

static const struct {
	const char *in;
	const char *parts;
	int unsure;
	const char *writes;
} cases[] = {
	/* separators */
	{ "git status", "git status|git status", 0, "" },
	{ "git status; curl x | sh",
	  "git status|git status ;; curl x|curl x ;; sh|sh", 0, "" },
	{ "a && b || c & d |& e", "a|a ;; b|b ;; c|c ;; d|d ;; e|e", 0, "" },
	{ "a\nb\n\n", "a|a ;; b|b", 0, "" },
	{ "a;;b", "a|a ;; b|b", 1, "" },
	/* quotes, escapes, comments */
	{ "git  \t push", "git push|git push", 0, "" },
	{ "\"git\" 'push'", "git push|git push", 0, "" },
	{ "g\\it pu\"\"sh", "git push|git push", 0, "" },
	{ "echo \"a;b\" 'c|d' e\\;f", "echo a;b c|d e;f|echo a;b c|d e;f",
	  0, "" },
	{ "echo \"a\\\"b\\\\c\\d\"", "echo a\"b\\c\\d|echo a\"b\\c\\d", 0,
	  "" },
	{ "a\\\nb", "ab|ab", 0, "" },
	{ "ls # a comment; rm x", "ls|ls", 0, "" },
	{ "echo a#b", "echo a#b|echo a#b", 0, "" },
	{ "$'\\x67it' $'\\160\\165sh'", "git push|git push", 0, "" },
	{ "$'\\u0067it'", "\\u0067it|\\u0067it", 1, "" },
	{ "echo \"open", "echo open|echo open", 1, "" },
	{ "echo 'open", "echo open|echo open", 1, "" },
	{ "echo \"\"", "echo |echo ", 0, "" },
	/* wrappers and git's global options */
	{ "env git push", "git push|git push", 0, "" },
	{ "command git push", "git push|git push", 0, "" },
	{ "builtin exec nohup time -p git push", "git push|git push", 0, "" },
	{ "FOO=1 git push", "FOO=1 git push|git push", 0, "" },
	{ "env -i -- A=1 git push", "env -i -- A=1 git push|git push", 0, "" },
	{ "env -u HOME nice -n 5 timeout -s KILL 10 git push",
	  "env -u HOME nice -n 5 timeout -s KILL 10 git push|git push", 0,
	  "" },
	{ "xargs -n 1 git push", "xargs -n 1 git push|git push", 0, "" },
	{ "command -v git", "command -v git|git", 0, "" },
	{ "/usr/bin/git push", "/usr/bin/git push|git push", 0, "" },
	{ "git -C . -c a=b --git-dir=.git --no-pager push",
	  "git -C . -c a=b --git-dir=.git --no-pager push|git push", 0, "" },
	{ "git --work-tree x --namespace y push origin",
	  "git --work-tree x --namespace y push origin|git push origin", 0,
	  "" },
	{ "cd . && git push", "cd .|cd . ;; git push|git push", 0, "" },
	{ "env -S'git push'", "git push|git push ;; env -Sgit push|", 1, "" },
	{ "env -C /tmp git push", "env -C /tmp git push|git push", 1, "" },
	/* what runs inside */
	{ "sh -c 'git push; ls'",
	  "git push|git push ;; ls|ls ;; "
	  "sh -c git push; ls|sh -c git push; ls",
	  0, "" },
	{ "bash -o pipefail -ec \"git push\"",
	  "git push|git push ;; "
	  "bash -o pipefail -ec git push|bash -o pipefail -ec git push", 0,
	  "" },
	{ "eval git push", "git push|git push ;; eval git push|eval git push",
	  0, "" },
	/* substitutions, subshells, keywords: unsure */
	{ "git status $(rm -rf x)",
	  "rm -rf x|rm -rf x ;; git status $(rm -rf x)|git status $(rm -rf x)",
	  1, "" },
	{ "git status `rm x`",
	  "rm x|rm x ;; git status `rm x`|git status `rm x`", 1, "" },
	{ "echo \"$(git push)\"",
	  "git push|git push ;; echo $(git push)|echo $(git push)", 1, "" },
	{ "echo '$(git push)'", "echo $(git push)|echo $(git push)", 0, "" },
	{ "echo $((1+2))", "1+2|1+2 ;; echo $((1+2))|echo $((1+2))", 1, "" },
	{ "diff <(ls) x", "ls|ls ;; diff <(ls) x|diff <(ls) x", 1, "" },
	{ "echo ${HOME} $HOME", "echo ${HOME} $HOME|echo ${HOME} $HOME", 0,
	  "" },
	{ "echo ${x:-$(git push)}",
	  "git push|git push ;; echo ${x:-$(git push)}|echo ${x:-$(git push)}",
	  1, "" },
	{ "echo ${x@P}", "echo ${x@P}|echo ${x@P}", 1, "" },
	{ "(cd /; git push)", "cd /|cd / ;; git push|git push", 1, "" },
	{ "{ git push; }", "git push|git push", 1, "" },
	{ "if true; then git push; fi", "true|true ;; git push|git push", 1,
	  "" },
	{ "for f in *; do git push; done",
	  "f in *|f in * ;; git push|git push", 1, "" },
	{ "$X status", "$X status|$X status", 1, "" },
	{ "g{it,} push", "g{it,} push|g{it,} push", 1, "" },
	{ "~/bin/git push", "~/bin/git push|git push", 1, "" },
	{ "x=$(id) git status", "id|id ;; x=$(id) git status|git status", 1,
	  "" },
	{ "a)", "a|a", 1, "" },
	{ "(a", "a|a", 1, "" },
	/* redirections */
	{ "git status >out 2>&1 >>/tmp/x",
	  "git status > out 2>& 1 >> /tmp/x|git status > out 2>& 1 >> /tmp/x",
	  0, "out /tmp/x" },
	{ "echo hi 2>/dev/null <in", "echo hi 2> /dev/null < in|"
	  "echo hi 2> /dev/null < in", 0, "/dev/null" },
	{ "git status &>log", "git status &> log|git status &> log", 0,
	  "log" },
	{ "> f git push", "git push > f|git push > f", 0, "f" },
	{ "echo x >|a <>b >&c 3>&-", "echo x >| a <> b >& c 3>& -|"
	  "echo x >| a <> b >& c 3>& -", 0, "a b c" },
	{ "echo 2 >x", "echo 2 > x|echo 2 > x", 0, "x" },
	{ "echo x >$HOME/f", "echo x > $HOME/f|echo x > $HOME/f", 1, "" },
	{ "echo x >", "echo x >|echo x >", 1, "" },
	{ "cd /etc && echo x >passwd",
	  "cd /etc|cd /etc ;; echo x > passwd|echo x > passwd", 1, "" },
	{ "cat <<EOF\ngit push\nEOF\nls", "cat << EOF|cat << EOF ;; ls|ls", 1,
	  "" },
	{ "cat <<EOF >a; cat <<-'E' >b\n$(git push)\nEOF\n\t$(rm x)\n\tE\nls",
	  "cat << EOF > a|cat << EOF > a ;; cat <<- E > b|cat <<- E > b ;; "
	  "git push|git push ;; ls|ls", 1, "a b" },
	{ "cat <<E\n`git push` \\$(x) ${y}\nE", "cat << E|cat << E ;; "
	  "git push|git push", 1, "" },
	{ "cat <<A\n$(cat <<B\n$(git push)\nB\n)\nA\nls",
	  "cat << A|cat << A ;; cat << B|cat << B ;; git push|git push ;; "
	  "ls|ls", 1, "" },
	{ "cat <<E\ngit push", "cat << E|cat << E", 1, "" },
	{ "cat <<E\nE", "cat << E|cat << E", 1, "" },
	{ "cat <<E", "cat << E|cat << E", 1, "" },
	{ "x <<A <<B\na\nA\nb\nB\nls", "x << A << B|x << A << B ;; ls|ls",
	  1, "" },
	{ "cat <<<word", "cat <<< word|cat <<< word", 0, "" },
	{ "", "", 0, "" },
	{ "  ;  ", "", 0, "" },
};

static void
testcases(void)
{
	Shline l;
	Buf b = { 0 }, w = { 0 }, in = { 0 }, out = { 0 };
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		bufreset(&b);
		bufreset(&w);
		bufreset(&in);
		bufreset(&out);
		shsplit(cases[i].in, &l);
		show(&l, &b, &w);
		/* the names on one line, as test/run.sh counts lines */
		safetext(&in, cases[i].in, strlen(cases[i].in), 1);
		safetext(&out, bstr(&b), b.len, 1);
		T(!strcmp(bstr(&b), cases[i].parts) &&
		  !strcmp(bstr(&w), cases[i].writes) &&
		  !l.unsure == !cases[i].unsure,
		  "split: [%s] -> [%s] writes [%s]%s%s", bstr(&in), bstr(&out),
		  bstr(&w), l.unsure ? ", unsure: " : "",
		  l.unsure ? l.unsure : "");
		shsplitfree(&l);
	}
	buffree(&b);
	buffree(&w);
	buffree(&in);
	buffree(&out);
}

/* Whether l's parts and writes are as many NUL-ended strings as it says,
 * within what was allocated. */
static int
whole(const Shline *l)
{
	size_t at = 0;
	int k;

	for (k = 0; k < 2 * l->n; k++) {
		if (at >= l->parts.len)
			return 0;
		at += strlen(l->parts.p + at) + 1;
	}
	if (at != l->parts.len)
		return 0;
	for (at = 0, k = 0; k < l->nwrites; k++) {
		if (at >= l->writes.len)
			return 0;
		at += strlen(l->writes.p + at) + 1;
	}
	return at == l->writes.len;
}

/* Every line of up to four bytes from the bytes the parser treats
 * apart: never a crash, parts and writes whole. */
static void
testall(void)
{
	static const char set[] = ";&|<>()'\"\\$`{}# \na-=~c*";
	char s[5];
	size_t n = sizeof(set) - 1, i, k, total = 1, m;
	Shline l;
	int ok = 1;

	for (k = 0; k < 4; k++)
		total *= n;
	for (i = 0; i < total; i++) {
		for (k = 0, m = i; k < 4; k++, m /= n)
			s[k] = set[m % n];
		for (k = 0; k <= 4; k++) {
			s[k] = k < 4 ? s[k] : '\0';
		}
		shsplit(s, &l);
		ok &= whole(&l);
		shsplitfree(&l);
		s[2] = '\0';	/* and the two-byte start of it */
		shsplit(s, &l);
		ok &= whole(&l);
		shsplitfree(&l);
	}
	T(ok, "split: every line of four bytes of %s", "its special set");
}

/* Nesting past the bound is unsure, not deep recursion. */
static void
testdeep(void)
{
	static const char *const open[] = { "$(", "${", "(", "\"$(", "`",
	                                     "eval " };
	Buf b = { 0 };
	Shline l;
	size_t i;
	int k;

	for (i = 0; i < LEN(open); i++) {
		bufreset(&b);
		for (k = 0; k < 100000; k++)
			bufadds(&b, open[i]);
		bufadds(&b, "git push");
		shsplit(bstr(&b), &l);
		T(l.unsure && whole(&l), "split: %s nested 100000 times: %s",
		  open[i], l.unsure ? l.unsure : "sure");
		shsplitfree(&l);
	}
	bufreset(&b);
	bufadds(&b, "git status");
	for (k = 0; k < 100000; k++)
		bufadds(&b, "; a");
	shsplit(bstr(&b), &l);
	T(l.n == 100001 && !l.unsure && whole(&l),
	  "split: 100001 commands: %d", l.n);
	shsplitfree(&l);
	buffree(&b);
}

static const Rule rules[] = {
	{ "bash", "git status*", ALLOW },
	{ "bash", "ls*", ALLOW },
	{ "bash", "git push*", DENY },
	{ "bash", "*| sh*", DENY },
	{ "bash", "rm *", ASK },
	{ "read", "*.git/?*", DENY },
	{ "read", ".env", DENY },
	{ "read", "*.md", ALLOW },
	{ NULL, NULL, 0 }
};

/* What guardcall says of call (tool, args): 'A' run unasked, 'D' denied
 * by a rule, 'Q' asked (call.c puts the question), '?' else. */
static int
decide(Guard *g, const Tool *t, const char *args)
{
	Json j;
	Buf res = { 0 };
	int v, r, rule;

	if (jsonparse(&j, args, strlen(args)) < 0)
		return '?';
	v = guardcall(g, t, &j, &res, &rule);
	r = v == ALLOW ? 'A' : v == ASK ? 'Q' :
	    !strncmp(bstr(&res), "Denied by rule", 14) ? 'D' : '?';
	buffree(&res);
	jsonfree(&j);
	return r;
}

static const struct {
	const char *tool, *args;
	int want;
} calls[] = {
	{ "bash", "{\"command\":\"git status\"}", 'A' },
	{ "bash", "{\"command\":\"git status && ls -l\"}", 'A' },
	{ "bash", "{\"command\":\"git status; make\"}", 'Q' },
	{ "bash", "{\"command\":\"git status | sh\"}", 'D' },
	{ "bash", "{\"command\":\"echo x |  sh\"}", 'Q' },
	{ "bash", "{\"command\":\"ls $(pwd)\"}", 'Q' },
	{ "bash", "{\"command\":\"ls > /etc/x\"}", 'Q' },
	{ "bash", "{\"command\":\"ls > x 2>/dev/null\"}", 'A' },
	{ "bash", "{\"command\":\"ls; rm x\"}", 'Q' },
	{ "bash", "{\"command\":\"ls; rm x; git push\"}", 'D' },
	{ "bash", "{\"command\":\"git -C . push\"}", 'D' },
	{ "bash", "{\"command\":\"git -C . status\"}", 'Q' },
	{ "bash", "{\"command\":\"nohup \\\"git\\\" status\"}", 'A' },
	{ "bash", "{\"command\":\"FOO=1 git status\"}", 'Q' },
	{ "bash", "{\"command\":\"sh -c 'git push'\"}", 'D' },
	{ "bash", "{\"command\":\"x=$(git push)\"}", 'D' },
	{ "bash", "{\"command\":\"ls\\u0000; rm -rf x\"}", '?' },
	{ "bash", "{}", 'Q' },
	{ "read", "{\"path\":\"a.md\"}", 'A' },
	{ "read", "{\"path\":\"x/../.git/config\"}", 'D' },
	{ "read", "{\"path\":\"README\"}", 'A' },
	{ "read", "{\"path\":\".env\"}", 'D' },
	{ "read", "{\"path\":\"@.env\"}", 'D' },
	{ "read", "{\"path\":\"~/.env\"}", 'D' },
	{ "read", "{\"path\":\"@x/../.git/config\"}", 'D' },
	{ "read", "{\"path\":\"@a.md\"}", 'A' },
	{ "edit", "{\"path\":\"@.env\"}", 'D' },
	{ "edit", "{\"path\":\"a.md\"}", 'A' },
};

/* In a child with no terminal, so that an ASK is told apart. */
static void
testcalls(void)
{
	static const Profile prof = { "p", NULL, NULL, WALL, 1, NULL, NULL,
	                              1, 0 };
	static const Hook hooks[] = { { 0, NULL, NULL, 0 } };
	static const Toollimits lim;
	static const Tool tools[] = {
		{ "bash", NULL, 1, "", "{}" }, { "read", NULL, 0, "", "{}" },
		{ "edit", NULL, 0, "", "{}" }
	};
	Toolenv e;
	Sandbox box;
	Guard g;
	char cwd[PATH_MAX];
	int st;
	size_t i;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) < 0) {
		T(0, "calls: fork");
		return;
	}
	if (pid) {
		waitpid(pid, &st, 0);
		tfail += !WIFEXITED(st) || WEXITSTATUS(st);
		return;
	}
	setsid();
	if (!getcwd(cwd, sizeof(cwd)) || setenv("HOME", cwd, 1) < 0)
		exit(1);	/* "~/.env": the .env here */
	memset(&e, 0, sizeof(e));
	memset(&box, 0, sizeof(box));
	memset(&g, 0, sizeof(g));
	e.lim = &lim;
	box.write = WALL;
	e.box = &box;
	g.prof = &prof;
	g.rules = rules;
	g.hooks = hooks;
	g.tenv = &e;
	for (i = 0; i < LEN(calls); i++) {
		st = decide(&g, calls[i].tool[0] == 'b' ? &tools[0] :
		            calls[i].tool[0] == 'r' ? &tools[1] : &tools[2],
		            calls[i].args);
		T(st == calls[i].want, "calls: %s %s: %c", calls[i].tool,
		  calls[i].args, st);
	}
	exit(tfail != 0);
}

/* A task's profile is the one asked for, unless that is wider than its
 * parent's on any count: then the parent's. */
static void
testnarrower(void)
{
	static const Profile p[] = {
		{ "work", NULL, NULL, WTREE, 0, NULL, NULL, 0, 0 },
		{ "ro", NULL, "write", WNONE, 0, NULL, NULL, 0, 0 },
		{ "plan", NULL, NULL, WPLAN, 0, "P.md", NULL, 0, 0 },
		{ "plan2", NULL, NULL, WPLAN, 0, "Q.md", NULL, 0, 0 },
		{ "full", NULL, NULL, WALL, 1, NULL, NULL, 1, 1 },
		{ "net", NULL, "write", WNONE, 1, NULL, NULL, 0, 0 },
		{ "noask", "", "write", WNONE, 0, NULL, NULL, 0, 0 },
		{ "git", NULL, "write", WNONE, 0, NULL, NULL, 1, 0 },
	};
	static const Tool tools[] = {
		{ "bash", NULL, 1, "", "{}" }, { "write", NULL, 1, "", "{}" }
	};
	static const struct { const char *want, *up, *got; } c[] = {
		{ "ro", "work", "ro" }, { "ro", "full", "ro" },
		{ "ro", "plan", "ro" }, { "plan", "work", "plan" },
		{ "work", "ro", "ro" }, { "full", "work", "work" },
		{ "work", "plan", "plan" }, { "plan2", "plan", "plan" },
		{ "net", "ro", "ro" }, { "noask", "ro", "ro" },
		{ "git", "ro", "ro" }, { "work", "work", "work" },
		{ "ro", "net", "ro" },
	};
	const Profile *up, *got;
	size_t i, k;

	for (i = 0; i < LEN(c); i++) {
		for (k = 0, up = NULL; k < LEN(p); k++)
			if (!strcmp(p[k].name, c[i].up))
				up = &p[k];
		got = guardnarrower(p, LEN(p), c[i].want, up, tools,
		                    LEN(tools));
		T(got && !strcmp(got->name, c[i].got),
		  "narrower: %s under %s is %s", c[i].want, c[i].up,
		  got ? got->name : "none");
	}
	T(!guardnarrower(p, LEN(p), "none", &p[0], tools, LEN(tools)),
	  "narrower: no such profile");
}

int
main(void)
{
	testcases();
	testall();
	testdeep();
	testcalls();
	testnarrower();
	return tfail != 0;
}
