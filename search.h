/* See LICENSE file for copyright and license details. */
/* search.h: the tools that search a tree (search.c's): grep, find, ls */

int searchgrep(Toolenv *e, const Json *j, int args, Toolres *res);
int searchfind(Toolenv *e, const Json *j, int args, Toolres *res);
int searchls(Toolenv *e, const Json *j, int args, Toolres *res);
