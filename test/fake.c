/* See LICENSE file for copyright and license details. */
/* fake.c: a scripted OpenAI-compatible provider for the end-to-end tests. */
/*
 * usage: fake [-xCkBKP] [-p portfile] [-r dir] [-b bytes] [-d ms]
 *             [-i ms] [-f length|chunked|close] script ...
 *
 * Listens on 127.0.0.1 at a port the kernel picks, writes the port number to
 * portfile (temp file + rename, so a test may poll for it) or to stdout, and
 * serves one connection at a time, HTTP/1.1 with Connection: close.  Request
 * N (from 1) is answered by the N-th script; past the last script the answer
 * is a 500 with "fake: no script for request N".
 *
 *   -p file  write the port number to file
 *   -r dir   record request N as dir/N.head (request line and headers, as
 *            received) and dir/N.json (the body, de-chunked)
 *   -x       exit once every script has been served (else run until SIGTERM)
 *   -b n     bytes per write (default: a whole event per write; 1 splits
 *            everything, UTF-8 sequences and CRLFs included)
 *   -d ms    delay before each write but the first
 *   -f mode  body framing: chunked (default), length, close
 *   -C       CRLF line ends in the event stream (default LF)
 *   -k       a comment line ": keep-alive" before every event
 *   -B       a UTF-8 BOM before the event stream
 *   -K       keep a connection for the next request, as HTTP/1.1 allows,
 *            unless the request or the reply says close; request N's
 *            connection (counted from 1) is recorded as dir/N.conn
 *   -i ms    with -K, close a connection idle this long (default 10 s)
 *   -P       answer a HEAD or a GET with an empty 200 that spends no
 *            script and is not recorded: a peer's own preflight (Claude
 *            Code's HEAD / preconnect, a GET of a models list) then
 *            leaves the scripts to its POSTs
 *
 * A script is one reply, one directive a line; blank lines and lines
 * starting with # are skipped.  TEXT is the rest of the line, with the
 * escapes \n \t \r \\ and \xHH; the fake JSON-escapes it.
 *
 *   status CODE      HTTP status (default 200); a non-2xx reply has the body
 *                    {"error":{"message":MSG,"type":...,"code":null}} sent
 *                    as application/json, and no events
 *   error MSG        the message of that error body
 *   json TEXT        the whole body instead, TEXT as written, sent as
 *                    application/json with the script's status, no
 *                    events (an OAuth token endpoint's answer)
 *   retry-after S    a Retry-After header
 *   think TEXT       a reasoning_content delta
 *   text TEXT        a content delta
 *   tool ID NAME ARGS  a tool call: one delta with index, id, type, name and
 *                    empty arguments, then ARGS (raw JSON text, the rest of
 *                    the line) as arguments pieces of about 5 bytes; the
 *                    tool lines of a script get index 0, 1, 2...
 *   finish REASON    a chunk with an empty delta and finish_reason REASON
 *   usage IN OUT     the usage-only chunk (choices empty)
 *   big N            N bytes of content ("a".."z" and a newline, repeated)
 *                    in deltas of 1000 bytes, made as they are sent
 *   line TEXT        TEXT and a line end, sent as they are (any SSE line)
 *   raw FILE         FILE's lines sent as they are, one event (up to a blank
 *                    line) per unit; -C still turns line ends into CRLF
 *   sleep MS         pause here
 *   stall            send what came before, then nothing: wait until the
 *                    client closes or 60 s pass, then close
 *   drop N           close the connection after N body bytes (not counting
 *                    chunk framing); `reset N` the same with a TCP RST
 *   hangup           reset the connection before any byte of the reply
 *   wait MS          pause before any byte of the reply
 *   nodone           no `data: [DONE]` at the end (a script with `raw`
 *                    never gets one: the file has its own)
 *   bytes N, delay MS, framing MODE, crlf, comments, bom
 *                    -b, -d, -f, -C, -k, -B for this reply alone
 *   type TEXT        the Content-Type of a 2xx reply (text/event-stream)
 *   header TEXT      one more header line, as it is
 *   early            answer as soon as the request head is in, and close
 *                    without reading the body (a reset, if one is left)
 *   close            say Connection: close, and close after the reply
 *   forget           with -K, keep the connection, then close it unread
 *                    as the next request arrives: a server that closed an
 *                    idle connection just as the client sent
 *   http10           answer as HTTP/1.0, and close after the reply
 *
 * A script with the line `responses` is a reply of OpenAI's Responses API
 * instead (event: and data: lines, no [DONE]): response.created and
 * response.in_progress, then output items at output_index 0, 1, ...: a
 * `think` line is a summary part of the open reasoning item (opened by
 * the first, with encrypted_content "gAAAAB" + base64 of "partial:ID" in
 * output_item.added and of "final:ID:SUMMARIES" in output_item.done), a
 * `text` line more of the open message item, a `tool` line a whole
 * function_call item (ID its call_id); ids are rs_fakeN_I, msg_fakeN_I,
 * fc_fakeN_I for request N, item I.  The stream ends with
 * response.completed (its output and usage), unless the script says:
 *   usage IN OUT [CACHED REASONING]   the usage of the end
 *   incomplete REASON  the open item done "incomplete", then
 *                    response.incomplete with that reason
 *   failed CODE MSG  response.failed with that error
 *   errevent CODE MSG   an error event {code, message} (flat, as
 *                    documented); errnested the same nested in "error"
 *                    as recorded; the script goes on after it
 *   nodone           no end at all
 *   unencrypted      reasoning items without encrypted_content, as the
 *                    platform sends them when include does not ask
 *
 * A script with the line `gemini` is a reply of Google's Gemini
 * (streamGenerateContent?alt=sse: data: lines of GenerateContentResponse,
 * no [DONE]), one chunk a part in candidates[0].content.parts:
 *   text TEXT        a text part
 *   think TEXT       a text part with "thought": true
 *   tool ID NAME ARGS  a functionCall part, whole: {name, args: ARGS};
 *                    its id is ID, none if ID is -
 *   signature SIG    a thoughtSignature on the part before
 *   usage IN OUT [CACHED THOUGHTS]   the usageMetadata of the end:
 *                    promptTokenCount, candidatesTokenCount,
 *                    cachedContentTokenCount, thoughtsTokenCount
 *   finish REASON    the end: a chunk with that finishReason and the
 *                    usage (STOP if the script says none)
 *   block REASON     the end: promptFeedback.blockReason, no candidates
 *   errevent CODE MSG   {"error":{code: 500, message, status: CODE}}
 *   nodone           no end at all
 *
 * A script with the line `bedrock` is framed as Amazon Bedrock's
 * InvokeModelWithResponseStream answers (Content-Type application/
 * vnd.amazon.eventstream): the data of each event the script makes (with
 * `line` or `raw`: Anthropic's stream) is base64'd into a chunk message
 * of AWS's event-stream, {"bytes": ..., "p": padding}; no [DONE].
 *   exception TYPE MSG  an exception message, :exception-type TYPE and
 *                    the payload {"message": MSG}
 *   badcrc           the next message's CRC is wrong
 *
 * The first generated chunk is preceded by one with the delta
 * {"role":"assistant","content":""}, as real servers send.  Every chunk has
 * id "chatcmpl-fake", object "chat.completion.chunk", created 1 and model
 * "fake-model".  With -f length the reply is generated twice, once to count
 * its bytes: nothing is held whole, `big` included.
 *
 * Every script is checked at start: a bad line stops the fake.  Relative
 * paths are taken from the working directory.  A connection closed or cut
 * before a whole request head arrived is not counted as a request.
 */
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#define HEADMAX 65536	/* longest request head */
#define BIGPART 1000	/* bytes of content per `big` delta */
#define ARGPART 5	/* bytes of tool arguments per delta */
#define STALLSEC 60	/* longest `stall` */
#define IOSEC 10	/* socket read and write timeout */

enum { CHUNKED, LENGTH, CLOSE };

typedef struct {
	char *p;
	size_t len, cap;
} Buf;

typedef struct {
	int fd;
	char b[4096];
	size_t pos, len;
} Conn;

