/* See LICENSE file for copyright and license details. */
/* walk.c: the tree walk of grep, find and ls: sorted, .git skipped, what
 * .gitignore files ignore left out; and the globs of grep and find. */
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "walk.h"

enum {
	MAXGLOB = 1024,		/* bytes of a glob from the model */
	MAXALTS = 256,		/* its {a,b} alternatives, spelt out */
	LINEMAX = 1024		/* bytes of a .gitignore line taken */
};

typedef struct Ignore Ignore;
struct Ignore {
	char *pat;
	size_t base;		/* length of its directory's prefix in rel */
	char *pre;		/* from above the root: the root seen there */
	int neg, dir, anchored;
	Ignore *next;
};

/* A walk of a tree in sorted order, skipping .git and ignored paths. */
typedef struct {
	Buf path;		/* root, then "/rel" of the entry at hand */
	size_t rootlen;		/* where rel starts in path */
	Ignore *rules;
	int nrules;		/* how many, up to o->maxrules */
	size_t rulebytes;	/* their patterns' bytes, to o->rulebytes */
	Walkfn fn;
	void *arg;
	const Walkopt *o;
	int stop;
} Walk;

/* The "}" that closes the "{" at lb, braces within counted, or NULL. */
static const char *
braceclose(const char *lb)
{
	int depth = 0;

	for (; *lb; lb++)
		if (*lb == '{')
			depth++;
		else if (*lb == '}' && !--depth)
			return lb;
	return NULL;
}

/* The end of the alternative at s, before rb: its "," (one within inner
 * braces is theirs: "{c,{h,hpp}}" has two), or rb. */
static const char *
braceitem(const char *s, const char *rb)
{
	int depth = 0;

	for (; s < rb; s++)
		if (*s == '{')
			depth++;
		else if (*s == '}')
			depth--;
		else if (*s == ',' && !depth)
			break;
	return s;
}

/* Spell out the first "{a,b}" in g, and so on in each result, into the
 * alternatives of gl: -1 once there would be more than MAXALTS.  Each
 * step takes away a pair of braces, so the work is bounded too.  A
 * pattern with a "/" is to match the end of the relative path (src/x.c
 * matches lib/src/x.c): "**" and a "/" go before it. */
static int
globadd(Glob *gl, const char *g)
{
	const char *lb, *rb, *s, *e;
	Buf b = { 0 };
	int rc = 0;

	if ((lb = strchr(g, '{')) && (rb = braceclose(lb))) {
		for (s = lb + 1; !rc && s <= rb; s = e + 1) {
			e = braceitem(s, rb);
			bufreset(&b);
			bufadd(&b, g, lb - g);
			bufadd(&b, s, e - s);
			bufadds(&b, rb + 1);
			rc = globadd(gl, b.p);
		}
		buffree(&b);
		return rc;
	}
	if (gl->n == MAXALTS)
		return -1;
	if (g[0] == '.' && g[1] == '/')
		g += 2;
	if (strchr(g, '/'))
		bufadds(&b, "**/");
	globprep(&b, g);
	gl->v = xrealloc(gl->v, (gl->n + 1) * sizeof(*gl->v));
	gl->v[gl->n++] = bufdetach(&b);
	return 0;
}

void
walkglobfree(Glob *gl)
{
	size_t i;

	for (i = 0; i < gl->n; i++)
		free(gl->v[i]);
	free(gl->v);
	gl->v = NULL;
	gl->n = 0;
}

/* A glob from the model, made ready once for the whole walk; -1 with the
 * reason in out. */
int
walkglobinit(Glob *gl, const char *tool, const char *g, Buf *out)
{
	memset(gl, 0, sizeof(*gl));
	if (strlen(g) > MAXGLOB) {
		bufaddf(out, "%s: glob is longer than %d bytes", tool,
		        MAXGLOB);
		return -1;
	}
	if (globadd(gl, g) < 0) {
		walkglobfree(gl);
		bufaddf(out, "%s: glob has more than %d {a,b} alternatives",
		        tool, MAXALTS);
		return -1;
	}
	return 0;
}

