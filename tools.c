/* See LICENSE file for copyright and license details. */
/* tools.c: the model's tools read, write, edit and bash: arguments in,
 * a result out; the arguments and the output's head they share with
 * search.c's grep, find and ls.  Below them, proc.c runs bash's command,
 * file.c reads and replaces files, edit.c finds and applies edit's
 * texts, undo.c keeps what they change, and sandbox.c holds what they
 * may do. */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <signal.h>
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
#include "edit.h"
#include "diff.h"
#include "file.h"
#include "undo.h"

enum {
	MAXTIMEOUT = 1000000,	/* seconds: a longer bash timeout is none */
	MAXINT = 1000000000,	/* the largest offset, limit or context */
};

/* The work of write or edit: run here, or in a child the sandbox
 * holds, its text and status coming back through a pipe. */
typedef struct {
	const Toolenv *e;
	char *path;
	Buf text;		/* write's content, edit's file */
	Edit *ed;
	int n;
} Job;

/* arguments */

static int
argfind(const Json *j, int args, const char *key)
{
	int i;

	if (args < 0 || args >= j->n || j->t[args].type != JOBJ)
		return -1;
	i = jsonget(j, args, key);
	return i >= 0 && !jsonisnull(j, i) ? i : -1;
}

static int
argmissing(Buf *out, const char *tool, const char *key)
{
	bufaddf(out, "%s: missing required parameter \"%s\"", tool, key);
	return -1;
}

/* A string argument appended to v; -1 with the reason in out. */
static int
bufarg(const Json *j, int args, const char *tool, const char *key, Buf *v,
       Buf *out)
{
	int i = argfind(j, args, key);

	if (i < 0)
		return argmissing(out, tool, key);
	if (jsonstrbuf(j, i, v) < 0) {
		bufaddf(out, "%s: parameter \"%s\" must be a string", tool,
		        key);
		return -1;
	}
	return 0;
}

/* A string argument, malloc'd; NULL if it is optional and absent. */
int
toolstrarg(const Json *j, int args, const char *tool, const char *key, int need,
       char **v, Buf *out)
{
	Buf b = { 0 };

	*v = NULL;
	if (!need && argfind(j, args, key) < 0)
		return 0;
	if (bufarg(j, args, tool, key, &b, out) < 0) {
		buffree(&b);
		return -1;
	}
	*v = bufdetach(&b);
	return 0;
}

/* Numbers may come as strings ("5"); *v is kept when the key is absent.
 * strtod takes "inf", "nan" and 1e999 too: only finite numbers pass, so
 * converting one to an integer in range is defined. */
static int
numarg(const Json *j, int args, const char *tool, const char *key,
       double *v, Buf *out)
{
	int i = argfind(j, args, key);
	double d;

	if (i < 0)
		return 0;
	if (jsonnum(j, i, &d) < 0 || d != d || d > DBL_MAX || d < -DBL_MAX) {
		bufaddf(out, "%s: parameter \"%s\" must be a number", tool,
		        key);
		return -1;
	}
	*v = d;
	return 0;
}

/* An integer of at most MAXINT either way: far beyond any count we use,
 * and sums of two still fit a long. */
int
toolintarg(const Json *j, int args, const char *tool, const char *key, long *v,
       Buf *out)
{
	double d = *v;

	if (numarg(j, args, tool, key, &d, out) < 0)
		return -1;
	if (d > MAXINT || d < -MAXINT) {
		bufaddf(out, "%s: parameter \"%s\" is out of range (at most "
		        "%d)", tool, key, MAXINT);
		return -1;
	}
	*v = (long)d;
	return 0;
}

/* Booleans may come as strings ("true"). */
int
toolboolarg(const Json *j, int args, const char *tool, const char *key,
            int *v, Buf *out)
{
	int i = argfind(j, args, key);

	if (i < 0)
		return 0;
	if (jsonbool(j, i, v) < 0) {
		bufaddf(out, "%s: parameter \"%s\" must be true or false",
		        tool, key);
		return -1;
	}
	return 0;
}

int
toolpatharg(const Json *j, int args, const char *tool, int need, char **path,
        Buf *out)
{
	char *s;

	*path = NULL;
	if (toolstrarg(j, args, tool, "path", need, &s, out) < 0)
		return -1;
	if (!s && !need)
		s = xstrdup(".");
	if (!*s) {
		free(s);
		bufaddf(out, "%s: parameter \"path\" must not be empty", tool);
		return -1;
	}
	*path = modelpath(s);
	free(s);
	return 0;
}

