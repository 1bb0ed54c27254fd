/* See LICENSE file for copyright and license details. */
/* guard.c: whether a tool call may run: config.h's rules, the profile's
 * default, the hooks before and after a call, and the question on the
 * terminal.  The sandbox that holds what does run is sandbox.c's; hooks
 * run in proc.c. */
#define _XOPEN_SOURCE 700	/* realpath(3) */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "tools.h"
#include "sandbox.h"
#include "proc.h"
#include "gitguard.h"
#include "line.h"
#include "guard.h"

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
toolknown(const Tool *tools, int ntools, const char *name)
{
	int i;

	for (i = 0; i < ntools; i++)
		if (!strcmp(tools[i].name, name))
			return 1;
	return 0;
}

/* Whether a rule's or hook's tool names MCP servers' tools: server__tool,
 * or a glob of such names (memory__*), known only once they start. */
static int
mcpname(const char *name)
{
	return strstr(name, "__") != NULL;
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
		if (!toolknown(tools, ntools, name)) {
			bufaddf(why, "profile %s: no tool named %s", p->name,
			        name);
			return -1;
		}
		list += k + (list[k] == ',');
	}
	return 0;
}

/* Whether the plan file's path stays beneath the working directory by
 * its letters: relative, no ".", ".." or empty component. */
static int
planname(const char *p)
{
	size_t k;

	for (;; p += k + 1) {
		k = strcspn(p, "/");
		if (!k || (k == 1 && *p == '.') || (k == 2 && !strncmp(p,
		    "..", 2)))
			return 0;
		if (!p[k])
			return 1;
	}
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
		else if (p->write == WPLAN && !planname(p->plan))
			bufaddf(why, "profile %s: the plan file must be a "
			        "path from the working directory with no "
			        "\".\", \"..\" or empty part", p->name);
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
		if (!toolknown(tools, ntools, r->tool) && !mcpname(r->tool))
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
		         !toolknown(tools, ntools, h->tool) &&
		         !mcpname(h->tool)))
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
	g->tenv->stay = g->prof->stay;
	g->tenv->plan = g->prof->plan;
	g->tenv->gitwrite = g->prof->gitwrite;
}

/* Whether profile p asks before tool t runs. */
static int
asks(const Profile *p, const Tool *t)
{
	return p->ask ? guardlisted(p->ask, t->name) : t->approve;
}

/* The profile named want, or up if want would let a tool process or a
 * tool do more than up does: a task's is never wider than its
 * parent's.  NULL if there is none by that name. */
