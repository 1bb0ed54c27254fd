/* See LICENSE file for copyright and license details. */
/* sessdir.h: where sessions live, the latest of a directory, and the
 * list of them (-l) */
#include <stddef.h>
#include <stdio.h>

char *sessdirfor(const char *base, const char *cwd);
char *sessdirlatest(const char *dir, const char *cwd);
/* -l: the sessions of the working directory to f, newest first, a line
 * each: its id's start, when it was last written (UTC), its entries, its
 * name in brackets (a task's: "task N of ID"), its first prompt; cut to
 * cols.  How many; none is said on stderr. */
size_t sessdirshow(FILE *f, size_t cols);
/* The session the flags name: mode 'c' the latest of the working
 * directory, 's' file (a path, or the start of an id; a new session if
 * there is none such), 'f' a new one holding a copy of file's branch, 0
 * a new one; without save (-n) in memory, the file named only read.
 * 0, or the exit status, said why. */
int sessdiropen(Session *s, int mode, const char *file, int save);
/* A session beside cur (in its file's directory, or in memory as cur
 * is), in the working directory: a new one, or with fork one holding
 * cur's path to entry at (sessfork's).  0, or -1. */
int sessdirnext(Session *s, Session *cur, int fork, const char *at);
