/* See LICENSE file for copyright and license details. */
/* mcp.h: MCP servers' tools: started when first offered, called with
 * JSON-RPC 2.0 over a child's stdin and stdout, or streamable HTTP */
#include <stddef.h>

typedef struct {
	const char *name;	/* NULL ends the table */
	const char *where;	/* a command line (/bin/sh -c), or an
				 * http:// or https:// URL */
	const char *header;	/* a URL's header, to which the value of */
	const char *env;	/* this variable is added; or NULL */
	int readonly;		/* 1: its tools only read: offered under
				 * profiles that cannot write */
} Mcpserver;

/* config.h's, for the servers */
typedef struct {
	const Mcpserver *servers;
	int calltimeout;	/* seconds a tools/call may take */
	int listtimeout;	/* seconds to start, initialize and list */
	size_t maxmsg;		/* bytes of one message from a server */
	const char *const *cafiles;
	int conntimeout;	/* seconds to connect */
	const struct Httpproxy *proxy;	/* as read at start */
	int quiet;		/* no trace on stderr */
	int *traceopen;		/* the trace's (events.h's): a call's line
				 * is open; a line of ours ends it, set 2 */
	Toolenv *tenv;		/* the tools' environment, for stdio
				 * servers, and SIGINT's flag */
} Mcpconf;

typedef struct Mcp Mcp;

Mcp *mcpnew(const Mcpconf *c);
int mcptools(Mcp *m, const Tool **tools, int *gen);
const Mcpserver *mcprow(const Mcp *m, int k);
int mcpcall(Mcp *m, const char *name, const Json *j, Buf *out, Buf *image);
int mcpresult(const char *s, size_t n, Buf *out, Buf *image,
              size_t maximage);
int mcpreply(const char *ctype, const char *p, size_t n, size_t step,
             long id, Buf *res, Buf *asks);
void mcpfree(Mcp *m);