/* Without a "/" a glob matches the name alone. */
int
walkglobmatch(const Glob *gl, const char *rel, const char *name)
{
	size_t i;

	for (i = 0; i < gl->n; i++) {
		if (strchr(gl->v[i], '/') ? pathmatch(gl->v[i], rel) :
		    namematch(gl->v[i], name))
			return 1;
	}
	return 0;
}

/* One line of a .gitignore as a rule, or NULL for a blank or comment. */
static Ignore *
parserule(const char *s, size_t n, size_t base)
{
	Ignore *r;
	Buf b = { 0 };
	char *raw;
	int neg = 0, dir = 0;

	while (n && (s[n - 1] == '\r' || (s[n - 1] == ' ' &&
	       (n < 2 || s[n - 2] != '\\'))))
		n--;
	if (!n || s[0] == '#')
		return NULL;
	if (s[0] == '!') {
		neg = 1;
		s++, n--;
	} else if (s[0] == '\\') {
		s++, n--;
	}
	for (; n && s[n - 1] == '/'; n--)
		dir = 1;
	if (!n)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->neg = neg;
	r->dir = dir;
	r->base = base;
	r->anchored = memchr(s, '/', n) != NULL;
	if (s[0] == '/')
		s++, n--;
	raw = xstrndup(s, n);
	globprep(&b, raw);
	free(raw);
	r->pat = bufdetach(&b);
	return r;
}

/* Push the rules of dir/.gitignore, if there is one.  pre is the root of
 * the search as seen from dir when dir is above it, else NULL.  The
 * files come with the repository, and every path is matched against
 * every rule in force, at a cost of up to its bytes times the name's:
 * past o's bounds the rest is not read, nor kept.  A 1 MB file of
 * "[:[:[:..." lines once took 150 ms a path. */
static void
loadrules(Walk *w, const char *dir, size_t base, const char *pre)
{
	const Walkopt *o = w->o;
	Buf text = { 0 };
	const char *p, *end, *nl;
	Ignore *r;
	int fd, rc = -1, lines = 0;

	bufaddf(&text, "%s/.gitignore", dir);
	fd = open(text.p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bufreset(&text);
	if (fd < 0 || (rc = readall(fd, &text, o->ignorebytes)) < 0) {
		if (fd >= 0)
			close(fd);
		buffree(&text);
		return;
	}
	close(fd);
	end = text.p + text.len;
	while (rc == 1 && end > text.p && end[-1] != '\n')
		end--;	/* cut at ignorebytes: the last line is not whole */
	for (p = text.p; p < end && lines < o->ignorelines &&
	     w->nrules < o->maxrules; p = nl + 1, lines++) {
		if (!(nl = memchr(p, '\n', end - p)))
			nl = end;
		/* a line is taken up to LINEMAX bytes: few pass 100,
		 * and a rule's cost grows with its length */
		if (!(r = parserule(p, MIN((size_t)(nl - p), LINEMAX), base)))
			continue;
		if (w->rulebytes + strlen(r->pat) > o->rulebytes) {
			free(r->pat);
			free(r);
			break;
		}
		r->pre = pre && r->anchored ? xstrdup(pre) : NULL;
		r->next = w->rules;
		w->rules = r;
		w->nrules++;
		w->rulebytes += strlen(r->pat);
	}
	buffree(&text);
}

static void
loadignore(Walk *w)
{
	size_t len = w->path.len;

	loadrules(w, w->path.p, len > w->rootlen ? len - w->rootlen + 1 : 0,
	          NULL);
}

static int
dirhas(const char *dir, size_t n, const char *name)
{
	struct stat st;
	Buf b = { 0 };
	int ok;

	bufadd(&b, dir, n);
	bufaddf(&b, "/%s", name);
	ok = lstat(b.p, &st) == 0;
	buffree(&b);
	return ok;
}

/* The .gitignore files above the root, up to the top of its git work
 * tree, count too: a search in packages/x still skips the node_modules
 * that the top .gitignore names.  Outside a work tree, none do. */
static void
loadabove(Walk *w, const char *root)
{
	char *abs = abspath(root);
	size_t at[64], n = 0, len = strlen(abs);
	Buf dir = { 0 }, pre = { 0 };
	int top = 0;

	if (!dirhas(abs, len, ".git")) {
		while (!top && n < LEN(at) && len > 0) {
			while (len > 0 && abs[--len] != '/')
				;
			at[n++] = len;	/* a parent: abs[0..len), or "/" */
			top = dirhas(abs, len, ".git");
		}
	}
	while (top && n-- > 0) {
		bufreset(&dir);
		bufreset(&pre);
		bufadd(&dir, abs, at[n] ? at[n] : 1);
		bufaddf(&pre, "%s/", abs + at[n] + 1);
		loadrules(w, dir.p, 0, pre.p);
	}
	buffree(&dir);
	buffree(&pre);
	free(abs);
}

static int
ignoredby(const Ignore *r, const char *rel, const char *name, int isdir)
{
	char full[PATH_MAX];
	int hit;

	for (; r; r = r->next) {
		if (r->dir && !isdir)
			continue;
		if (!r->anchored) {
			hit = namematch(r->pat, name);
		} else if (r->pre) {
			snprintf(full, sizeof(full), "%s%s", r->pre, rel);
			hit = pathmatch(r->pat, full);
		} else {
			hit = pathmatch(r->pat, rel + r->base);
		}
		if (hit)
			return !r->neg;
	}
	return 0;
}

/* Pop the rules pushed since keep. */
static void
droprules(Walk *w, Ignore *keep)
{
	Ignore *r;

	while (w->rules != keep) {
		r = w->rules;
		w->rules = r->next;
		w->nrules--;
		w->rulebytes -= strlen(r->pat);
		free(r->pat);
		free(r->pre);
		free(r);
	}
}

/* the tree walk */

static int
bystr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory, sorted by cmp, without "." and ".." (and
 * without ".git" if nogit).  NULL with errno set if it cannot be read. */
char **
walkdirnames(const char *path, size_t *n, int nogit,
             int (*cmp)(const void *, const void *))
{
	struct dirent *de;
	char **v = NULL;
	DIR *d;

	*n = 0;
	if (!(d = opendir(path)))
		return NULL;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    (nogit && !strcmp(de->d_name, ".git")))
			continue;
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp);
	return v;
}