/* output limits */

/* Why a file or a content is refused: it would be held in memory whole,
 * a few times over, and written back whole (a sparse file too). */
static void
overedit(const Toolenv *e, const char *tool, unsigned long long size,
         Buf *out)
{
	bufaddsize(out, size);
	bufadds(out, ", over the ");
	bufaddsize(out, e->lim->maxedit);
	bufaddf(out, " limit for %s.", tool);
}

/* Append a line unless the limits forbid it: 0 if added. */
int
toolheadline(const Toolenv *e, Head *h, const char *s, size_t n)
{
	size_t used = h->out->len - h->base;

	if (h->cut)
		return -1;
	if (h->lines >= e->lim->maxlines) {
		h->cut = CUTLINES;
		return -1;
	}
	if (used + (h->lines > 0) + n > e->lim->maxbytes) {
		h->cut = CUTBYTES;
		return -1;
	}
	if (h->lines > 0)
		bufaddc(h->out, '\n');
	bufadd(h->out, s, n);
	h->lines++;
	return 0;
}

/* files: read and written in file.c, the plan file here */

/* Write the plan file where it is: the plan profile's sandbox allows
 * no new file beside it for a rename.  path, the model's name for it,
 * is only said: the file is reached as sandboxinit checked it, with no
 * link followed, and written only if it still has one name. */
