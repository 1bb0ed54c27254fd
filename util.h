/* See LICENSE file for copyright and license details. */
/* util.h: die and warn, checked allocation, Buf, UTF-8, time, files, paths */
#include <stddef.h>
#include <sys/types.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

typedef struct {
	char *p;	/* always NUL-terminated when cap > 0 */
	size_t len, cap;
} Buf;

void die(const char *fmt, ...);
void diecfg(const char *fmt, ...);
void warn(const char *fmt, ...);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void bufgrow(Buf *b, size_t n);
void bufadd(Buf *b, const void *p, size_t n);
void bufaddc(Buf *b, int c);
void bufadds(Buf *b, const char *s);
void bufaddf(Buf *b, const char *fmt, ...);
void bufaddsize(Buf *b, unsigned long long n);
const char *bstr(const Buf *b);
void bufreset(Buf *b);
void buffree(Buf *b);
char *bufdetach(Buf *b);
size_t utf8valid(const char *s, size_t n);
size_t utf8seq(const char *s, size_t n);
size_t utf8back(const char *s, size_t n);
void utf8repair(Buf *b, const char *s, size_t n);
void safetext(Buf *b, const char *s, size_t n, int oneline);
void textcut(Buf *b, size_t cols);
size_t termcols(void);
int flagnext(char **argv, const char *spec, int *ind, int *pos,
             const char **arg);
long long nowms(void);
long long monoms(void);
int hexval(int c);
int wordin(const char *s, const char *list);
const char *memfind(const char *p, size_t n, const char *s);
int writeall(int fd, const char *p, size_t n);
void b64enc(Buf *b, const void *p, size_t n);
int b64val(int c);
int b64dec(Buf *b, const char *s, size_t n);
long tokensof(size_t bytes);
int readall(int fd, Buf *b, size_t max);
char *dirof(const char *path);
int mkdirs(const char *dir, int mode, char **bad);
int syncdir(const char *dir);
int rmtree(const char *dir);
int rmtreeat(int dir, const char *name);
int fdgetline(int fd, Buf *b, size_t max);
char *fdline(int fd, size_t max);
int samefile(int fd1, int fd2);
int pathmatch(const char *pattern, const char *path);
int namematch(const char *pat, const char *name);
void globprep(Buf *b, const char *pat);
void utcdate(long long sec, int f[6]);
void randbytes(unsigned char *p, size_t n);
void uuid(char *u);
void isonow(char *t);
int trustedopen(const char *path, const char *tree);
int lacksnewline(int fd, off_t size);
char *modelpath(const char *p);
char *abspath(const char *path);
int linktarget(const char *path, char **real);

/* A piece of bytes that lives elsewhere (a request body in pieces). */
typedef struct {
	const char *p;
	size_t len;
} Span;
