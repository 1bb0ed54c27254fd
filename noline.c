/* See LICENSE file for copyright and license details. */
/* noline.c: line.c's stand-in in a build without the line editor (make
 * tiny): the terminal's own line editing (canonical mode), a line at a
 * time, and a question answered by a line's first key. */
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "line.h"

void
lineopen(Line *l, int in, int out, size_t maxhist)
{
	memset(l, 0, sizeof(*l));
	l->in = in;
	l->out = out;
	l->maxhist = maxhist;
}

/* One line from fd into b, its newline taken off: 1, 0 at the end with
 * nothing read, -1 with errno. */
static int
noreadline(int fd, Buf *b)
{
	char c;
	ssize_t n;

	bufreset(b);
	bufgrow(b, 1);
	while ((n = read(fd, &c, 1)) == 1 && c != '\n')
		bufaddc(b, c);
	b->p[b->len] = '\0';
	if (n < 0)
		return -1;
	return n == 1 || b->len ? 1 : 0;
}

int
lineread(Line *l, const char *prompt, Buf *b)
{
	if (writeall(l->out, prompt, strlen(prompt)) < 0)
		return -1;
	return noreadline(l->in, b);
}

/* No line to put text in before the user types: nothing offered. */
void
lineoffer(Line *l, const char *s, size_t n)
{
	(void)l;
	(void)s;
	(void)n;
}

void
lineadd(Line *l, const char *s, size_t n)
{
	(void)l;
	(void)s;
	(void)n;
}

void
lineclose(Line *l)
{
	(void)l;
}

/* Lines whose first key is not one of keys are asked again. */
int
linekey(int fd, const char *ask, const char *keys)
{
	Buf b = { 0 };
	int k = -1;

	while (k < 0 && writeall(fd, ask, strlen(ask)) == 0 &&
	    noreadline(fd, &b) > 0)
		if (b.len && b.p[0] && strchr(keys, b.p[0]))
			k = (unsigned char)b.p[0];
	buffree(&b);
	return k;
}
