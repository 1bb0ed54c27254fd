/* See LICENSE file for copyright and license details. */
/* test/session.c: unit tests of session.c. */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util.h"
#include "../json.h"
#include "../entry.h"
#include "../session.h"
#include "../tree.h"
#include "../sessdir.h"
#include "t.h"

/* A session as pi writes it, with a compaction and two branches; run from
 * the repository root, as test/run.sh does. */
#define PIFILE "test/data/pi-session.jsonl"

static char tmp[64];	/* the test's directory */
static char errpath[128];	/* stderr goes here while captured */
static int errsave = -1;

static char *
readfile(const char *path, size_t *len)
{
	Buf b = { 0 };
	char buf[4096];
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return NULL;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		bufadd(&b, buf, r);
	close(fd);
	if (len)
		*len = b.len;
	return bufdetach(&b);
}

static int
writefile(const char *path, const char *s, int append)
{
	int fd, r;

	fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC),
	          0600);
	if (fd < 0)
		return -1;
	r = writeall(fd, s, strlen(s));
	return close(fd) < 0 ? -1 : r;
}

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The number of names in dir but . and .. */
static int
nfiles(const char *dir)
{
	DIR *d;
	struct dirent *de;
	int n = 0;

	if (!(d = opendir(dir)))
		return -1;
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

/* Capture stderr into errpath until caught() gives it back. */
static void
capture(void)
{
	int fd;

	fflush(stderr);
	errsave = dup(2);
	fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	close(fd);
}

static char *
caught(void)
{
	fflush(stderr);
	dup2(errsave, 2);
	close(errsave);
	return readfile(errpath, NULL);
}

static char *
pathf(const char *name)
{
	Buf b = { 0 };

	bufaddf(&b, "%s/%s", tmp, name);
	return bufdetach(&b);
}

/* Whether every line of the file is one valid JSON object. */
static int
alljson(const char *path, size_t *nlines)
{
	char *s = readfile(path, NULL), *p, *nl;
	Json j;
	int ok = s != NULL;

	*nlines = 0;
	for (p = s; ok && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			return free(s), 0;
		ok = jsonparse(&j, p, nl - p) == 0 && j.t[0].type == JOBJ;
		jsonfree(&j);
		++*nlines;
	}
	free(s);
	return ok;
}

/* entrytokens of a string */
static long
tokens(const char *json)
{
	return entrytokens(json, strlen(json));
}

static int
ishex8(const char *s)
{
	return strlen(s) == 8 && strspn(s, "0123456789abcdef") == 8;
}

static int
isiso(const char *t)
{
	const char *f = "dddd-dd-ddTdd:dd:dd.dddZ";
	size_t i;

	if (strlen(t) != strlen(f))
		return 0;
	for (i = 0; f[i]; i++)
		if (f[i] == 'd' ? !strchr("0123456789", t[i]) : f[i] != t[i])
			return 0;
	return 1;
}

/* String field key of a JSON object line, to be freed, or NULL. */
static char *
field(const char *line, const char *key)
{
	Json j;
	char *v;

	if (jsonparse(&j, line, strlen(line)) < 0)
		return NULL;
	v = jsonstr(&j, jsonget(&j, 0, key));
	jsonfree(&j);
	return v;
}

static int
fieldis(const char *line, const char *key, const char *want)
{
	char *v = field(line, key);
	int eq = v && !strcmp(v, want);

	free(v);
	return eq;
}

static void
testdir(void)
{
	char *d;

	d = sessdirfor("/b", "/home/u/proj");
	T(!strcmp(d, "/b/--home-u-proj--"), "sessdir: %s", d);
	free(d);
	d = sessdirfor("/b/", "C:\\x/y:z");
	T(!strcmp(d, "/b/--C--x-y-z--"), "sessdir, \\ and : : %s", d);
	free(d);
	d = sessdirfor("s", "/");
	T(!strcmp(d, "s/----"), "sessdir of /: %s", d);
	free(d);
}

/* A new session, three entries; its file checked line by line. */
static void
testnew(void)
{
	Session s, r;
	char *dir = pathf("a/b"), *text, *hid, *ts, *base;
	const char *prev = NULL;
	size_t n, i;
	struct stat st;
	Json j;
	int ok;

	T(sessnew(&s, dir, "/home/u/\"q\"") == 0, "sessnew");
	T(s.path && !strncmp(s.path, dir, strlen(dir)) &&
	  strlen(s.path) > 6 && !strcmp(s.path + strlen(s.path) - 6, ".jsonl"),
	  "new: path %s", s.path ? s.path : "(null)");
	base = strrchr(s.path, '/') + 1;
	T(strlen(base) == 24 + 1 + 36 + 6 && base[24] == '_' &&
	  base[10] == 'T' && base[13] == '-' && base[19] == '-' &&
	  base[23] == 'Z', "new: file name %s", base);
	T(!exists(dir) && s.fd < 0, "new: nothing written before an append");
	T(s.n == 0 && !s.leaf, "new: no entries, no leaf");
	T(sessappend(&s, "model_change",
	             "\"provider\":\"fake\",\"modelId\":\"m\"") == 0,
	  "append 1");
	T(exists(s.path), "new: file made at the first append");
	T(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700,
	  "new: directory mode 0700");
	T(sessappend(&s, "message", "\"message\":{\"role\":\"user\",\n"
	             "\"content\":\"hi\\nthere\"}") == 0, "append 2");
	T(sessappend(&s, "thinking_level_change", "") == 0, "append 3");
	T(sesssync(&s) == 0, "sesssync");
	T(alljson(s.path, &n) && n == 4, "new: 4 lines of JSON (%zu)", n);
	text = readfile(s.path, NULL);
	ok = jsonparse(&j, text, strchr(text, '\n') - text) == 0;
	T(ok && jsoneq(&j, jsonget(&j, 0, "type"), "session"), "head: type");
	T(ok && strstr(text, ",\"version\":3,"), "head: version 3");
	hid = jsonstr(&j, jsonget(&j, 0, "id"));
	T(hid && strlen(hid) == 36 && hid[14] == '4' && hid[8] == '-' &&
	  strstr(s.path, hid), "head: UUIDv4 id %s, in the name", hid);
	ts = jsonstr(&j, jsonget(&j, 0, "timestamp"));
	T(ts && isiso(ts), "head: timestamp %s", ts);
	T(jsoneq(&j, jsonget(&j, 0, "cwd"), "/home/u/\"q\""), "head: cwd");
	T(!strcmp(s.cwd, "/home/u/\"q\""), "new: s.cwd");
	free(hid);
	free(ts);
	jsonfree(&j);
	free(text);
	for (i = 0; i < s.n; i++) {
		ts = field(s.e[i].line, "timestamp");
		T(ishex8(s.e[i].id) && fieldis(s.e[i].line, "id", s.e[i].id) &&
		  ts && isiso(ts), "entry %zu: id %s, timestamp %s", i,
		  s.e[i].id, ts);
		free(ts);
		T(prev ? s.e[i].parent && !strcmp(s.e[i].parent, prev) &&
		  fieldis(s.e[i].line, "parentId", prev) :
		  !s.e[i].parent && strstr(s.e[i].line, "\"parentId\":null"),
		  "entry %zu: parentId chain", i);
		prev = s.e[i].id;
	}
	T(!strcmp(s.e[1].type, "message") && !strchr(s.e[1].line, '\n') &&
	  strstr(s.e[1].line, "\"hi\\nthere\""), "entry: one line");
	T(s.leaf == s.e[2].id, "leaf: the last entry");
	T(sessload(&r, s.path) == 0, "reload");
	T(r.n == s.n && !strcmp(r.leaf, s.leaf) && !strcmp(r.head, s.head),
	  "reload: same entries and leaf");
	for (i = 0; i < r.n && i < s.n; i++)
		T(r.e[i].len == s.e[i].len &&
		  !memcmp(r.e[i].line, s.e[i].line, s.e[i].len) &&
		  !strcmp(r.e[i].id, s.e[i].id) &&
		  !strcmp(r.e[i].type, s.e[i].type), "reload: entry %zu", i);
	T(!strcmp(r.cwd, s.cwd), "reload: cwd");
	sessfree(&r);
	sessfree(&s);
	T(s.fd == -1 && !s.e && !s.path, "sessfree leaves it empty");
	free(dir);
}

static const char head[] = "{\"type\":\"session\",\"version\":3,"
	"\"id\":\"0b1c\",\"timestamp\":\"2026-01-01T00:00:00.000Z\","
	"\"cwd\":\"/p\"}\n";
static const char e1[] = "{\"type\":\"message\",\"id\":\"00000001\","
	"\"parentId\":null,\"timestamp\":\"t\",\"message\":{\"role\":\"user\","
	"\"content\":\"a\"}}";
static const char e2[] = "{\"type\":\"message\",\"id\":\"00000002\","
	"\"parentId\":\"00000001\",\"timestamp\":\"t\"}";

/* A file made of head and lines, loaded; stderr in *err. */
static int
load(Session *s, const char *name, const char *text, char **err)
{
	char *path = pathf(name);
	int r;

	writefile(path, text, 0);
	capture();
	r = sessload(s, path);
	*err = caught();
	free(path);
	return r;
}

/* Whether every line of the file but line skip (from 1) is one JSON
 * object; the lines in *nlines. */
static int
alljsonbut(const char *path, size_t skip, size_t *nlines)
{
	char *s = readfile(path, NULL), *p, *nl;
	Json j;
	int ok = s != NULL;

	*nlines = 0;
	for (p = s; ok && *p; p = nl + 1) {
		if (!(nl = strchr(p, '\n')))
			return free(s), 0;
		if (++*nlines == skip)
			continue;
		ok = jsonparse(&j, p, nl - p) == 0 && j.t[0].type == JOBJ;
		jsonfree(&j);
	}
	free(s);
	return ok;
}

/* A torn last line is left alone by the load (another agent may still
 * be writing it); the next append starts on a line of its own. */
static void
testtorn(void)
{
	Session s;
	Buf b = { 0 };
	char *err, *text, *path = pathf("torn.jsonl");
	size_t n;

	bufaddf(&b, "%s%s\n%s\n{\"type\":\"message\",\"id\":\"000", head, e1,
	        e2);
	T(load(&s, "torn.jsonl", b.p, &err) == 0, "torn: loads");
	T(strstr(err, "torn.jsonl:4: torn last line skipped") != NULL,
	  "torn: warned");
	T(s.n == 2 && !strcmp(s.leaf, "00000002"), "torn: the rest loads");
	free(err);
	text = readfile(path, &n);
	T(n == b.len && !memcmp(text, b.p, n), "torn: the load leaves the "
	  "file as it was");
	free(text);
	T(sessappend(&s, "message", "") == 0, "torn: append");
	sessfree(&s);
	text = readfile(path, &n);
	T(n > b.len && !memcmp(text, b.p, b.len) && text[b.len] == '\n' &&
	  !strncmp(text + b.len + 1, "{\"type\":\"message\"", 17) &&
	  text[n - 1] == '\n', "torn: the append starts a line of its own");
	free(text);
	capture();
	T(sessload(&s, path) == 0 && s.n == 3 &&
	  !strcmp(s.e[2].parent, "00000002"), "torn: reloads, 3 entries");
	err = caught();
	T(strstr(err, "torn.jsonl:4: not a valid entry: skipped") != NULL,
	  "torn: the half line is skipped on the next load, with a warning");
	free(err);
	sessfree(&s);
	T(alljsonbut(path, 4, &n) && n == 5,
	  "torn: every other line of the file is whole");
	free(path);
	buffree(&b);
}

static void
testbadlines(void)
{
	Session s;
	Buf b = { 0 };
	char *err, *text, *path = pathf("nonl.jsonl");
	size_t n;

	/* CRLF, a blank line, junk and a non-entry in the middle */
	bufaddf(&b, "%.*s\r\n%s\r\n\r\n  \nnot json\n{\"id\":\"x\"}\n%s\n",
	        (int)strlen(head) - 1, head, e1, e2);
	T(load(&s, "bad.jsonl", b.p, &err) == 0 && s.n == 2,
	  "bad lines: loads 2 entries");
	T(strstr(err, "bad.jsonl:5: not a valid entry: skipped") &&
	  strstr(err, "bad.jsonl:6: not a valid entry: skipped") &&
	  !strstr(err, ":3:") && !strstr(err, ":4:"),
	  "bad lines: warned by number, blank lines silent");
	T(s.e[0].len == strlen(e1) && !memcmp(s.e[0].line, e1, s.e[0].len) &&
	  !strchr(s.head, '\r'),
	  "CRLF: lines without CR");
	free(err);
	sessfree(&s);
	/* a valid last line without its newline */
	bufreset(&b);
	bufaddf(&b, "%s%s", head, e1);
	T(load(&s, "nonl.jsonl", b.p, &err) == 0 && s.n == 1 && !*err,
	  "no final newline: kept, no warning");
	free(err);
	T(sessappend(&s, "message", "\"x\":1") == 0,
	  "no final newline: append");
	T(sessappend(&s, "message", "\"x\":2") == 0,
	  "no final newline: again");
	sessfree(&s);
	T(alljson(path, &n) && n == 4, "no final newline: not glued");
	text = readfile(path, NULL);
	T(!strncmp(text + strlen(head) + strlen(e1), "\n{", 2),
	  "no final newline: exactly one newline added");
	free(text);
	free(path);
	/* unknown types and spacing kept as they are */
	bufreset(&b);
	bufaddf(&b, "%s{ \"type\" : \"future\", \"id\":\"dead\\u0062eef\", "
	        "\"z\":[1, {}], \"parentId\" :null, "
	        "\"u\":\"\\ud83c\\udf89\" }\n"
	        "{\"type\":\"label\",\"id\":\"ab\","
	        "\"parentId\":\"deadbeef\"}\n",
	        head);
	T(load(&s, "unk.jsonl", b.p, &err) == 0 && s.n == 2 && !*err,
	  "unknown types load");
	T(s.n == 2 && !strcmp(s.e[0].type, "future") &&
	  !strcmp(s.e[0].id, "deadbeef") &&
	  !memcmp(s.e[0].line, b.p + strlen(head), s.e[0].len) &&
	  b.p[strlen(head) + s.e[0].len] == '\n',
	  "unknown type kept verbatim");
	free(err);
	sessfree(&s);
	buffree(&b);
}

static void
testpi(void)
{
	Session s;
	const Entry **p;
	char *text, *path, *err;
	/* the branch to the last entry: after the compaction (63e0b8f1) the
	 * user went back to it and asked again, leaving a90c5e24..b8c3a6e1 */
	static const char *ids[] = {
		"5c0e9a17", "b3f1d208", "7e24c6a9", "0d9b5f3e", "e61a2c4b",
		"9a4d7b12", "c28f0e95", "41b7e3d0", "f5093c6d", "2e8c41fa",
		"8b6d2a07", "d47a9c35", "63e0b8f1", "c7f4019b", "3a1e95d6"
	};
	size_t n, i, len;

	text = readfile(PIFILE, &len);
	T(text != NULL, "pi file: %s is there", PIFILE);
	if (!text)
		return;
	path = pathf("pi.jsonl");
	writefile(path, text, 0);
	capture();
	T(sessload(&s, path) == 0, "pi file loads");
	err = caught();
	T(!*err, "pi file: no warning");
	free(err);
	T(s.n == 19 && s.leaf && !strcmp(s.leaf, "3a1e95d6"),
	  "pi file: 19 entries, leaf 3a1e95d6");
	T(!strcmp(s.cwd, "/home/ada/src/tally"), "pi file: cwd");
	n = sessbranch(&s, &p);
	T(n == LEN(ids), "pi file: branch of %zu", LEN(ids));
	for (i = 0; i < n && i < LEN(ids); i++)
		T(!strcmp(p[i]->id, ids[i]), "pi branch %zu: %s", i, p[i]->id);
	T(n && !strcmp(p[0]->type, "model_change") && !p[0]->parent,
	  "pi branch: root first");
	T(n > 12 && !strcmp(p[1]->type, "thinking_level_change") &&
	  !strcmp(p[12]->type, "compaction") && !strcmp(p[3]->type, "message"),
	  "pi branch: entry types");
	/* a90c5e24 and c7f4019b both follow the compaction: c7f4019b's
	 * parent is not the entry before it */
	T(s.n == 19 && !strcmp(s.e[13].id, "a90c5e24") &&
	  !strcmp(s.e[13].parent, "63e0b8f1") &&
	  !strcmp(s.e[17].id, "c7f4019b") &&
	  !strcmp(s.e[17].parent, "63e0b8f1"),
	  "pi file: two branches from the compaction");
	free(p);
	sessfree(&s);
	free(text);
	free(path);
}

/* Of pi's file, a load keeps in memory only the lines its context uses:
 * from the entry the compaction kept (2e8c41fa, the tenth on the branch)
 * on, each as in the file; the older ones and the other branch stay on
 * disk.  sessread, for a fork, holds the whole branch. */
static void
testkept(void)
{
	Session s;
	const Entry **p;
	char *text, *path, *err;
	size_t n, i, len, held = 0;
	int same = 1;

	if (!(text = readfile(PIFILE, &len)))
		return;
	path = pathf("kept.jsonl");
	writefile(path, text, 0);
	T(sessload(&s, path) == 0, "kept: loads");
	n = sessbranch(&s, &p);
	/* before the kept entry only the model and level, which hold */
	for (i = 0; i < n; i++)
		if (i < 9 && i > 1 ? p[i]->line != NULL : !p[i]->line ||
		    memchr(p[i]->line, '\n', p[i]->len) ||
		    memcmp(p[i]->line, text + p[i]->off, p[i]->len))
			same = 0;
	T(n == 15 && same && !strcmp(p[0]->type, "model_change") &&
	  !strcmp(p[1]->type, "thinking_level_change"),
	  "kept: the context's lines, from the file");
	for (i = 0; i < s.n; i++)
		held += s.e[i].line != NULL;
	T(held == 8, "kept: no other line held (%zu)", held);
	sessdone(&s, p);
	for (i = 0, held = 0; i < s.n; i++)
		held += s.e[i].line != NULL;
	T(held == 0, "kept: sessdone lets them go (%zu held)", held);
	n = sesscontext(&s, &p);
	for (i = 9, same = n == 15; i < n && same; i++)
		same = p[i]->line && !memcmp(p[i]->line, text + p[i]->off,
		                             p[i]->len);
	T(same && !p[2]->line, "kept: sesscontext reads them again");
	sessdone(&s, p);
	T(sessappend(&s, "message", "\"ours\":1") == 0, "kept: append");
	sessdone(&s, NULL);
	T(s.e[s.n - 1].line != NULL, "kept: our own entry stays");
	/* the file rewritten under us: said, and no context */
	for (i = 0; i < len; i++)
		if (text[i] != '\n')
			text[i] = 'x';
	writefile(path, text, 0);
	capture();
	n = sesscontext(&s, &p);
	err = caught();
	free(text);
	text = readfile(PIFILE, &len);
	writefile(path, text, 0);
	T(n == 0 && strstr(err, "kept.jsonl: changed since it was loaded"),
	  "kept: a rewritten file is noticed: %s", err);
	free(err);
	free(p);
	sessfree(&s);
	T(sessread(&s, path) == 0, "kept: sessread");
	n = sessbranch(&s, &p);
	for (i = 0, held = 0; i < s.n; i++)
		held += s.e[i].line != NULL;
	for (i = 0, same = 1; i < n; i++)
		if (!p[i]->line || strlen(p[i]->line) != p[i]->len ||
		    memcmp(p[i]->line, text + p[i]->off, p[i]->len) ||
		    text[p[i]->off + p[i]->len] != '\n')
			same = 0;
	T(n == 15 && held == 15 && same, "kept: sessread, the whole branch");
	free(p);
	sessfree(&s);
	free(text);
	free(path);
}

static void
testbranch(void)
{
	Session s, f;
	const Entry **p;
	char *dir = pathf("br"), *before, *after, *head1, *err;
	size_t n, lb, la, m;
	const char *b;

	sessnew(&s, dir, "/w");
	sessappend(&s, "message", "\"k\":\"A\"");
	sessappend(&s, "message", "\"k\":\"B\"");
	sessappend(&s, "message", "\"k\":\"C\"");
	sessappend(&s, "message", "\"k\":\"D\"");
	b = s.e[1].id;
	s.leaf = b;
	T(sessappend(&s, "message", "\"k\":\"E\"") == 0, "branch: append");
	T(!strcmp(s.e[4].parent, b) && fieldis(s.e[4].line, "parentId", b),
	  "branch: new entry's parent is the earlier leaf");
	n = sessbranch(&s, &p);
	T(n == 3 && p[0] == &s.e[0] && p[1] == &s.e[1] && p[2] == &s.e[4],
	  "branch: A B E, without C D");
	free(p);
	before = readfile(s.path, &lb);
	T(sessfork(&f, &s, NULL, s.path, dir, "/v") == 0, "fork");
	T(f.path && strcmp(f.path, s.path) && exists(f.path),
	  "fork: a new file");
	T(f.n == 3 && !strcmp(f.leaf, s.e[4].id), "fork: the branch, leaf E");
	T(f.n == 3 && !strcmp(f.e[0].line, s.e[0].line) &&
	  !strcmp(f.e[1].line, s.e[1].line) &&
	  !strcmp(f.e[2].line, s.e[4].line), "fork: lines verbatim");
	T(fieldis(f.head, "parentSession", s.path) &&
	  fieldis(f.head, "cwd", "/v") && !fieldis(f.head, "id", "x"),
	  "fork: header with parentSession %s", f.head);
	T(alljson(f.path, &m) && m == 4, "fork: file of 4 lines");
	after = readfile(s.path, &la);
	T(lb == la && !memcmp(before, after, la), "fork: source unchanged");
	free(after);
	T(sessappend(&f, "message", "") == 0 &&
	  !strcmp(f.e[3].parent, s.e[4].id), "fork: appends go on from E");
	head1 = field(f.head, "id");
	T(head1 && !fieldis(s.head, "id", head1), "fork: a new session id");
	free(head1);
	sessfree(&f);
	after = readfile(s.path, &la);
	T(lb == la && !memcmp(before, after, la), "fork: source still same");
	free(after);
	free(before);
	/* reloaded, the leaf is the last entry: E */
	capture();
	T(sessload(&f, s.path) == 0, "branch: reload");
	err = caught();
	free(err);
	n = sessbranch(&f, &p);
	T(n == 3 && !strcmp(p[2]->id, s.e[4].id), "branch: reload's branch");
	free(p);
	sessfree(&f);
	/* a cycle and a missing parent do not hang or overflow */
	s.e[0].parent = xstrdup(s.e[4].id);
	n = sessbranch(&s, &p);
	T(n == 3 && p[0] == &s.e[0] && p[1] == &s.e[1] && p[2] == &s.e[4],
	  "branch: a cycle cut where it closes, each entry once (%zu)", n);
	free(p);
	free(s.e[0].parent);
	s.e[0].parent = xstrdup("gone");
	n = sessbranch(&s, &p);
	T(n == 3, "branch: stops at a missing parent");
	free(p);
	s.leaf = NULL;
	T(sessbranch(&s, &p) == 0 && !p, "branch: no leaf, nothing");
	/* an entry's strings are one allocation, its id's: this one is
	 * the test's own */
	free(s.e[0].parent);
	s.e[0].parent = NULL;
	sessfree(&s);
	free(dir);
}

/* An entry line: id, its parent (NULL: null), a user message text. */
static void
addent(Buf *b, const char *id, const char *parent, const char *text)
{
	bufaddf(b, "{\"type\":\"message\",\"id\":\"%s\",\"parentId\":",
	        id);
	if (parent)
		bufaddf(b, "\"%s\"", parent);
	else
		bufadds(b, "null");
	bufaddf(b, ",\"timestamp\":\"t\",\"message\":{\"role\":\"user\","
	        "\"content\":\"%s\"}}\n", text);
}

/* How many times needle is in hay. */
static int
count(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Load text as name; the branch's ids joined by spaces into *ids, the
 * warnings into *err; whether the file is unchanged by the load and by
 * a context read from it. */
static int
loadbranch(Session *s, const char *name, const char *text, char **err,
           Buf *ids)
{
	const Entry **p;
	char *path = pathf(name), *after;
	size_t n, i;
	int same;

	bufreset(ids);
	if (load(s, name, text, err) < 0) {
		free(path);
		return 0;
	}
	n = sesscontext(s, &p);
	for (i = 0; i < n; i++)
		bufaddf(ids, "%s%s", i ? " " : "", p[i]->id);
	bufaddc(ids, 0);
	sessdone(s, p);
	after = readfile(path, NULL);
	same = after && !strcmp(after, text);
	free(after);
	free(path);
	return same;
}

/* parentIds that loop: no crash, no hang, one warning, the file as it
 * was; the leaf is the last entry that leads to a root. */
static void
testloops(void)
{
	Session s, f;
	Buf b = { 0 }, ids = { 0 };
	char *err, *path, *dir;
	size_t n;
	int same;

	bufadds(&b, head);
	addent(&b, "a1", NULL, "one");
	addent(&b, "a2", "a1", "two");
	addent(&b, "s1", "s1", "self");
	same = loadbranch(&s, "self.jsonl", b.p, &err, &ids);
	T(s.n == 3 && !strcmp(ids.p, "a1 a2"),
	  "loops: a self-parent last, the branch before it: %s", ids.p);
	T(count(err, "loop") == 1 && count(err, "\n") == 1,
	  "loops: one warning: %s", err);
	T(same, "loops: the file is unchanged");
	free(err);
	T(sessappend(&s, "message", "") == 0 &&
	  !strcmp(s.e[3].parent, "a2"), "loops: an append goes on from a2");
	sessfree(&s);

	bufreset(&b);
	bufadds(&b, head);
	addent(&b, "a1", NULL, "one");
	addent(&b, "xa", "xb", "A");
	addent(&b, "a2", "a1", "two");
	addent(&b, "xb", "xa", "B");
	addent(&b, "xc", "xb", "C");
	same = loadbranch(&s, "ab.jsonl", b.p, &err, &ids);
	T(s.n == 5 && !strcmp(ids.p, "a1 a2"),
	  "loops: a->b->a and one under it, beside others: %s", ids.p);
	T(count(err, "loop") == 1 && count(err, "\n") == 1 &&
	  strstr(err, "(3)"), "loops: one warning, 3 left out: %s", err);
	T(same, "loops: the file is unchanged");
	free(err);
	sessfree(&s);
	/* -f copies the branch that leads to the root */
	path = pathf("ab.jsonl");
	dir = pathf("abfork");
	capture();
	T(sessread(&s, path) == 0 && sessfork(&f, &s, NULL, path, dir, "/p") == 0,
	  "loops: forked");
	free(caught());
	T(f.n == 2 && !strcmp(f.e[0].id, "a1") && !strcmp(f.e[1].id, "a2") &&
	  alljson(f.path, &n) && n == 3, "loops: the fork holds a1 a2");
	sessfree(&f);
	sessfree(&s);
	free(dir);
	free(path);

	/* nothing leads to a root: a new root */
	bufreset(&b);
	bufadds(&b, head);
	addent(&b, "xa", "xb", "A");
	addent(&b, "xb", "xa", "B");
	same = loadbranch(&s, "all.jsonl", b.p, &err, &ids);
	T(s.n == 2 && !s.leaf && !*ids.p && count(err, "loop") == 1 && same,
	  "loops: all in a loop, an empty branch: %s", err);
	free(err);
	T(sessappend(&s, "message", "") == 0 && !s.e[2].parent,
	  "loops: then an append is a new root");
	sessfree(&s);

	/* the id said is the file's: no escape reaches the terminal */
	bufreset(&b);
	bufadds(&b, head);
	addent(&b, "e\\u001b[2J", NULL, "one");
	addent(&b, "s1", "s1", "self");
	loadbranch(&s, "esc.jsonl", b.p, &err, &ids);
	T(!strchr(err, '\033') && strstr(err, "e\\x1b[2J"),
	  "loops: the id in the warning made safe");
	free(err);
	sessfree(&s);

	/* a missing parent is a root, as pi takes it: no warning */
	bufreset(&b);
	bufadds(&b, head);
	addent(&b, "a2", "gone", "two");
	addent(&b, "a3", "a2", "three");
	same = loadbranch(&s, "gone.jsonl", b.p, &err, &ids);
	T(!strcmp(ids.p, "a2 a3") && !*err && same,
	  "loops: a missing parent starts the branch: %s", ids.p);
	free(err);
	sessfree(&s);
	buffree(&ids);
	buffree(&b);
}

/* Parents after their children: the same branch as in file order; a
 * later entry of an id takes its place, as in pi's map of ids. */
static void
testorder(void)
{
	Session s;
	Buf b = { 0 }, ids = { 0 }, want = { 0 };
	const Entry **p;
	char id[16], par[16], *err;
	int k, same;

	bufadds(&b, head);
	for (k = 999; k >= 1; k--) {
		snprintf(id, sizeof(id), "%08x", k);
		snprintf(par, sizeof(par), "%08x", k - 1);
		addent(&b, id, k > 1 ? par : NULL, "m");
	}
	addent(&b, "000003e8", "000003e7", "last");
	for (k = 1; k <= 1000; k++)
		bufaddf(&want, "%s%08x", k > 1 ? " " : "", k);
	same = loadbranch(&s, "rev.jsonl", b.p, &err, &ids);
	T(s.n == 1000 && ids.p && !strcmp(ids.p, want.p) && !*err && same,
	  "order: parents after children, the whole branch in order");
	free(err);
	sessfree(&s);

	bufreset(&b);
	bufadds(&b, head);
	addent(&b, "a1", NULL, "one");
	addent(&b, "dup", "a1", "first");
	addent(&b, "dup", "a1", "second");
	addent(&b, "a3", "dup", "three");
	same = loadbranch(&s, "dup.jsonl", b.p, &err, &ids);
	T(s.n == 4 && !strcmp(ids.p, "a1 dup a3") && same,
	  "order: a repeated id: %s", ids.p);
	T(sessbranch(&s, &p) == 3 && p[1] == &s.e[2],
	  "order: the later entry of the id is the one on the branch");
	free(p);
	free(err);
	sessfree(&s);
	buffree(&want);
	buffree(&ids);
	buffree(&b);
}

static void
touch(const char *path, const char *text, time_t t)
{
	struct timespec ts[2];

	writefile(path, text, 0);
	ts[0].tv_sec = ts[1].tv_sec = t;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, path, ts, 0);
}

static void
testlatest(void)
{
	char *dir = pathf("lat"), *p, *l, *err;

	T(sessdirlatest(dir, "/p") == NULL, "latest: no directory, NULL");
	mkdir(dir, 0700);
	T(sessdirlatest(dir, "/p") == NULL, "latest: empty directory, NULL");
	p = pathf("lat/a.jsonl");
	touch(p, head, 1000);
	free(p);
	p = pathf("lat/b.jsonl");
	touch(p, head, 2000);
	free(p);
	p = pathf("lat/c.jsonl");
	touch(p, e1, 3000);
	free(p);
	p = pathf("lat/d.txt");
	touch(p, head, 4000);
	free(p);
	p = pathf("lat/e.jsonl.x");
	touch(p, head, 4000);
	free(p);
	/* temp files: old ones removed, nothing else */
	p = pathf("lat/f.jsonl.Ab9xYz");
	touch(p, head, 1000);
	free(p);
	p = pathf("lat/g.jsonl.Ab9xY");
	touch(p, head, 1000);
	free(p);
	p = pathf("lat/h.jsonl.Ab-xYz");
	touch(p, head, 1000);
	free(p);
	p = pathf("lat/i.jsonl.Ab9xYz");
	touch(p, head, time(NULL) - 60);
	free(p);
	l = sessdirlatest(dir, "/p");
	T(l && strstr(l, "/lat/b.jsonl"), "latest: newest session, %s", l);
	free(l);
	p = pathf("lat/f.jsonl.Ab9xYz");
	T(!exists(p), "latest: a stale temp file removed");
	free(p);
	p = pathf("lat/g.jsonl.Ab9xY");
	l = pathf("lat/h.jsonl.Ab-xYz");
	T(exists(p) && exists(l), "latest: other names kept");
	free(l);
	free(p);
	p = pathf("lat/i.jsonl.Ab9xYz");
	T(exists(p), "latest: a fresh temp file kept");
	free(p);
	p = pathf("lat/e.jsonl.x");
	T(exists(p) && nfiles(dir) == 8, "latest: all else kept");
	free(p);
	/* only a session of this directory: names of directories collide */
	p = pathf("lat/j.jsonl");
	touch(p, "{\"type\":\"session\",\"version\":3,\"id\":\"j\","
	      "\"cwd\":\"/q\"}\n", 5000);
	free(p);
	p = pathf("lat/k.jsonl");
	touch(p, "{\"type\":\"session\",\"version\":3,\"id\":\"k\"}\n",
	      4500);
	free(p);
	capture();
	l = sessdirlatest(dir, "/p");
	err = caught();
	T(l && strstr(l, "/lat/b.jsonl"),
	  "latest: a newer session of another cwd passed over, %s", l);
	T(strstr(err, "/lat/j.jsonl: a session of another directory") &&
	  count(err, "\n") == 1, "latest: said once: %s", err);
	free(err);
	free(l);
	l = sessdirlatest(dir, "/q");
	T(l && strstr(l, "/lat/j.jsonl"), "latest: that cwd's own, %s", l);
	free(l);
	free(dir);
}

static void
testnone(void)
{
	Session s;
	char cwd[4096], *dir = pathf("none");
	DIR *d;
	struct dirent *de;
	int files = 0;

	mkdir(dir, 0700);
	getcwd(cwd, sizeof(cwd));
	chdir(dir);
	T(sessnew(&s, NULL, "/x") == 0 && !s.path && s.fd < 0, "-n: new");
	T(sessappend(&s, "message", "\"a\":1") == 0 &&
	  sessappend(&s, "message", "") == 0 && s.n == 2 &&
	  !strcmp(s.e[1].parent, s.e[0].id), "-n: appends in memory");
	T(sesssync(&s) == 0, "-n: sync");
	sessfree(&s);
	chdir(cwd);
	d = opendir(dir);
	while (d && (de = readdir(d)))
		files += de->d_name[0] != '.';
	if (d)
		closedir(d);
	T(files == 0, "-n: nothing written");
	free(dir);
}

static void
testnotsession(void)
{
	Session s;
	Buf b = { 0 };
	char *err, *path;
	static const char junk[] = "\x7f" "ELF\x01\x02\0\0\xff\xfe{}\n\n";

	T(load(&s, "x.jsonl", e1, &err) < 0 && errno != ENOENT,
	  "no header: refused");
	T(strstr(err, "x.jsonl: not a session file") != NULL,
	  "no header: warned");
	T(s.fd < 0 && s.n == 0, "no header: s empty");
	free(err);
	T(load(&s, "empty.jsonl", "", &err) < 0, "empty file: refused");
	free(err);
	capture();
	T(sessparse(&s, junk, sizeof(junk) - 1, "junk") < 0, "junk: refused");
	err = caught();
	T(strstr(err, "junk: not a session file") != NULL, "junk: warned");
	free(err);
	path = pathf("missing.jsonl");
	capture();
	T(sessload(&s, path) < 0 && errno == ENOENT, "missing: ENOENT");
	err = caught();
	T(!*err, "missing: no warning");
	free(err);
	free(path);
	/* older versions: with ids they load, warned; without, refused */
	bufaddf(&b, "{\"type\":\"session\",\"version\":2,\"id\":\"u\","
	        "\"cwd\":\"/\"}\n%s\n", e1);
	T(load(&s, "v2.jsonl", b.p, &err) == 0 && s.n == 1, "version 2 loads");
	T(strstr(err, "version 2") != NULL, "version 2: warned");
	free(err);
	sessfree(&s);
	bufreset(&b);
	bufaddf(&b, "{\"type\":\"session\",\"id\":\"u\",\"cwd\":\"/\"}\n"
	        "{\"type\":\"message\",\"message\":{}}\n");
	T(load(&s, "v1.jsonl", b.p, &err) < 0, "version 1 without ids: "
	  "refused");
	T(strstr(err, "not supported") != NULL, "version 1: warned");
	free(err);
	buffree(&b);
	/* bad fields from a caller do not reach the file */
	sessnew(&s, NULL, "/");
	capture();
	T(sessappend(&s, "message", "\"a\":") < 0 && s.n == 0,
	  "append: invalid fields refused");
	free(caught());
	sessfree(&s);
}

/* A full disk: warned, the entry kept, the next append on a new line. */
/* A session file replaced by rename(2) (an editor's save, sed -i) or
 * removed while open: appends go to what the path names, said once. */
static void
testfollow(void)
{
	Session s;
	const Entry **p;
	Buf b = { 0 };
	char *path = pathf("follow.jsonl"), *tmp = pathf("follow.new");
	char *err, *text, *was;
	size_t n, len;

	bufadds(&b, head);
	addent(&b, "a1", NULL, "one");
	addent(&b, "a2", "a1", "two");
	writefile(path, b.p, 0);
	capture();
	T(sessload(&s, path) == 0 && s.n == 2, "follow: loaded");
	free(caught());
	n = sesscontext(&s, &p);
	sessdone(&s, p);
	/* the same entries, at other offsets */
	bufreset(&b);
	bufadds(&b, head);
	bufadds(&b, "{\"type\":\"custom\",\"id\":\"c0\",\"parentId\":null}\n");
	addent(&b, "a1", NULL, "one");
	addent(&b, "a2", "a1", "two");
	writefile(tmp, b.p, 0);
	rename(tmp, path);
	capture();
	T(sessappend(&s, "message", "\"k\":\"after mv\"") == 0,
	  "follow: an append after a rename");
	T(sessappend(&s, "message", "\"k\":\"again\"") == 0,
	  "follow: and another");
	err = caught();
	T(count(err, "replaced") == 1 && count(err, "\n") == 1,
	  "follow: said once: %s", err);
	free(err);
	text = readfile(path, &len);
	T(text && !strncmp(text, b.p, b.len) && strstr(text, "after mv") &&
	  strstr(text, "again") && alljson(path, &n) && n == 6,
	  "follow: both land in the new file, after its lines");
	free(text);
	capture();
	n = sesscontext(&s, &p);
	err = caught();
	T(n == 4 && p[0]->line && fieldis(p[1]->line, "id", "a2") && !*err,
	  "follow: the lines loaded are still read right: %s", err);
	free(err);
	sessdone(&s, p);
	/* removed: made again, whole */
	was = readfile(path, &len);
	unlink(path);
	capture();
	T(sessappend(&s, "message", "\"k\":\"after rm\"") == 0,
	  "follow: an append after the file was removed");
	err = caught();
	T(count(err, "removed") == 1 && count(err, "\n") == 1,
	  "follow: said once: %s", err);
	free(err);
	text = readfile(path, NULL);
	T(text && was && !strncmp(text, was, len) &&
	  strstr(text + len, "after rm") && alljson(path, &n) && n == 7,
	  "follow: made again with all it held, then the entry");
	free(text);
	free(was);
	capture();
	n = sesscontext(&s, &p);
	err = caught();
	T(n == 5 && !*err, "follow: the context still whole: %s", err);
	free(err);
	sessdone(&s, p);
	T(sessappend(&s, "message", "") == 0 && alljson(path, &n) && n == 8,
	  "follow: then appends as before");
	sessfree(&s);
	buffree(&b);
	free(tmp);
	free(path);
}

/* While a test puts another file behind s's descriptor, s's path names
 * whatever the descriptor holds: else the append would take the path for
 * that of a file replaced, and follow it.  The path to put back. */
static char *
fdpath(Session *s)
{
	Buf b = { 0 };
	char *real = s->path;

	bufaddf(&b, "/proc/self/fd/%d", s->fd);
	s->path = bufdetach(&b);
	return real;
}

static void
pathback(Session *s, char *real)
{
	free(s->path);
	s->path = real;
}

static void
testfull(void)
{
	Session s;
	const Entry **p;
	char *dir = pathf("full"), *err, *path, *real;
	size_t n;
	int fd, keep;

	sessnew(&s, dir, "/");
	sessappend(&s, "message", "");
	if (!exists("/proc/self/fd") ||
	    (fd = open("/dev/full", O_WRONLY)) < 0) {
		SKIP("full disk: no /dev/full or /proc/self/fd");
		sessfree(&s);
		free(dir);
		return;
	}
	keep = dup(s.fd);
	dup2(fd, s.fd);
	close(fd);
	real = fdpath(&s);
	capture();
	T(sessappend(&s, "message", "\"n\":2") < 0, "full disk: -1");
	err = caught();
	pathback(&s, real);
	T(strstr(err, "write ") && strstr(err, "No space"), "full disk: warned");
	free(err);
	T(s.n == 2 && s.leaf == s.e[1].id, "full disk: entry kept in memory");
	dup2(keep, s.fd);
	close(keep);
	T(sessappend(&s, "message", "\"n\":3") == 0 && s.n == 3,
	  "full disk: the next append works");
	sessfree(&s);
	path = sessdirlatest(dir, "/");
	capture();
	T(path && sessload(&s, path) == 0 && s.n == 3,
	  "full disk: the lost entry written with the next");
	err = caught();
	T(!*err, "full disk: file loads without a warning");
	free(err);
	n = sessbranch(&s, &p);
	T(n == 3, "full disk: branch whole");
	free(p);
	sessfree(&s);
	capture();
	T(sessload(&s, dir) < 0, "a directory is no session");
	free(caught());
	free(path);
	free(dir);
}

static void
testids(void)
{
	Session s;
	size_t i, k;
	int dup = 0;

	sessnew(&s, NULL, "/");
	for (i = 0; i < 300; i++)
		sessappend(&s, "custom", "");
	for (i = 0; i < s.n; i++)
		for (k = i + 1; k < s.n; k++)
			dup += !strcmp(s.e[i].id, s.e[k].id);
	T(s.n == 300 && !dup, "300 ids, all different");
	sessfree(&s);
}

/* Two agents given the same new -s path: the second does not replace
 * the first's file but goes on in memory. */
static void
testrace(void)
{
	Session a, b;
	char *dir = pathf("race"), *err, *before, *after;
	size_t lb, la, n;

	sessnew(&a, dir, "/a");
	sessnew(&b, dir, "/b");
	free(b.path);
	b.path = xstrdup(a.path);
	T(sessappend(&a, "message", "\"k\":\"a\"") == 0, "race: first");
	before = readfile(a.path, &lb);
	capture();
	T(sessappend(&b, "message", "\"k\":\"b\"") < 0, "race: second -1");
	err = caught();
	T(strstr(err, ".jsonl: made meanwhile by another agent: not "
	  "overwritten; this session is kept in memory only\n") != NULL,
	  "race: warned");
	free(err);
	T(!b.path && b.fd < 0 && b.n == 1, "race: second in memory only");
	T(sessappend(&b, "message", "") == 0 && b.n == 2,
	  "race: second goes on in memory");
	after = readfile(a.path, &la);
	T(lb == la && !memcmp(before, after, la), "race: first's file kept");
	free(after);
	free(before);
	T(nfiles(dir) == 1, "race: no temp file left");
	T(sessappend(&a, "message", "") == 0 && alljson(a.path, &n) &&
	  n == 3, "race: first goes on in its file");
	sessfree(&b);
	sessfree(&a);
	free(dir);
}

/* Entry k of a writer named w, big enough that its write takes a while;
 * its parent is the writer's entry k-1 (or e2's 00000002). */
static void
bigline(Buf *b, char w, int k, size_t size)
{
	bufreset(b);
	bufaddf(b, "{\"type\":\"custom\",\"id\":\"%c%07d\",\"parentId\":", w, k);
	if (k)
		bufaddf(b, "\"%c%07d\"", w, k - 1);
	else
		bufadds(b, "\"00000002\"");
	bufadds(b, ",\"data\":\"");
	while (b->len < size)
		bufaddc(b, 'x');
	bufadds(b, "\"}\n");
}

/* A writer that appends whole lines as session.c does (one O_APPEND
 * write each, no lock, like pi) while the file is loaded again and
 * again: no line may be lost or cut. */
static void
testloadwhilewriting(void)
{
	Session s;
	Buf b = { 0 };
	char *path = pathf("busy.jsonl");
	int fd, k, loads = 0, st;
	size_t n;
	pid_t pid;

	bufaddf(&b, "%s%s\n%s\n", head, e1, e2);
	writefile(path, b.p, 0);
	if ((pid = fork()) == 0) {
		fd = open(path, O_WRONLY | O_APPEND);
		for (k = 0; k < 400; k++) {
			bigline(&b, 'w', k, 64 * 1024);
			if (writeall(fd, b.p, b.len) < 0)
				_exit(1);
		}
		_exit(0);
	}
	capture();
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (sessload(&s, path) == 0)
			loads++;
		sessfree(&s);
	}
	free(caught());
	T(WIFEXITED(st) && WEXITSTATUS(st) == 0 && loads > 0,
	  "load while writing: the writer wrote, %d loads", loads);
	T(alljson(path, &n) && n == 3 + 400,
	  "load while writing: every line there and whole (%zu)", n);
	buffree(&b);
	free(path);
}