/* what a script says before any byte is sent */
typedef struct {
	int status;
	char *error;
	char *json;		/* the whole body, or NULL */
	long retry;		/* -1: no Retry-After */
	long long drop;		/* -1: never */
	long wait;		/* ms before any byte of the reply */
	int rst, nodone, raw, hangup, early, close, http10, forget;
	int responses;		/* the Responses stream, not chat chunks */
	int gemini;		/* Gemini's stream */
	int bedrock;		/* in AWS's frames, as Bedrock streams */
	int unencrypted;	/* its reasoning items without encrypted_content */
	int bytes, delay, framing, crlf, comments, bom;
	char type[128];		/* Content-Type of a 2xx reply */
	char header[512];	/* one more header line, or "" */
} Reply;

typedef struct {
	int fd;
	int counting;		/* -f length first pass: count, send nothing */
	long long total;	/* bytes counted */
	long long sent;		/* body bytes sent */
	int dead;		/* connection gone or cut: send nothing more */
	int started;		/* the role chunk went out */
	int ntool;
	int nwrites;
	int keep;		/* the connection may serve another request */
	Reply r;
	Buf delta, chunk, ev, unit;
	/* the Responses stream */
	int reqno;		/* the request's number, in the ids */
	int seq, nitem;		/* sequence_number, output_index */
	int open, nsum;		/* the open item ('r', 'm' or 0), its parts */
	char cur[64];		/* its id */
	Buf items, acc, sums;	/* the items done; the open one's text and
				 * summaries */
	Buf gpart;		/* Gemini: the part not yet sent, which a
				 * signature line may yet sign */
	long long use[4];	/* usage: in, out, cached, reasoning */
	Buf sse, frame;		/* Bedrock: the SSE not yet framed; a frame */
	int badcrc;		/* Bedrock: spoil the next frame's CRC */
} Out;

static int bytes, delay, framing = CHUNKED, crlf, comments, bom;

static void buf64(Buf *b, const char *s, size_t n);

