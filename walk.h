/* See LICENSE file for copyright and license details. */
/* walk.h: the tree walk of grep, find and ls, and their globs */
#include <sys/stat.h>

typedef struct {
	char **v;		/* the alternatives of {a,b} spelt out */
	size_t n;
} Glob;

typedef int (*Walkfn)(void *arg, const char *path, const char *rel,
                      const struct stat *st);

int walkglobinit(Glob *gl, const char *tool, const char *g, Buf *out);
int walkglobmatch(const Glob *gl, const char *rel, const char *name);
void walkglobfree(Glob *gl);
char **walkdirnames(const char *path, size_t *n, int nogit,
                    int (*cmp)(const void *, const void *));
/* What a walk takes in of .gitignore files (each pattern of them is
 * matched against each path, and they come with the repository), and
 * when it stops. */
typedef struct {
	size_t ignorebytes;	/* bytes read of one .gitignore */
	int ignorelines;	/* its lines read */
	int maxrules;		/* patterns kept, of all the files in force */
	size_t rulebytes;	/* their bytes */
	int (*stop)(void *);	/* or NULL: nonzero, the walk stops */
	void *stoparg;
	/* or NULL: nonzero, the entry at path is left out, and what is
	 * beneath it (the read rules) */
	int (*skip)(void *arg, const char *path);
	void *skiparg;
} Walkopt;

void walktree(const char *root, Walkfn fn, void *arg, const Walkopt *o);
int walkroot(const char *path, struct stat *st, Buf *out);