/* A writer's line half way in while the file is loaded and appended
 * to: the half line is not cut, and the append starts a line of its
 * own, so that both the writer's entry and ours survive. */
static void
testhalfline(void)
{
	Session s;
	Buf b = { 0 };
	char *path = pathf("half.jsonl"), *err, *text, *p;
	int fd, go[2], done[2], st;
	size_t n;
	pid_t pid;

	bufaddf(&b, "%s%s\n%s\n", head, e1, e2);
	writefile(path, b.p, 0);
	if (pipe(go) < 0 || pipe(done) < 0)
		return;
	bigline(&b, 'h', 0, 1000);
	if ((pid = fork()) == 0) {
		fd = open(path, O_WRONLY | O_APPEND);
		if (writeall(fd, b.p, 500) < 0 ||
		    writeall(done[1], "1", 1) < 0 || read(go[0], &st, 1) != 1 ||
		    writeall(fd, b.p + 500, b.len - 500) < 0)
			_exit(1);
		_exit(0);
	}
	T(read(done[0], &st, 1) == 1, "half line: the writer is half way");
	capture();
	T(sessload(&s, path) == 0 && s.n == 2, "half line: loads 2 entries");
	T(sessappend(&s, "message", "\"ours\":1") == 0, "half line: append");
	err = caught();
	T(strstr(err, "half.jsonl:4: torn last line skipped") != NULL,
	  "half line: said on load");
	free(err);
	T(writeall(go[1], "1", 1) == 0 && waitpid(pid, &st, 0) == pid &&
	  WIFEXITED(st) && WEXITSTATUS(st) == 0, "half line: the writer ends");
	/* line 4 is the writer's first half, then ours, then its rest */
	text = readfile(path, &n);
	T((p = strstr(text, "\"data\":\"x")) &&
	  (p = strchr(p, '\n')) && !strncmp(p, "\n{\"type\":\"message\"", 18) &&
	  (p = strchr(p + 1, '\n')) && !memcmp(p + 1, b.p + 500, b.len - 500) &&
	  (size_t)(p + 1 - text) + b.len - 500 == n,
	  "half line: the writer's line is broken by ours, not lost");
	free(text);
	sessfree(&s);
	capture();
	T(sessload(&s, path) == 0 && s.n == 3 &&
	  !strcmp(s.e[2].parent, "00000002"), "half line: ours is there");
	free(caught());
	sessfree(&s);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
	buffree(&b);
	free(path);
}

