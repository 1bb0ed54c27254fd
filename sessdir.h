/* See LICENSE file for copyright and license details. */
/* sessdir.h: where sessions live, and the latest of a directory */
char *sessdirbase(void);
char *sessdirfor(const char *base, const char *cwd);
char *sessdirlatest(const char *dir, const char *cwd);