static void
die(const char *fmt, ...)
{
	va_list ap;
	size_t n;

	fputs("fake: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	n = strlen(fmt);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(errno));
	fputc('\n', stderr);
	exit(1);
}

static void
bufadd(Buf *b, const void *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		if (!(b->p = realloc(b->p, b->cap)))
			die("realloc:");
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void
bufs(Buf *b, const char *s)
{
	bufadd(b, s, strlen(s));
}

/* s as the inside of a JSON string; bytes >= 0x80 pass as they are */
static void
bufesc(Buf *b, const char *s, size_t n)
{
	char u[8];
	size_t i;
	unsigned char c;

	for (i = 0; i < n; i++) {
		c = s[i];
		switch (c) {
		case '"': bufs(b, "\\\""); break;
		case '\\': bufs(b, "\\\\"); break;
		case '\n': bufs(b, "\\n"); break;
		case '\r': bufs(b, "\\r"); break;
		case '\t': bufs(b, "\\t"); break;
		default:
			if (c < 0x20) {
				snprintf(u, sizeof(u), "\\u%04x", c);
				bufs(b, u);
			} else {
				bufadd(b, &s[i], 1);
			}
		}
	}
}

static void
msleep(long ms)
{
	struct timespec ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000L;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Undo the script escapes in place; returns the new length. */
static size_t
unescape(char *s)
{
	char *r, *w;
	int h, l;

	for (r = w = s; *r; r++) {
		if (*r != '\\' || !r[1]) {
			*w++ = *r;
			continue;
		}
		switch (*++r) {
		case 'n': *w++ = '\n'; break;
		case 't': *w++ = '\t'; break;
		case 'r': *w++ = '\r'; break;
		case '\\': *w++ = '\\'; break;
		case 'x':
			h = hexval(r[1]);
			if (h >= 0 && (l = hexval(r[2])) >= 0) {
				*w++ = h * 16 + l;
				r += 2;
				break;
			}
			/* FALLTHROUGH */
		default:
			*w++ = '\\';
			*w++ = *r;
		}
	}
	*w = '\0';
	return w - s;
}

/* The next word of *s, NUL-terminated; *s moves past one space after it. */
static char *
word(char **s)
{
	char *w = *s, *e;

	e = w + strcspn(w, " ");
	*s = *e ? e + 1 : e;
	*e = '\0';
	return w;
}

static int
number(const char *s, long long *n)
{
	char *e;

	errno = 0;
	*n = strtoll(s, &e, 10);
	return errno || e == s || *e || *n < 0 ? -1 : 0;
}

static int
framingname(const char *s)
{
	if (!strcmp(s, "chunked"))
		return CHUNKED;
	if (!strcmp(s, "length"))
		return LENGTH;
	if (!strcmp(s, "close"))
		return CLOSE;
	return -1;
}

/* One script line into its keyword and argument; 0 for a line to skip. */
static int
scriptline(char *line, char **kw, char **arg)
{
	line[strcspn(line, "\r\n")] = '\0';
	if (!*line || *line == '#')
		return 0;
	*arg = line;
	*kw = word(arg);
	return 1;
}

/*
 * Read what a script fixes before the first byte (status, headers, knobs)
 * and check every line; returns NULL or what is wrong.
 */
static const char *
prescan(const char *path, Reply *r)
{
	static char err[512];
	FILE *f;
	char *line = NULL, *kw, *arg, *a;
	size_t cap = 0;
	long long n, m;
	int ln = 0, bad = 0;

	memset(r, 0, sizeof(*r));
	r->status = 200;
	r->retry = r->drop = -1;
	r->bytes = bytes, r->delay = delay, r->framing = framing;
	r->crlf = crlf, r->comments = comments, r->bom = bom;
	strcpy(r->type, "text/event-stream");
	if (!(f = fopen(path, "r"))) {
		snprintf(err, sizeof(err), "%s: %s", path, strerror(errno));
		return err;
	}
	while (!bad && getline(&line, &cap, f) > 0) {
		ln++;
		if (!scriptline(line, &kw, &arg))
			continue;
		if (!strcmp(kw, "status"))
			bad = number(arg, &n) || n < 100 || n > 999 ||
			    !(r->status = n);
		else if (!strcmp(kw, "error")) {
			free(r->error);
			if (!(r->error = malloc(strlen(arg) + 1)))
				die("malloc:");
			strcpy(r->error, arg);
		} else if (!strcmp(kw, "json")) {
			free(r->json);
			if (!(r->json = malloc(strlen(arg) + 1)))
				die("malloc:");
			strcpy(r->json, arg);
		} else if (!strcmp(kw, "retry-after"))
			bad = number(arg, &n) || (r->retry = n) < 0;
		else if (!strcmp(kw, "drop") || !strcmp(kw, "reset")) {
			bad = number(arg, &n);
			r->drop = n;
			r->rst = kw[0] == 'r';
		} else if (!strcmp(kw, "nodone"))
			r->nodone = 1;
		else if (!strcmp(kw, "hangup"))
			r->hangup = r->rst = 1;
		else if (!strcmp(kw, "wait"))
			bad = number(arg, &n) || (r->wait = n) < 0;
		else if (!strcmp(kw, "early"))
			r->early = 1;
		else if (!strcmp(kw, "close"))
			r->close = 1;
		else if (!strcmp(kw, "http10"))
			r->http10 = 1;
		else if (!strcmp(kw, "forget"))
			r->forget = 1;
		else if (!strcmp(kw, "type"))
			bad = snprintf(r->type, sizeof(r->type), "%s", arg) >=
			    (int)sizeof(r->type);
		else if (!strcmp(kw, "header"))
			bad = snprintf(r->header, sizeof(r->header), "%s",
			    arg) >= (int)sizeof(r->header);
		else if (!strcmp(kw, "raw"))
			r->raw = 1;
		else if (!strcmp(kw, "bytes"))
			bad = number(arg, &n) || (r->bytes = n) < 0;
		else if (!strcmp(kw, "delay"))
			bad = number(arg, &n) || (r->delay = n) < 0;
		else if (!strcmp(kw, "framing"))
			bad = (r->framing = framingname(arg)) < 0;
		else if (!strcmp(kw, "crlf"))
			r->crlf = 1;
		else if (!strcmp(kw, "comments"))
			r->comments = 1;
		else if (!strcmp(kw, "bom"))
			r->bom = 1;
		else if (!strcmp(kw, "usage")) {
			bad = number(word(&arg), &n) || number(word(&arg), &m);
			if (!bad && *arg)	/* cached and reasoning */
				bad = number(word(&arg), &n) ||
				    number(arg, &m);
		} else if (!strcmp(kw, "responses"))
			r->responses = 1;
		else if (!strcmp(kw, "gemini"))
			r->gemini = 1;
		else if (!strcmp(kw, "bedrock")) {
			r->bedrock = 1;
			if (!strcmp(r->type, "text/event-stream"))
				strcpy(r->type,
				    "application/vnd.amazon.eventstream");
		}
		else if (!strcmp(kw, "exception")) {
			a = arg;
			bad = !*word(&a);
		}
		else if (!strcmp(kw, "badcrc"))
			;
		else if (!strcmp(kw, "signature") || !strcmp(kw, "block"))
			bad = !*arg;
		else if (!strcmp(kw, "unencrypted"))
			r->unencrypted = 1;
		else if (!strcmp(kw, "incomplete"))
			bad = !*arg;
		else if (!strcmp(kw, "failed") || !strcmp(kw, "errevent") ||
		    !strcmp(kw, "errnested")) {
			a = arg;
			bad = !*word(&a);
		}
		else if (!strcmp(kw, "big") || !strcmp(kw, "sleep"))
			bad = number(arg, &n);
		else if (!strcmp(kw, "tool")) {
			a = arg;
			bad = !*word(&a) || !*word(&a);
		} else if (strcmp(kw, "think") && strcmp(kw, "text") &&
		    strcmp(kw, "finish") && strcmp(kw, "line") &&
		    strcmp(kw, "stall"))
			bad = 1;
	}
	free(line);
	fclose(f);
	if (bad) {
		snprintf(err, sizeof(err), "%s:%d: bad line", path, ln);
		free(r->error);
		r->error = NULL;
		return err;
	}
	return NULL;
}

/* Write s to the client, r.bytes at a time, r.delay ms apart. */
static void
sendraw(Out *o, const char *s, size_t len)
{
	size_t n;
	ssize_t w;

	while (len > 0 && !o->dead) {
		n = len;
		if (o->r.bytes > 0 && n > (size_t)o->r.bytes)
			n = o->r.bytes;
		if (o->r.delay > 0 && o->nwrites > 0)
			msleep(o->r.delay);
		o->nwrites++;
		if ((w = write(o->fd, s, n)) < 0) {
			if (errno == EINTR)
				continue;
			o->dead = 1;
			return;
		}
		s += w;
		len -= w;
	}
}

/* Make close(2) send a RST at once. */
static void
linger0(int fd)
{
	struct linger l;

	l.l_onoff = 1;
	l.l_linger = 0;
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
}

/* End the connection now, with a RST if the script said reset. */
static void
cut(Out *o)
{
	if (o->r.rst)
		linger0(o->fd);
	o->dead = 1;
}

/* One unit of the body (an event, say): framed, cut at `drop`, sent. */
static void
sendunit(Out *o, const char *s, size_t len)
{
	char hdr[32];
	size_t n = len;
	int last = 0;

	if (o->counting) {
		o->total += len;
		return;
	}
	if (o->dead || len == 0)
		return;
	if (o->r.drop >= 0 && o->sent + (long long)len >= o->r.drop) {
		n = o->r.drop - o->sent;
		last = 1;
	}
	o->unit.len = 0;
	if (o->r.framing == CHUNKED) {
		snprintf(hdr, sizeof(hdr), "%lx\r\n", (unsigned long)len);
		bufs(&o->unit, hdr);
	}
	bufadd(&o->unit, s, n);
	if (o->r.framing == CHUNKED && !last)
		bufs(&o->unit, "\r\n");
	sendraw(o, o->unit.p, o->unit.len);
	o->sent += n;
	if (last)
		cut(o);
}

/*
 * Bedrock (a script with `bedrock`): the events the script makes, framed
 * as AWS's event-stream: each SSE event's data base64'd in a chunk
 * message; `exception TYPE MSG` an exception message; `badcrc` a wrong
 * CRC on the next message.
 */

static unsigned long
crc32(unsigned long crc, const char *p, size_t n)
{
	int k;

	crc = ~crc & 0xffffffffUL;
	while (n--) {
		crc ^= (unsigned char)*p++;
		for (k = 0; k < 8; k++)
			crc = crc >> 1 ^ (crc & 1 ? 0xedb88320UL : 0);
	}
	return ~crc & 0xffffffffUL;
}

static void
put32(Buf *b, unsigned long v)
{
	char c[4];

	c[0] = v >> 24;
	c[1] = v >> 16;
	c[2] = v >> 8;
	c[3] = v;
	bufadd(b, c, 4);
}

/* A string header. */
static void
strhead(Buf *b, const char *name, const char *v)
{
	char c[3];

	c[0] = strlen(name);
	bufadd(b, c, 1);
	bufs(b, name);
	c[0] = 7;
	c[1] = strlen(v) >> 8;
	c[2] = strlen(v);
	bufadd(b, c, 3);
	bufs(b, v);
}

/* One message of headers h and payload p, sent as a unit. */
static void
esmsg(Out *o, const Buf *h, const char *p, size_t n)
{
	Buf *f = &o->frame;

	f->len = 0;
	put32(f, 16 + h->len + n);
	put32(f, h->len);
	put32(f, crc32(0, f->p, 8));
	bufadd(f, h->p, h->len);
	bufadd(f, p, n);
	put32(f, crc32(0, f->p, f->len) ^ (o->badcrc ? 1 : 0));
	o->badcrc = 0;
	sendunit(o, f->p, f->len);
}

/* A chunk holding the data of one event, as Bedrock pads it. */
static void
eschunk(Out *o, const char *data, size_t n)
{
	Buf h = {0}, p = {0};

	strhead(&h, ":event-type", "chunk");
	strhead(&h, ":content-type", "application/json");
	strhead(&h, ":message-type", "event");
	bufs(&p, "{\"bytes\":\"");
	buf64(&p, data, n);
	bufs(&p, "\",\"p\":\"abcdefghijklmnopqrstuvwxyzABCDEFGH\"}");
	esmsg(o, &h, p.p, p.len);
	free(h.p);
	free(p.p);
}

static void
esexception(Out *o, char *arg)
{
	Buf h = {0}, p = {0};
	char *type = word(&arg);

	strhead(&h, ":exception-type", type);
	strhead(&h, ":content-type", "application/json");
	strhead(&h, ":message-type", "exception");
	bufs(&p, "{\"message\":\"");
	bufesc(&p, arg, unescape(arg));
	bufs(&p, "\"}");
	esmsg(o, &h, p.p, p.len);
	free(h.p);
	free(p.p);
}

/* The SSE made so far: each whole event's data lines as a chunk. */
static void
body(Out *o, const char *s, size_t len)
{
	Buf *b = &o->sse, data = {0};
	char *end, *line, *nl;
	size_t n;

	if (!o->r.bedrock || o->r.status / 100 != 2) {
		sendunit(o, s, len);
		return;
	}
	bufadd(b, s, len);
	while (b->len && (end = strstr(b->p, "\n\n"))) {
		data.len = 0;
		for (line = b->p; line < end + 1; line = nl + 1) {
			nl = strchr(line, '\n');
			n = nl - line - (nl > line && nl[-1] == '\r');
			if (n >= 5 && !strncmp(line, "data:", 5)) {
				if (data.len)
					bufs(&data, "\n");
				bufadd(&data, line + 5 + (line[5] == ' '),
				    n - 5 - (line[5] == ' '));
			}
		}
		if (data.len && !(data.len == 6 && !memcmp(data.p, "[DONE]", 6)))
			eschunk(o, data.p, data.len);
		n = end + 2 - b->p;
		memmove(b->p, b->p + n, b->len - n + 1);
		b->len -= n;
	}
	free(data.p);
}

static const char *
eol(Out *o)
{
	return o->r.crlf ? "\r\n" : "\n";
}

/* One SSE event holding data, as one unit. */
static void
event(Out *o, const char *data, size_t len)
{
	o->ev.len = 0;
	if (o->r.comments) {
		bufs(&o->ev, ": keep-alive");
		bufs(&o->ev, eol(o));
	}
	bufs(&o->ev, "data: ");
	bufadd(&o->ev, data, len);
	bufs(&o->ev, eol(o));
	bufs(&o->ev, eol(o));
	body(o, o->ev.p, o->ev.len);
}

/*
 * One chat.completion.chunk event: delta and finish are JSON texts, or
 * delta is NULL for the usage-only chunk.
 */
static void
chunk(Out *o, const char *delta, const char *finish, const char *usage)
{
	Buf *b = &o->chunk;

	if (!o->started) {
		o->started = 1;
		chunk(o, "{\"role\":\"assistant\",\"content\":\"\"}", NULL,
		    NULL);
	}
	b->len = 0;
	bufs(b, "{\"id\":\"chatcmpl-fake\","
	    "\"object\":\"chat.completion.chunk\",\"created\":1,"
	    "\"model\":\"fake-model\",\"choices\":[");
	if (delta) {
		bufs(b, "{\"index\":0,\"delta\":");
		bufs(b, delta);
		bufs(b, ",\"finish_reason\":");
		bufs(b, finish ? finish : "null");
		bufs(b, "}");
	}
	bufs(b, "]");
	if (usage) {
		bufs(b, ",\"usage\":");
		bufs(b, usage);
	}
	bufs(b, "}");
	event(o, b->p, b->len);
}

/* A delta {"key":"s"}. */
static void
strdelta(Out *o, const char *key, const char *s, size_t len)
{
	Buf *d = &o->delta;

	d->len = 0;
	bufs(d, "{\"");
	bufs(d, key);
	bufs(d, "\":\"");
	bufesc(d, s, len);
	bufs(d, "\"}");
	chunk(o, d->p, NULL, NULL);
}

static void
tool(Out *o, char *arg)
{
	Buf *d = &o->delta;
	char *id, *name, num[32];
	size_t len, i, n;

	id = word(&arg);
	name = word(&arg);
	snprintf(num, sizeof(num), "%d", o->ntool++);
	d->len = 0;
	bufs(d, "{\"tool_calls\":[{\"index\":");
	bufs(d, num);
	bufs(d, ",\"id\":\"");
	bufesc(d, id, strlen(id));
	bufs(d, "\",\"type\":\"function\",\"function\":{\"name\":\"");
	bufesc(d, name, strlen(name));
	bufs(d, "\",\"arguments\":\"\"}}]}");
	chunk(o, d->p, NULL, NULL);
	len = strlen(arg);
	for (i = 0; i < len && !o->dead; i += n) {
		/* whole UTF-8 sequences only, as a JSON string holds */
		n = ARGPART;
		while (i + n < len && (arg[i + n] & 0xC0) == 0x80)
			n++;
		if (i + n > len)
			n = len - i;
		d->len = 0;
		bufs(d, "{\"tool_calls\":[{\"index\":");
		bufs(d, num);
		bufs(d, ",\"function\":{\"arguments\":\"");
		bufesc(d, arg + i, n);
		bufs(d, "\"}}]}");
		chunk(o, d->p, NULL, NULL);
	}
}

static void
big(Out *o, long long n)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz\n";
	char part[BIGPART];
	long long off;
	size_t i, k;

	for (off = 0; off < n && !o->dead; off += k) {
		k = n - off < BIGPART ? (size_t)(n - off) : BIGPART;
		for (i = 0; i < k; i++)
			part[i] = abc[(off + i) % (sizeof(abc) - 1)];
		strdelta(o, "content", part, k);
	}
}

/* FILE's lines as they are, an event (up to a blank line) per unit. */
static void
raw(Out *o, const char *path)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, n;
	ssize_t len;

	if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "fake: %s: %s\n", path, strerror(errno));
		cut(o);
		return;
	}
	o->ev.len = 0;
	while (!o->dead && (len = getline(&line, &cap, f)) > 0) {
		n = len;
		if (n && line[n - 1] == '\n')
			n--;
		if (n && line[n - 1] == '\r')
			n--;
		bufadd(&o->ev, line, n);
		if (n < (size_t)len)
			bufs(&o->ev, eol(o));
		if (n == 0) {
			body(o, o->ev.p, o->ev.len);
			o->ev.len = 0;
		}
	}
	body(o, o->ev.p, o->ev.len);
	free(line);
	fclose(f);
}

