/* See LICENSE file for copyright and license details. */
/* undo.h: /undo: the files write and edit changed in the last turn, put
 * back as they were before it */
#include <stddef.h>

/* The record of a turn, held by the Toolenv (its undo) from undobegin
 * to the next undobegin, undorun or undofree, within its limits'
 * maxundo; with none, the tools keep nothing. */
void undobegin(Toolenv *e);
int undobefore(Toolenv *e, const char *path);
void undoafter(Toolenv *e, int k, int rc);
void undobash(Toolenv *e);
char *undorun(Toolenv *e);
void undofree(Toolenv *e);
