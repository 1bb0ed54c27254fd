/* See LICENSE file for copyright and license details. */
/* shsplit.c: a bash command line split as the guard's rules read it:
 * its simple commands, unquoted and unwrapped, and the files its
 * redirections write.  Pure code over the model's bytes, no I/O. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "shsplit.h"

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
		else if (env && m < nw && wordin(o, "-S --split-string"))
			shnested(x, v[m], depth);
		if (env && (o[1] == 'S' || !strncmp(o, "--split", 7)))
			shunsure(x, "env -S");
		if (o[1] != '-' && !o[2] && strchr(wrappers[w].argopts, o[1]))
			m++;
		else if (o[1] == '-' && !strchr(o, '=') &&
		         wordin(o, longargs))
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
	if (!wordin(b, shells))
		return;
	for (k = m + 1; k < nw && (v[k][0] == '-' || v[k][0] == '+') &&
	     v[k][1]; k++) {
		if (!strcmp(v[k], "--")) {
			k++;
			break;
		}
		if (v[k][1] != '-' && strchr(v[k] + 1, 'c'))
			c = 1;
		if (wordin(v[k] + 1, "o O") ||
		    wordin(v[k], "--rcfile --init-file"))
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
		else if (v[k + 1][0] == '-' || (!wordin(v[k], "command "
		         "builtin exec nohup time") && (strcmp(v[k], "env") ||
		         shassign(v[k + 1]))))
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
	if (m < nw && wordin(v[m], "cd pushd popd"))
		x->moved = 1;
	if (m < nw && !strcmp(shbase(v[m]), "git")) {
		for (k = m + 1; k < nw && v[k][0] == '-' &&
		     strcmp(v[k], "--"); k++)
			k += wordin(v[k], gitargs);
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

/* Split the command line cmd into l, to be freed with shsplitfree. */
void
shsplit(const char *cmd, Shline *l)
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
shsplitfree(Shline *l)
{
	buffree(&l->parts);
	buffree(&l->writes);
}