/* Wait until the client closes or STALLSEC pass; then end the connection. */
static void
stall(Out *o)
{
	struct pollfd p;
	char b[512];
	time_t end = time(NULL) + STALLSEC;

	p.fd = o->fd;
	p.events = POLLIN;
	while (time(NULL) < end) {
		p.revents = 0;
		if (poll(&p, 1, 1000) < 0 && errno != EINTR)
			break;
		if (p.revents && read(o->fd, b, sizeof(b)) <= 0)
			break;
	}
	o->dead = 1;
}

/*
 * The Responses stream (a script with `responses`), in the order and
 * shapes OpenAI sends: response.created and response.in_progress, then
 * each output item (added, its parts and deltas, done), then the end.
 */

/* b64 of s, as encrypted_content looks */
static void
buf64(Buf *b, const char *s, size_t n)
{
	static const char abc[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned long v;
	size_t i, k, m;
	char q[4];

	for (i = 0; i < n; i += 3) {
		m = n - i < 3 ? n - i : 3;
		v = 0;
		for (k = 0; k < 3; k++)
			v = v << 8 | (k < m ? (unsigned char)s[i + k] : 0);
		for (k = 0; k < 4; k++)
			q[k] = k <= m ? abc[v >> (18 - 6 * k) & 63] : '=';
		bufadd(b, q, 4);
	}
}

/* One event: "event: TYPE" and its data, the type and sequence number
 * put in the JSON object whose members (after the type) are in m. */
static void
revent(Out *o, const char *type, const char *m)
{
	Buf *b = &o->chunk;
	char seq[32];

	b->len = 0;
	bufs(b, "{\"type\":\"");
	bufs(b, type);
	bufs(b, "\"");
	if (*m)
		bufs(b, ",");
	bufs(b, m);
	snprintf(seq, sizeof(seq), ",\"sequence_number\":%d}", o->seq++);
	bufs(b, seq);
	o->ev.len = 0;
	if (o->r.comments) {
		bufs(&o->ev, ": keep-alive");
		bufs(&o->ev, eol(o));
	}
	bufs(&o->ev, "event: ");
	bufs(&o->ev, type);
	bufs(&o->ev, eol(o));
	bufs(&o->ev, "data: ");
	bufadd(&o->ev, b->p, b->len);
	bufs(&o->ev, eol(o));
	bufs(&o->ev, eol(o));
	body(o, o->ev.p, o->ev.len);
}

/* The response object, with status, the items done so far and usage. */
static void
rresponse(Out *o, Buf *b, const char *status, const char *extra)
{
	char s[512];

	snprintf(s, sizeof(s), "\"response\":{\"id\":\"resp_fake%d\","
	    "\"object\":\"response\",\"created_at\":1,\"status\":\"%s\","
	    "\"model\":\"fake-model\",\"store\":false,\"output\":[", o->reqno,
	    status);
	bufs(b, s);
	if (strcmp(status, "in_progress") && o->items.len)
		bufadd(b, o->items.p, o->items.len);
	bufs(b, "]");
	if (!strcmp(status, "completed") || !strcmp(status, "incomplete")) {
		snprintf(s, sizeof(s), ",\"usage\":{\"input_tokens\":%lld,"
		    "\"input_tokens_details\":{\"cached_tokens\":%lld},"
		    "\"output_tokens\":%lld,\"output_tokens_details\":{"
		    "\"reasoning_tokens\":%lld},\"total_tokens\":%lld}",
		    o->use[0], o->use[2], o->use[1], o->use[3],
		    o->use[0] + o->use[1]);
		bufs(b, s);
	} else {
		bufs(b, ",\"usage\":null");
	}
	bufs(b, extra);
	bufs(b, "}");
}

/* Where the item at output_index now is, as members. */
static void
ritemhead(Out *o, Buf *b)
{
	char s[96];

	snprintf(s, sizeof(s), "\"item_id\":\"%s\",\"output_index\":%d",
	    o->cur, o->nitem);
	b->len = 0;
	bufs(b, s);
}

/* The open item, done: its whole JSON sent and kept for the end. */
static void
rclose(Out *o, const char *status)
{
	Buf *b = &o->delta, item = {0};
	char s[64];

	if (!o->open)
		return;
	if (o->open == 'm') {
		b->len = 0;
		ritemhead(o, b);
		bufs(b, ",\"content_index\":0,\"text\":\"");
		bufesc(b, o->acc.p ? o->acc.p : "", o->acc.len);
		bufs(b, "\",\"logprobs\":[]");
		revent(o, "response.output_text.done", b->p);
		ritemhead(o, b);
		bufs(b, ",\"content_index\":0,\"part\":{\"type\":"
		    "\"output_text\",\"annotations\":[],\"logprobs\":[],"
		    "\"text\":\"");
		bufesc(b, o->acc.p ? o->acc.p : "", o->acc.len);
		bufs(b, "\"}");
		revent(o, "response.content_part.done", b->p);
		bufs(&item, "{\"id\":\"");
		bufs(&item, o->cur);
		bufs(&item, "\",\"type\":\"message\",\"status\":\"");
		bufs(&item, status);
		bufs(&item, "\",\"content\":[{\"type\":\"output_text\","
		    "\"annotations\":[],\"logprobs\":[],\"text\":\"");
		bufesc(&item, o->acc.p ? o->acc.p : "", o->acc.len);
		bufs(&item, "\"}],\"role\":\"assistant\"}");
	} else {
		/* encrypted_content differs from the one in added, as the
		 * platform's does: a client must keep done's */
		bufs(&item, "{\"id\":\"");
		bufs(&item, o->cur);
		bufs(&item, "\",\"type\":\"reasoning\",\"summary\":[");
		bufadd(&item, o->sums.p ? o->sums.p : "", o->sums.len);
		bufs(&item, "]");
		b->len = 0;
		bufs(b, "final:");
		bufs(b, o->cur);
		bufs(b, ":");
		bufadd(b, o->acc.p ? o->acc.p : "", o->acc.len);
		if (!o->r.unencrypted) {
			bufs(&item, ",\"encrypted_content\":\"gAAAAB");
			buf64(&item, b->p, b->len);
			bufs(&item, "\"");
		}
		bufs(&item, "}");
	}
	snprintf(s, sizeof(s), "\"output_index\":%d,\"item\":", o->nitem);
	b->len = 0;
	bufs(b, s);
	bufadd(b, item.p, item.len);
	revent(o, "response.output_item.done", b->p);
	if (o->items.len)
		bufs(&o->items, ",");
	bufadd(&o->items, item.p, item.len);
	free(item.p);
	o->open = 0;
	o->nitem++;
	o->acc.len = o->sums.len = 0;
}

/* Open an item of kind k ('r' reasoning, 'm' message) unless open. */
static void
ropen(Out *o, int k)
{
	Buf *b = &o->delta;
	char s[160];

	if (o->open == k)
		return;
	rclose(o, "completed");
	o->open = k;
	o->nsum = 0;
	snprintf(o->cur, sizeof(o->cur), "%s_fake%d_%d", k == 'm' ? "msg" :
	    "rs", o->reqno, o->nitem);
	snprintf(s, sizeof(s), "\"output_index\":%d,\"item\":{\"id\":\"%s\","
	    "\"type\":", o->nitem, o->cur);
	b->len = 0;
	bufs(b, s);
	if (k == 'm') {
		bufs(b, "\"message\",\"status\":\"in_progress\","
		    "\"content\":[],\"role\":\"assistant\"}");
		revent(o, "response.output_item.added", b->p);
		ritemhead(o, b);
		bufs(b, ",\"content_index\":0,\"part\":{\"type\":"
		    "\"output_text\",\"annotations\":[],\"logprobs\":[],"
		    "\"text\":\"\"}");
		revent(o, "response.content_part.added", b->p);
		return;
	}
	bufs(b, "\"reasoning\",\"summary\":[]");
	if (!o->r.unencrypted) {
		bufs(b, ",\"encrypted_content\":\"gAAAAB");
		snprintf(s, sizeof(s), "partial:%s", o->cur);
		buf64(b, s, strlen(s));
		bufs(b, "\"");
	}
	bufs(b, "}");
	revent(o, "response.output_item.added", b->p);
}

/* Deltas of s in pieces of about n bytes, whole UTF-8 sequences. */
static void
rdeltas(Out *o, const char *type, const char *head, const char *s,
    size_t len, size_t part)
{
	Buf *b = &o->delta;
	size_t i, n;

	for (i = 0; i < len && !o->dead; i += n) {
		n = part;
		while (i + n < len && (s[i + n] & 0xC0) == 0x80)
			n++;
		if (i + n > len)
			n = len - i;
		ritemhead(o, b);
		bufs(b, head);
		bufs(b, ",\"delta\":\"");
		bufesc(b, s + i, n);
		bufs(b, "\"");
		revent(o, type, b->p);
	}
}

/* A summary part of the open reasoning item. */
static void
rthink(Out *o, const char *s, size_t len)
{
	Buf *b = &o->delta;
	char head[64];

	ropen(o, 'r');
	snprintf(head, sizeof(head), ",\"summary_index\":%d", o->nsum++);
	ritemhead(o, b);
	bufs(b, head);
	bufs(b, ",\"part\":{\"type\":\"summary_text\",\"text\":\"\"}");
	revent(o, "response.reasoning_summary_part.added", b->p);
	rdeltas(o, "response.reasoning_summary_text.delta", head, s, len, 6);
	ritemhead(o, b);
	bufs(b, head);
	bufs(b, ",\"text\":\"");
	bufesc(b, s, len);
	bufs(b, "\"");
	revent(o, "response.reasoning_summary_text.done", b->p);
	ritemhead(o, b);
	bufs(b, head);
	bufs(b, ",\"part\":{\"type\":\"summary_text\",\"text\":\"");
	bufesc(b, s, len);
	bufs(b, "\"}");
	revent(o, "response.reasoning_summary_part.done", b->p);
	if (o->sums.len) {
		bufs(&o->sums, ",");
		bufs(&o->acc, "\n\n");
	}
	bufs(&o->sums, "{\"type\":\"summary_text\",\"text\":\"");
	bufesc(&o->sums, s, len);
	bufs(&o->sums, "\"}");
	bufadd(&o->acc, s, len);
}

static void
rtext(Out *o, const char *s, size_t len)
{
	ropen(o, 'm');
	rdeltas(o, "response.output_text.delta", ",\"content_index\":0", s,
	    len, 5);
	bufadd(&o->acc, s, len);
}

/* A function_call item: added, its arguments in pieces, done. */
static void
rtool(Out *o, char *arg)
{
	Buf *b = &o->delta, item = {0};
	char *id, *name, s[64];

	rclose(o, "completed");
	id = word(&arg);
	name = word(&arg);
	snprintf(o->cur, sizeof(o->cur), "fc_fake%d_%d", o->reqno, o->nitem);
	bufs(&item, "{\"id\":\"");
	bufs(&item, o->cur);
	bufs(&item, "\",\"type\":\"function_call\",\"status\":\"");
	b->len = 0;
	snprintf(s, sizeof(s), "\"output_index\":%d,\"item\":", o->nitem);
	bufs(b, s);
	bufadd(b, item.p, item.len);
	bufs(b, "in_progress\",\"arguments\":\"\",\"call_id\":\"");
	bufesc(b, id, strlen(id));
	bufs(b, "\",\"name\":\"");
	bufesc(b, name, strlen(name));
	bufs(b, "\"}");
	revent(o, "response.output_item.added", b->p);
	rdeltas(o, "response.function_call_arguments.delta", "", arg,
	    strlen(arg), ARGPART);
	ritemhead(o, b);
	bufs(b, ",\"arguments\":\"");
	bufesc(b, arg, strlen(arg));
	bufs(b, "\"");
	revent(o, "response.function_call_arguments.done", b->p);
	bufs(&item, "completed\",\"arguments\":\"");
	bufesc(&item, arg, strlen(arg));
	bufs(&item, "\",\"call_id\":\"");
	bufesc(&item, id, strlen(id));
	bufs(&item, "\",\"name\":\"");
	bufesc(&item, name, strlen(name));
	bufs(&item, "\"}");
	snprintf(s, sizeof(s), "\"output_index\":%d,\"item\":", o->nitem);
	b->len = 0;
	bufs(b, s);
	bufadd(b, item.p, item.len);
	revent(o, "response.output_item.done", b->p);
	if (o->items.len)
		bufs(&o->items, ",");
	bufadd(&o->items, item.p, item.len);
	free(item.p);
	o->nitem++;
}

/* An error: {code, message} as members of b, after a comma. */
static void
rerrorof(Buf *b, char *arg)
{
	char *code = word(&arg);

	bufs(b, "\"code\":\"");
	bufesc(b, code, strlen(code));
	bufs(b, "\",\"message\":\"");
	bufesc(b, arg, unescape(arg));
	bufs(b, "\"");
}

/* The end of a Responses stream: kw is what the script said (NULL: the
 * script ended), arg its argument. */
static void
rend(Out *o, const char *kw, char *arg)
{
	Buf *b = &o->delta, e = {0};

	if (!kw || !strcmp(kw, "finish") || !strcmp(kw, "incomplete"))
		rclose(o, kw && kw[0] == 'i' ? "incomplete" : "completed");
	b->len = 0;
	if (!kw || !strcmp(kw, "finish")) {
		rresponse(o, b, "completed", "");
		revent(o, "response.completed", b->p);
	} else if (!strcmp(kw, "incomplete")) {
		bufs(&e, ",\"incomplete_details\":{\"reason\":\"");
		bufesc(&e, arg, strlen(arg));
		bufs(&e, "\"}");
		rresponse(o, b, "incomplete", e.p);
		revent(o, "response.incomplete", b->p);
	} else if (!strcmp(kw, "failed")) {
		bufs(&e, ",\"error\":{");
		rerrorof(&e, arg);
		bufs(&e, "}");
		rresponse(o, b, "failed", e.p);
		revent(o, "response.failed", b->p);
	} else if (!strcmp(kw, "errevent")) {
		rerrorof(b, arg);
		bufs(b, ",\"param\":null");
		revent(o, "error", b->p);
	} else {	/* errnested */
		bufs(b, "\"error\":{\"type\":\"invalid_request_error\",");
		rerrorof(b, arg);
		bufs(b, ",\"param\":null}");
		revent(o, "error", b->p);
	}
	free(e.p);
}

/*
 * Gemini's stream (a script with `gemini`): each part a chunk of its own,
 * sent when the next line shows no signature is coming for it.
 */

static void
gflush(Out *o)
{
	Buf *b = &o->chunk;

	if (!o->gpart.len)
		return;
	b->len = 0;
	bufs(b, "{\"candidates\":[{\"content\":{\"role\":\"model\","
	    "\"parts\":[");
	bufadd(b, o->gpart.p, o->gpart.len);
	bufs(b, "]},\"index\":0}],\"modelVersion\":\"fake-model\"}");
	o->gpart.len = 0;
	event(o, b->p, b->len);
}

/* A part, held until the next line. */
static void
gpart(Out *o, const char *kw, char *arg)
{
	Buf *d = &o->gpart;
	char *id, *name;
	size_t n;

	gflush(o);
	if (!strcmp(kw, "tool")) {
		id = word(&arg);
		name = word(&arg);
		bufs(d, "{\"functionCall\":{");
		if (strcmp(id, "-")) {
			bufs(d, "\"id\":\"");
			bufesc(d, id, strlen(id));
			bufs(d, "\",");
		}
		bufs(d, "\"name\":\"");
		bufesc(d, name, strlen(name));
		bufs(d, "\",\"args\":");
		bufs(d, arg);
		bufs(d, "}}");
		return;
	}
	n = unescape(arg);
	bufs(d, kw[1] == 'h' ? "{\"thought\":true,\"text\":\"" :
	    "{\"text\":\"");
	bufesc(d, arg, n);
	bufs(d, "\"}");
}

static void
gsign(Out *o, const char *sig)
{
	if (!o->gpart.len)
		return;
	o->gpart.len--;	/* its closing brace */
	bufs(&o->gpart, ",\"thoughtSignature\":\"");
	bufesc(&o->gpart, sig, strlen(sig));
	bufs(&o->gpart, "\"}");
}

/* The end: kw what the script said (NULL: it ended), arg its reason. */
static void
gend(Out *o, const char *kw, char *arg)
{
	Buf *b = &o->chunk;
	char use[256];
	char *code;

	gflush(o);
	b->len = 0;
	snprintf(use, sizeof(use), ",\"usageMetadata\":{"
	    "\"promptTokenCount\":%lld,\"candidatesTokenCount\":%lld,"
	    "\"totalTokenCount\":%lld,\"cachedContentTokenCount\":%lld,"
	    "\"thoughtsTokenCount\":%lld}", o->use[0], o->use[1],
	    o->use[0] + o->use[1] + o->use[3], o->use[2], o->use[3]);
	if (kw && !strcmp(kw, "errevent")) {
		code = word(&arg);
		bufs(b, "{\"error\":{\"code\":500,\"message\":\"");
		bufesc(b, arg, unescape(arg));
		bufs(b, "\",\"status\":\"");
		bufesc(b, code, strlen(code));
		bufs(b, "\"}}");
	} else if (kw && !strcmp(kw, "block")) {
		bufs(b, "{\"promptFeedback\":{\"blockReason\":\"");
		bufesc(b, arg, strlen(arg));
		bufs(b, "\"}");
		bufs(b, use);
		bufs(b, "}");
	} else {
		bufs(b, "{\"candidates\":[{\"content\":{\"role\":"
		    "\"model\",\"parts\":[]},\"finishReason\":\"");
		bufs(b, kw ? arg : "STOP");
		bufs(b, "\",\"index\":0}]");
		bufs(b, use);
		bufs(b, ",\"modelVersion\":\"fake-model\"}");
	}
	event(o, b->p, b->len);
}

static void
rstart(Out *o)
{
	Buf *b = &o->delta;

	o->seq = o->nitem = o->open = 0;
	o->items.len = o->acc.len = o->sums.len = 0;
	b->len = 0;
	rresponse(o, b, "in_progress", "");
	revent(o, "response.created", b->p);
	b->len = 0;
	rresponse(o, b, "in_progress", "");
	revent(o, "response.in_progress", b->p);
}

/* The events of a 2xx reply. */
static void
events(Out *o, const char *path)
{
	FILE *f;
	char *line = NULL, *kw, *arg, use[128];
	size_t cap = 0, n;
	long long x, y;
	int ended = 0;

	o->started = 0;
	o->ntool = 0;
	if (o->r.bom)
		body(o, "\xEF\xBB\xBF", 3);
	if (!(f = fopen(path, "r"))) {
		fprintf(stderr, "fake: %s: %s\n", path, strerror(errno));
		cut(o);
		return;
	}
	memset(o->use, 0, sizeof(o->use));
	o->gpart.len = 0;
	o->sse.len = 0;
	o->badcrc = 0;
	if (o->r.responses)
		rstart(o);
	while (!o->dead && getline(&line, &cap, f) > 0) {
		if (!scriptline(line, &kw, &arg))
			continue;
		if (o->r.gemini && (!strcmp(kw, "text") ||
		    !strcmp(kw, "think") || !strcmp(kw, "tool"))) {
			gpart(o, kw, arg);
		} else if (o->r.gemini && !strcmp(kw, "signature")) {
			gsign(o, arg);
		} else if (o->r.gemini && !strcmp(kw, "usage")) {
			for (n = 0; n < 4 && *arg; n++)
				number(word(&arg), &o->use[n]);
		} else if (o->r.gemini && (!strcmp(kw, "finish") ||
		    !strcmp(kw, "block") || !strcmp(kw, "errevent"))) {
			gend(o, kw, arg);
			ended = 1;
		} else if (o->r.responses && (!strcmp(kw, "text") ||
		    !strcmp(kw, "think"))) {
			n = unescape(arg);
			if (kw[1] == 'e')
				rtext(o, arg, n);
			else
				rthink(o, arg, n);
		} else if (o->r.responses && !strcmp(kw, "tool")) {
			rtool(o, arg);
		} else if (o->r.responses && !strcmp(kw, "usage")) {
			for (n = 0; n < 4 && *arg; n++)
				number(word(&arg), &o->use[n]);
		} else if (o->r.responses && (!strcmp(kw, "incomplete") ||
		    !strcmp(kw, "failed") || !strcmp(kw, "finish"))) {
			rend(o, kw, arg);
			ended = 1;
		} else if (!strcmp(kw, "errevent") ||
		    !strcmp(kw, "errnested")) {
			rend(o, kw, arg);
		} else if (!strcmp(kw, "text") || !strcmp(kw, "think")) {
			n = unescape(arg);
			strdelta(o, kw[1] == 'e' ? "content" :
			    "reasoning_content", arg, n);
		} else if (!strcmp(kw, "tool")) {
			tool(o, arg);
		} else if (!strcmp(kw, "finish")) {
			o->delta.len = 0;
			bufs(&o->delta, "\"");
			bufesc(&o->delta, arg, strlen(arg));
			bufs(&o->delta, "\"");
			chunk(o, "{}", o->delta.p, NULL);
		} else if (!strcmp(kw, "usage")) {
			number(word(&arg), &x);
			number(arg, &y);
			snprintf(use, sizeof(use), "{\"prompt_tokens\":%lld,"
			    "\"completion_tokens\":%lld,"
			    "\"total_tokens\":%lld}", x, y, x + y);
			chunk(o, NULL, NULL, use);
		} else if (!strcmp(kw, "big")) {
			number(arg, &x);
			big(o, x);
		} else if (!strcmp(kw, "line")) {
			n = unescape(arg);
			o->ev.len = 0;
			bufadd(&o->ev, arg, n);
			bufs(&o->ev, eol(o));
			body(o, o->ev.p, o->ev.len);
		} else if (!strcmp(kw, "raw")) {
			raw(o, arg);
		} else if (o->r.bedrock && !strcmp(kw, "exception")) {
			esexception(o, arg);
		} else if (o->r.bedrock && !strcmp(kw, "badcrc")) {
			o->badcrc = 1;
		} else if (!strcmp(kw, "sleep") && !o->counting) {
			number(arg, &x);
			msleep(x);
		} else if (!strcmp(kw, "stall") && !o->counting) {
			stall(o);
		}
	}
	free(line);
	fclose(f);
	if (o->r.gemini && !ended && !o->r.nodone && !o->r.raw)
		gend(o, NULL, NULL);
	else if (o->r.gemini)
		gflush(o);
	else if (o->r.responses && !ended && !o->r.nodone && !o->r.raw)
		rend(o, NULL, NULL);
	else if (!o->r.nodone && !o->r.raw && !o->r.responses)
		event(o, "[DONE]", 6);
}

/* Fill c's buffer; 1 on data, 0 at end of stream, -1 on error. */
static int
cfill(Conn *c)
{
	ssize_t n;

	if (c->pos < c->len)
		return 1;
	while ((n = read(c->fd, c->b, sizeof(c->b))) < 0 && errno == EINTR)
		;
	if (n <= 0)
		return n < 0 ? -1 : 0;
	c->pos = 0;
	c->len = n;
	return 1;
}

/* Append one line, its \n included, to b; 1, 0 at end of stream, -1. */
static int
cline(Conn *c, Buf *b, size_t max)
{
	char *nl;
	size_t n, start = b->len;
	int r;

	for (;;) {
		if ((r = cfill(c)) <= 0)
			return b->len > start || r < 0 ? -1 : 0;
		nl = memchr(c->b + c->pos, '\n', c->len - c->pos);
		n = nl ? (size_t)(nl - c->b) + 1 - c->pos : c->len - c->pos;
		if (b->len - start + n > max)
			return -1;
		bufadd(b, c->b + c->pos, n);
		c->pos += n;
		if (nl)
			return 1;
	}
}

/* Copy n body bytes to f (may be NULL); 0 or -1. */
static int
ccopy(Conn *c, FILE *f, unsigned long long n)
{
	size_t k;

	while (n > 0) {
		if (cfill(c) <= 0)
			return -1;
		k = c->len - c->pos;
		if (k > n)
			k = n;
		if (f && fwrite(c->b + c->pos, 1, k, f) != k)
			return -1;
		c->pos += k;
		n -= k;
	}
	return 0;
}

static int
chunkedbody(Conn *c, FILE *f)
{
	Buf line = {0};
	unsigned long long n;
	char *e;
	int r = -1;

	for (;;) {
		line.len = 0;
		if (cline(c, &line, 1024) <= 0)
			goto out;
		n = strtoull(line.p, &e, 16);
		if (e == line.p)
			goto out;
		if (n == 0)
			break;
		line.len = 0;
		if (ccopy(c, f, n) < 0 || cline(c, &line, 2) <= 0 ||
		    line.p[strspn(line.p, "\r")] != '\n')
			goto out;
	}
	do {	/* trailers, up to the blank line */
		line.len = 0;
		if (cline(c, &line, 8192) <= 0)
			goto out;
	} while (line.p[strspn(line.p, "\r")] != '\n');
	r = 0;
out:
	free(line.p);
	return r;
}

static FILE *
record(const char *dir, int n, const char *ext)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d.%s", dir, n, ext);
	if (!(f = fopen(path, "w")))
		fprintf(stderr, "fake: %s: %s\n", path, strerror(errno));
	return f;
}

