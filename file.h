/* See LICENSE file for copyright and license details. */
/* file.h: files as the tools read and replace them */
#include <signal.h>
#include <sys/stat.h>
#include <stddef.h>

enum {
	FILECHUNK = 65536,	/* bytes read from a file at a time */
	FILESNIFF = 8192,	/* bytes looked at to tell text from binary */
};

/* A file read in chunks: the read tool never holds more than it returns. */
typedef struct {
	int fd;
	int eof;
	volatile sig_atomic_t *intr;	/* or NULL: set, reading stops */
	size_t pos, len;
	int nl;			/* the last line read ended in a newline */
	char buf[FILECHUNK];
} Filerd;

int fileopen(const char *path, Buf *out);
Filerd *filereader(int fd, volatile sig_atomic_t *intr);
int filemore(Filerd *r);
int fileline(Filerd *r, Buf *line, size_t cap, size_t *n);
int filebinary(const char *p, size_t n);
int filemkparents(const char *path, Buf *out);
int filereplace(const char *path, const char *p, size_t n, Buf *out);
int filereplaceat(int dir, const char *name, const struct stat *old,
                  const char *p, size_t n);