/* Two agents append to one file at once: every entry of both is there,
 * each a whole line, each agent's entries a branch of their own. */
static void
testtwowriters(void)
{
	Session s;
	Buf b = { 0 };
	char *path = pathf("two.jsonl"), want[2][37], c, *text, *line;
	int w, k, st, ok = 1, chained[2] = { 0, 0 }, ready[2], go[2];
	size_t n, i;
	pid_t pid[2];

	bufaddf(&b, "%s%s\n%s\n", head, e1, e2);
	writefile(path, b.p, 0);
	if (pipe(ready) < 0 || pipe(go) < 0)
		return;
	for (w = 0; w < 2; w++) {
		if ((pid[w] = fork()) != 0)
			continue;
		/* both load before either writes: each branches off e2 */
		close(go[1]);
		if (sessload(&s, path) < 0 || writeall(ready[1], "r", 1) < 0 ||
		    read(go[0], &c, 1) != 0)
			_exit(1);
		bufreset(&b);
		for (k = 0; k < 1000; k++)
			bufaddc(&b, 'a' + w);
		bufaddf(&b, "\"");
		for (k = 0; k < 200; k++) {
			Buf f = { 0 };

			bufaddf(&f, "\"who\":%d,\"k\":%d,\"pad\":\"%s", w, k,
			        b.p);
			if (sessappend(&s, "custom", f.p) < 0)
				_exit(1);
			buffree(&f);
		}
		_exit(0);
	}
	close(go[0]);
	for (w = 0; w < 2; w++)
		ok &= read(ready[0], &c, 1) == 1;
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
	for (w = 0; w < 2; w++)
		ok &= waitpid(pid[w], &st, 0) == pid[w] && WIFEXITED(st) &&
		      WEXITSTATUS(st) == 0;
	T(ok, "two writers: both ran");
	T(alljson(path, &n) && n == 3 + 400,
	  "two writers: every entry there, each a whole line (%zu)", n);
	capture();
	T(sessload(&s, path) == 0 && s.n == 402, "two writers: loads");
	free(caught());
	/* each writer's entries hang one from the next, from 00000002; the
	 * lines off the branch are not held: they are read from the file */
	strcpy(want[0], "00000002");
	strcpy(want[1], "00000002");
	text = readfile(path, NULL);
	for (i = 2; i < s.n; i++) {
		line = xstrndup(text + s.e[i].off, s.e[i].len);
		w = strstr(line, "\"who\":1") != NULL;
		free(line);
		chained[w] += s.e[i].parent && !strcmp(s.e[i].parent, want[w]);
		snprintf(want[w], sizeof(want[w]), "%s", s.e[i].id);
	}
	T(chained[0] == 200 && chained[1] == 200,
	  "two writers: each continues its own branch (%d, %d)", chained[0],
	  chained[1]);
	free(text);
	sessfree(&s);
	buffree(&b);
	free(path);
}