static int
overwrite(const Toolenv *e, const char *path, const char *p, size_t n,
          Buf *out)
{
	struct stat st;
	int fd, err;

	if ((fd = sandboxplan(e->box, O_WRONLY | O_NONBLOCK, 0)) < 0) {
		bufaddf(out, "Cannot write %s: %s", path, errno == ELOOP ||
		        errno == ENOTDIR ? "the plan file is reached through "
		        "a symbolic link" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		close(fd);
		bufaddf(out, "Cannot write %s: the plan file is no longer a "
		        "regular file with one link", path);
		return -1;
	}
	if (ftruncate(fd, 0) < 0 || writeall(fd, p, n) < 0 || fsync(fd) < 0) {
		err = errno;
		close(fd);
		bufaddf(out, "Cannot write %s: %s", path, strerror(err));
		return -1;
	}
	if (close(fd) < 0) {
		bufaddf(out, "Cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A file written whole: the plan file in place, any other through a
 * temporary file and rename(2). */
static int
savefile(const Toolenv *e, const char *path, const char *p, size_t n,
         Buf *out)
{
	if (e->box->write == WPLAN)
		return overwrite(e, path, p, n, out);
	return filereplace(path, p, n, out);
}

/* read */

/* The media type of an image the models take, from its first bytes (the
 * name may lie), or NULL. */
const char *
toolimagetype(const char *p, size_t n)
{
	if (n >= 8 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8))
		return "image/png";
	if (n >= 3 && !memcmp(p, "\xff\xd8\xff", 3))
		return "image/jpeg";
	if (n >= 6 && (!memcmp(p, "GIF87a", 6) || !memcmp(p, "GIF89a", 6)))
		return "image/gif";
	if (n >= 12 && !memcmp(p, "RIFF", 4) && !memcmp(p + 8, "WEBP", 4))
		return "image/webp";
	return NULL;
}

/* An image file as pi keeps one in a message: a content block with its
 * comma before it, appended to b, for read and -i.  Its media type, or
 * NULL with the reason in out. */
const char *
toolimage(const char *path, size_t max, Buf *b, Buf *out)
{
	Buf raw = { 0 };
	const char *type = NULL;
	int fd, rc;

	if ((fd = fileopen(path, out)) < 0)
		return NULL;
	rc = readall(fd, &raw, max);
	close(fd);
	if (rc < 0) {
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
	} else if (rc > 0) {
		bufaddf(out, "Cannot read %s: it is over the ", path);
		bufaddsize(out, max);
		bufadds(out, " limit for images");
	} else if (!(type = toolimagetype(raw.p, raw.len))) {
		bufaddf(out, "%s is not a png, jpeg, gif or webp image", path);
	} else {
		bufadds(b, ",{\"type\":\"image\",\"data\":\"");
		b64enc(b, raw.p, raw.len);
		bufaddf(b, "\",\"mimeType\":\"%s\"}", type);
	}
	buffree(&raw);
	return type;
}

/* An image for the model: its block into image, for the result the
 * caller makes; the text only says what it is. */
static int
readimage(Toolenv *e, const char *path, Buf *image, Buf *out)
{
	const char *type;

	bufreset(image);
	if (!(type = toolimage(path, e->lim->maximage, image, out)))
		return 1;
	bufaddf(out, "Read image file [%s]", type);
	return 0;
}

/* The first line asked for is over the byte limit on its own. */
static void
longline(const Toolenv *e, const char *path, long ln, size_t size, Buf *out)
{
	bufaddf(out, "[Line %ld is ", ln);
	bufaddsize(out, size);
	bufadds(out, ", exceeds ");
	bufaddsize(out, e->lim->maxbytes);
	bufaddf(out, " limit. Use bash: sed -n '%ldp' %s | head -c %lu]", ln,
	        path, (unsigned long)e->lim->maxbytes);
}

static void
shownote(const Toolenv *e, int cut, long off, long last, long total,
         Buf *out)
{
	bufaddf(out, "\n\n[Showing lines %ld-%ld of %ld", off, last, total);
	if (cut == CUTBYTES) {
		bufadds(out, " (");
		bufaddsize(out, e->lim->maxbytes);
		bufadds(out, " limit)");
	}
	bufaddf(out, ". Use offset=%ld to continue.]", last + 1);
}

/* Stream the lines of r from off, at most lim of them (0: no limit), into
 * out within the limits; count the rest of the file for the notice. */
static int
readlines(const Toolenv *e, Filerd *r, const char *path, long off, long lim,
          Buf *out)
{
	Head h = { 0 };
	Buf line = { 0 };
	long ln = 0, last = 0;
	size_t n, first = 0;
	int got, want;

	h.out = out;
	h.base = out->len;
	for (;;) {
		want = ln + 1 >= off && !h.cut &&
		       !(lim && ln + 1 >= off + lim);
		got = fileline(r, &line, want ? e->lim->maxbytes + 1 : 0, &n);
		if (got <= 0)
			break;
		ln++;
		if (!want)
			continue;
		if (ln == off)
			first = n;
		if (toolheadline(e, &h, line.p ? line.p : "", line.len) == 0)
			last = ln;
	}
	buffree(&line);
	if (got < 0) {
		out->len = h.base;
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
		return 1;
	}
	if (off > ln && (ln > 0 || off > 1)) {
		bufaddf(out, "Offset %ld is beyond end of file (%ld lines "
		        "total)", off, ln);
		return 1;
	}
	if (ln == 0) {
		bufadds(out, "(empty file)");
		return 0;
	}
	/* the file to its end is given as it is, final newline and all */
	if (!h.cut && last == ln && r->nl)
		bufaddc(out, '\n');
	if (h.cut && !last)
		longline(e, path, off, first, out);
	else if (h.cut)
		shownote(e, h.cut, off, last, ln, out);
	else if (lim && off + lim - 1 < ln) {
		bufaddf(out, "\n\n[%ld more lines in file. Use offset=%ld to "
		        "continue.]", ln - (off + lim - 1), off + lim);
	}
	return 0;
}

int
toolread(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	char *path;
	long off = 1, lim = 0;
	int fd, rc = 1;
	Filerd *r;

	if (toolpatharg(j, args, "read", 1, &path, out) < 0)
		return 1;
	if (toolintarg(j, args, "read", "offset", &off, out) < 0 ||
	    toolintarg(j, args, "read", "limit", &lim, out) < 0 ||
	    (fd = fileopen(path, out)) < 0) {
		free(path);
		return 1;
	}
	off = MAX(off, 1);
	lim = MAX(lim, 0);
	r = filereader(fd, e->intr);
	if (filemore(r) < 0)
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
	else if (toolimagetype(r->buf, r->len))
		rc = readimage(e, path, &res->image, out);
	else if (filebinary(r->buf, r->len))
		bufaddf(out, "Cannot read %s: it is a binary file (of images, "
		        "only png, jpeg, gif and webp are read)", path);
	else
		rc = readlines(e, r, path, off, lim, out);
	free(r);
	close(fd);
	free(path);
	return rc;
}

/* what write and edit change: shown before they run, kept after */

static int slurp(const Toolenv *e, const char *path, Buf *b, Buf *out);

/* The file's text before a change, into b: 0; 1 when there is no such
 * file; -1 when it cannot be read whole (too large, not a file). */
static int
oldtext(const Toolenv *e, const char *path, Buf *b)
{
	Buf why = { 0 };
	struct stat st;
	int rc;

	if (stat(path, &st) < 0 && errno == ENOENT)
		return 1;
	rc = slurp(e, path, b, &why);
	buffree(&why);
	return rc;
}

/* The details of a change to a file (pi reads an edit's to show it in
 * its sessions and exports): the unified diff, and the line of the
 * first change in the new text. */
static void
changedetails(Toolenv *e, const Buf *old, const Buf *new, Buf *details)
{
	Buf d = { 0 };

	diffunified(&d, old->p, old->len, new->p, new->len,
	            e->lim->diffcontext);
	bufreset(details);
	bufadds(details, "\"diff\":");
	jsonesc(details, d.p ? d.p : "", d.len);
	bufaddf(details, ",\"firstChangedLine\":%ld",
	        editdiffline(old, new));
	buffree(&d);
}

/* Each line of p after a '+', as a diff shows a new file. */
static void
pluslines(Buf *out, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i == 0 || p[i - 1] == '\n')
			bufaddc(out, '+');
		bufaddc(out, p[i]);
	}
	if (n && p[n - 1] != '\n')
		bufaddc(out, '\n');
}

/* write */

/* The work of write, done where the sandbox holds it. */
static int
writejob(void *arg, Buf *out)
{
	Job *w = arg;
	int inplace = w->e->box->write == WPLAN;

	if ((inplace || filemkparents(w->path, out) == 0) &&
	    savefile(w->e, w->path, w->text.p, w->text.len, out) == 0) {
		bufaddf(out, "Wrote %lu bytes to %s",
		        (unsigned long)w->text.len, w->path);
		return 0;
	}
	return 1;
}

/* The plan file, made empty by us if it is missing: the sandbox lets
 * the writer write to it, not make it.  1 if made. */
static int
makeplan(const Toolenv *e, const char *path)
{
	char *to;
	int fd, made = 0;

	if (e->box->write != WPLAN || !(to = sandboxlanding(path)))
		return 0;
	if (!strcmp(to, e->box->planpath) &&
	    (fd = sandboxplan(e->box, O_WRONLY | O_CREAT | O_EXCL, 0666)) >= 0) {
		close(fd);
		made = 1;
	}
	free(to);
	return made;
}

int
toolwrite(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	Job w = { 0 };
	Buf old = { 0 };
	int rc = 1, made, k, had;

	w.e = e;
	if (toolpatharg(j, args, "write", 1, &w.path, out) < 0)
		return 1;
	if (bufarg(j, args, "write", "content", &w.text, out) < 0 ||
	    sandboxwritable(e->box, "write", w.path, out) < 0)
		goto done;
	if (w.text.len > e->lim->maxedit) {
		bufaddf(out, "Cannot write %s: the content is ", w.path);
		overedit(e, "write", w.text.len, out);
		goto done;
	}
	had = oldtext(e, w.path, &old);
	k = undobefore(e->undo, w.path);
	made = makeplan(e, w.path);
	if ((rc = sandboxrun(e->box, writejob, &w, out)) != 0 && made)
		unlink(e->box->planpath);
	undoafter(e->undo, k, rc);
	if (rc == 0 && had == 0)	/* it replaced a file: what changed */
		changedetails(e, &old, &w.text, &res->details);
done:
	buffree(&old);
	buffree(&w.text);
	free(w.path);
	return rc;
}

/* edit */

/* The file whole, if it is no more than maxedit bytes (and has not grown
 * past them since it was opened). */
static int
slurp(const Toolenv *e, const char *path, Buf *b, Buf *out)
{
	unsigned long long size = 0;
	struct stat st;
	int fd, rc;

	if ((fd = fileopen(path, out)) < 0)
		return -1;
	if (fstat(fd, &st) == 0)
		size = st.st_size;
	/* a sparse file of 2 GB is refused before a byte is read */
	if (size > e->lim->maxedit)
		rc = 1;
	else
		rc = readall(fd, b, e->lim->maxedit);
	if (rc < 0)
		bufaddf(out, "Cannot read %s: %s", path, strerror(errno));
	close(fd);
	if (rc > 0) {
		bufaddf(out, "Cannot edit %s: it is ", path);
		overedit(e, "edit", MAX(size, b->len), out);
		bufadds(out, " Use bash (sed, patch) to change a file this "
		        "large.");
	}
	return rc ? -1 : 0;
}

static int
addpair(const Json *j, int obj, int idx, int top, Edit **ed, int *n,
        Buf *out)
{
	const char *k[2] = { "oldText", "newText" };
	char key[32];
	Edit *d;
	int i, v;

	*ed = xrealloc(*ed, (*n + 1) * sizeof(**ed));
	d = &(*ed)[*n];
	memset(d, 0, sizeof(*d));
	d->idx = idx;
	(*n)++;
	for (i = 0; i < 2; i++) {
		if (top)
			snprintf(key, sizeof(key), "%s", k[i]);
		else
			snprintf(key, sizeof(key), "edits[%d].%s", idx, k[i]);
		v = jsonget(j, obj, k[i]);
		if (v < 0 || jsonisnull(j, v))
			return argmissing(out, "edit", key);
		if (jsonstrbuf(j, v, i ? &d->new : &d->old) < 0) {
			bufaddf(out, "edit: parameter \"%s\" must be a "
			        "string", key);
			return -1;
		}
	}
	return 0;
}

/* edits as an array of objects, one object, or either of those as a JSON
 * text in a string (models send all three). */
static int
addedits(const Json *j, int i, Edit **ed, int *n, Buf *out)
{
	Json sub;
	char *s;
	int k, el, rc;

	if (j->t[i].type == JOBJ)
		return addpair(j, i, 0, 0, ed, n, out);
	if (j->t[i].type == JARR) {
		for (k = 0, el = jsonat(j, i, 0); el >= 0;
		     k++, el = jsonnext(j, el)) {
			if (j->t[el].type != JOBJ) {
				bufaddf(out, "edit: edits[%d] must be an "
				        "object with oldText and newText", k);
				return -1;
			}
			if (addpair(j, el, k, 0, ed, n, out) < 0)
				return -1;
		}
		return 0;
	}
	memset(&sub, 0, sizeof(sub));
	s = jsonstr(j, i);
	if (s && jsonparse(&sub, s, strlen(s)) == 0 &&
	    (sub.t[0].type == JOBJ || sub.t[0].type == JARR)) {
		rc = addedits(&sub, 0, ed, n, out);
	} else {
		bufadds(out, "edit: parameter \"edits\" must be an array of "
		        "{oldText, newText}");
		rc = -1;
	}
	jsonfree(&sub);
	free(s);
	return rc;
}

static int
editargs(const Json *j, int args, Edit **ed, int *n, Buf *out)
{
	int i;

	*ed = NULL;
	*n = 0;
	if ((i = argfind(j, args, "edits")) >= 0 &&
	    addedits(j, i, ed, n, out) < 0)
		return -1;
	if (argfind(j, args, "oldText") >= 0 &&
	    addpair(j, args, *n, 1, ed, n, out) < 0)
		return -1;
	if (*n == 0) {
		if (i >= 0)
			bufadds(out, "edit: edits must contain at least one "
			        "replacement");
		else
			argmissing(out, "edit", "edits");
		return -1;
	}
	return 0;
}

static void
freeedits(Edit *ed, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		buffree(&ed[i].old);
		buffree(&ed[i].new);
	}
	free(ed);
}

