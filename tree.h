/* See LICENSE file for copyright and license details. */
/* tree.h: the session as a tree */
#include <stdio.h>

/* The index of the entry whose id is id, or begins with it and no other
 * does; -1 with why (the candidates, or that there are none). */
long treefind(const Session *s, const char *prefix, Buf *why);
/* Draw the tree to f, a line a message (compactions, branch summaries
 * and custom messages too), each branch one step in, the leaf marked *,
 * lines cut to cols.  0. */
int treeshow(Session *s, FILE *f, size_t cols);
/* The entries of the branch to the leaf that are not on the way to entry
 * to: the part a move to it leaves, in order; path to be freed. */
size_t treeleaving(const Session *s, long to, const Entry ***path);
/* Whether entry i is a user's message: 1 with its text in t, else 0
 * (t empty). */
int treeuser(Session *s, long i, Buf *t);
/* Move the leaf to entry i (-1: before the first); with a summary of the branch left, pi's
 * branch_summary entry is appended there (*ioerr set if it is not
 * written). */
void treemove(Session *s, long i, const Buf *summary, int *ioerr);
/* The usage of every answer in the file, every branch's, as pi stores
 * it: tokens (input, output, cache read, cache write) summed into tok,
 * the cost in dollars returned. */
double treeusage(Session *s, long long tok[4]);
/* /session: the file, and the tokens and cost of every answer in it, to
 * f.  0. */
int treesay(Session *s, FILE *f);