/* A file size limit (no SIGXFSZ) makes a write fail part way. */
static void
limit(struct rlimit *old, rlim_t n)
{
	struct rlimit rl;

	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, old);
	rl = *old;
	rl.rlim_cur = n;
	setrlimit(RLIMIT_FSIZE, &rl);
}

/* A failed create leaves no temp file, and is tried again. */
static void
testcreatefail(void)
{
	Session s;
	struct rlimit old;
	char *dir = pathf("cf");
	size_t n;

	sessnew(&s, dir, "/c");
	limit(&old, 10);
	capture();
	T(sessappend(&s, "message", "") < 0, "failed create: -1");
	free(caught());
	setrlimit(RLIMIT_FSIZE, &old);
	T(s.path && s.fd < 0 && nfiles(dir) == 0,
	  "failed create: no file, no temp file (%d)", nfiles(dir));
	T(sessappend(&s, "message", "") == 0 && alljson(s.path, &n) && n == 3,
	  "failed create: the next append makes the file");
	T(nfiles(dir) == 1, "create: no temp file left");
	sessfree(&s);
	free(dir);
}

/* A short append is cut off again: no fragment amid the file. */
static void
testshort(void)
{
	Session s;
	struct rlimit old;
	struct stat st;
	char *dir = pathf("short"), *path, *err, *before, *after;
	size_t lb, la, n, i, k;
	int dup = 0;

	sessnew(&s, dir, "/");
	sessappend(&s, "message", "\"n\":1");
	before = readfile(s.path, &lb);
	stat(s.path, &st);
	limit(&old, st.st_size + 20);
	capture();
	T(sessappend(&s, "message", "\"n\":2") < 0, "short write: -1");
	err = caught();
	setrlimit(RLIMIT_FSIZE, &old);
	T(strstr(err, "write ") != NULL, "short write: warned");
	free(err);
	after = readfile(s.path, &la);
	T(lb == la && !memcmp(before, after, la),
	  "short write: the file as it was");
	free(after);
	free(before);
	T(s.saved == 1 && s.n == 2, "short write: entry unsaved");
	T(sessappend(&s, "message", "\"n\":3") == 0, "short write: retry");
	path = xstrdup(s.path);
	sessfree(&s);
	capture();
	T(sessload(&s, path) == 0 && s.n == 3, "short write: 3 entries");
	err = caught();
	T(!*err, "short write: loads without a warning");
	free(err);
	for (i = 0; i < s.n; i++)
		for (k = i + 1; k < s.n; k++)
			dup += !strcmp(s.e[i].id, s.e[k].id);
	T(!dup && alljson(path, &n) && n == 4, "short write: none twice");
	sessfree(&s);
	free(path);
	free(dir);
}

