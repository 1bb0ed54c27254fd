/* See LICENSE file for copyright and license details. */
/* prompt.c: what the user's words bring in, as pi brings it: the skills
 * (SKILL.md files) listed in the system prompt for the model to read,
 * prompt templates expanded from /name args, and files named @path
 * attached to a message. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util.h"
#include "json.h"
#include "tools.h"
#include "prompt.h"

/* A file's front matter, as pi reads it: what lies between a first line
 * of --- and the next line starting with ---. */
typedef struct {
	Buf name, desc;
	int has;		/* there is front matter */
	size_t body, bodyend;	/* the body, after it */
} Front;

/* A directory of config.h's into b: $HOME for "~/". -1: no $HOME. */
static int
homepath(Buf *b, const char *dir)
{
	const char *home = getenv("HOME");

	bufreset(b);
	if (!strncmp(dir, "~/", 2)) {
		if (!home || !*home)
			return -1;
		bufadds(b, home);
		dir++;
	}
	bufadds(b, dir);
	return 0;
}

/* The tree a file of config.h's row must stay in (trustedopen): $HOME
 * for a "~/" row, the row's directory (dir, made by homepath) for
 * another absolute one, and for a relative one the directory it was
 * found in (at: the working directory, or one above it): a skill of
 * the project may lead elsewhere in the project, not into ~/.ssh. */
static const char *
rowtree(const char *row, const char *dir, const char *at)
{
	if (!strncmp(row, "~/", 2))
		return getenv("HOME");
	return row[0] == '/' ? dir : at;
}

/* Up to max bytes of a file we trust (trustedopen, as AGENTS.md: its
 * real path in tree), its line ends made \n as pi makes them: 0, 1 if it
 * is longer, -1 if it is not trusted or cannot be read. */
static int
readtrusted(const char *path, const char *tree, size_t max, Buf *b)
{
	size_t i, k;
	int fd, rc;

	bufreset(b);
	if ((fd = trustedopen(path, tree)) < 0)
		return -1;
	rc = readall(fd, b, max);
	close(fd);
	if (rc < 0)
		return -1;
	for (i = k = 0; i < b->len; i++) {
		if (b->p[i] == '\r' && i + 1 < b->len && b->p[i + 1] == '\n')
			continue;
		b->p[k++] = b->p[i] == '\r' ? '\n' : b->p[i];
	}
	b->len = k;
	bufaddc(b, 0);	/* keeps the NUL */
	b->len--;
	return rc;
}

/* The end of a YAML line's value, a " #" comment cut off. */
static const char *
yamlplainend(const char *s, const char *e)
{
	const char *c;

	for (c = s; c < e; c++)
		if (*c == '#' && c > s && (c[-1] == ' ' || c[-1] == '\t'))
			e = c;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	return e;
}

/* A quoted YAML scalar from s, on one line: "..." with its escapes, or
 * '...' with '' for a quote. */
static void
yamlquoted(Buf *v, const char *s, const char *e)
{
	char q = *s++;

	for (; s < e && *s != q; s++) {
		if (q == '"' && *s == '\\' && s + 1 < e) {
			s++;
			bufaddc(v, *s == 'n' ? '\n' : *s == 't' ? '\t' : *s);
		} else {
			bufaddc(v, *s);
		}
	}
	if (q == '\'' && s + 1 < e && s[1] == '\'') {
		bufaddc(v, '\'');	/* '' was a quote: go on */
		yamlquoted(v, s + 1, e);
	}
}

/* The value of the key at s (the line s..e; the YAML ends at end): the
 * rest of the line, plain or quoted, or a block (| or >) of the lines
 * indented below it, as the front matter of skills uses YAML. */
