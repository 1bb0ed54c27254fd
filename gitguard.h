/* See LICENSE file for copyright and license details. */
/* gitguard.h: .git's config and hooks kept as they were at start */
#include <stddef.h>

typedef struct Gitguard Gitguard;

int gitinit(Toolenv *e, size_t maxbytes, int maxfiles, Buf *why);
int gitcheck(Toolenv *e);
void gitagain(Toolenv *e);
void gitnote(Toolenv *e, Buf *res);
void gitexit(Toolenv *e);
void gitfree(Toolenv *e);