/* A part written that cannot be cut off (a pipe): the entries written
 * whole are not written again. */
static void
testuncut(void)
{
	Session s;
	Buf f = { 0 };
	char *dir = pathf("uncut"), buf[4096], *real;
	int pfd[2], keep, full;
	size_t n, got = 0, fill = 0;
	ssize_t r;

	sessnew(&s, dir, "/");
	sessappend(&s, "message", "");
	if (!exists("/proc/self/fd") ||
	    (full = open("/dev/full", O_WRONLY)) < 0 || pipe(pfd) < 0) {
		SKIP("uncut: no /dev/full, /proc/self/fd or pipe");
		goto out;
	}
	keep = dup(s.fd);
	dup2(full, s.fd);
	close(full);
	real = fdpath(&s);
	capture();
	T(sessappend(&s, "message", "\"small\":1") < 0 && s.saved == 1,
	  "uncut: nothing written, nothing saved");
	/* a full pipe but for one page: a long write goes in part way */
	fcntl(pfd[1], F_SETFL, O_NONBLOCK);
	while (write(pfd[1], "x", 1) == 1)
		fill++;
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	if ((r = read(pfd[0], buf, sizeof(buf))) > 0)
		fill -= r;
	dup2(pfd[1], s.fd);
	bufadds(&f, "\"big\":\"");
	for (n = 0; n < 8000; n++)
		bufaddc(&f, 'a');
	bufaddc(&f, '"');
	T(sessappend(&s, "message", f.p) < 0, "uncut: -1");
	free(caught());
	while ((r = read(pfd[0], buf, sizeof(buf))) > 0)
		got += r;
	got -= MIN(got, fill);
	n = strlen(s.e[1].line) + 1;
	if (got <= n || got >= n + strlen(s.e[2].line)) {
		SKIP("uncut: the small entry saved, the big one not: the "
		     "pipe took %zu bytes", got);
	} else {
		T(s.saved == 2, "uncut: the small entry saved, the big one "
		  "not (%zu)", s.saved);
	}
	pathback(&s, real);
	dup2(keep, s.fd);
	close(keep);
	close(pfd[0]);
	close(pfd[1]);
	T(sessappend(&s, "message", "") == 0 && s.saved == 4,
	  "uncut: the next append works");
out:
	buffree(&f);
	sessfree(&s);
	free(dir);
}

