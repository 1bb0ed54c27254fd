/* See LICENSE file for copyright and license details. */
/* nogauth.c: gauth.c's stand-in in a build without Google Cloud's rows
 * (make tiny): vertex and vertex-gemini, asked for, say they are not in
 * this build and exit 2, as a config error, before any request. */
#include <stdlib.h>

#include "util.h"
#include "json.h"
#include "http.h"
#include "gauth.h"

int
gauthload(Gauth *g, const char *path, Buf *err)
{
	(void)g;
	(void)path;
	bufadds(err, "Google Cloud's rows are not in this build");
	return -1;
}

const char *
gauthtoken(Gauth *g, Httpclient *c, Buf *err)
{
	(void)g;
	(void)c;
	bufadds(err, "Google Cloud's rows are not in this build");
	return NULL;
}

/* The URL of a Google Cloud row: the first thing its setup asks. */
int
gauthurl(Buf *out, const char *tmpl, const char *project,
         const char *location)
{
	(void)out;
	(void)tmpl;
	(void)project;
	(void)location;
	warn("Google Cloud's rows (vertex, vertex-gemini) are not in this "
	     "build");
	exit(2);
}

void
gauthfree(Gauth *g)
{
	(void)g;
}
