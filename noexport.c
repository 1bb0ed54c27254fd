/* See LICENSE file for copyright and license details. */
/* noexport.c: export.c's stand-in in a build without -e's pages (make
 * tiny): -e and rpc's export say so and fail. */
#include <stddef.h>

#include "util.h"
#include "json.h"
#include "entry.h"
#include "session.h"
#include "export.h"

char *
exportdefault(const char *in)
{
	(void)in;
	return NULL;
}

int
exportsession(const char *in, const char *leaf, const char *out)
{
	(void)in;
	(void)leaf;
	(void)out;
	warn("export: not in this build");
	return -1;
}

int
exportcmd(const char *in, const char *out)
{
	(void)in;
	(void)out;
	warn("-e: export is not in this build");
	return 2;
}