/* The work of edit, done where the sandbox holds it. */
static int
editjob(void *arg, Buf *out)
{
	Job *d = arg;
	Buf res = { 0 };
	int rc = 1;

	if (slurp(d->e, d->path, &d->text, out) == 0 &&
	    editapply(d->ed, d->n, &d->text, d->path, &res, out) == 0 &&
	    savefile(d->e, d->path, res.p, res.len, out) == 0) {
		bufaddf(out, "Successfully replaced %d block%s in %s (first "
		        "change at line %ld).", d->n, d->n == 1 ? "" : "s",
		        d->path, editdiffline(&d->text, &res));
		rc = 0;
	}
	buffree(&res);
	return rc;
}

int
tooledit(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	Job d = { 0 };
	Buf old = { 0 }, new = { 0 };
	int rc = 1, k, had;

	d.e = e;
	if (toolpatharg(j, args, "edit", 1, &d.path, out) < 0)
		return 1;
	if (editargs(j, args, &d.ed, &d.n, out) == 0 &&
	    sandboxwritable(e->box, "edit", d.path, out) == 0) {
		had = oldtext(e, d.path, &old);
		k = undobefore(e->undo, d.path);
		rc = sandboxrun(e->box, editjob, &d, out);
		undoafter(e->undo, k, rc);
		/* the job may have run in a child: the file tells */
		if (rc == 0 && had == 0 && oldtext(e, d.path, &new) == 0)
			changedetails(e, &old, &new, &res->details);
	}
	freeedits(d.ed, d.n);
	buffree(&old);
	buffree(&new);
	buffree(&d.text);
	free(d.path);
	return rc;
}