/* Visit the entries under w->path in sorted order, depth first; symbolic
 * links are reported but not followed. */
static void
walkdir(Walk *w)
{
	size_t len = w->path.len, n, i;
	Ignore *keep = w->rules;
	struct stat st;
	char **names;

	names = walkdirnames(w->path.p, &n, 1, bystr);
	loadignore(w);
	for (i = 0; i < n && !w->stop; i++) {
		if (w->o->stop && w->o->stop(w->o->stoparg)) {
			w->stop = 1;
			break;
		}
		if (w->path.p[len - 1] != '/')
			bufaddc(&w->path, '/');
		bufadds(&w->path, names[i]);
		if (lstat(w->path.p, &st) == 0 &&
		    !ignoredby(w->rules, w->path.p + w->rootlen, names[i],
		             S_ISDIR(st.st_mode)) &&
		    !(w->o->skip && w->o->skip(w->o->skiparg, w->path.p))) {
			if (w->fn(w->arg, w->path.p, w->path.p + w->rootlen,
			          &st))
				w->stop = 1;
			else if (S_ISDIR(st.st_mode))
				walkdir(w);
		}
		w->path.len = len;
		w->path.p[len] = '\0';
	}
	droprules(w, keep);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void
walktree(const char *root, Walkfn fn, void *arg, const Walkopt *o)
{
	Walk w;

	memset(&w, 0, sizeof(w));
	bufadds(&w.path, root);
	w.rootlen = w.path.len + (root[w.path.len - 1] != '/');
	w.fn = fn;
	w.arg = arg;
	w.o = o;
	loadabove(&w, root);
	walkdir(&w);
	droprules(&w, NULL);
	buffree(&w.path);
}

/* The root of a search: a directory, or for grep a single file. */
int
walkroot(const char *path, struct stat *st, Buf *out)
{
	if (stat(path, st) == 0)
		return 0;
	if (errno == ENOENT || errno == ENOTDIR)
		bufaddf(out, "Path not found: %s", path);
	else
		bufaddf(out, "Cannot open %s: %s", path, strerror(errno));
	return -1;
}
