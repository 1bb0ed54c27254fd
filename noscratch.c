/* See LICENSE file for copyright and license details. */
/* noscratch.c: scratch.c's stand-in in a build without diff mode (make
 * tiny): -d says it is not in this build, and agent exits 2. */
#include <string.h>

#include "util.h"
#include "scratch.h"

int
scratchmake(Scratch *s, const Scratchconf *c, Buf *why)
{
	memset(s, 0, sizeof(*s));
	s->conf = c;
	s->out = -1;
	bufadds(why, "-d: diff mode is not in this build");
	return -1;
}

int
scratchdiff(Scratch *s)
{
	(void)s;
	return -1;
}

void
scratchfree(Scratch *s)
{
	(void)s;
}
