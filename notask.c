/* See LICENSE file for copyright and license details. */
/* notask.c: task.c's stand-in in a build without sub-agents (make tiny):
 * a task call, if config.h still offers the tool, answers an error. */
#include <stdlib.h>

#include "util.h"
#include "json.h"
#include "http.h"
#include "wire.h"
#include "tools.h"
#include "proc.h"
#include "entry.h"
#include "session.h"
#include "events.h"
#include "guard.h"
#include "task.h"

char *
tasktools(const Task *t, const Tool *offer, int n, const char *off)
{
	(void)t;
	(void)offer;
	(void)n;
	(void)off;
	return NULL;
}

/* A Taskrun is never looked into: any non-NULL pointer serves. */
Taskrun *
tasknew(int n)
{
	(void)n;
	return xmalloc(1);
}

int
taskprep(Taskrun *r, int k, const Json *j, int args, Buf *why)
{
	(void)r;
	(void)k;
	(void)j;
	(void)args;
	bufadds(why, "Sub-agents (task) are not in this build");
	return -1;
}

void
taskrunall(Task *t, Toolenv *e, Taskrun *r, int n)
{
	(void)t;
	(void)e;
	(void)r;
	(void)n;
}

int
taskresult(Task *t, const Toolenv *e, Taskrun *r, int k, Toolres *res)
{
	(void)t;
	(void)e;
	(void)r;
	(void)k;
	bufadds(&res->text, "Sub-agents (task) are not in this build");
	return 1;
}

void
taskfree(Taskrun *r, int n)
{
	(void)n;
	free(r);
}

int
taskcall(Toolenv *e, const Json *j, int args, Toolres *res)
{
	(void)e;
	(void)j;
	(void)args;
	bufadds(&res->text, "Sub-agents (task) are not in this build");
	return 1;
}