/* sessread leaves the file alone: no fd, no path, no cut. */
static void
testread(void)
{
	Session s;
	Buf b = { 0 };
	char *path = pathf("ro.jsonl"), *err, *before, *after;
	size_t lb, la;

	bufaddf(&b, "%s%s\n%s\n{\"type\":\"mess", head, e1, e2);
	writefile(path, b.p, 0);
	before = readfile(path, &lb);
	capture();
	T(sessread(&s, path) == 0 && s.n == 2 &&
	  !strcmp(s.leaf, "00000002"), "sessread: loads");
	err = caught();
	T(strstr(err, "torn last line skipped") != NULL, "sessread: warned");
	free(err);
	T(s.fd == -1 && !s.path, "sessread: no fd, no path");
	T(sessappend(&s, "message", "") == 0 && s.n == 3,
	  "sessread: appends in memory");
	sessfree(&s);
	after = readfile(path, &la);
	T(lb == la && !memcmp(before, after, la),
	  "sessread: the file untouched, torn tail and all");
	free(after);
	free(before);
	free(path);
	path = pathf("nothere.jsonl");
	capture();
	T(sessread(&s, path) < 0 && errno == ENOENT, "sessread: ENOENT");
	err = caught();
	T(!*err, "sessread: missing, no warning");
	free(err);
	free(path);
	buffree(&b);
}