static void
yamlvalue(Buf *v, const char *s, const char *e, const char *end)
{
	const char *l, *le;
	int block = *s == '|' || *s == '>';
	int keep = block && !memchr(s, '-', e - s);

	bufreset(v);
	if (*s == '"' || *s == '\'') {
		yamlquoted(v, s, e);
		return;
	}
	if (!block)
		bufadd(v, s, yamlplainend(s, e) - s);
	for (l = e + 1; l < end && (*l == ' ' || *l == '\t' || *l == '\n');
	     l = le + 1) {
		le = memchr(l, '\n', end - l);
		le = le ? le : end;
		while (l < le && (*l == ' ' || *l == '\t'))
			l++;
		if (l == le)
			continue;
		if (v->len)
			bufaddc(v, *s == '|' ? '\n' : ' ');
		bufadd(v, l, (block ? le : yamlplainend(l, le)) - l);
	}
	if (keep && v->len)
		bufaddc(v, '\n');
}

/* The front matter of p (NUL-terminated, n bytes) into f: its name and
 * description, and where the body is; the body is trimmed only after
 * front matter, as pi's. */
static void
frontparse(const char *p, size_t n, Front *f)
{
	const char *y, *ye, *l, *le;

	memset(f, 0, sizeof(*f));
	f->bodyend = n;
	if (strncmp(p, "---", 3) || !(ye = strstr(p + 3, "\n---")))
		return;
	f->has = 1;
	y = p + MIN(4, n);
	for (l = y; l < ye; l = le + 1) {
		le = memchr(l, '\n', ye - l);
		le = le ? le : ye;
		if (!strncmp(l, "name:", 5))
			yamlvalue(&f->name, l + 5 + strspn(l + 5, " \t"), le,
			          ye);
		else if (!strncmp(l, "description:", 12))
			yamlvalue(&f->desc, l + 12 + strspn(l + 12, " \t"),
			          le, ye);
	}
	f->body = ye + 4 - p;
	while (f->body < n && isspace((unsigned char)p[f->body]))
		f->body++;
	while (f->bodyend > f->body &&
	       isspace((unsigned char)p[f->bodyend - 1]))
		f->bodyend--;
}

static void
frontfree(Front *f)
{
	buffree(&f->name);
	buffree(&f->desc);
}

/* s as XML text, as pi escapes a skill's fields. */
static void
xmlesc(Buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': bufadds(b, "&amp;"); break;
		case '<': bufadds(b, "&lt;"); break;
		case '>': bufadds(b, "&gt;"); break;
		case '"': bufadds(b, "&quot;"); break;
		case '\'': bufadds(b, "&apos;"); break;
		default: bufaddc(b, s[i]);
		}
	}
}

static int
namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory dir that are not hidden, sorted as node lists
 * them for pi; NULL-terminated, or NULL if there is no such directory. */
static char **
dirnames(const char *dir)
{
	DIR *d;
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	if (!(d = opendir(dir)))
		return NULL;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "node_modules"))
			continue;
		v = xrealloc(v, (n + 2) * sizeof(*v));
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (!n)
		return NULL;
	v[n] = NULL;
	qsort(v, n, sizeof(*v), namecmp);
	return v;
}

static void
namesfree(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Whether name is among the names in v, each ended by a NUL. */
static int
seen(const Buf *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->len; i += strlen(v->p + i) + 1)
		if (!strcmp(v->p + i, name))
			return 1;
	return 0;
}

/* One skill: the file at path, listed into b if its front matter is
 * good and its name not taken; what is wrong said on stderr. */