/* What a write or an edit (tool) of arguments j would change, before it
 * runs, into out: the diff of the file against its new text, or, for a
 * file not there yet, the new text, each line after a '+'.  -1 when
 * there is nothing to show (the call would fail). */
int
toolpreview(Toolenv *e, const char *tool, const Json *j, Buf *out)
{
	Buf old = { 0 }, new = { 0 }, why = { 0 };
	Edit *ed = NULL;
	char *path = NULL;
	int n = 0, had, rc = -1;

	if (toolpatharg(j, 0, tool, 1, &path, &why) < 0)
		goto done;
	had = oldtext(e, path, &old);
	if (!strcmp(tool, "write")) {
		if (bufarg(j, 0, tool, "content", &new, &why) == 0 &&
		    had >= 0)
			rc = 0;
	} else if (had == 0 && editargs(j, 0, &ed, &n, &why) == 0 &&
	           editapply(ed, n, &old, path, &new, &why) == 0) {
		rc = 0;
	}
	if (rc == 0 && had)
		pluslines(out, new.p, new.len);
	else if (rc == 0)
		diffunified(out, old.p, old.len, new.p, new.len,
		            e->lim->diffcontext);
done:
	freeedits(ed, n);
	buffree(&old);
	buffree(&new);
	buffree(&why);
	free(path);
	return rc;
}

