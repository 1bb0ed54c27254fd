/* See LICENSE file for copyright and license details. */
/* norecord.c: record.c's stand-in in a build without record and replay
 * (make tiny): AGENT_RECORD or AGENT_REPLAY set is a config error. */
#include <string.h>

#include "util.h"
#include "json.h"
#include "http.h"
#include "record.h"

int
recopen(Rec *r, const char *record, const char *replay, const char *key)
{
	memset(r, 0, sizeof(*r));
	r->out = r->in = -1;
	r->key = key;
	if ((record && *record) || (replay && *replay)) {
		warn("AGENT_RECORD, AGENT_REPLAY: not in this build");
		return -1;
	}
	return 0;
}

int
recdo(Rec *r, Httpclient *c, Http *h)
{
	(void)r;
	return httpdo(c, h);
}

void
recclose(Rec *r)
{
	(void)r;
}