static void
skillone(Buf *b, Buf *names, const Promptconf *c, const char *path,
         const char *dirname, const char *tree)
{
	Buf t = { 0 };
	Front f;
	const char *name;
	int rc;

	if ((rc = readtrusted(path, tree, c->maxfile, &t)) < 0)
		return;
	frontparse(bstr(&t), t.len, &f);
	name = f.name.len ? f.name.p : dirname;	/* pi's fallback */
	if (!f.has || rc > 0)
		warn("skill %s: %s: skipped", path, rc > 0 ? "over the "
		     "limit" : "no front matter");
	else if (!f.desc.len || f.desc.len > 1024 || strlen(name) > 64)
		warn("skill %s: %s: skipped", path, f.desc.len ?
		     "name or description too long" : "no description");
	else if (!seen(names, name)) {
		bufadd(names, name, strlen(name) + 1);
		if (!b->len)
			bufadds(b, "\n\nThe following skills provide specialized"
			        " instructions for specific tasks.\nUse the read"
			        " tool to load a skill's file when the task "
			        "matches its description.\nWhen a skill file "
			        "references a relative path, resolve it against "
			        "the skill directory (parent of SKILL.md / dirname"
			        " of the path) and use that absolute path in tool"
			        " commands.\n\n<available_skills>");
		bufadds(b, "\n  <skill>\n    <name>");
		xmlesc(b, name, strlen(name));
		bufadds(b, "</name>\n    <description>");
		xmlesc(b, f.desc.p, f.desc.len);
		bufadds(b, "</description>\n    <location>");
		xmlesc(b, path, strlen(path));
		bufadds(b, "</location>\n  </skill>");
	}
	frontfree(&f);
	buffree(&t);
}