static int
closerecord(FILE *f)
{
	int r = 0;

	if (f && (ferror(f) | fclose(f))) {
		fprintf(stderr, "fake: cannot write a record\n");
		r = -1;
	}
	return r;
}

/*
 * Read request n, recording it in dir (may be NULL): 1 done, 2 a HEAD or
 * a GET taken as a preflight (with preflight; not recorded), 0 nothing
 * came, -1 malformed or cut short.  With headonly the body is left
 * unread.
 */
static int
request(Conn *c, int n, const char *dir, int headonly, int *closeasked,
    int preflight)
{
	Buf head = {0};
	FILE *f = NULL;
	char *p, *q, *v, *nl, *end;
	unsigned long long len = 0;
	int chunked = 0, r;

	while ((r = cline(c, &head, HEADMAX - head.len)) > 0) {
		p = head.p + head.len - 1;
		if (head.len > 2 && (p[-1] == '\n' ||
		    (p[-1] == '\r' && p[-2] == '\n')))
			break;
	}
	if (r <= 0)
		goto out;
	end = head.p + head.len;
	p = (char *)memchr(head.p, '\n', head.len) + 1;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', end - p);
		if (!(q = memchr(p, ':', nl - p)))
			continue;
		for (v = q + 1; *v == ' ' || *v == '\t'; v++)
			;
		if (q - p == 14 && !strncasecmp(p, "content-length", 14))
			len = strtoull(v, NULL, 10);
		if (q - p == 17 && !strncasecmp(p, "transfer-encoding", 17))
			chunked = !strncasecmp(v, "chunked", 7);
		if (q - p == 10 && !strncasecmp(p, "connection", 10))
			*closeasked = !strncasecmp(v, "close", 5);
	}
	r = -1;
	if (preflight && (!strncmp(head.p, "HEAD ", 5) ||
	    !strncmp(head.p, "GET ", 4))) {
		if ((chunked ? chunkedbody(c, NULL) : ccopy(c, NULL, len)) == 0)
			r = 2;
		goto out;
	}
	if (dir) {
		if (!(f = record(dir, n, "head")))
			goto out;
		fwrite(head.p, 1, head.len, f);
		if (closerecord(f) < 0 || !(f = record(dir, n, "json")))
			goto out;
	}
	if (!headonly &&
	    (chunked ? chunkedbody(c, f) : ccopy(c, f, len)) < 0)
		goto out;
	r = 1;
