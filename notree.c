/* See LICENSE file for copyright and license details. */
/* notree.c: tree.c's stand-in in a build without the session's tree
 * (make tiny): /tree, /branch, /fork to an entry and /session say they
 * are not in this build; the branch goes on as it is. */
#include <stdio.h>

#include "util.h"
#include "json.h"
#include "entry.h"
#include "session.h"
#include "tree.h"

long
treefind(const Session *s, const char *prefix, Buf *why)
{
	(void)s;
	(void)prefix;
	bufadds(why, "the session's tree is not in this build");
	return -1;
}

int
treeshow(Session *s, FILE *f, size_t cols)
{
	(void)s;
	(void)f;
	(void)cols;
	warn("/tree is not in this build");
	return 0;
}

size_t
treeleaving(const Session *s, long to, const Entry ***path)
{
	(void)s;
	(void)to;
	*path = NULL;
	return 0;
}

int
treeuser(Session *s, long i, Buf *t)
{
	(void)s;
	(void)i;
	(void)t;
	return 0;
}

void
treemove(Session *s, long i, const Buf *summary, int *ioerr)
{
	(void)s;
	(void)i;
	(void)summary;
	(void)ioerr;
}

double
treeusage(Session *s, long long tok[4])
{
	(void)s;
	tok[0] = tok[1] = tok[2] = tok[3] = 0;
	return 0;
}

int
treesay(Session *s, FILE *f)
{
	(void)s;
	(void)f;
	warn("/session is not in this build");
	return 0;
}
