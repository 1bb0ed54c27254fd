/* See LICENSE file for copyright and license details. */
/* regex.h: grep's POSIX extended regular expressions over bytes */
#include <stddef.h>

typedef struct Reinst Reinst;
typedef struct {
	Reinst *prog;		/* the NFA, n instructions */
	unsigned char (*set)[32];	/* the byte sets it matches */
	int n, nset;
	int *work;		/* rematch's thread lists: one match at a time */
	unsigned char first[32];	/* the bytes a match starts with */
	int skip;		/* whether those are all it can start with */
} Regex;

/* recomp: 0, or -1 with why in err; rematch: whether a match lies in the
 * n bytes at s (any byte but NUL), or -1 once stop(arg) (if not NULL),
 * asked every few KB, says to stop. */
int recomp(Regex *r, const char *pat, int icase, char *err, size_t errlen);
int rematch(const Regex *r, const char *s, size_t n, int (*stop)(void *),
            void *arg);
void refree(Regex *r);
