/* See LICENSE file for copyright and license details. */
/* nomcp.c: mcp.c's stand-in in a build without MCP (make tiny): servers
 * in config.h are said to be left out, once, and no tool of theirs is
 * offered. */
#include <stddef.h>

#include "util.h"
#include "json.h"
#include "sse.h"
#include "http.h"
#include "tools.h"
#include "proc.h"
#include "mcp.h"

Mcp *
mcpnew(const Mcpconf *c)
{
	if (c->servers[0].name)
		warn("mcpservers: MCP is not in this build: their tools are "
		     "not offered");
	return NULL;
}

/* Not called: there is no Mcp. */
int
mcptools(Mcp *m, const Tool **tools, int *gen)
{
	(void)m;
	*tools = NULL;
	*gen = 0;
	return 0;
}

const Mcpserver *
mcprow(const Mcp *m, int k)
{
	(void)m;
	(void)k;
	return NULL;
}

int
mcpcall(Mcp *m, const char *name, const Json *j, Buf *out, Buf *image)
{
	(void)m;
	(void)j;
	(void)image;
	bufaddf(out, "Tool %s: MCP is not in this build", name);
	return 1;
}

void
mcpfree(Mcp *m)
{
	(void)m;
}