out:
	if (closerecord(f) < 0)
		r = -1;
	free(head.p);
	return r;
}

static const char *
reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 529: return "Overloaded";
	default: return "Status";
	}
}

static void
sendhead(Out *o, const char *type, unsigned long long len)
{
	Buf h = {0};
	char s[128];

	if (o->r.wait)
		msleep(o->r.wait);	/* a server slow to answer */
	if (o->r.close || o->r.http10 || o->r.framing == CLOSE ||
	    (o->r.framing == CHUNKED && o->r.http10))
		o->keep = 0;
	snprintf(s, sizeof(s), "HTTP/1.%d %d %s\r\n", !o->r.http10,
	    o->r.status, reason(o->r.status));
	bufs(&h, s);
	bufs(&h, "Content-Type: ");
	bufs(&h, type);
	bufs(&h, "\r\nCache-Control: no-cache\r\n");
	if (!o->keep && !o->r.http10)
		bufs(&h, "Connection: close\r\n");
	if (o->r.framing == CHUNKED)
		bufs(&h, "Transfer-Encoding: chunked\r\n");
	if (o->r.framing == LENGTH) {
		snprintf(s, sizeof(s), "Content-Length: %llu\r\n", len);
		bufs(&h, s);
	}
	if (o->r.retry >= 0) {
		snprintf(s, sizeof(s), "Retry-After: %ld\r\n", o->r.retry);
		bufs(&h, s);
	}
	if (o->r.header[0]) {
		bufs(&h, o->r.header);
		bufs(&h, "\r\n");
	}
	bufs(&h, "\r\n");
	sendraw(o, h.p, h.len);
	free(h.p);
}