/* bash: the command runs in proc.c, which gives its output; here, what
 * the model is told of how it ended */

/* A signal's name, as strsignal(3) gives the common ones (which would
 * bring its whole table into a static build). */
static const char *
signame(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGHUP, "Hangup" }, { SIGINT, "Interrupt" },
		{ SIGQUIT, "Quit" }, { SIGILL, "Illegal instruction" },
		{ SIGABRT, "Aborted" }, { SIGBUS, "Bus error" },
		{ SIGFPE, "Arithmetic exception" }, { SIGKILL, "Killed" },
		{ SIGSEGV, "Segmentation fault" }, { SIGPIPE, "Broken pipe" },
		{ SIGALRM, "Alarm clock" }, { SIGTERM, "Terminated" },
		{ SIGXCPU, "CPU time limit exceeded" },
		{ SIGXFSZ, "File size limit exceeded" },
	};
	size_t i;

	for (i = 0; i < LEN(names); i++)
		if (names[i].sig == sig)
			return names[i].name;
	return "Unknown signal";
}

static int
bashstatus(const Procend *end, double secs, Buf *out)
{
	if (end->why == PROCTIMEDOUT) {
		bufaddf(out, "\n\nCommand timed out after %g seconds", secs);
		return 1;
	}
	if (end->why == PROCABORTED) {
		bufadds(out, "\n\nCommand aborted");
		return 1;
	}
	if (end->nostatus) {
		bufadds(out, "\n\nCommand terminated without an exit code");
		return 1;
	}
	if (WIFSIGNALED(end->status)) {
		bufaddf(out, "\n\nCommand killed by signal %d (%s)",
		        WTERMSIG(end->status), signame(WTERMSIG(end->status)));
		return 1;
	}
	if (WIFEXITED(end->status) && WEXITSTATUS(end->status)) {
		bufaddf(out, "\n\nCommand exited with code %d",
		        WEXITSTATUS(end->status));
		return 1;
	}
	return 0;
}

