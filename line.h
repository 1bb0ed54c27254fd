/* See LICENSE file for copyright and license details. */
/* line.h: the line editor of line mode at a terminal, and one key read
 * raw.  The Line is its caller's; line.c writes only it and the
 * history file. */

typedef struct {
	char **hist;		/* the history, oldest first */
	size_t nhist, maxhist;
	char *path;		/* its file, or NULL: kept for the run only */
	int in, out;		/* the terminal: keys in, drawing out */
	const char *prompt;	/* ASCII: its width is its length */
	Buf text;		/* the line being edited */
	size_t pos;		/* the cursor, a byte offset in text */
	size_t off;		/* the first byte shown: a long line scrolls */
	size_t at;		/* the history entry shown; nhist: the draft */
	Buf draft;		/* the new line, while older ones are shown */
	Buf offer;		/* the next line starts as this text */
	int esc;		/* where in an escape sequence */
	char seq[16];		/* a CSI sequence's parameters */
	size_t nseq;
	int paste;		/* inside a bracketed paste */
	unsigned char ahead[256];	/* keys read past the line's end */
	size_t nahead, iahead;
} Line;

void lineopen(Line *l, int in, int out, size_t maxhist);
int lineread(Line *l, const char *prompt, Buf *b);
/* The next lineread starts with s[n] on the line, the cursor at its
 * end, to be edited or sent as it is. */
void lineoffer(Line *l, const char *s, size_t n);
void lineadd(Line *l, const char *s, size_t n);
void lineclose(Line *l);
int linekey(int fd, const char *ask, const char *keys);