/* A non-2xx reply: a JSON error body. */
static void
senderror(Out *o, const char *msg)
{
	Buf b = {0};
	char dflt[64];

	if (!msg) {
		snprintf(dflt, sizeof(dflt), "fake: status %d", o->r.status);
		msg = dflt;
	}
	bufs(&b, "{\"error\":{\"message\":\"");
	bufesc(&b, msg, strlen(msg));
	bufs(&b, o->r.status < 500 ? "\",\"type\":\"invalid_request_error\"" :
	    "\",\"type\":\"server_error\"");
	bufs(&b, ",\"param\":null,\"code\":null}}\n");
	sendhead(o, "application/json", b.len);
	body(o, b.p, b.len);
	free(b.p);
}

/* Answer request n from script (NULL: none left); 1 if the end was clean. */
static int
serve(Out *o, const char *script, int n)
{
	const char *err;
	char msg[128];

	o->sent = o->total = 0;
	o->dead = o->counting = o->nwrites = 0;
	o->reqno = n;
	if (!script) {
		prescan("/dev/null", &o->r);
		o->r.status = 500;
		snprintf(msg, sizeof(msg), "fake: no script for request %d",
		    n);
		senderror(o, msg);
	} else if ((err = prescan(script, &o->r))) {
		fprintf(stderr, "fake: %s\n", err);
		o->r.status = 500;
		senderror(o, err);
	} else if (o->r.hangup) {
		cut(o);
	} else if (o->r.json) {
		sendhead(o, "application/json", strlen(o->r.json));
		body(o, o->r.json, strlen(o->r.json));
	} else if (o->r.status < 200 || o->r.status > 299) {
		senderror(o, o->r.error);
	} else {
		if (o->r.framing == LENGTH) {
			o->counting = 1;
			events(o, script);
			o->counting = 0;
			o->started = 0;
		}
		sendhead(o, o->r.type, o->total);
		events(o, script);
	}
	free(o->r.error);
	free(o->r.json);
	o->r.error = o->r.json = NULL;
	if (!o->dead && o->r.framing == CHUNKED)
		sendraw(o, "0\r\n\r\n", 5);
	return !o->dead;
}

