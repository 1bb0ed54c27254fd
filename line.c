/* See LICENSE file for copyright and license details. */
/* line.c: line mode's editor at a terminal (raw mode, the keys, the
 * history file under the state directory) and one key read raw, for
 * the approvals.  Our own: no readline, no linenoise. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "util.h"
#include "line.h"

enum { ENONE, EESC, ECSI, ESS3 };	/* Line's esc */
enum { KEOF, KLINE, KMORE, KSTOP };	/* what a key asks of lineread */

#define KEYCTRL(c) ((c) & 037)
#define ISCONT(c) (((unsigned char)(c) & 0xc0) == 0x80)

/* Raw mode on fd, the settings before saved: 0, or -1 (not a terminal).
 * Output processing stays, so that "\n" still goes to a line's start. */
static int
termraw(int fd, struct termios *save, int when)
{
	struct termios t;

	if (tcgetattr(fd, save) < 0)
		return -1;
	t = *save;
	t.c_iflag &= ~(BRKINT | ICRNL | INLCR | IGNCR | INPCK | ISTRIP | IXON);
	t.c_cflag |= CS8;
	t.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	while (tcsetattr(fd, when, &t) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static void
termrestore(int fd, const struct termios *save)
{
	while (tcsetattr(fd, TCSADRAIN, save) < 0 && errno == EINTR)
		;
}

/* Ask the question on terminal fd and read one key of keys, raw: Enter
 * is not needed, and what was typed before the question is dropped
 * (TCSAFLUSH, before it is shown), so that a stray key does not answer
 * it.  Other keys and escape sequences (an arrow) are
 * skipped.  The key, or -1 at an error, the end or a signal. */
int
linekey(int fd, const char *ask, const char *keys)
{
	struct termios save;
	unsigned char k[16];
	ssize_t n;

	if (termraw(fd, &save, TCSAFLUSH) < 0)
		return -1;
	writeall(fd, ask, strlen(ask));
	while ((n = read(fd, k, sizeof(k))) > 0)
		if ((n == 1 || k[0] != 033) && k[0] &&
		    strchr(keys, k[0]))
			break;
	termrestore(fd, &save);
	return n > 0 ? k[0] : -1;
}

/* Terminals draw these two columns wide (East Asian Wide and Full,
 * emoji).  A guess too wide only puts the cursor a column off; one too
 * narrow would wrap the line, so ranges are taken whole. */
static int
widecp(unsigned long c)
{
	return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0xa4cf) ||
	    (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
	    (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
	    (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1faff) ||
	    (c >= 0x20000 && c <= 0x3fffd);
}

/* The character at s (n bytes left): its length in *len, its width in
 * columns as drawn; drawn into o when o is not NULL.  A control
 * character shows as ^X, a broken sequence as '?'. */
static size_t
linechar(const char *s, size_t n, size_t *len, Buf *o)
{
	unsigned char c = *s;
	unsigned long cp;
	size_t k = utf8seq(s, n), i;

	*len = k ? k : 1;
	if (c < 0x20 || c == 0x7f) {
		if (o)
			bufaddf(o, "^%c", c ^ 0x40);
		return 2;
	}
	if (!k) {
		if (o)
			bufaddc(o, '?');
		return 1;
	}
	if (o)
		bufadd(o, s, k);
	cp = k == 1 ? c : c & (0x7f >> k);
	for (i = 1; i < k; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return widecp(cp) ? 2 : 1;
}

/* Columns of the text from byte a to byte b. */
static size_t
linespan(const Line *l, size_t a, size_t b)
{
	size_t w = 0, k;

	while (a < b) {
		w += linechar(l->text.p + a, l->text.len - a, &k, NULL);
		a += k;
	}
	return w;
}

static size_t
linecols(int fd)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 10)
		return ws.ws_col;
	return termcols();
}

/* Draw the line again, whole, on the terminal's current row.  It never
 * wraps: a line wider than the terminal scrolls sideways so that the
 * cursor stays in view, and the last column stays free. */
static void
linedraw(Line *l)
{
	Buf o = { 0 };
	size_t pc = strlen(l->prompt), cols = linecols(l->out), w, x, k, i;

	w = cols > pc + 4 ? cols - pc - 1 : 3;
	if (l->pos < l->off)
		l->off = l->pos;
	for (x = linespan(l, l->off, l->pos); x >= w; l->off += k)
		x -= linechar(l->text.p + l->off, l->text.len - l->off, &k,
		              NULL);
	bufaddf(&o, "\r%s", l->prompt);
	for (i = l->off, x = 0; i < l->text.len; i += k) {
		x += linechar(l->text.p + i, l->text.len - i, &k, NULL);
		if (x > w)
			break;
		linechar(l->text.p + i, l->text.len - i, &k, &o);
	}
	bufadds(&o, "\033[K\r");
	if ((x = pc + linespan(l, l->off, l->pos)))	/* the cursor */
		bufaddf(&o, "\033[%zuC", x);
	writeall(l->out, o.p, o.len);
	buffree(&o);
}

static void
lineins(Line *l, int c)
{
	bufaddc(&l->text, c);
	memmove(l->text.p + l->pos + 1, l->text.p + l->pos,
	        l->text.len - 1 - l->pos);
	l->text.p[l->pos++] = c;
}

/* Take out the bytes from a to b. */
static void
linedel(Line *l, size_t a, size_t b)
{
	memmove(l->text.p + a, l->text.p + b, l->text.len - b);
	l->text.len -= b - a;
	l->text.p[l->text.len] = '\0';
	if (l->pos > b)
		l->pos -= b - a;
	else if (l->pos > a)
		l->pos = a;
}

/* The start of the character before byte i, or after it. */
static size_t
lineprev(const Line *l, size_t i)
{
	while (i > 0 && ISCONT(l->text.p[--i]))
		;
	return i;
}

static size_t
linenext(const Line *l, size_t i)
{
	while (i < l->text.len && ISCONT(l->text.p[++i]))
		;
	return i;
}

/* A word is letters and digits, and any character past ASCII; with
 * blank, only spaces and tabs end it (Ctrl-W's word). */
static int
wordbyte(int c, int blank)
{
	if (blank)
		return c != ' ' && c != '\t';
	return (c >= '0' && c <= '9') || ((c | 040) >= 'a' &&
	    (c | 040) <= 'z') || c & 0x80;
}

static size_t
wordleft(const Line *l, size_t i, int blank)
{
	while (i > 0 && !wordbyte((unsigned char)l->text.p[i - 1], blank))
		i--;
	while (i > 0 && wordbyte((unsigned char)l->text.p[i - 1], blank))
		i--;
	return i;
}

static size_t
wordright(const Line *l, size_t i)
{
	while (i < l->text.len && !wordbyte((unsigned char)l->text.p[i], 0))
		i++;
	while (i < l->text.len && wordbyte((unsigned char)l->text.p[i], 0))
		i++;
	return i;
}

/* Show history entry at (nhist: the draft), the cursor at its end. */
static void
lineshow(Line *l, size_t at)
{
	if (l->at == l->nhist) {
		bufreset(&l->draft);
		bufadd(&l->draft, l->text.p, l->text.len);
	}
	l->at = at;
	bufreset(&l->text);
	if (at == l->nhist)
		bufadd(&l->text, l->draft.p, l->draft.len);
	else
		bufadds(&l->text, l->hist[at]);
	l->pos = l->text.len;
	l->off = 0;
}

/* The end of a CSI or SS3 sequence, final byte c, parameters in seq:
 * the arrows (with Ctrl or Alt: a word), Home, End, Delete, and the
 * brackets of a paste (xterm's bracketed paste mode, 2004). */
static void
lineseq(Line *l, int c)
{
	const char *p = l->seq;
	int mod = strstr(p, ";5") || strstr(p, ";3");

	if (c == 'C')
		l->pos = mod ? wordright(l, l->pos) : linenext(l, l->pos);
	else if (c == 'D')
		l->pos = mod ? wordleft(l, l->pos, 0) : lineprev(l, l->pos);
	else if (c == 'A' && l->at > 0)
		lineshow(l, l->at - 1);
	else if (c == 'B' && l->at < l->nhist)
		lineshow(l, l->at + 1);
	else if (c == 'H' || (c == '~' && (!strcmp(p, "1") ||
	    !strcmp(p, "7"))))
		l->pos = 0;
	else if (c == 'F' || (c == '~' && (!strcmp(p, "4") ||
	    !strcmp(p, "8"))))
		l->pos = l->text.len;
	else if (c == '~' && !strcmp(p, "3") && l->pos < l->text.len)
		linedel(l, l->pos, linenext(l, l->pos));
	else if (c == '~' && !strcmp(p, "200"))
		l->paste = 1;
	else if (c == '~' && !strcmp(p, "201"))
		l->paste = 0;
}

/* A byte after ESC, or inside a sequence: KMORE. */
static int
lineesc(Line *l, int c)
{
	if (l->esc == ECSI && c >= 0x20 && c <= 0x3f) {
		if (l->nseq < sizeof(l->seq) - 1)
			l->seq[l->nseq++] = c;
		return KMORE;
	}
	if (l->esc == ECSI || l->esc == ESS3) {
		l->esc = ENONE;
		l->seq[l->nseq] = '\0';
		lineseq(l, c);
		return KMORE;
	}
	l->esc = ENONE;
	l->nseq = 0;
	if (c == '[')
		l->esc = ECSI;
	else if (c == 'O')
		l->esc = ESS3;
	else if (c == 'b')
		l->pos = wordleft(l, l->pos, 0);
	else if (c == 'f')
		l->pos = wordright(l, l->pos);
	else if (c == 0x7f || c == KEYCTRL('H'))	/* Alt-Backspace */
		linedel(l, wordleft(l, l->pos, 0), l->pos);
	return KMORE;
}

/* A control key, outside a paste. */
static int
linectrl(Line *l, int c)
{
	switch (c) {
	case '\r': case '\n':
		return KLINE;
	case KEYCTRL('D'):
		if (!l->text.len)
			return KEOF;
		if (l->pos < l->text.len)
			linedel(l, l->pos, linenext(l, l->pos));
		break;
	case KEYCTRL('C'):	/* the line goes, the prompt stays */
		writeall(l->out, "^C\r\n", 4);
		bufreset(&l->text);
		l->pos = l->off = 0;
		l->at = l->nhist;
		break;
	case KEYCTRL('Z'):
		return KSTOP;
	case KEYCTRL('A'): l->pos = 0; break;
	case KEYCTRL('E'): l->pos = l->text.len; break;
	case KEYCTRL('B'): l->pos = lineprev(l, l->pos); break;
	case KEYCTRL('F'): l->pos = linenext(l, l->pos); break;
	case KEYCTRL('P'): lineseq(l, 'A'); break;
	case KEYCTRL('N'): lineseq(l, 'B'); break;
	case KEYCTRL('U'): linedel(l, 0, l->pos); break;
	case KEYCTRL('K'): linedel(l, l->pos, l->text.len); break;
	case KEYCTRL('W'): linedel(l, wordleft(l, l->pos, 1), l->pos); break;
	case KEYCTRL('H'): case 0x7f:
		linedel(l, lineprev(l, l->pos), l->pos);
		break;
	case KEYCTRL('I'):
		lineins(l, c);
		break;
	}
	return KMORE;
}

/* One byte of input: what it asks (KMORE: go on). */
static int
linebyte(Line *l, int c)
{
	if (l->esc != ENONE)
		return lineesc(l, c);
	if (c == 033) {
		l->esc = EESC;
		return KMORE;
	}
	if (l->paste && (c == '\r' || c == '\n'))
		c = '\n';	/* a pasted line end stays in the line */
	else if (c < 0x20 || c == 0x7f)
		return l->paste ? KMORE : linectrl(l, c);
	lineins(l, c);
	return KMORE;
}

/* Read keys until the line ends: KLINE, KEOF, or -1 with errno.
 * Ctrl-Z stops us with the terminal as it was, and draws again on
 * SIGCONT. */
static int
linekeys(Line *l, struct termios *save)
{
	ssize_t n;
	int r;

	for (;;) {
		if (l->iahead == l->nahead) {
			linedraw(l);
			n = read(l->in, l->ahead, sizeof(l->ahead));
			if (n <= 0)
				return n == 0 ? KEOF : -1;
			l->nahead = n;
			l->iahead = 0;
		}
		r = linebyte(l, l->ahead[l->iahead++]);
		if (r == KLINE || r == KEOF)
			return r;
		if (r == KSTOP) {
			termrestore(l->in, save);
			writeall(l->out, "\r\n", 2);
			raise(SIGTSTP);
			if (termraw(l->in, save, TCSADRAIN) < 0)
				return -1;
		}
	}
}

/* Read one line at the terminal with prompt: 1 and the line in b (no
 * newline), 0 at the end (Ctrl-D on an empty line), -1 with errno (EINTR
 * for a signal). */
int
lineread(Line *l, const char *prompt, Buf *b)
{
	struct termios save;
	int r, e;

	if (termraw(l->in, &save, TCSADRAIN) < 0)
		return -1;
	writeall(l->out, "\033[?2004h", 8);
	l->prompt = prompt;
	bufreset(&l->text);
	l->pos = l->off = l->paste = l->nseq = 0;
	if (l->offer.len) {
		bufadd(&l->text, l->offer.p, l->offer.len);
		bufreset(&l->offer);
		l->pos = l->text.len;
	}
	l->esc = ENONE;
	l->at = l->nhist;
	r = linekeys(l, &save);
	e = errno;
	if (r == KLINE) {
		l->pos = l->text.len;
		linedraw(l);
	}
	writeall(l->out, "\033[?2004l", 8);
	if (r >= 0)
		writeall(l->out, "\r\n", 2);
	termrestore(l->in, &save);
	bufreset(b);
	if (r == KLINE)
		bufadd(b, l->text.p ? l->text.p : "", l->text.len);
	errno = e;
	return r == KLINE ? 1 : r == KEOF ? 0 : -1;
}

void
lineoffer(Line *l, const char *s, size_t n)
{
	bufreset(&l->offer);
	bufadd(&l->offer, s, n);
}

/* The history file: $XDG_STATE_HOME/agent/history, else under
 * ~/.local/state; NULL when neither is set. */
static char *
histpath(void)
{
	Buf b = { 0 };
	const char *v;

	if ((v = getenv("XDG_STATE_HOME")) && *v)
		bufaddf(&b, "%s/agent/history", v);
	else if ((v = getenv("HOME")) && *v)
		bufaddf(&b, "%s/.local/state/agent/history", v);
	else
		return NULL;
	return bufdetach(&b);
}

/* An entry as one line of the file: backslash and line ends escaped. */
static void
histescape(Buf *o, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\\')
			bufadds(o, "\\\\");
		else if (s[i] == '\n')
			bufadds(o, "\\n");
		else if (s[i] == '\r')
			bufadds(o, "\\r");
		else
			bufaddc(o, s[i]);
	bufaddc(o, '\n');
}

/* An entry into the history in memory, the oldest dropped past
 * maxhist. */
static void
histpush(Line *l, const char *s, size_t n)
{
	if (!l->maxhist)
		return;
	if (l->nhist == l->maxhist) {
		free(l->hist[0]);
		memmove(l->hist, l->hist + 1, --l->nhist * sizeof(*l->hist));
	} else {
		l->hist = xrealloc(l->hist, (l->nhist + 1) * sizeof(*l->hist));
	}
	l->hist[l->nhist++] = xstrndup(s, n);
}

/* The history file written again, whole, through a temporary file. */
static void
histrewrite(const char *path, const Buf *all)
{
	Buf tmp = { 0 };
	int fd;

	bufaddf(&tmp, "%s.%ld", path, (long)getpid());
	fd = open(tmp.p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || writeall(fd, all->p, all->len) < 0 || close(fd) < 0 ||
	    rename(tmp.p, path) < 0) {
		warn("%s: the history is not trimmed:", path);
		unlink(tmp.p);
	}
	buffree(&tmp);
}

/* The file's lines unescaped into the history.  The file only grows
 * (whole lines appended, so that two runs at once lose nothing): past
 * twice maxhist lines it is written again with the last maxhist. */
static void
histload(Line *l, const char *p, size_t n)
{
	Buf e = { 0 }, all = { 0 };
	size_t i, lines = 0;

	for (i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n && p[i + 1] != '\n') {
			i++;
			bufaddc(&e, p[i] == 'n' ? '\n' : p[i] == 'r' ? '\r' :
			        p[i]);
		} else if (p[i] != '\n') {
			bufaddc(&e, p[i]);
		} else {
			if (e.len)
				histpush(l, e.p, e.len);
			bufreset(&e);
			lines++;
		}
	}
	if (lines > 2 * l->maxhist && l->path) {
		for (i = 0; i < l->nhist; i++)
			histescape(&all, l->hist[i], strlen(l->hist[i]));
		histrewrite(l->path, &all);
	}
	buffree(&e);
	buffree(&all);
}

/* The editor on terminal descriptors in and out, with the history of
 * the file, if there is one, or that of this run alone. */
void
lineopen(Line *l, int in, int out, size_t maxhist)
{
	Buf b = { 0 };
	char *dir;
	int fd;

	memset(l, 0, sizeof(*l));
	l->in = in;
	l->out = out;
	l->maxhist = maxhist;
	if (!maxhist || !(l->path = histpath()))
		return;
	dir = dirof(l->path);
	if (mkdirs(dir, 0700, NULL) < 0) {
		warn("%s: no history kept:", dir);
		free(l->path);
		l->path = NULL;
	} else if ((fd = open(l->path, O_RDONLY | O_CLOEXEC)) >= 0) {
		if (readall(fd, &b, 64 << 20) == 0)
			histload(l, b.p, b.len);
		close(fd);
	}
	free(dir);
	buffree(&b);
}

/* A line read goes into the history, and at the file's end in one
 * write(2) of whole lines.  An empty one, or the last again, does
 * not. */
void
lineadd(Line *l, const char *s, size_t n)
{
	Buf e = { 0 };
	int fd;

	if (!n || (l->nhist && strlen(l->hist[l->nhist - 1]) == n &&
	    !memcmp(l->hist[l->nhist - 1], s, n)))
		return;
	histpush(l, s, n);
	if (!l->path)
		return;
	histescape(&e, s, n);
	fd = open(l->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0 || writeall(fd, e.p, e.len) < 0 || close(fd) < 0) {
		warn("%s: the history is not saved:", l->path);
		free(l->path);
		l->path = NULL;	/* said once */
	}
	buffree(&e);
}

void
lineclose(Line *l)
{
	size_t i;

	for (i = 0; i < l->nhist; i++)
		free(l->hist[i]);
	free(l->hist);
	free(l->path);
	buffree(&l->text);
	buffree(&l->draft);
	buffree(&l->offer);
}