/* sessreadat: the branch that ends at the entry named, each line read;
 * NULL, the file's leaf; an unknown entry said, EINVAL. */
static void
testreadat(void)
{
	Session s;
	Buf b = { 0 };
	const Entry **p;
	char *path = pathf("at.jsonl"), *err;
	size_t n;

	bufadds(&b, head);
	addent(&b, "a1", NULL, "root");
	addent(&b, "a2", "a1", "left");
	addent(&b, "a3", "a1", "right");
	writefile(path, b.p, 0);
	T(sessreadat(&s, path, "a2") == 0 && !strcmp(s.leaf, "a2"),
	  "sessreadat: the leaf named");
	n = sessbranch(&s, &p);
	T(n == 2 && !strcmp(p[0]->id, "a1") && p[1]->line &&
	  strstr(p[1]->line, "left"), "sessreadat: its branch, lines read");
	free(p);
	sessfree(&s);
	T(sessreadat(&s, path, NULL) == 0 && !strcmp(s.leaf, "a3") &&
	  sessbranch(&s, &p) == 2 && strstr(p[1]->line, "right"),
	  "sessreadat: NULL, the file's leaf");
	free(p);
	sessfree(&s);
	capture();
	T(sessreadat(&s, path, "zz") < 0 && errno == EINVAL,
	  "sessreadat: an unknown entry fails");
	err = caught();
	T(strstr(err, "no entry zz") != NULL, "sessreadat: and says so");
	free(err);
	free(path);
	buffree(&b);
}

/* An empty file is as good as none: ENOENT, then made over. */
static void
testempty(void)
{
	Session s;
	char *dir = pathf("empty"), *path, *err;
	size_t n;

	mkdir(dir, 0700);
	path = pathf("empty/e.jsonl");
	writefile(path, "", 0);
	capture();
	T(sessload(&s, path) < 0 && errno == ENOENT && s.fd < 0,
	  "empty: sessload ENOENT");
	T(sessread(&s, path) < 0 && errno == ENOENT, "empty: sessread ENOENT");
	err = caught();
	T(!*err, "empty: no warning");
	free(err);
	sessnew(&s, dir, "/e");
	free(s.path);
	s.path = xstrdup(path);
	capture();
	T(sessappend(&s, "message", "") == 0 && s.fd >= 0, "empty: made over");
	err = caught();
	T(!*err, "empty: made over without a warning");
	free(err);
	sessfree(&s);
	T(alljson(path, &n) && n == 2 && nfiles(dir) == 1,
	  "empty: a session file, no temp file");
	T(sessload(&s, path) == 0 && s.n == 1, "empty: reloads");
	sessfree(&s);
	free(path);
	free(dir);
}

/* The model a session was switched to, and the usage of its answers. */
static void
testmodelusage(void)
{
	static const char text[] =
		"{\"type\":\"session\",\"version\":3,\"id\":\"u\","
		"\"timestamp\":\"t\",\"cwd\":\"/\"}\n"
		"{\"type\":\"model_change\",\"id\":\"00000001\",\"parentId\":"
		"null,\"timestamp\":\"t\",\"provider\":\"openai\",\"modelId\":"
		"\"m1\"}\n"
		"{\"type\":\"message\",\"id\":\"00000002\",\"parentId\":"
		"\"00000001\",\"timestamp\":\"t\",\"message\":{\"role\":"
		"\"assistant\",\"content\":[],\"usage\":{\"input\":10,"
		"\"output\":20,\"cacheRead\":30,\"cacheWrite\":40,\"cost\":{"
		"\"total\":0.25}}}}\n"
		"{\"type\":\"model_change\",\"id\":\"00000003\",\"parentId\":"
		"\"00000002\",\"timestamp\":\"t\",\"provider\":\"openai\","
		"\"modelId\":\"m2\"}\n"
		"{\"type\":\"message\",\"id\":\"00000004\",\"parentId\":"
		"\"00000003\",\"timestamp\":\"t\",\"message\":{\"role\":"
		"\"assistant\",\"content\":[],\"usage\":{\"input\":1,"
		"\"output\":2,\"cacheRead\":3,\"cacheWrite\":4,\"cost\":{"
		"\"total\":0.5}}}}\n"
		"{\"type\":\"message\",\"id\":\"00000005\",\"parentId\":"
		"\"00000001\",\"timestamp\":\"t\",\"message\":{\"role\":"
		"\"user\",\"content\":\"x\",\"usage\":{\"input\":1000}}}\n";
	Session s;
	const Entry **path;
	long long tok[4];
	double cost;
	char *m, *file = pathf("mu.jsonl");
	size_t n;

	/* loaded from a file: the lines off the branch are read back */
	writefile(file, text, 0);
	T(sessload(&s, file) == 0 && s.n == 5, "model, usage: loaded");
	free(file);
	cost = treeusage(&s, tok);
	T(tok[0] == 11 && tok[1] == 22 && tok[2] == 33 && tok[3] == 44 &&
	  cost == 0.75, "usage: every answer's, every branch's, summed");
	n = sessbranch(&s, &path);
	m = entrymodel(path, n, "openai");
	T(n == 2 && m && !strcmp(m, "m1"),
	  "model: the last model_change on the branch: %s", m ? m : "none");
	free(m);
	free(path);
	s.leaf = s.e[3].id;
	n = sesscontext(&s, &path);
	m = entrymodel(path, n, "openai");
	T(m && !strcmp(m, "m2"), "model: the switch on the other branch");
	free(m);
	T(!(m = entrymodel(path, n, "anthropic")),
	  "model: none when the last is another provider's");
	free(m);
	free(path);
	sessfree(&s);
	T(tokens("{\"content\":\"12345678\"}") == 22 / 4,
	  "tokens: four bytes a token");
	T(tokens("{\"content\":[{\"type\":\"image\",\"data\":\""
	  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\","
	  "\"mimeType\":\"image/png\"},{\"mimeType\":\"image/gif\","
	  "\"type\":\"image\",\"data\":\"AAAA\"}]}") == (177 - 64 + 9600) / 4,
	  "tokens: an image counts as pi counts one, its data not");
	/* a message in place in its line: what follows is not its */
	T(entrytokens("{\"content\":\"12345678\"}\"image\"", 22) == 22 / 4,
	  "tokens: only the bytes given are looked at");
}

