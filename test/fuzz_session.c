/* See LICENSE file for copyright and license details. */
/* fuzz_session.c: libFuzzer target for session.c's parser and branch,
 * and its load of a file a few bytes at a time (built with a small
 * READBLOCK), which must index the same entries. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util.h"
#include "../json.h"
#include "../entry.h"
#include "../session.h"
#include "../tree.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char file[] = "/tmp/fuzz_session.XXXXXX";
static int fd = -1;

/* Warnings are expected by the thousand: -close_fd_mask=2 sends stderr
 * to /dev/null, yet keeps libFuzzer's and the sanitizers' reports. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *v[64], quiet[] = "-close_fd_mask=2";
	int i;

	if (*argc < 1 || *argc >= (int)LEN(v) - 1)
		return 0;
	v[0] = (*argv)[0];
	v[1] = quiet;
	for (i = 1; i < *argc; i++)
		v[i + 1] = (*argv)[i];
	v[++*argc] = NULL;
	*argv = v;
	if ((fd = mkstemp(file)) < 0)
		abort();
	unlink(file);	/* read again as /proc/self/fd/N */
	return 0;
}

/* Whether e is one of s's entries. */
static int
isentry(const Session *s, const Entry *e)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (e == &s->e[i])
			return 1;
	return 0;
}

/* Whether id is that of one of s's entries. */
static int
hasid(const Session *s, const char *id)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->e[i].id, id))
			return 1;
	return 0;
}

/* Whether s->leaf is one of s's entries' own id string. */
static int
isleaf(const Session *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->leaf == s->e[i].id)
			return 1;
	return 0;
}

/* Whether the last entry's parents loop, which alone moves the leaf
 * back: a walk of s->n steps (the last of an id taken, as pi's map
 * does) meets no root. */
static int
unleafed(const Session *s)
{
	const char *id = s->e[s->n - 1].parent;
	size_t k, i;
	long at;

	for (k = 0; k < s->n; k++) {
		if (!id)
			return 0;
		for (at = -1, i = 0; i < s->n; i++)
			if (!strcmp(s->e[i].id, id))
				at = i;
		if (at < 0)
			return 0;
		id = s->e[at].parent;
	}
	return 1;
}

/* The message sessmessage makes of e's line is the line's "message" as
 * a parse finds it, and its role the one noted. */
static void
message(Session *s, const Entry *e)
{
	Json j;
	Buf b = { 0 };
	char *m, *role;
	size_t len = 0;
	int k;

	if (!e->line || jsonparse(&j, e->line, e->len) < 0)
		return;
	k = jsonget(&j, 0, "message");
	role = jsonstr(&j, jsonget(&j, k, "role"));
	if ((e->msgat != 0) != (k >= 0 && j.t[k].type == JOBJ) ||
	    !e->role != !role || (role && strcmp(role, e->role)))
		abort();
	jsonraw(&b, &j, k);
	/* in the map of lines a message has no NUL after it */
	if ((m = sessmessage(s, e, &k, &len)) &&
	    (len != b.len || memcmp(m, b.p, len) || (!k && m[len])))
		abort();
	if (!k)
		free(m);
	free(role);
	buffree(&b);
	jsonfree(&j);
}

/* Load the same bytes from a file: the same entries, the same lines
 * held; once let go, sesscontext reads the same lines again. */
static void
fromfile(const Session *s, const uint8_t *data, size_t size)
{
	Session f;
	const Entry **p;
	char path[64];
	size_t i, n;

	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (sessload(&f, path) < 0) {
		if (s || (size && f.n))
			abort();
		return;
	}
	if (!s || f.n != s->n || strcmp(f.head, s->head) ||
	    strcmp(f.leaf ? f.leaf : "", s->leaf ? s->leaf : ""))
		abort();
	for (i = 0; i < f.n; i++)
		if (strcmp(f.e[i].id, s->e[i].id) ||
		    strcmp(f.e[i].type, s->e[i].type) ||
		    !f.e[i].parent != !s->e[i].parent ||
		    (f.e[i].parent && strcmp(f.e[i].parent, s->e[i].parent)) ||
		    f.e[i].off != s->e[i].off || f.e[i].len != s->e[i].len ||
		    !f.e[i].line != !s->e[i].line ||
		    (f.e[i].line && memcmp(f.e[i].line, s->e[i].line,
		                           f.e[i].len)))
			abort();
	n = sesscontext(&f, &p);
	sessdone(&f, p);
	n = sesscontext(&f, &p);
	for (i = 0; i < n; i++)
		if (p[i]->line && s->e[p[i] - f.e].line &&
		    memcmp(p[i]->line, s->e[p[i] - f.e].line, p[i]->len))
			abort();
	/* the messages found in place in the map of lines */
	for (i = 0; i < n; i++)
		message(&f, p[i]);
	free(p);
	sessfree(&f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Session s;
	const Entry **path;
	long long tok[4];
	double cost;
	size_t n, i, from;

	if (sessparse(&s, (const char *)data, size, "fuzz") < 0) {
		if (s.n || s.e || s.head || s.fd != -1)
			abort();
		fromfile(NULL, data, size);
		return 0;
	}
	fromfile(&s, data, size);
	if (!s.head || !s.cwd || strchr(s.head, '\n'))
		abort();
	/* the leaf is the last entry, unless parentIds loop */
	if (s.leaf && !isleaf(&s))
		abort();
	for (i = 0; i < s.n; i++)
		if (!s.e[i].id || !s.e[i].type || (s.e[i].line &&
		    (memchr(s.e[i].line, '\n', s.e[i].len) ||
		     memcmp(s.e[i].line, data + s.e[i].off, s.e[i].len))))
			abort();
	for (i = 0; i < s.n; i++)
		message(&s, &s.e[i]);
	n = sessbranch(&s, &path);
	if (n > s.n || (n && !path))
		abort();
	for (i = 0; i < n; i++)
		if (!isentry(&s, path[i]) || (i > 0 && (!path[i]->parent ||
		    strcmp(path[i]->parent, path[i - 1]->id))))
			abort();
	if (n && strcmp(path[n - 1]->id, s.leaf))
		abort();
	if (n && path[0]->parent && hasid(&s, path[0]->parent))
		abort();	/* a branch starts at a root */
	if (!!n != !!s.leaf || (s.n && s.leaf != s.e[s.n - 1].id &&
	    !unleafed(&s)))
		abort();
	/* what the model, the costs and the estimates take from lines */
	free(entrymodel(path, n, "openai"));
	cost = treeusage(&s, tok);
	if (!(cost >= 0) || tok[0] < 0 || tok[1] < 0 || tok[2] < 0 ||
	    tok[3] < 0)
		abort();
	for (i = 0; i < s.n; i++)
		if (s.e[i].line && entrytokens(s.e[i].line, s.e[i].len) < 0)
			abort();
	/* the lines the context uses are loaded */
	entrycompaction(path, n, &from, NULL);
	for (i = from; i < n; i++)
		if (!path[i]->line)
			abort();
	free(path);
	sessfree(&s);
	return 0;
}
