/* See LICENSE file for copyright and license details. */
/* sessdir.h: where sessions live, and the latest of a directory */
char *sessbase(void);
char *sessdir(const char *base, const char *cwd);
char *sesslatest(const char *dir, const char *cwd);
