/* See LICENSE file for copyright and license details. */
/* undo.h: /undo: the files write and edit changed in the last turn, put
 * back as they were before it.  The Undo of a run is undo.c's: agent.c
 * sets its bounds and root, undo.c keeps the turn's record. */
#include <stddef.h>

typedef struct Undo {
	size_t max;		/* bytes of files kept in a turn (maxundo) */
	size_t maxedit;		/* what a call leaves is read up to 4 times
				 * this (config.h's maxedit) */
	const char *root;	/* names shown from here, or NULL */
	struct Undoturn *turn;	/* the record from undobegin to the next
				 * undobegin, undorun or undofree; with
				 * none, the tools keep nothing */
} Undo;

void undobegin(Undo *e);
int undobefore(Undo *e, const char *path);
void undoafter(Undo *e, int k, int rc);
void undobash(Undo *e);
char *undorun(Undo *e);
void undofree(Undo *e);