int
toolbash(Toolenv *e, const Json *j, int args, Toolres *res)
{
	Buf *out = &res->text;
	char *cmd;
	double secs = 0;
	Procend end;
	int rc;

	if (toolstrarg(j, args, "bash", "command", 1, &cmd, out) < 0)
		return 1;
	if (numarg(j, args, "bash", "timeout", &secs, out) < 0) {
		free(cmd);
		return 1;
	}
	if (secs <= 0)
		secs = e->lim->bashtimeout;
	else if (secs > MAXTIMEOUT)
		secs = 0;
	undobash(e->undo);
	rc = procrun(e->procs, cmd, secs, &end, out);
	free(cmd);
	if (rc < 0)
		return 1;
	rc = bashstatus(&end, secs, out);
	if (end.left == PROCKILLED)
		bufadds(out, "\n\n[Processes left in the background were "
		        "killed: under this profile a command's processes end "
		        "with it]");
	else if (end.left == PROCUNKILLED)
		bufadds(out, "\n\n[Processes left in the background could "
		        "not all be killed: under this profile a command's "
		        "processes should end with it]");
	else if (end.held)
		bufadds(out, "\n\n[Background processes still hold the "
		        "output: redirect theirs (cmd > file 2>&1 &) or they "
		        "die on their next write]");
	return rc;
}

/* At the end of the run, what the tools and hooks left running is
 * killed, then .git's config and hooks are checked a last time
 * (gitguard.c), the run's temporary directory goes with what they left
 * in it, and bash's logs go (proc.c).  Not for a signal handler: it
 * calls stdio. */
void
toolcleanup(Toolenv *e)
{
	prockillall(e->procs);	/* first: one could change the tree as it
				 * goes */
	gitexit(e->git);
	gitfree(e->git);
	undofree(e->undo);
	sandboxfree(e->box);
	proclogexit(e->procs);
}

void
toolresfree(Toolres *res)
{
	buffree(&res->text);
	buffree(&res->image);
	buffree(&res->details);
}

/* Whether s may name a tool (or a request field): 1 to 64 letters,
 * digits, _ and -, as the providers take them. */
int
toolgoodname(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz"
	                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	return n > 0 && n <= 64 && !s[n];
}

/* Text of a tool's description or schema with the numbers it names as
 * ${name} filled in from lim, so that what the model is told is what
 * holds: to be freed, or NULL with why. */
char *
toolnumbers(const Toollimits *lim, const char *text, Buf *why)
{
	const struct { const char *name; long long v; } nums[] = {
		{ "maxlines", lim->maxlines },
		{ "maxkb", (long long)(lim->maxbytes / 1024) },
		{ "greplimit", lim->greplimit },
		{ "greplinemax", lim->greplinemax },
		{ "findlimit", lim->findlimit },
		{ "lslimit", lim->lslimit },
		{ "maxlogmb", (long long)(lim->maxlog >> 20) },
		{ "maxeditmb", (long long)(lim->maxedit >> 20) },
	};
	Buf b = { 0 };
	const char *p, *end;
	size_t i;

	for (p = text; *p; p++) {
		if (p[0] != '$' || p[1] != '{') {
			bufaddc(&b, *p);
			continue;
		}
		p += 2;
		for (i = 0, end = strchr(p, '}'); end && i < LEN(nums); i++)
			if (strlen(nums[i].name) == (size_t)(end - p) &&
			    !strncmp(p, nums[i].name, end - p))
				break;
		if (!end || i == LEN(nums)) {
			if (!end)
				bufadds(why, "a ${ with no }");
			else
				bufaddf(why, "${%.*s} is no number of config.h",
				        (int)(end - p), p);
			buffree(&b);
			return NULL;
		}
		bufaddf(&b, "%lld", nums[i].v);
		p = end;
	}
	return bufdetach(&b);
}

/* Whether a tool's schema may be offered: valid JSON, an object of
 * "type":"object".  0, or -1 with why. */
int
toolschema(const char *schema, Buf *why)
{
	Json j;
	int ok;

	if (jsonparse(&j, schema, strlen(schema)) < 0) {
		bufadds(why, "its schema is not valid JSON");
		return -1;
	}
	ok = j.t[0].type == JOBJ &&
	     jsoneq(&j, jsonget(&j, 0, "type"), "object");
	jsonfree(&j);
	if (!ok)
		bufadds(why, "its schema must be an object of "
		        "\"type\":\"object\"");
	return ok ? 0 : -1;
}