const Profile *
guardnarrower(const Profile *profiles, int n, const char *want,
              const Profile *up, const Tool *tools, int ntools)
{
	const Profile *p = NULL;
	int i;

	for (i = 0; i < n && !p; i++)
		if (!strcmp(profiles[i].name, want))
			p = &profiles[i];
	if (!p || p == up)
		return p;
	if (p->write < up->write || p->net > up->net ||
	    p->gitwrite > up->gitwrite || p->stay > up->stay ||
	    (p->write == WPLAN && up->write == WPLAN &&
	     strcmp(p->plan, up->plan)))
		return up;
	for (i = 0; i < ntools; i++)
		if ((asks(up, &tools[i]) && !asks(p, &tools[i])) ||
		    (guardlisted(up->off, tools[i].name) &&
		     !guardlisted(p->off, tools[i].name)))
			return up;
	return p;
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

/*
 * A bash command line as rules read it.  Rules match each simple command
 * of the line (the parts between ; && || | |& & and line ends), never the
 * line alone, so that "git status*" cannot approve "git status; curl x |
 * sh"; and they match it unquoted and unwrapped, so that "git push*"
 * holds against "env  \"git\" push".  This is a parser of the model's
 * bytes: it never fails, it only says why the line may not run unasked
 * (unsure): a substitution, a subshell, a keyword, a here-document, a
 * quote left open.  What it cannot see into, a DENY rule cannot deny:
 * rules are a convenience, the sandbox is the boundary.
 */
enum { SHDEPTH = 8 };	/* nested commands looked into: $( ), sh -c... */
enum { WQUOTED = 1, WWILD = 2 };	/* a word's flags */
/* what a word is the target of: none, a file read or written, a file
 * descriptor duplicated (or, after >&, a file), a here-document's end */
enum { TNONE, TREAD, TWRITE, TDUP, THERE };

/* The line being read, at every depth. */
typedef struct {
	Shline *l;
	int moved;		/* a cd came before: where relative paths
				 * lead is not known */
	int stop;		/* nested too deep: read no more */
	Buf docs;		/* here-documents whose text comes after the
				 * line: a flag byte ('@' + WQUOTED, + 4 for
				 * <<-), the word that ends it, a NUL */
	int ndocs;
} Shctx;

/* The simple command being read. */
typedef struct {
	Buf w;			/* the word being read, unquoted */
	int inword;		/* a word has begun, maybe "" */
	int flags;		/* WQUOTED, WWILD of w */
	int target;		/* TNONE, or what w is the target of */
	int dupout;		/* that target follows >& */
	int dash;		/* or <<-, which takes tabs off the text */
	Buf words;		/* the words: a flag byte ('@' + flags), the
				 * word, a NUL */
	int nwords;
	Buf redir;		/* its redirections as text: " 2> x" */
} Shcmd;

static size_t shlist(Shctx *x, const char *s, size_t n, size_t i, int close,
                     int depth);
static size_t shdollar(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i,
                       int depth, int indq);

static void
shunsure(Shctx *x, const char *why)
{
	if (!x->l->unsure)
		x->l->unsure = why;
}

static void
shadd(Shcmd *c, int ch, int flags)
{
	bufaddc(&c->w, ch);
	c->inword = 1;
	c->flags |= flags;
}

/* Text kept as it stands in the word: a substitution. */
static void
shraw(Shcmd *c, const char *p, size_t n)
{
	bufadd(&c->w, p, n);
	c->inword = 1;
	c->flags |= WWILD;
}

static int
alldigits(const char *s, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (s[k] < '0' || s[k] > '9')
			return 0;
	return n > 0;
}

/* The word just read names the file of a redirection: a write to a path
 * the shell expands, or after a cd, cannot be told where it lands. */
static void
shtarget(Shctx *x, Shcmd *c)
{
	const char *w = bstr(&c->w);
	size_t n = c->w.len;

	if (c->target == THERE) {
		bufaddc(&x->docs, '@' + (c->flags & WQUOTED) + 4 * c->dash);
		bufadd(&x->docs, w, n + 1);
		x->ndocs++;
	} else if (c->target == TDUP && (alldigits(w, n) || !strcmp(w, "-") ||
	    (n > 1 && w[n - 1] == '-' && alldigits(w, n - 1))))
		;		/* a file descriptor, duplicated or moved */
	else if (c->target == TDUP && !c->dupout)
		shunsure(x, "a redirection the parser cannot read");
	else if (c->target == TWRITE || c->target == TDUP) {
		if (!n || (c->flags & WWILD))
			shunsure(x, "a redirection to a path the shell "
			         "expands");
		else if (x->moved && w[0] != '/')
			shunsure(x, "a redirection after a change of "
			         "directory");
		else {
			bufadd(&x->l->writes, w, n + 1);
			x->l->nwrites++;
		}
	}
	bufaddc(&c->redir, ' ');
	bufadd(&c->redir, w, n);
	c->target = TNONE;
}

/* The end of a word. */
static void
shword(Shctx *x, Shcmd *c)
{
	if (!c->inword)
		return;
	if (c->target) {
		shtarget(x, c);
	} else {
		bufaddc(&c->words, '@' + c->flags);
		bufadd(&c->words, bstr(&c->w), c->w.len + 1);
		c->nwords++;
	}
	bufreset(&c->w);
	c->inword = c->flags = 0;
}

/* Words that begin or end a compound command where a command begins. */
static int
shkeyword(const char *w)
{
	static const char *const kw[] = {
		"!", "{", "}", "if", "then", "else", "elif", "fi", "do",
		"done", "while", "until", "for", "case", "esac", "select",
		"function", "in", "[[", "]]", "coproc", NULL
	};
	int k;

	for (k = 0; kw[k]; k++)
		if (!strcmp(w, kw[k]))
			return 1;
	return 0;
}

/* NAME=value, or NAME+=value. */
static int
shassign(const char *w)
{
	const char *p = w;

	if (!(isalpha((unsigned char)*p) || *p == '_'))
		return 0;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	return *p == '=' || (p[0] == '+' && p[1] == '=');
}

static const char *
shbase(const char *w)
{
	const char *p = strrchr(w, '/');

	return p && p[1] ? p + 1 : w;
}

/* Commands that run the command after them, and their options that take
 * the next word; timeout has an operand, its duration, before it. */
static const struct {
	const char *name;
	const char *argopts;
	int operand;
} wrappers[] = {
	{ "builtin", "", 0 }, { "command", "", 0 }, { "exec", "a", 0 },
	{ "nohup", "", 0 }, { "time", "fo", 0 }, { "env", "uCS", 0 },
	{ "nice", "n", 0 }, { "timeout", "sk", 1 }, { "setsid", "", 0 },
	{ "stdbuf", "ioe", 0 }, { "xargs", "aEdILnPs", 0 },
};

/* Their long options that take the next word (with no "="). */
static const char longargs[] = " --unset --chdir --split-string --signal "
	"--kill-after --adjustment --output --format --input --error "
	"--arg-file --delimiter --max-args --max-procs --max-lines "
	"--max-chars ";

/* git's options before its subcommand that take the next word. */
static const char gitargs[] = " -C -c --git-dir --work-tree --namespace "
	"--config-env --super-prefix --attr-source ";

/* Whether the word w is one of the list's, a space before and after
 * each. */
static int
spacelisted(const char *list, const char *w)
{
	const char *p;
	size_t n = strlen(w);

	if (!n || strchr(w, ' '))
		return 0;
	for (p = list; (p = strstr(p, w)); p += n)
		if (p > list && p[-1] == ' ' && p[n] == ' ')
			return 1;
	return 0;
}

static void
shnested(Shctx *x, const char *s, int depth)
{
	shlist(x, s, strlen(s), 0, 0, depth + 1);
}

/* Past wrapper w at v[m] and its options: the index of the command it
 * runs.  env -S's string is a command line of its own. */
static int
shunwrap(Shctx *x, char **v, int nw, int m, int w, int depth)
{
	const char *o;
	int env = !strcmp(wrappers[w].name, "env");

	for (m++; m < nw && v[m][0] == '-' && v[m][1]; ) {
		o = v[m++];
		if (!strcmp(o, "--"))
			break;
		if (env && (o[1] == 'C' || !strncmp(o, "--chdir", 7))) {
			shunsure(x, "env -C");
			x->moved = 1;
		}
		if (env && o[1] == 'S' && o[2])
			shnested(x, o + 2, depth);
		else if (env && !strncmp(o, "--split-string=", 15))
			shnested(x, o + 15, depth);
		else if (env && m < nw && (!strcmp(o, "-S") ||
		         !strcmp(o, "--split-string")))
			shnested(x, v[m], depth);
		if (env && (o[1] == 'S' || !strncmp(o, "--split", 7)))
			shunsure(x, "env -S");
		if (o[1] != '-' && !o[2] && strchr(wrappers[w].argopts, o[1]))
			m++;
		else if (o[1] == '-' && !strchr(o, '=') &&
		         spacelisted(longargs, o))
			m++;
	}
	if (env && m < nw && !strcmp(v[m], "-"))
		m++;
	while (env && m < nw && shassign(v[m]))
		m++;
	if (wrappers[w].operand && m < nw)
		m++;
	return MIN(m, nw);
}

static int
wrapperof(const char *w)
{
	int k;

	for (k = 0; k < (int)LEN(wrappers); k++)
		if (!strcmp(w, wrappers[k].name))
			return k;
	return -1;
}

/* sh -c 'line', bash -lc 'line', eval words: the line it runs, parsed as
 * a line of its own (its parts are parts of this line). */
static void
shinner(Shctx *x, char **v, int nw, int m, int depth)
{
	static const char shells[] = " sh bash dash zsh ksh mksh ash ";
	const char *b = shbase(v[m]);
	Buf line = { 0 };
	int k, c = 0;

	if (!strcmp(b, "eval")) {
		for (k = m + 1; k < nw; k++)
			bufaddf(&line, "%s%s", k > m + 1 ? " " : "", v[k]);
		shnested(x, bstr(&line), depth);
		buffree(&line);
		return;
	}
	if (!spacelisted(shells, b))
		return;
	for (k = m + 1; k < nw && (v[k][0] == '-' || v[k][0] == '+') &&
	     v[k][1]; k++) {
		if (!strcmp(v[k], "--")) {
			k++;
			break;
		}
		if (v[k][1] != '-' && strchr(v[k] + 1, 'c'))
			c = 1;
		if (!strcmp(v[k] + 1, "o") || !strcmp(v[k] + 1, "O") ||
		    !strcmp(v[k], "--rcfile") || !strcmp(v[k], "--init-file"))
			k++;
	}
	if (c && k < nw)
		shnested(x, v[k], depth);
}

/* head (or NULL), v[from..nw), one space apart, then the redirections,
 * and the NUL that ends a form. */
static void
shjoin(Buf *b, const char *head, char **v, int from, int nw,
       const Buf *redir)
{
	int k, any = head != NULL;

	if (head)
		bufadds(b, head);
	for (k = from; k < nw; k++, any = 1)
		bufaddf(b, "%s%s", any ? " " : "", v[k]);
	if (redir->len)
		bufadds(b, bstr(redir) + !any);
	bufadd(b, "", 1);
}

/* The forms of the simple command in c: as written for ALLOW (words
 * unquoted, wrappers that change nothing dropped: command, builtin,
 * exec, nohup, time, env alone), and normalised for DENY (assignments,
 * every wrapper with its options, git's global options and the
 * command's directory dropped too). */
static void
shforms(Shctx *x, char **v, int *fl, int nw, const Buf *redir, int depth)
{
	Buf a = { 0 }, b = { 0 };
	int k = 0, m, w;

	while (k < nw && !(fl[k] & WQUOTED) && shkeyword(v[k])) {
		shunsure(x, "a shell keyword or a { } group");
		k++;
	}
	if (k == nw && !redir->len)
		return;
	m = k;
	for (; k + 1 < nw; k++) {
		if (!strcmp(v[k], "time") && !strcmp(v[k + 1], "-p"))
			k++;
		else if (v[k + 1][0] == '-' || (strcmp(v[k], "command") &&
		         strcmp(v[k], "builtin") && strcmp(v[k], "exec") &&
		         strcmp(v[k], "nohup") && strcmp(v[k], "time") &&
		         (strcmp(v[k], "env") || shassign(v[k + 1]))))
			break;
	}
	shjoin(&a, NULL, v, k, nw, redir);
	for (;;) {
		while (m < nw && shassign(v[m]))
			m++;
		if (m >= nw || (w = wrapperof(v[m])) < 0)
			break;
		m = shunwrap(x, v, nw, m, w, depth);
	}
	if (m < nw && (fl[m] & WWILD))
		shunsure(x, "a command name the shell expands");
	if (m < nw && (!strcmp(v[m], "cd") || !strcmp(v[m], "pushd") ||
	    !strcmp(v[m], "popd")))
		x->moved = 1;
	if (m < nw && !strcmp(shbase(v[m]), "git")) {
		for (k = m + 1; k < nw && v[k][0] == '-' &&
		     strcmp(v[k], "--"); k++)
			k += spacelisted(gitargs, v[k]);
		shjoin(&b, "git", v, MIN(k, nw), nw, redir);
	} else if (m < nw) {
		shjoin(&b, shbase(v[m]), v, m + 1, nw, redir);
	} else {
		shjoin(&b, NULL, v, nw, nw, redir);
	}
	/* what it runs in turn are parts of their own, before it */
	if (m < nw)
		shinner(x, v, nw, m, depth);
	bufadd(&x->l->parts, a.p, a.len);
	bufadd(&x->l->parts, b.p, b.len);
	x->l->n++;
	buffree(&a);
	buffree(&b);
}

/* The end of a simple command: its forms join the line's parts. */
static void
shend(Shctx *x, Shcmd *c, int depth)
{
	char **v;
	int *fl, k;
	const char *p;

	shword(x, c);
	if (c->target) {
		shunsure(x, "a redirection to nothing");
		c->target = TNONE;
	}
	if (!c->nwords && !c->redir.len)
		return;
	v = xcalloc(c->nwords + 1, sizeof(*v));
	fl = xcalloc(c->nwords + 1, sizeof(*fl));
	for (k = 0, p = bstr(&c->words); k < c->nwords; k++) {
		fl[k] = *p++ - '@';
		v[k] = (char *)p;
		p += strlen(p) + 1;
	}
	shforms(x, v, fl, c->nwords, &c->redir, depth);
	free(v);
	free(fl);
	bufreset(&c->words);
	bufreset(&c->redir);
	c->nwords = 0;
}

/* `...`: the line inside, its own escapes taken out, is read as a line;
 * the word keeps the text. */
static size_t
shbackquote(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth)
{
	Buf in = { 0 };
	size_t j;

	shunsure(x, "a command substitution");
	for (j = i + 1; j < n && s[j] != '`'; j++) {
		if (s[j] == '\\' && j + 1 < n && s[j + 1] &&
		    strchr("`\\$", s[j + 1]))
			j++;
		bufaddc(&in, s[j]);
	}
	if (j >= n)
		shunsure(x, "a ` left open");
	shlist(x, bstr(&in), in.len, 0, 0, depth + 1);
	buffree(&in);
	j = MIN(j + 1, n);
	shraw(c, s + i, j - i);
	return j;
}

/* "...": $ and ` still work inside. */
static size_t
shdquote(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth)
{
	size_t j = i + 1;

	c->inword = 1;		/* begun, though it may stay "" */
	c->flags |= WQUOTED;
	while (j < n && s[j] != '"') {
		if (s[j] == '\\' && j + 1 < n && s[j + 1] &&
		    strchr("$`\"\\\n", s[j + 1])) {
			if (s[j + 1] != '\n')
				shadd(c, s[j + 1], 0);
			j += 2;
		} else if (s[j] == '$') {
			j = shdollar(x, c, s, n, j, depth, 1);
		} else if (s[j] == '`') {
			j = shbackquote(x, c, s, n, j, depth);
		} else {
			shadd(c, s[j++], 0);
		}
	}
	if (j >= n) {
		shunsure(x, "a \" left open");
		return n;
	}
	return j + 1;
}

/* $'...', ANSI-C quoting: the escapes bash knows, so that $'\x67it'
 * reads as git. */
static size_t
shansi(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i)
{
	static const char from[] = "abeEfnrtv\\'\"?", to[] =
	        "\a\b\033\033\f\n\r\t\v\\'\"?";
	const char *e;
	size_t j, k;
	int v;

	c->inword = 1;
	c->flags |= WQUOTED;
	for (j = i + 2; j < n && s[j] != '\''; j++) {
		if (s[j] != '\\' || j + 1 >= n) {
			shadd(c, s[j], 0);
			continue;
		}
		j++;
		if (s[j] && (e = strchr(from, s[j]))) {
			shadd(c, to[e - from], 0);
			continue;
		}
		v = 0;
		if (s[j] == 'x') {
			for (k = 0; k < 2 && j + 1 < n &&
			     hexval(s[j + 1]) >= 0; k++)
				v = v * 16 + hexval(s[++j]);
		} else if (s[j] >= '0' && s[j] <= '7') {
			v = s[j] - '0';
			for (k = 1; k < 3 && j + 1 < n && s[j + 1] >= '0' &&
			     s[j + 1] <= '7'; k++)
				v = v * 8 + s[++j] - '0';
		}
		if (v > 0 && v < 256) {
			shadd(c, v, 0);
		} else {
			shunsure(x, "an escape in $' ' the parser cannot "
			         "read");
			shadd(c, '\\', 0);
			shadd(c, s[j], 0);
		}
	}
	if (j >= n) {
		shunsure(x, "a ' left open");
		return n;
	}
	return j + 1;
}

/* ${...}: a name alone is a variable; anything else may run commands
 * (${x:-$(cmd)}, ${x@P}): read what is inside for them. */
static size_t
shbrace(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth)
{
	Shcmd junk;
	size_t j = i + 2;
	int open = 1;

	while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
		j++;
	if (j > i + 2 && j < n && s[j] == '}') {
		shraw(c, s + i, j + 1 - i);
		return j + 1;
	}
	shunsure(x, "a ${ } expansion");
	if (depth >= SHDEPTH) {
		shunsure(x, "nested too deep");
		x->stop = 1;
		return n;
	}
	memset(&junk, 0, sizeof(junk));
	for (j = i + 2; j < n && open; ) {
		if (s[j] == '\\')
			j = MIN(j + 2, n);
		else if (s[j] == '$')
			j = shdollar(x, &junk, s, n, j, depth + 1, 1);
		else if (s[j] == '`')
			j = shbackquote(x, &junk, s, n, j, depth + 1);
		else if (s[j] == '"')
			j = shdquote(x, &junk, s, n, j, depth + 1);
		else
			open += (s[j] == '{') - (s[j] == '}'), j++;
	}
	buffree(&junk.w);
	if (open)
		shunsure(x, "a ${ left open");
	shraw(c, s + i, j - i);
	return j;
}

/* $ and what follows it. */
static size_t
shdollar(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth,
         int indq)
{
	size_t j;
	int next = i + 1 < n ? s[i + 1] : 0;

	if (next == '(') {
		shunsure(x, "a command substitution");
		j = shlist(x, s, n, i + 2, ')', depth + 1);
		shraw(c, s + i, j - i);
		return j;
	}
	if (next == '{')
		return shbrace(x, c, s, n, i, depth);
	if (next == '[')
		shunsure(x, "an arithmetic expansion");
	if (next == '\'' && !indq)
		return shansi(x, c, s, n, i);
	if (next == '"' && !indq)
		return i + 1;	/* $"...": a "..." for us */
	if (next && (isalnum((unsigned char)next) || strchr("_@*#?$!-", next)))
		shraw(c, "$", 1);
	else
		shadd(c, '$', 0);
	return i + 1;
}

/* A redirection at s[i] (< or >, or &>), its file descriptor number in
 * the word before if that is all digits. */
static size_t
shredir(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth)
{
	size_t k = 1, j;
	int t = TWRITE, next = i + 1 < n ? s[i + 1] : 0;

	if ((s[i] == '<' || s[i] == '>') && next == '(') {
		shunsure(x, "a process substitution");
		j = shlist(x, s, n, i + 2, ')', depth + 1);
		shraw(c, s + i, j - i);
		return j;
	}
	if (c->inword && !c->flags && !c->target &&
	    alldigits(bstr(&c->w), c->w.len)) {
		bufaddf(&c->redir, " %s", bstr(&c->w));
		bufreset(&c->w);
		c->inword = 0;
	} else {
		shword(x, c);
		bufaddc(&c->redir, ' ');
	}
	if (c->target)
		shunsure(x, "a redirection the parser cannot read");
	if (s[i] == '&')		/* &> &>> */
		k = 2 + (i + 2 < n && s[i + 2] == '>');
	else if (s[i] == '>')
		k += next == '>' || next == '|' || next == '&';
	else if (next == '<')
		k += 1 + (i + 2 < n && (s[i + 2] == '<' || s[i + 2] == '-'));
	else
		k += next == '&' || next == '>';
	bufadd(&c->redir, s + i, k);
	if (s[i] == '<')
		t = next == '<' ? (k == 3 && s[i + 2] == '<' ? TREAD : THERE) :
		    next == '&' ? TDUP : next == '>' ? TWRITE : TREAD;
	else if (s[i] == '>' && next == '&')
		t = TDUP;
	if (t == THERE)
		shunsure(x, "a here-document");
	c->target = t;
	c->dupout = s[i] == '>';
	c->dash = t == THERE && k == 3;
	return i + k;
}

/* A line of a here-document from s[i]: what the shell expands in it
 * runs ($( ), ` `), unless the word that ends it was quoted.  The index
 * after it. */
static size_t
shdocline(Shctx *x, Shcmd *junk, const char *s, size_t n, size_t i,
          int quoted, int depth)
{
	while (i < n && s[i] != '\n') {
		if (quoted || (s[i] != '$' && s[i] != '`'))
			i += s[i] == '\\' && !quoted ? 2 : 1;
		else if (s[i] == '$')
			i = shdollar(x, junk, s, n, i, depth, 1);
		else
			i = shbackquote(x, junk, s, n, i, depth);
	}
	return MIN(i + 1, n);
}

/* Whether the line at s[i] is the word end (after tabs, with dash); its
 * end in *e. */
static int
shdocend(const char *s, size_t n, size_t i, const char *end, int dash,
         size_t *e)
{
	size_t k;

	for (k = i; dash && k < n && s[k] == '\t'; k++)
		;
	for (*e = k; *e < n && s[*e] != '\n'; (*e)++)
		;
	return *e - k == strlen(end) && !memcmp(s + k, end, *e - k);
}

/* The text of the here-documents of the line just ended, from s[i], up
 * to the line of the word that ends each: not commands.  The index after
 * the last. */
static size_t
shbodies(Shctx *x, const char *s, size_t n, size_t i, int depth)
{
	Shcmd junk;
	Buf docs = x->docs;	/* taken: a $( ) in the text has its own */
	const char *d = bstr(&docs);
	size_t e;
	int doc, f, ndocs = x->ndocs;

	memset(&junk, 0, sizeof(junk));
	memset(&x->docs, 0, sizeof(x->docs));
	x->ndocs = 0;
	for (doc = 0; doc < ndocs && i < n; doc++) {
		f = *d++ - '@';
		while (i < n && !shdocend(s, n, i, d, f & 4, &e))
			i = shdocline(x, &junk, s, n, i, f & WQUOTED, depth);
		if (i < n)
			i = MIN(e + 1, n);
		d += strlen(d) + 1;
	}
	buffree(&docs);
	buffree(&junk.w);
	return i;
}

/* A command's end at s[i], one of & ; | and a newline, or && || |& ;;
 * ;&: the index after it, and after the texts of here-documents that a
 * newline begins. */
static size_t
shsep(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth)
{
	int ch = s[i], next = i + 1 < n ? s[i + 1] : 0;

	shend(x, c, depth);
	if (ch == ';' && (next == ';' || next == '&'))
		shunsure(x, "a case statement");
	i += 1 + ((ch == '&' && next == '&') ||
	          (ch == '|' && (next == '|' || next == '&')));
	if (ch == '\n' && x->ndocs)
		i = shbodies(x, s, n, i, depth);
	return i;
}

/* A word in single quotes from s[i]: the index after its close. */
static size_t
shsquote(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i)
{
	c->inword = 1;
	c->flags |= WQUOTED;
	for (i++; i < n && s[i] != '\''; i++)
		shadd(c, s[i], 0);
	if (i >= n)
		shunsure(x, "a ' left open");
	return MIN(i + 1, n);
}

/* What s[i] begins in the command c: a blank, an operator, a quote, an
 * expansion, a comment or a character of a word.  The index after it. */
static size_t
shstep(Shctx *x, Shcmd *c, const char *s, size_t n, size_t i, int depth)
{
	int ch = s[i], next = i + 1 < n ? s[i + 1] : 0;

	switch (ch) {
	case ' ':
	case '\t':
		shword(x, c);
		return i + 1;
	case '&':
		if (next == '>')
			return shredir(x, c, s, n, i, depth);
		/* fall through */
	case '\n':
	case ';':
	case '|':
		return shsep(x, c, s, n, i, depth);
	case '<':
	case '>':
		return shredir(x, c, s, n, i, depth);
	case '(':
		shunsure(x, "a subshell");
		shend(x, c, depth);
		return shlist(x, s, n, i + 1, ')', depth + 1);
	case ')':
		shunsure(x, "a ) that closes nothing");
		shend(x, c, depth);
		return i + 1;
	case '\\':
		if (next && next != '\n')
			shadd(c, next, WQUOTED);
		return MIN(i + 2, n);
	case '\'':
		return shsquote(x, c, s, n, i);
	case '"':
		return shdquote(x, c, s, n, i, depth);
	case '$':
		return shdollar(x, c, s, n, i, depth, 0);
	case '`':
		return shbackquote(x, c, s, n, i, depth);
	case '#':
		if (!c->inword) {	/* a comment, to the end */
			while (i < n && s[i] != '\n')
				i++;
			return i;
		}
		/* fall through */
	default:
		shadd(c, ch, (ch && strchr("*?[{", ch)) ||
		      (ch == '~' && !c->inword) ? WWILD : 0);
		return i + 1;
	}
}

/* Read the commands of s from s[i] up to the close that ends them (')'
 * of $( or ( ), or to the end: each simple command's forms join the
 * line's parts.  The index after what was read. */
static size_t
shlist(Shctx *x, const char *s, size_t n, size_t i, int close, int depth)
{
	Shcmd c;
	int closed = 0;

	if (depth > SHDEPTH) {
		shunsure(x, "nested too deep");
		x->stop = 1;
		return n;
	}
	memset(&c, 0, sizeof(c));
	while (i < n && !x->stop) {
		if (close && s[i] == close) {
			closed = 1;
			i++;
			break;
		}
		i = shstep(x, &c, s, n, i, depth);
	}
	shend(x, &c, depth);
	if (close && !closed && !x->stop)
		shunsure(x, "a ( left open");
	buffree(&c.w);
	buffree(&c.words);
	buffree(&c.redir);
	return i;
}

/* Split the command line cmd into l, to be freed with guardsplitfree. */
void
guardsplit(const char *cmd, Shline *l)
{
	Shctx x;

	memset(l, 0, sizeof(*l));
	memset(&x, 0, sizeof(x));
	x.l = l;
	shlist(&x, cmd, strlen(cmd), 0, 0, 0);
	buffree(&x.docs);
	bufgrow(&l->parts, 1);
	bufgrow(&l->writes, 1);
}

void
guardsplitfree(Shline *l)
{
	buffree(&l->parts);
	buffree(&l->writes);
}

/* What rules match: bash's command line, or the tool's path ("" if the
 * call has none); NULL if it holds a NUL, which would cut what runs
 * short of what rules and hooks read. */
static char *
callsubject(const char *tool, const Json *j)
{
	Buf b = { 0 };

	jsonstrbuf(j, jsonget(j, 0, strcmp(tool, "bash") ? "path" :
	                            "command"), &b);
	if (b.len && memchr(b.p, '\0', b.len)) {
		buffree(&b);
		return NULL;
	}
	bufgrow(&b, 1);
	return bufdetach(&b);
}

/* The first rule that matches the call, or NULL. */
static const Rule *
rulefor(const Rule *rules, const char *tool, const char *s)
{
	const Rule *r;

	for (r = rules; r->tool; r++)
		if ((!strcmp(r->tool, tool) || (mcpname(r->tool) &&
		    namematch(r->tool, tool))) && namematch(r->glob, s))
			return r;
	return NULL;
}

/* What the rules say of a call: the first DENY and ASK rules found for
 * any form of its subject, and whether ALLOW rules allow it whole. */
typedef struct {
	const Rule *deny, *ask;
	int allow;
} Verdict;

/* The first rule for one form of the subject, counted in v: 1 if it
 * says ALLOW. */
static int
weighform(const Guard *g, const char *tool, const char *form, Verdict *v)
{
	const Rule *r = rulefor(g->rules, tool, form);

	if (r && r->action == DENY && !v->deny)
		v->deny = r;
	if (r && r->action == ASK && !v->ask)
		v->ask = r;
	return r && r->action == ALLOW;
}

/* The line whole: each DENY and ASK rule that matches counts, not only
 * the first rule, as an ALLOW rule for the line's first command must not
 * hide a DENY rule for "*| sh*". */
static void
weighline(const Guard *g, const char *line, Verdict *v)
{
	const Rule *r;

	for (r = g->rules; r->tool; r++) {
		if (r->action == ALLOW || strcmp(r->tool, "bash") ||
		    !namematch(r->glob, line))
			continue;
		if (r->action == DENY && !v->deny)
			v->deny = r;
		if (r->action == ASK && !v->ask)
			v->ask = r;
	}
}

/* Whether path is dir or beneath it. */
static int
pathunder(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!dir[1])
		return 1;	/* the root */
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* The working directory, links resolved, to be freed. */
static char *
treeroot(const Guard *g)
{
	if (g->tenv && g->tenv->root)
		return xstrdup(g->tenv->root);
	return realpath(".", NULL);
}

/* The forms of a path that rules match: as written, then with "." and
 * ".." taken out by letters, then where it lands (links followed), each
 * of these absolute and, beneath the working directory, from it.  f[k]
 * NULL for a form that cannot be told.  Where it lands is f[3], f[4]. */
static void
pathforms(const char *path, const char *root, char *f[5])
{
	const char *p = *path ? path : ".";
	int k;

	f[0] = xstrdup(path);
	f[1] = abspath(p);
	f[3] = sandboxlanding(p);
	f[2] = f[4] = NULL;
	for (k = 1; k <= 3 && root; k += 2) {
		if (!f[k] || !pathunder(f[k], root))
			continue;
		f[k + 1] = xstrdup(!strcmp(f[k], root) ? "." :
		                   f[k] + strlen(root) + !!root[1]);
	}
}

/* Whether a tool reads what lies at its path, as read does: read rules
 * hold grep, find and ls too (as Claude Code's do), or grep SECRET .env
 * would give what read .env may not. */
static int
readstoo(const char *tool)
{
	return !strcmp(tool, "grep") || !strcmp(tool, "find") ||
	       !strcmp(tool, "ls");
}

/* The rules of a tool that takes a path: DENY or ASK if any form of it
 * matches one (or, for grep, find and ls, a read rule), ALLOW only if
 * where it lands does. */
static void
pathrules(const Guard *g, const char *tool, const char *path, Verdict *v)
{
	Verdict r = { 0 };
	char *f[5], *root = treeroot(g);
	int k, allow = 0;

	pathforms(path, root, f);
	for (k = 0; k < 5; k++) {
		if (f[k])
			allow |= weighform(g, tool, f[k], v) && k >= 3;
		if (f[k] && readstoo(tool))
			weighform(g, "read", f[k], &r);
	}
	v->allow = allow;
	v->deny = v->deny ? v->deny : r.deny;
	v->ask = v->ask ? v->ask : r.ask;
	for (k = 0; k < 5; k++)
		free(f[k]);
	free(root);
}

/* Whether path is beneath one of -w's directories. */
static int
inwdir(const Guard *g, const char *path)
{
	char **d = g->tenv ? g->tenv->wdirs : NULL;

	for (; d && *d; d++)
		if (pathunder(path, *d))
			return 1;
	return 0;
}

/* The read rule that refuses (or, with ask, asks for) the file at path,
 * its number in rules[] from 1, or 0: g is a Guard. */
static int
readrule(void *g, const char *path, int ask)
{
	const Rule *r;
	Verdict v = { 0 };

	/* most configurations have no read rule: no path forms to make */
	for (r = ((Guard *)g)->rules; r->tool; r++)
		if (r->action != ALLOW && !strcmp(r->tool, "read"))
			break;
	if (!r->tool)
		return 0;
	pathrules(g, "read", path, &v);
	r = v.deny ? v.deny : ask ? v.ask : NULL;
	return r ? (int)(r - ((Guard *)g)->rules) + 1 : 0;
}

/* Whether grep, find or ls, walking a tree, leave out path: a read rule
 * denies it or asks for it (no one is asked for each file of a walk).
 * Handed down to tools.c (Toolenv's unseen), which is below the guard.
 * The rule's number, or 0. */
int
guardunseen(void *g, const char *path)
{
	return readrule(g, path, 1);
}

/* Whether the file at path may not be attached as an @file: a read rule
 * denies it.  The user named it, so an ASK rule is answered.  Handed to
 * prompt.c (Promptconf's denied).  The rule's number, or 0. */
int
guarddenied(void *g, const char *path)
{
	return readrule(g, path, 0);
}

/* Whether no rule may allow a write to path unasked: it lands outside
 * the working directory, -w's directories and the run's TMPDIR, or a
 * write rule would ask or refuse it. */
static int
farwrite(const Guard *g, const char *path, const char *root)
{
	static const char *const dev[] = {
		"/dev/null", "/dev/stdout", "/dev/stderr", NULL
	};
	const char *tmp = g->tenv ? g->tenv->tmpdir : NULL;
	Verdict v = { 0 };
	char *to;
	int k, far;

	for (k = 0; dev[k]; k++)
		if (!strcmp(path, dev[k]))
			return 0;
	if (!(to = sandboxlanding(path)))
		return 1;
	far = !root || !(pathunder(to, root) || (tmp && pathunder(to, tmp)) ||
	                 inwdir(g, to));
	free(to);
	pathrules(g, "write", path, &v);
	return far || v.deny || v.ask;
}

/* The rules of bash: each simple command of the line is matched, in
 * both its forms, and the line whole as well; ALLOW only if every
 * command is allowed as written and nothing in the line hides what it
 * runs or writes. */
static void
bashrules(const Guard *g, const char *cmd, Verdict *v)
{
	Shline l;
	const char *p;
	char *root = treeroot(g);
	int k, allow;

	guardsplit(cmd, &l);
	weighline(g, cmd, v);
	allow = l.n > 0;
	for (k = 0, p = bstr(&l.parts); k < l.n; k++) {
		allow &= weighform(g, "bash", p, v);
		p += strlen(p) + 1;
		weighform(g, "bash", p, v);
		p += strlen(p) + 1;
	}
	allow &= !l.unsure;
	for (k = 0, p = bstr(&l.writes); k < l.nwrites && allow; k++) {
		allow &= !farwrite(g, p, root);
		p += strlen(p) + 1;
	}
	v->allow = allow;
	guardsplitfree(&l);
	free(root);
}

/* The call as hooks read it: {"tool":..., "args":{...}}, and after it
 * ran, "result":{"text":..., "isError":...}.  The arguments are written
 * anew (jsoncanon), not passed on as the model wrote them: one line, and
 * strings a hook's grep reads as the tool will, with no escapes but
 * those JSON needs. */
static void
calljson(Buf *b, const char *tool, const Json *j, const Buf *res, int iserr)
{
	bufadds(b, "{\"tool\":");
	jsonescs(b, tool);
	bufadds(b, ",\"args\":");
	jsoncanon(b, j, 0);
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
callhooks(Guard *g, int when, const char *tool, const Json *j,
          const Buf *out, int iserr, Buf *res)
{
	const Hook *h;
	Buf in = { 0 }, err = { 0 }, safe = { 0 };
	int rc, ok = 1;

	for (h = g->hooks; h->when && ok; h++) {
		if (h->when != when || (strcmp(h->tool, "*") &&
		    strcmp(h->tool, tool) && !(mcpname(h->tool) &&
		    namematch(h->tool, tool))))
			continue;
		if (!in.len)
			calljson(&in, tool, j, out, iserr);
		bufreset(&err);
		gitcheck(g->tenv);	/* the hook runs unsandboxed */
		rc = prochook(g->tenv, h->cmd, in.p, in.len, h->timeout, &err);
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

/* Ask on the terminal whether a call may run: 1 yes, 0 no, -1 no terminal.
 * What it will do (show, made safe by the caller, or NULL) comes first.
 * One key answers, no Enter (line.c's linekey): y, n, a; Esc and Ctrl-C
 * say no, other keys are ignored.  An ASK of a rule (r) asks every
 * time: "a" is not offered, and answers yes for this call alone; "a" to
 * the profile's question stops it for that tool (row of tools[]). */
static int
askuser(Guard *g, const Tool *t, int row, const char *what,
        const char *show, const Rule *r)
{
	int fd, k;
	Buf q = { 0 };

	if (g->yes || (!r && g->always[row]))
		return 1;
	if ((fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return -1;
	if (show)	/* before the terminal is raw: its newlines hold */
		writeall(fd, show, strlen(show));
	bufaddf(&q, "%sagent: allow %s %s? ", g->color ? "\033[1m" : "",
	        t->name, what);
	if (r)
		bufaddf(&q, "(rule %d of config.h asks) [y/n] ",
		        (int)(r - g->rules) + 1);
	else
		bufadds(&q, "[y/n/a] ");
	bufadds(&q, g->color ? "\033[0m" : "");
	k = linekey(fd, q.p, "yYnNaA\033\003");
	bufreset(&q);
	bufadds(&q, k == 'y' || k == 'Y' ? "yes\n" : k == 'a' || k == 'A' ?
	        (r ? "yes\n" : "always\n") : "no\n");
	writeall(fd, q.p, q.len);
	buffree(&q);
	close(fd);
	if (k == 'a' || k == 'A') {
		if (!r)
			g->always[row] = 1;
		return 1;
	}
	return k == 'y' || k == 'Y';
}

/* Whether an MCP server's tool (server__tool) is offered.  Its server
 * runs outside the sandbox: under a profile that cannot write, only a
 * server its row says only reads, or a tool an ALLOW rule names. */
int
guardmcp(const Guard *g, const char *tool, int readonly)
{
	const Rule *r;

	if (g->prof->write == WTREE || g->prof->write == WALL || readonly)
		return 1;
	for (r = g->rules; r->tool; r++)
		if (r->action == ALLOW && mcpname(r->tool) &&
		    namematch(r->tool, tool))
			return 1;
	return 0;
}

/* Whether the call of tool t (row of tools[]) may run.  The rules first:
 * a DENY rule that matches refuses it; then the pre hooks, which may
 * block it; then an ASK rule that matches asks, every time; an ALLOW
 * rule runs it unasked, if it allows the call whole; else the profile
 * says whether to run or ask, showing show first.  1 yes; 0 no, and why
 * in res. */
int
guardcall(Guard *g, const Tool *t, int row, const Json *j, const char *what,
          const char *show, Buf *res)
{
	Verdict v = { 0 };
	char *s = callsubject(t->name, j);
	int ask, ok;

	if (!s) {
		bufaddf(res, "Not run: the %s holds a NUL character (\\u0000)",
		        strcmp(t->name, "bash") ? "path" : "command");
		return 0;
	}
	if (!strcmp(t->name, "bash"))
		bashrules(g, s, &v);
	else
		pathrules(g, t->name, s, &v);
	free(s);
	if (v.deny) {
		bufaddf(res, "Denied by rule %d of config.h (%s \"%s\")",
		        (int)(v.deny - g->rules) + 1, v.deny->tool,
		        v.deny->glob);
		return 0;
	}
	if (!callhooks(g, PRE, t->name, j, NULL, 0, res))
		return 0;
	if (!v.ask && v.allow)
		return 1;
	if (g->prof->ask)
		ask = guardlisted(g->prof->ask, t->name);
	else
		ask = t->approve;
	if (!v.ask && !ask)
		return 1;
	ok = askuser(g, t, row, what, show, v.ask);
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
	callhooks(g, POST, tool, j, res, iserr, NULL);
}