/* util.c's stand-ins for fnmatch(3) and gmtime(3), which a static build
 * goes without: the same answers as the C library's. */
static void
testlibc(void)
{
	static const char *pats[] = {
		"*.c", "*", "a*b*c", "?", "??", "[a-c]x", "[!a-c]x", "[^a-c]x",
		"[]]", "[!]]", "\\*", "[[:digit:]]*", "[[:alpha:]_]*", "[",
		"a[", "*/x", "**", "a?c", "*a*", "[a-]", "x[0-9][0-9]", "",
		".*", "*.tar.gz", "a\\?c",	/* not [z-a] nor [\\]]: the C
						 * libraries differ there */
	};
	static const char *names[] = {
		"a.c", "", "aXbYc", "abc", "ab", "bx", "dx", "]", "a", "*", "7up",
		"_x", "[", "a[", "a/b/x", "a/b", "-", "x42", "x4", ".hidden",
		"f.tar.gz", "a?c", "x", "aaa",
	};
	static const long long times[] = {
		0, -1, 951782400, 951868799, 4102444800LL, -62135596800LL,
		1795498274, 253402300799LL,
	};
	size_t i, k;
	int f[6], bad = 0;
	long long t;
	struct tm tm;
	time_t tt;

	for (i = 0; i < LEN(pats); i++)
		for (k = 0; k < LEN(names); k++)
			if (namematch(pats[i], names[k]) !=
			    (fnmatch(pats[i], names[k], 0) == 0)) {
				printf("# %s on %s\n", pats[i], names[k]);
				bad++;
			}
	T(!bad, "namematch: fnmatch's answers (%d differ)", bad);
	T(namematch("?", "\303\251") && namematch("a?b", "a\342\202\254b"),
	  "namematch: ? takes a UTF-8 character whole");
	for (i = 0, bad = 0; i < LEN(times) + 2000; i++) {
		t = i < LEN(times) ? times[i] :
		    -20000000000LL + (long long)(i - LEN(times)) * 20000017LL;
		tt = (time_t)t;
		utcdate(t, f);
		if (!gmtime_r(&tt, &tm) || f[0] != tm.tm_year + 1900 ||
		    f[1] != tm.tm_mon + 1 || f[2] != tm.tm_mday ||
		    f[3] != tm.tm_hour || f[4] != tm.tm_min || f[5] != tm.tm_sec)
			bad++;
	}
	T(!bad, "utcdate: gmtime's dates, from year 1336 to 9999 (%d differ)",
	  bad);
}

/* The index notes where each line's message is, and its role; the
 * message is then made from its line without a parse, in place. */
static void
testmessage(void)
{
	static const char l1[] = "{\"message\" : {\"role\":\"user\","
		"\"content\":\"a \\\"b\\\"\"} ,\"id\":\"00000001\","
		"\"type\":\"message\",\"parentId\":null}";
	static const char l2[] = "{\"type\":\"custom\",\"id\":\"00000002\","
		"\"parentId\":\"00000001\",\"data\":{\"message\":{\"role\":1}}}";
	static const char l3[] = "{\"type\":\"message\",\"id\":\"00000003\","
		"\"parentId\":\"00000002\",\"message\":{\"role\":"
		"\"bash\\u0045xecution\",\"command\":\"ls\"}}";
	/* the same length and id, the message moved by a byte */
	static const char l3b[] = "{\"type\":\"message\",\"id\":\"00000003\","
		"\"parentId\":\"00000002\",\"message\": {\"role\":"
		"\"bash\\u0045xecution\",\"command\":\"l\"}}";
	static const char want[] = "{\"role\":\"user\","
		"\"content\":\"a \\\"b\\\"\"}";
	Session s;
	Sessmap map;
	Buf b = { 0 };
	const Entry **p;
	char *err, *m, *path = pathf("msg.jsonl");
	size_t n, len = 0;
	int shared;

	bufaddf(&b, "%s%s\n%s\n%s\n", head, l1, l2, l3);
	T(load(&s, "msg.jsonl", b.p, &err) == 0 && s.n == 3,
	  "message: loads");
	free(err);
	T(s.e[0].msgat == 13 && s.e[0].msglen == 35 &&
	  !strcmp(s.e[0].role, "user"),
	  "message: where it lies, white space and key order as written");
	T(!s.e[1].msgat && !s.e[1].role,
	  "message: one inside another member is not the entry's");
	T(s.e[2].role && !strcmp(s.e[2].role, "bashExecution"),
	  "message: its role unescaped");
	T(s.e[0].plain && !s.e[2].plain,
	  "message: the index notes the lines whose strings are as jsonesc "
	  "writes them (\\\" is, \\u0045 not)");
	n = sesscontext(&s, &p);
	m = n == 3 ? sessmessage(&s, p[0], &shared, &len) : NULL;
	T(m && len == sizeof(want) - 1 && !memcmp(m, want, len) &&
	  m[len] == ' ' && shared && p[0]->line && p[1]->shared && s.map.p &&
	  m >= s.map.p && m + len <= s.map.p + s.map.len,
	  "message: in place in the map of the lines, no NUL after it");
	T(n == 3 && !sessmessage(&s, p[1], &shared, &len),
	  "message: none in a custom entry");
	sessmap(&s, &map);
	sessdone(&s, p);
	T(map.p && !s.map.p && !s.e[0].line && !s.e[1].line &&
	  !memcmp(m, want, len),
	  "message: the map is the caller's, the lines are let go");
	sessmapdrop(&map, NULL);
	T(!memcmp(m, want, len),
	  "message: read again from the file once its pages were let go");
	sessmapfree(&map);
	/* rewritten under us, as like the old as can be */
	bufreset(&b);
	bufaddf(&b, "%s%s\n%s\n%s\n", head, l1, l2, l3b);
	writefile(path, b.p, 0);
	n = sesscontext(&s, &p);
	T(n == 3 && p[2]->line && !sessmessage(&s, p[2], &shared, &len),
	  "message: a line that changed under us is not cut blindly");
	T(n == 3 && !p[0]->plain,
	  "message: read again, a line is not taken as its index found it");
	sessdone(&s, p);
	sessfree(&s);
	/* in memory, a copy */
	T(sessparse(&s, b.p, b.len, "msg") == 0 && (n = sesscontext(&s, &p))
	  == 3 && (m = sessmessage(&s, p[0], &shared, &len)) && !shared &&
	  p[0]->line && !strcmp(m, want) && len == strlen(want),
	  "message: from a text, a copy");
	free(m);
	free(p);
	sessfree(&s);
	buffree(&b);
	free(path);
}

int
main(void)
{
	strcpy(tmp, "/tmp/agent-session-XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(errpath, sizeof(errpath), "%s.err", tmp);
	testlibc();
	testdir();
	testnew();
	testtorn();
	testbadlines();
	testpi();
	testkept();
	testbranch();
	testloops();
	testorder();
	testlatest();
	testnone();
	testnotsession();
	testfull();
	testfollow();
	testids();
	testrace();
	testcreatefail();
	testshort();
	testuncut();
	testread();
	testreadat();
	testempty();
	testloadwhilewriting();
	testhalfline();
	testtwowriters();
	testmodelusage();
	testmessage();
	rmtree(tmp);
	unlink(errpath);
	return tfail != 0;
}
