/* See LICENSE file for copyright and license details. */
/* noundo.c: undo.c's stand-in in a build without /undo (make tiny): the
 * tools keep nothing of the files they change, and /undo says it is not
 * in this build. */
#include "util.h"
#include "undo.h"

void
undobegin(Undo *e)
{
	(void)e;
}

int
undobefore(Undo *e, const char *path)
{
	(void)e;
	(void)path;
	return -1;
}

void
undoafter(Undo *e, int k, int rc)
{
	(void)e;
	(void)k;
	(void)rc;
}

void
undobash(Undo *e)
{
	(void)e;
}

char *
undorun(Undo *e)
{
	(void)e;
	warn("/undo is not in this build");
	return NULL;
}

void
undofree(Undo *e)
{
	(void)e;
}