/* The skills of one directory: each DIR/NAME/SKILL.md, in tree. */
static void
skilldir(Buf *b, Buf *names, const Promptconf *c, const char *dir,
         const char *tree)
{
	char **v = dirnames(dir), path[4200];
	struct stat st;
	size_t i;

	for (i = 0; v && v[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s/SKILL.md", dir, v[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			skillone(b, names, c, path, v[i], tree);
	}
	namesfree(v);
}

/* The skills of row d: in the working directory (cwd) and, if d->up,
 * in each one above it up to the git root or /. */
static void
skillrow(Buf *b, Buf *names, const Promptconf *c, const Promptdir *d,
         const char *cwd)
{
	char dir[4096], path[4200], *slash;
	Buf p = { 0 };
	struct stat st;

	if (homepath(&p, d->path) < 0)
		return;
	if (p.p[0] == '/') {
		skilldir(b, names, c, p.p, rowtree(d->path, p.p, NULL));
		buffree(&p);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", cwd);
	for (;;) {
		snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") ?
		         dir : "", p.p);
		skilldir(b, names, c, path, dir);
		snprintf(path, sizeof(path), "%s/.git", strcmp(dir, "/") ?
		         dir : "");
		if (!d->up || stat(path, &st) == 0 ||
		    !(slash = strrchr(dir, '/')) || !strcmp(dir, "/"))
			break;
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
	buffree(&p);
}

/* The skills, for the system prompt, as pi lists them: each one's name,
 * description and file, the first of a name kept; nothing at all when
 * there are none. */
void
promptskills(Buf *b, const Promptconf *c)
{
	Buf names = { 0 }, s = { 0 };
	char cwd[4096];
	const Promptdir *d;

	if (!getcwd(cwd, sizeof(cwd)))
		return;
	for (d = c->skills; d->path; d++)
		skillrow(&s, &names, c, d, cwd);
	if (s.len) {
		bufadd(b, s.p, s.len);
		bufadds(b, "\n</available_skills>");
	}
	buffree(&s);
	buffree(&names);
}

/* templates */

/* The words of s as pi splits a template's arguments: at spaces and
 * tabs, "..." and '...' holding them; into v, NUL-separated. */
static size_t
splitargs(Buf *v, const char *s)
{
	size_t n = 0;
	int q = 0, in = 0;

	for (; *s; s++) {
		if (q && *s == q) {
			q = 0;
		} else if (!q && (*s == '"' || *s == '\'')) {
			q = *s;
		} else if (!q && (*s == ' ' || *s == '\t')) {
			if (in)
				bufaddc(v, 0), n++;
			in = 0;
		} else {
			bufaddc(v, *s);
			in = 1;
		}
	}
	if (in)
		bufaddc(v, 0), n++;
	return n;
}

/* Arguments from..to-1 (0-based) of the n in v, joined by spaces. */
static void
joinargs(Buf *b, const Buf *v, size_t n, size_t from, size_t to)
{
	size_t i, k, at = 0;

	for (i = k = 0; i < n && i < to; i++, at += strlen(v->p + at) + 1)
		if (i >= from) {
			if (k++)
				bufaddc(b, ' ');
			bufadds(b, v->p + at);
		}
}

/* A number of digits at s, capped; its end in *end. */
static size_t
argnum(const char *s, const char **end)
{
	size_t n = 0;

	for (; isdigit((unsigned char)*s); s++)
		n = n < 100000 ? n * 10 + (*s - '0') : n;
	*end = s;
	return n;
}

/* Whether t is ${@:N} or ${@:N:L}: its end in *end, the arguments
 * from (0-based) and their count. */
static int
slicearg(const char *t, const char **end, size_t *from, size_t *count)
{
	const char *e;

	if (strncmp(t, "${@:", 4) || !isdigit((unsigned char)t[4]))
		return 0;
	*from = argnum(t + 4, &e);
	*from = *from ? *from - 1 : 0;	/* as bash, 0 is 1 */
	*count = (size_t)-1 / 4;
	if (*e == ':' && isdigit((unsigned char)e[1]))
		*count = argnum(e + 1, &e);
	*end = e;
	return *e == '}';
}

/* One of pi's passes over t: $N (pass 0), ${@:N} and ${@:N:L} (1),
 * $ARGUMENTS (2), $@ (3), each in what the pass before made. */
static void
substpass(Buf *out, const char *t, int pass, const Buf *v, size_t n)
{
	const char *e;
	size_t a, l;

	for (; *t; t++) {
		if (*t != '$') {
			bufaddc(out, *t);
		} else if (pass == 0 && isdigit((unsigned char)t[1])) {
			a = argnum(t + 1, &e);
			joinargs(out, v, n, a - 1, a);
			t = e - 1;
		} else if (pass == 1 && slicearg(t, &e, &a, &l)) {
			joinargs(out, v, n, a, l > n ? n : a + l);
			t = e;
		} else if (pass == 2 && !strncmp(t, "$ARGUMENTS", 10)) {
			joinargs(out, v, n, 0, n);
			t += 9;
		} else if (pass == 3 && t[1] == '@') {
			joinargs(out, v, n, 0, n);
			t++;
		} else {
			bufaddc(out, *t);
		}
	}
}

/* A template's body with the arguments of args put in, as pi's
 * substituteArgs. */
static char *
substitute(const char *body, size_t len, const char *args)
{
	Buf v = { 0 }, a = { 0 }, b = { 0 };
	size_t n = splitargs(&v, args);
	int pass;

	bufadd(&a, body, len);
	for (pass = 0; pass < 4; pass++) {
		bufreset(&b);
		substpass(&b, bstr(&a), pass, &v, n);
		bufreset(&a);
		bufadd(&a, bstr(&b), b.len);
	}
	buffree(&v);
	buffree(&b);
	return bufdetach(&a);
}

/* The template file of that name, first in config.h's order, read into
 * t with its front matter in f: 0, or -1 if there is none. */
static int
findtemplate(const Promptconf *c, const char *name, Buf *t, Front *f)
{
	const Promptdir *d;
	Buf p = { 0 }, dir = { 0 };
	int rc = -1;

	for (d = c->prompts; d->path && rc < 0; d++) {
		if (homepath(&p, d->path) < 0)
			continue;
		bufreset(&dir);
		bufadds(&dir, p.p);
		bufaddf(&p, "/%s.md", name);
		if (readtrusted(p.p, rowtree(d->path, dir.p, "."), c->maxfile,
		    t) >= 0) {
			frontparse(bstr(t), t->len, f);
			rc = 0;
		}
	}
	buffree(&p);
	buffree(&dir);
	return rc;
}

/* text, /name args, with the template name's body and the arguments put
 * in, as pi expands it; NULL if there is no template of that name. */
static char *
promptexpand(const Promptconf *c, const char *text)
{
	Buf t = { 0 }, name = { 0 };
	Front f;
	const char *sp;
	char *x = NULL;

	if (*text != '/')
		return NULL;
	sp = strchr(text, ' ');
	bufadd(&name, text + 1, sp ? (size_t)(sp - text - 1) : strlen(text));
	if (name.len && name.p[0] != '.' && !strchr(name.p, '/') &&
	    findtemplate(c, name.p, &t, &f) == 0) {
		x = substitute(t.p + f.body, f.bodyend - f.body,
		               sp ? sp + 1 : "");
		frontfree(&f);
	}
	buffree(&t);
	buffree(&name);
	return x;
}

/* A template's line in /help: its description, or as pi its body's
 * first line, cut at 60 bytes. */
static void
helpline(FILE *fp, const char *name, const char *p, const Front *f)
{
	const char *l = p + f->body, *e;
	size_t n;

	if (f->desc.len) {
		fprintf(fp, "/%s  %s\n", name, f->desc.p);
		return;
	}
	for (;; l = e + 1) {	/* the first line not blank */
		e = l + strcspn(l, "\n");
		for (n = 0; l + n < e && isspace((unsigned char)l[n]); n++)
			;
		if (l + n < e || !*e)
			break;
	}
	n = utf8back(l, MIN((size_t)(e - l), 60));
	fprintf(fp, "/%s  %.*s%s\n", name, (int)n, l, e - l > 60 ? "..." :
	        "");
}

/* The templates, for /help: one line each, the first of a name. */
void
prompthelp(const Promptconf *c, FILE *fp)
{
	const Promptdir *d;
	Buf p = { 0 }, t = { 0 }, names = { 0 };
	Front f;
	char **v;
	size_t i, n;

	for (d = c->prompts; d->path; d++) {
		if (homepath(&p, d->path) < 0 || !(v = dirnames(p.p)))
			continue;
		for (i = 0; v[i]; i++) {
			n = strlen(v[i]);
			if (n < 4 || strcmp(v[i] + n - 3, ".md"))
				continue;
			v[i][n - 3] = '\0';
			if (seen(&names, v[i]) ||
			    findtemplate(c, v[i], &t, &f) < 0)
				continue;
			if (!names.len)
				fputs("templates:\n", fp);
			bufadd(&names, v[i], n - 2);
			helpline(fp, v[i], t.p, &f);
			frontfree(&f);
		}
		namesfree(v);
	}
	buffree(&p);
	buffree(&t);
	buffree(&names);
}

/* @files */

/* The file at path (an @path's, "~/" for $HOME) as pi attaches one:
 * text in a <file> element into files, an image as a block into more
 * and an empty element naming it; an empty file not at all.  0, or -1
 * said on stderr. */
static int
attach(const Promptconf *c, Buf *files, Buf *more, const char *path)
{
	Buf t = { 0 }, why = { 0 }, p = { 0 };
	char *abs;
	int fd, rule, rc = -1;

	if (homepath(&p, path) < 0)
		bufadds(&p, path);
	abs = abspath(p.p);
	/* typed by the user, but the rules are config.h's word */
	if (c->denied && (rule = c->denied(c->deniedarg, p.p))) {
		bufreset(&why);
		safetext(&why, abs, strlen(abs), 1);
		warn("%s: denied by rule %d of config.h: not attached",
		     why.p, rule);
		goto done;
	}
	if ((fd = open(abs, O_RDONLY | O_CLOEXEC)) < 0) {
		warn("%s: %s", abs, errno == ENOENT ? "file not found" :
		     strerror(errno));
		goto done;
	}
	rc = readall(fd, &t, MAX(c->maxattach, c->maximage));
	close(fd);
	if (rc < 0) {
		warn("%s:", abs);
	} else if (t.len && toolimagetype(t.p, t.len)) {
		if ((rc = toolimage(abs, c->maximage, more, &why) ? 0 : -1))
			warn("%s", why.p);
		else
			bufaddf(files, "<file name=\"%s\"></file>\n", abs);
	} else if (rc > 0 || t.len > c->maxattach) {
		warn("%s: over the limit for @files", abs);
		rc = -1;
	} else if (t.len) {	/* as pi: an empty file is left out */
		bufaddf(files, "<file name=\"%s\">\n", abs);
		bufadd(files, t.p, t.len);
		bufadds(files, "\n</file>\n");
	}
done:
	free(abs);
	buffree(&t);
	buffree(&why);
	buffree(&p);
	return rc;
}

/* Whether the word after an @ names a file: one that is there, or one
 * that looks like a path (a / or a . in it), which is then missing; not
 * "@everyone" or a decorator's "@property", which stay text. */
static int
fileword(const char *w)
{
	struct stat st;

	return stat(w, &st) == 0 || strpbrk(w, "/.");
}

/* Each word of text that starts with @ (at the start or after a space,
 * so that an address is no file) and names a file, attached: 0, or
 * -1. */
static int
attachwords(const Promptconf *c, Buf *files, Buf *more, const char *text)
{
	const char *s;
	char *w;
	size_t n;
	int rc = 0;

	for (s = text; rc == 0 && (s = strchr(s, '@')); s += n) {
		n = strcspn(s, " \t\n");
		if ((s == text || strchr(" \t\n", s[-1])) && n > 1) {
			w = xstrndup(s + 1, n - 1);
			if (fileword(w))
				rc = attach(c, files, more, w);
			free(w);
		}
		n = MAX(n, 1);
	}
	return rc;
}

/* The message of text into msg after what it holds: the files its
 * @words name, then text, or the template it names expanded (strict: a
 * /name of none is an unknown command).  0, or -1 said on stderr; more
 * is as it was then. */
static int
promptbuild(const Promptconf *c, Buf *msg, Buf *more, const char *text,
            int strict)
{
	size_t at = more->len;
	char *x = NULL;

	if (*text == '/' && !strchr(text, '\n') &&
	    !(x = promptexpand(c, text)) && strict) {
		warn("unknown command: %s (try /help)", text);
		return -1;
	}
	if (attachwords(c, msg, more, text) < 0) {
		more->len = at;
		free(x);
		return -1;
	}
	bufadds(msg, x ? x : text);
	free(x);
	return 0;
}

/* A line typed in line mode, made a message into msg (empty), its @files'
 * images into more: 0 to send it, -1 not (said on stderr). */
int
promptline(const Promptconf *c, Buf *msg, Buf *more, const char *line)
{
	bufreset(msg);
	return promptbuild(c, msg, more, line, 1);
}

/* The one-shot prompt, argv's words, made a message into msg (empty),
 * with in (piped stdin) after it: a word that is @path is a file as pi
 * takes one, left out of the words.  0, or -1 said on stderr. */
int
promptargv(const Promptconf *c, Buf *msg, Buf *more, char **argv,
           const Buf *in)
{
	Buf words = { 0 };
	int rc = 0;

	bufreset(msg);
	for (; *argv && rc == 0; argv++) {
		if ((*argv)[0] == '@' && (*argv)[1] &&
		    !strpbrk(*argv, " \t\n")) {
			rc = attach(c, msg, more, *argv + 1);
			continue;
		}
		if (words.len)
			bufaddc(&words, ' ');
		bufadds(&words, *argv);
	}
	if (rc == 0)
		rc = promptbuild(c, msg, more, bstr(&words), 0);
	if (rc == 0 && in->len) {
		if (msg->len)
			bufadds(msg, "\n\n");
		bufadd(msg, in->p, in->len);
	}
	buffree(&words);
	return rc;
}
