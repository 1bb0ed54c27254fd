/* See LICENSE file for copyright and license details. */
/* call.h: the tools offered to the model, and a call of one run under
 * the guard: config.h's tools, then MCP servers' */

typedef struct {
	const Tool *tools;	/* config.h's table */
	int ntools;
	char **desc, **schema;	/* by its row: the texts, numbers filled in */
	Tool *offer;		/* offered: config.h's first, nfixed of */
	int noffer, nfixed;	/* them, then the MCP servers' */
	Wiretool *wire;		/* the offered as the wires take them
				 * (callwire) */
	int *always;		/* by row of tools[], then of MCP's tools:
				 * 'a' was answered */
	int yes;		/* -y: do not ask */
	int color;		/* the question and what it shows */
	Guard *guard;
	Events *ev;
	Toolenv *tenv;
	struct Mcp *mcp;	/* or NULL: no servers */
	int mcpgen;		/* of the MCP tools offered */
	int nomcp;		/* -t named the tools: no MCP's */
	int showlines;		/* lines of a change shown before it is
				 * allowed: its first and last so many */
	size_t showbytes;	/* bytes of an MCP call's arguments shown */
	Buf withheld;		/* servers whose tools the profile keeps
				 * off, said: comma-separated */
} Calls;

int callrow(const Calls *c, const char *name);
int calloffer(Calls *c, const char *list, const char *off);
void callmcp(Calls *c);
const Wiretool *callwire(Calls *c, int *n);
int callrun(Calls *c, Wirecall *w, int n, char **msg, Tooluse *use);
void callfree(Calls *c);