/* Close after the client has seen our end of stream: no RST eats the tail. */
static void
lingerclose(int fd)
{
	struct pollfd p;
	char b[512];

	shutdown(fd, SHUT_WR);
	p.fd = fd;
	p.events = POLLIN;
	while (poll(&p, 1, 2000) > 0 && read(fd, b, sizeof(b)) > 0)
		;
	close(fd);
}

/*
 * -P's answer to a preflight, an empty 200: 1 when the connection is kept
 * and the next request has begun to arrive, else 0 (it is closed).
 */
static int
preflightreply(Conn *c, int keep, int idle)
{
	const char *s = keep ? "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" :
	    "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
	struct pollfd p;

	if (write(c->fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		close(c->fd);
		return 0;
	}
	if (!keep) {
		lingerclose(c->fd);
		return 0;
	}
	p.fd = c->fd;
	p.events = POLLIN;
	if (c->pos < c->len || poll(&p, 1, idle) > 0)
		return 1;
	close(c->fd);
	return 0;
}

/*
 * Serve request n on a connection, the nconn-th: 1 when it is kept and
 * the next request has begun to arrive, 0 when it was closed after the
 * reply or after an idle while, -1 when it closed with no request.
 */
static int
connection(Conn *c, Out *o, int n, int nconn, const char *dir,
    const char *script, int keepalive, int idle, int preflight)
{
	struct pollfd p;
	Reply r;
	FILE *f;
	int closeasked = 0, served, got;

	memset(&r, 0, sizeof(r));
	if (script && !prescan(script, &r))
		free(r.error);
	while ((got = request(c, n, dir, r.early, &closeasked,
	    preflight)) == 2) {
		if (!preflightreply(c, keepalive && !closeasked, idle))
			return -1;
		closeasked = 0;
	}
	if (got <= 0) {
		close(c->fd);
		return -1;
	}
	if (dir && (f = record(dir, n, "conn"))) {
		fprintf(f, "%d\n", nconn);
		closerecord(f);
	}
	o->keep = keepalive && !closeasked && !r.early;
	served = serve(o, script, n);
	if (!served || !o->keep) {
		if (served && !r.early)
			lingerclose(c->fd);
		else
			close(c->fd);
		return 0;
	}
	/* the next request, or the end of an idle connection */
	p.fd = c->fd;
	p.events = POLLIN;
	if (c->pos < c->len || poll(&p, 1, idle) > 0) {
		if (!r.forget)
			return 1;
		linger0(c->fd);
	}
	close(c->fd);
	return 0;
}

static void
writeport(const char *path, int port)
{
	char tmp[4096];
	FILE *f;

	if (!path) {
		printf("%d\n", port);
		if (fflush(stdout) == EOF)
			die("stdout:");
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		die("%s:", tmp);
	fprintf(f, "%d\n", port);
	if (ferror(f) | fclose(f))
		die("%s:", tmp);
	if (rename(tmp, path) < 0)
		die("rename %s:", path);
}

static int
listener(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket:");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a.sin_port = 0;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		die("bind:");
	if (listen(fd, 16) < 0)
		die("listen:");
	if (getsockname(fd, (struct sockaddr *)&a, &len) < 0)
		die("getsockname:");
	return fd;
}

static void
usage(void)
{
	die("usage: fake [-xCkBKP] [-p portfile] [-r dir] [-b bytes] [-d ms] "
	    "[-f length|chunked|close] script ...");
}

static long
optnum(const char *s)
{
	long long n;

	if (number(s, &n) < 0 || n > 1000000000)
		usage();
	return n;
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in a;
	struct timeval tv;
	socklen_t alen;
	Conn c;
	Out o;
	Reply r;
	const char *portfile = NULL, *dir = NULL, *err;
	int lfd, fd, i, n, nconn, once = 0, one = 1, nscript;
	int keepalive = 0, idle = IOSEC * 1000, preflight = 0;

	while ((i = getopt(argc, argv, "b:d:f:i:p:r:xCkBKP")) != -1) {
		switch (i) {
		case 'b': bytes = optnum(optarg); break;
		case 'd': delay = optnum(optarg); break;
		case 'f':
			if ((framing = framingname(optarg)) < 0)
				usage();
			break;
		case 'p': portfile = optarg; break;
		case 'r': dir = optarg; break;
		case 'x': once = 1; break;
		case 'C': crlf = 1; break;
		case 'k': comments = 1; break;
		case 'B': bom = 1; break;
		case 'K': keepalive = 1; break;
		case 'i': idle = optnum(optarg); break;
		case 'P': preflight = 1; break;
		default: usage();
		}
	}
	argv += optind;
	nscript = argc - optind;
	for (i = 0; i < nscript; i++) {
		if ((err = prescan(argv[i], &r)))
			die("%s", err);
		free(r.error);
	}
	signal(SIGPIPE, SIG_IGN);
	lfd = listener();
	alen = sizeof(a);
	getsockname(lfd, (struct sockaddr *)&a, &alen);
	writeport(portfile, ntohs(a.sin_port));
	memset(&o, 0, sizeof(o));
	for (n = 1, nconn = 1; !once || n <= nscript; nconn++) {
		alen = sizeof(a);
		if ((fd = accept(lfd, (struct sockaddr *)&a, &alen)) < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept:");
		}
		tv.tv_sec = IOSEC;
		tv.tv_usec = 0;
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		/* one write, one segment: -b 1 reaches the client bytewise */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c.fd = o.fd = fd;
		c.pos = c.len = 0;
		do {
			i = connection(&c, &o, n, nconn, dir,
			    n <= nscript ? argv[n - 1] : NULL, keepalive, idle,
			    preflight);
			if (i >= 0)
				n++;
		} while (i == 1 && (!once || n <= nscript));
		if (i == 1)
			close(fd);
	}
	free(o.delta.p);
	free(o.chunk.p);
	free(o.ev.p);
	free(o.unit.p);
	return 0;
}
