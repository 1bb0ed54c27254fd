/* See LICENSE file for copyright and license details. */
/* mcpsrv.c: a scripted MCP server on stdin and stdout, for test/mcp.sh. */
/*
 * usage: mcpsrv script [log]
 *
 * Reads JSON-RPC messages, one a line, appending each to log.  A request
 * (a line with "id" and "method") is answered by the next block of the
 * script for its method; the last block of a method answers again and
 * again.  A block begins with `on METHOD`; its lines are written as they
 * are, $ID replaced by the request's id and $TOKEN by its progressToken
 * (null if none), but these:
 *   stderr L     the line L, on stderr
 *   sleep MS     pause
 *   exit N       exit at once with status N
 *   hang         sleep forever (the client's timeout ends it)
 *   flood L      the line L on stderr, again and again without pause
 *   read         read one line (an answer of the client's) into the log
 *   repeat N L   the line L, N times, written at once: a client reads
 *                them all in one read
 * A method with no block gets no answer.  Notifications get none.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char *lines[4096];
static int nlines, used[4096];
static FILE *logf;

static void
nap(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	nanosleep(&ts, NULL);
}

/* The next block for method: its first line's index, or -1. */
static int
block(const char *method)
{
	int i, last = -1;

	for (i = 0; i < nlines; i++) {
		if (strncmp(lines[i], "on ", 3) || strcmp(lines[i] + 3, method))
			continue;
		last = i;
		if (!used[i]) {
			used[i] = 1;
			return i + 1;
		}
	}
	return last < 0 ? -1 : last + 1;
}

static char token[64];	/* the request's progressToken, or null */

static void
say(const char *l, const char *id)
{
	const char *p;

	for (p = l; *p; p++) {
		if (!strncmp(p, "$ID", 3)) {
			fputs(id, stdout);
			p += 2;
		} else if (!strncmp(p, "$TOKEN", 6)) {
			fputs(token, stdout);
			p += 5;
		} else {
			putchar(*p);
		}
	}
	putchar('\n');
	fflush(stdout);
}

/* The line l, n times, in one write. */
static void
burst(const char *l, long n)
{
	size_t len = strlen(l);
	char *b;
	long i;

	if (n <= 0 || !(b = malloc(n * (len + 1))))
		return;
	for (i = 0; i < n; i++) {
		memcpy(b + i * (len + 1), l, len);
		b[i * (len + 1) + len] = '\n';
	}
	fwrite(b, len + 1, n, stdout);
	fflush(stdout);
	free(b);
}

static void
answer(int at, const char *id)
{
	char buf[65536], *sp;

	for (; at < nlines && strncmp(lines[at], "on ", 3); at++) {
		if (!strncmp(lines[at], "repeat ", 7) &&
		    (sp = strchr(lines[at] + 7, ' ')))
			burst(sp + 1, atol(lines[at] + 7));
		else if (!strncmp(lines[at], "sleep ", 6))
			nap(atol(lines[at] + 6));
		else if (!strncmp(lines[at], "exit ", 5))
			exit(atoi(lines[at] + 5));
		else if (!strncmp(lines[at], "stderr ", 7))
			fprintf(stderr, "%s\n", lines[at] + 7), fflush(stderr);
		else if (!strncmp(lines[at], "flood ", 6))
			for (;;)
				fprintf(stderr, "%s\n", lines[at] + 6);
		else if (!strcmp(lines[at], "hang"))
			for (;;)
				nap(1000);
		else if (!strcmp(lines[at], "read") && fgets(buf, sizeof(buf),
		         stdin) && logf)
			fprintf(logf, "%s", buf), fflush(logf);
		else
			say(lines[at], id);
	}
}

/* The value of "key": up to the next , or } (a number), or the string. */
static int
field(const char *l, const char *key, char *out, size_t max)
{
	const char *p = strstr(l, key);
	size_t n;

	if (!p)
		return -1;
	for (p += strlen(key); *p == ' ' || *p == ':'; p++)
		;
	if (*p == '"')
		n = strcspn(p + 1, "\"") + 2;
	else
		n = strcspn(p, ",}");
	if (n >= max)
		return -1;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

int
main(int argc, char *argv[])
{
	char buf[65536], id[64], method[256];
	FILE *f;
	int at;

	if (argc < 2 || !(f = fopen(argv[1], "r")))
		return 2;
	if (argc > 2)
		logf = fopen(argv[2], "a");
	while (nlines < 4096 && fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (*buf && *buf != '#')
			lines[nlines++] = strdup(buf);
	}
	fclose(f);
	while (fgets(buf, sizeof(buf), stdin)) {
		if (logf)
			fprintf(logf, "%s", buf), fflush(logf);
		if (field(buf, "\"method\"", method, sizeof(method)) < 0 ||
		    field(buf, "\"id\"", id, sizeof(id)) < 0)
			continue;
		method[strlen(method) - 1] = '\0';
		if (field(buf, "\"progressToken\"", token, sizeof(token)) < 0)
			strcpy(token, "null");
		if ((at = block(method + 1)) >= 0)
			answer(at, id);
	}
	return 0;
}
