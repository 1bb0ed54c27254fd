/* See LICENSE file for copyright and license details. */
/* norpc.c: rpc.c's stand-in in a build without -r (make tiny): -r says
 * so and exits 2 before reading a command. */
#include <stdlib.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "entry.h"
#include "session.h"
#include "tools.h"
#include "gitguard.h"
#include "rpc.h"

void
rpcfeed(Rpc *r, const char *p, size_t n)
{
	(void)r;
	(void)p;
	(void)n;
}

int
rpcwatch(void *r)
{
	(void)r;
	return 0;
}

/* The first thing -r asks: bad usage, as an unknown flag. */
int
rpcnext(Rpc *r, Rpccmd *c)
{
	(void)r;
	(void)c;
	warn("-r: rpc mode is not in this build");
	exit(2);
}

int
rpcpending(const Rpc *r, int follow)
{
	(void)r;
	(void)follow;
	return 0;
}

char *
rpctake(Rpc *r, int follow)
{
	(void)r;
	(void)follow;
	return NULL;
}

void
rpcdone(Rpc *r, Rpccmd *c, const char *err)
{
	(void)r;
	(void)c;
	(void)err;
}

void
rpcfree(Rpc *r)
{
	(void)r;
}
