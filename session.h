/* See LICENSE file for copyright and license details. */
/* session.h: the JSONL session file, pi's format version 3 */
#include <sys/types.h>
#include <time.h>

/* Lines of a session file mapped read only, as the file has them: a
 * context's messages lie there in place (sesscontext, sessmessage). */
typedef struct {
	char *p;		/* page-aligned, or NULL: none */
	size_t len;
	size_t kept;		/* from here on its pages may be held */
	off_t off;		/* where p is in the file */
} Sessmap;

typedef struct Session {
	char *path;		/* NULL: in memory only (-n) */
	int fd;			/* open O_APPEND once the file exists, or -1 */
	int oldfd;		/* the file loaded, when path came to name
				 * another: its entries' lines are read from
				 * it; or -1 */
	char *head;		/* the header line */
	char *cwd;		/* from the header */
	Entry *e;		/* every entry, in file order */
	size_t n, cap;
	const char *leaf;	/* id of the current leaf (an e[].id), or NULL */
	size_t saved;		/* e[0..saved) are in the file: a failed
				 * append is retried by the next one */
	Sessmap map;		/* the context's lines, mapped at once */
	off_t end;		/* where the lines indexed from the file
				 * end: cut shorter, the map loses them */
	struct timespec seenat;	/* the file's change time and size */
	off_t seensize;		/* when we last loaded or appended */
	int foreign;		/* another hand changed it since */
	size_t *ids;		/* the entries by id: a hash table of
				 * indexes + 1, 0 a free slot */
	size_t nids;		/* its slots, a power of two, or 0 */
	unsigned long long seed;	/* its hash's, drawn at random */
} Session;

int sessparse(Session *s, const char *text, size_t len, const char *name);
int sessread(Session *s, const char *path);	/* read only, in memory */
int sessreadall(Session *s, const char *path);
int sessreadat(Session *s, const char *path, const char *leaf);
int sessload(Session *s, const char *path);
int sessnew(Session *s, const char *dir, const char *cwd);
/* A new session holding the branch of from to entry at (NULL: its
 * leaf; the id of none: nothing), its header naming frompath as its
 * parent; made in dir, or in memory without.  0, or -1. */
int sessfork(Session *s, Session *from, const char *at,
             const char *frompath, const char *dir, const char *cwd);
int sessappend(Session *s, const char *type, const char *fields);
int sesssync(Session *s);
size_t sessbranch(const Session *s, const Entry ***path);
size_t sesscontext(Session *s, const Entry ***path);
void sessdone(Session *s, const Entry **path);
char *sessmessage(Session *s, const Entry *e, int *inmap, size_t *len);
void sessmap(Session *s, Sessmap *to);
void sessmapdrop(Sessmap *m, const char *upto);
void sessmapfree(Sessmap *m);
int sessshort(const Session *s);
int sessrewritten(Session *s, const Sessmap *m);
void sesseach(Session *s, const char *type,
              void (*fn)(const Entry *, void *), void *arg);
long sessfind(const Session *s, const char *id);
char *sessline(Session *s, size_t i);
int sessmove(Session *s, const char *id);	/* NULL: before the first */
void sessfree(Session *s);
