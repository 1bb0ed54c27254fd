/* See LICENSE file for copyright and license details. */
/* noeventstream.c: eventstream.c's stand-in in a build without Bedrock's
 * framing (make tiny): a Bedrock stream is refused as a bad frame, the
 * error saying it is not in this build. */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "eventstream.h"

void
esinit(Es *s, Esfn fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
}

int
esfeed(Es *s, const char *p, size_t n)
{
	(void)p;
	(void)n;
	snprintf(s->err, sizeof(s->err), "Bedrock's event stream is not in "
	         "this build");
	return ESBAD;
}

int
esend(Es *s)
{
	return esfeed(s, NULL, 0);
}

void
esfree(Es *s)
{
	(void)s;
}

const Eshead *
eshead(const Eshead *h, int nh, const char *name)
{
	(void)h;
	(void)nh;
	(void)name;
	return NULL;
}

int
esis(const Eshead *h, const char *s)
{
	(void)h;
	(void)s;
	return 0;
}
