/* See LICENSE file for copyright and license details. */
/* noserve.c: serve.c's stand-in in a build without -r (make tiny): -r
 * says so and exits 2 before reading a command. */
#include <stdlib.h>

#include "util.h"
#include "json.h"
#include "sse.h"
#include "eventstream.h"
#include "sigv4.h"
#include "http.h"
#include "record.h"
#include "gauth.h"
#include "wire.h"
#include "entry.h"
#include "session.h"
#include "sessdir.h"
#include "tree.h"
#include "tools.h"
#include "undo.h"
#include "sandbox.h"
#include "proc.h"
#include "gitguard.h"
#include "guard.h"
#include "events.h"
#include "ask.h"
#include "context.h"
#include "rpc.h"
#include "export.h"
#include "prompt.h"
#include "mcp.h"
#include "call.h"
#include "task.h"
#include "budget.h"
#include "schema.h"
#include "agent.h"

int
servemode(Agent *a, int autocompact)
{
	(void)a;
	(void)autocompact;
	warn("-r: rpc mode is not in this build");
	exit(2);
}
