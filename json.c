/* See LICENSE file for copyright and license details. */
/* json.c: parse JSON into jsmn tokens, look values up, write escaped
 * JSON. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define JSMN_STATIC
#define JSMN_PARENT_LINKS
#define JSMN_STRICT
#include <jsmn.h>

#include "util.h"
#include "json.h"

enum { DEPTHMAX = 1000 };	/* deeper documents are refused */

/* 1 for JSON's white space: a table, as a call to test four bytes cost
 * the validation a fifth of its time */
static const unsigned char space[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1
};

static int
isws(int c)
{
	return space[(unsigned char)c];
}

/* isdigit(3) follows the locale: JSON's digits are ASCII's */
static int
asciidigit(int c)
{
	return c >= '0' && c <= '9';
}

/* 1 for the bytes a string cannot hold as they are: control characters
 * must be escaped, '"' ends it, '\\' starts an escape. */
static const unsigned char stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	['"'] = 1, ['\\'] = 1
};

/* Whether \c is an escape of one character (not \u). */
static int
escaped(int c)
{
	switch (c) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n':
	case 'r': case 't':
		return 1;
	}
	return 0;
}

/* Whether one of the 8 bytes at p is a stop byte.  (x - 0x01..) & ~x has
 * a high bit set exactly when some byte of x is 0 (and below 0x20 with
 * 0x20.. in place of 0x01..): exact as a yes or no, though not as to
 * which byte. */
static int
hasstop(const char *p)
{
	const uint64_t one = 0x0101010101010101, high = one << 7;
	uint64_t x, q, b;

	memcpy(&x, p, 8);	/* no alignment asked of p */
	q = x ^ one * '"';
	b = x ^ one * '\\';
	return (((q - one) & ~q) | ((b - one) & ~b) |
	        ((x - one * 0x20) & ~x)) & high ? 1 : 0;
}

/* Whether the \u escape at p (p[0] the u, four hex digits after it) is
 * one jsonesc writes: a control character, in lower case, that has no
 * short form (\n and such go short). */
static int
plainu(const char *p)
{
	return p[1] == '0' && p[2] == '0' && (p[3] == '0' || p[3] == '1') &&
	       strchr("0123456789abcdef", p[4]) &&
	       !(p[3] == '0' && strchr("89acd", p[4]));
}

/* Length of the string starting at s[i] == '"', or 0 if it is invalid;
 * JSONNOTPLAIN into *fl if it has a byte past ASCII or an escape that
 * jsonesc does not write (\/, most \u). */
static size_t
vstring(const char *s, size_t n, size_t i, unsigned *fl)
{
	const uint64_t high = 0x0101010101010101ULL << 7;
	size_t k = i + 1;
	uint64_t seen = 0, x;
	int c;

	for (;;) {
		/* eight bytes at a time over the plain run, then one by
		 * one up to the byte that stops it */
		for (; n - k >= 8 && !hasstop(s + k); k += 8) {
			memcpy(&x, s + k, 8);
			seen |= x;
		}
		for (; k < n && !stop[(unsigned char)s[k]]; k++)
			seen |= (unsigned char)s[k];
		if (k >= n)
			return 0;
		c = (unsigned char)s[k];
		if (c == '"') {
			if (seen & high)
				*fl |= JSONNOTPLAIN;
			return k + 1 - i;
		}
		if (c < 0x20 || ++k >= n)
			return 0;
		if (s[k] == 'u') {
			if (n - k < 5 || hexval(s[k + 1]) < 0 ||
			    hexval(s[k + 2]) < 0 || hexval(s[k + 3]) < 0 ||
			    hexval(s[k + 4]) < 0)
				return 0;
			if (!plainu(s + k))
				*fl |= JSONNOTPLAIN;
			k += 5;
		} else if (escaped(s[k])) {
			if (s[k] == '/')
				*fl |= JSONNOTPLAIN;
			k++;
		} else {
			return 0;
		}
	}
}

/* Length of the number or literal at s[i], or 0 if it is invalid. */
static size_t
vprim(const char *s, size_t n, size_t i)
{
	size_t k = i;

	switch (s[i]) {
	case 't': return n - i >= 4 && !memcmp(s + i, "true", 4) ? 4 : 0;
	case 'f': return n - i >= 5 && !memcmp(s + i, "false", 5) ? 5 : 0;
	case 'n': return n - i >= 4 && !memcmp(s + i, "null", 4) ? 4 : 0;
	}
	if (k < n && s[k] == '-')
		k++;
	if (k < n && s[k] == '0')
		k++;
	else if (k < n && asciidigit(s[k]))
		while (k < n && asciidigit(s[k]))
			k++;
	else
		return 0;
	if (k < n && s[k] == '.') {
		if (++k >= n || !asciidigit(s[k]))
			return 0;
		while (k < n && asciidigit(s[k]))
			k++;
	}
	if (k < n && (s[k] == 'e' || s[k] == 'E')) {
		k++;
		if (k < n && (s[k] == '+' || s[k] == '-'))
			k++;
		if (k >= n || !asciidigit(s[k]))
			return 0;
		while (k < n && asciidigit(s[k]))
			k++;
	}
	return k - i;
}

/* The member of m[nm] that the key s[n] (quoted) names inside member
 * in (-1: the top level) and that is not yet found; or -1. */
static int
member(Jmember *m, int nm, int in, const char *s, size_t n)
{
	Json j;
	int k, r = -1;

	for (k = 0; k < nm && r < 0; k++) {
		if (m[k].in != in || m[k].at || strlen(m[k].key) != n - 2)
			continue;
		if (!memcmp(s + 1, m[k].key, n - 2))
			r = k;
	}
	/* a key written with escapes: rare, so parsed the slow way */
	if (r >= 0 || !memchr(s, '\\', n) || jsonparse(&j, s, n) < 0)
		return r;
	for (k = 0; k < nm && r < 0; k++)
		if (m[k].in == in && !m[k].at && jsoneq(&j, 0, m[k].key))
			r = k;
	jsonfree(&j);
	return r;
}

/* The container closed at s[i] brings depth back to where member
 * open[depth] started it: its span ends here. */
static void
closed(Jmember *m, int *open, int depth, size_t i)
{
	if (depth < 3 && open[depth] >= 0) {
		m[open[depth]].len = i + 1 - m[open[depth]].at;
		open[depth] = -1;
	}
}

/* Check s is exactly one JSON value (jsmn alone lets trailing commas,
 * missing commas and bad literals through) and count the tokens jsmn
 * will make of it, one a value and one a key, so that jsmn reads the
 * text once into an array of the right size.  The count, or -1.  With
 * m, where the values of the members m names lie, as jsonmembers. */
static long
validate(const char *s, size_t n, Jmember *m, int nm, unsigned *fl)
{
	char stack[DEPTHMAX];
	int depth = 0, key = -1, open[3] = { -1, -1, -1 }, top = -1;
	long count = 0;
	size_t i = 0, k;
	enum { VALUE, FIRSTVALUE, KEY, FIRSTKEY, AFTER } want = VALUE;

	for (;;) {
		while (i < n && isws(s[i]))
			i++;
		if (want == AFTER) {
			if (!depth)
				return i == n ? count : -1;
			if (i >= n)
				return -1;
			if (s[i] == ',')
				want = stack[depth - 1] == '{' ? KEY : VALUE;
			else if (s[i] == (stack[depth - 1] == '{' ? '}' : ']'))
				closed(m, open, --depth, i);
			else
				return -1;
			i++;
			continue;
		}
		if (i >= n)
			return -1;
		if (want == KEY || want == FIRSTKEY) {
			if (want == FIRSTKEY && s[i] == '}') {
				closed(m, open, --depth, i);
				i++, want = AFTER;
				continue;
			}
			if (s[i] != '"' || !(k = vstring(s, n, i, fl)))
				return -1;
			if (m && depth == 1)
				key = top = member(m, nm, -1, s + i, k);
			else if (m && depth == 2 && top >= 0 &&
			         stack[0] == '{' && stack[1] == '{')
				key = member(m, nm, top, s + i, k);
			for (i += k; i < n && isws(s[i]); i++)
				;
			if (i >= n || s[i] != ':')
				return -1;
			i++;
			count++;
			want = VALUE;
			continue;
		}
		if (want == FIRSTVALUE && s[i] == ']') {
			closed(m, open, --depth, i);
			i++, want = AFTER;
			continue;
		}
		count++;
		if (key >= 0)	/* its value starts here */
			m[key].at = i;
		if (s[i] == '{' || s[i] == '[') {
			if (depth == DEPTHMAX)
				return -1;
			if (key >= 0)
				open[depth] = key;
			key = -1;
			stack[depth++] = s[i];
			want = s[i] == '{' ? FIRSTKEY : FIRSTVALUE;
			i++;
			continue;
		}
		k = s[i] == '"' ? vstring(s, n, i, fl) : vprim(s, n, i);
		if (!k)
			return -1;
		if (key >= 0)
			m[key].len = k;
		key = -1;
		i += k;
		want = AFTER;
	}
}

/* Check s is one JSON value, as jsonparse does, and find the members of
 * its top-level object that m names (m[].in -1), and those of the
 * object values of these (m[].in the index of that member in m), the
 * first of each name: each one's value is s[at..at + len).  at is 0
 * for a member not found.  Neither jsmn nor its tokens are needed to
 * index a session's lines.  0, or -1 when s is not JSON. */
int
jsonmembers(const char *s, size_t n, Jmember *m, int nm)
{
	unsigned fl;

	return jsonmembersof(s, n, m, nm, &fl);
}

/* jsonmembers, and into *fl JSONNOTPLAIN if a string of s is not as
 * jsonesc would write it: valid ASCII JSON that is goes on the wire as
 * it stands (wire.c's Json plain). */
int
jsonmembersof(const char *s, size_t n, Jmember *m, int nm, unsigned *fl)
{
	int k;

	*fl = 0;
	for (k = 0; k < nm; k++)
		m[k].at = m[k].len = 0;
	if (validate(s, n, m, nm, fl) >= 0)
		return 0;
	for (k = 0; k < nm; k++)
		m[k].at = m[k].len = 0;
	return -1;
}

/* jsonreparse's memory of the last document: its text, and jsmn's state
 * (parser and tokens) after the start it shares with the one before.
 * The events of a stream share most of their start ("id", "model" and
 * the path down to the delta's text): jsmn then reads only the rest.
 * Kept for speed alone: in make bench, "SSE+JSON throughput" is 604 MB/s
 * with it and 116 without, "Responses deltas" 3.0 M/s against 0.7. */
typedef struct Jpre {
	Buf last;		/* the last document, if under LASTMAX */
	jsmn_parser p;		/* jsmn after last's first p.pos bytes */
	jsmntok_t *snap;	/* its first p.toknext tokens then */
	jsmntok_t *t;		/* the tokens jsmn fills */
	long cap;		/* of snap and t */
} Jpre;

enum { LASTMAX = 4096 };	/* a longer document is not kept */

/* The length of the start s and t share, eight bytes at a time. */
static size_t
shared(const char *s, const char *t, size_t n)
{
	uint64_t a, b;
	size_t k;

	for (k = 0; n - k >= 8; k += 8) {
		memcpy(&a, s + k, 8);	/* a load, where memcmp is a call */
		memcpy(&b, t + k, 8);
		if (a != b)
			break;
	}
	while (k < n && s[k] == t[k])
		k++;
	return k;
}

/* Run jsmn over the document s of n tokens, from c's state if s starts as
 * the last one did; its tokens, or NULL if jsmn made other than n. */
static jsmntok_t *
resume(Jpre *c, const char *s, size_t len, long n)
{
	jsmn_parser p;
	size_t same;
	int r;

	if (n > c->cap) {
		c->snap = xrealloc(c->snap, n * sizeof(*c->snap));
		c->t = xrealloc(c->t, n * sizeof(*c->t));
		c->cap = n;
	}
	same = shared(s, bstr(&c->last), MIN(len, c->last.len));
	if (same < c->p.pos)
		jsmn_init(&c->p);	/* s starts otherwise: forget it */
	p = c->p;
	memcpy(c->t, c->snap, p.toknext * sizeof(*c->t));
	/* a longer start shared: jsmn's state after it, for the next */
	if (same > p.pos) {
		r = jsmn_parse(&p, s, same, c->t, n);
		if (r < 0 && r != JSMN_ERROR_PART) {
			jsmn_init(&p);	/* never for a valid start */
		} else if (p.pos != c->p.pos) {
			c->p = p;
			memcpy(c->snap, c->t, p.toknext * sizeof(*c->t));
		}
	}
	r = jsmn_parse(&p, s, len, c->t, n);
	bufreset(&c->last);
	if (len <= LASTMAX)
		bufadd(&c->last, s, len);
	else
		jsmn_init(&c->p);
	return r == n ? c->t : NULL;
}

/* Parse s into j's token array, reused when it is big enough; jsmn from
 * where the last document left it when j->pre is set. */
static int
parse(Json *j, const char *s, size_t len)
{
	jsmn_parser p;
	jsmntok_t small[64], *t;
	long n;
	unsigned fl;
	int i;

	j->n = 0;
	if (len >= INT_MAX || (n = validate(s, len, NULL, 0, &fl)) < 0)
		return -1;
	for (i = 0; isws(s[i]); i++)
		;
	if (n > j->cap) {
		free(j->t);
		j->t = xcalloc(n, sizeof(*j->t));
		j->cap = n;
	}
	j->s = s;
	j->len = len;
	j->n = n;
	if (s[i] != '{' && s[i] != '[' && s[i] != '"') {
		j->t[0].type = JPRIM;
		j->t[0].start = i;
		j->t[0].end = i + vprim(s, len, i);
		j->t[0].size = 0;
		j->t[0].parent = -1;
		return 0;
	}
	if (j->pre) {
		t = resume(j->pre, s, len, n);
	} else {
		/* most documents are small: no malloc for them */
		t = n <= (long)LEN(small) ? small : xcalloc(n, sizeof(*t));
		jsmn_init(&p);
		if (jsmn_parse(&p, s, len, t, n) != n) {
			if (t != small)
				free(t);
			t = NULL;
		}
	}
	if (!t) {
		j->n = 0;
		return -1;
	}
	for (i = 0; i < n; i++) {
		j->t[i].type = t[i].type;
		j->t[i].start = t[i].start;
		j->t[i].end = t[i].end;
		j->t[i].size = t[i].size;
		j->t[i].parent = t[i].parent;
	}
	if (t != small && !j->pre)
		free(t);
	return 0;
}

/* Parse s into j; 0 on success, -1 if s is not exactly one JSON value.
 * A lone number or literal is a token of its own: strict jsmn wants it
 * inside a container. */
int
jsonparse(Json *j, const char *s, size_t len)
{
	memset(j, 0, sizeof(*j));
	if (parse(j, s, len) < 0) {
		jsonfree(j);
		return -1;
	}
	return 0;
}

/* The index of the quote that ends the string opened at s[i], in a text
 * known to be JSON, or -1: a quote ends it when an even number of
 * backslashes comes before it.  memchr skips the run between. */
static long
knownend(const char *s, size_t len, size_t i)
{
	const char *q;
	size_t k = i + 1, b;

	while ((q = memchr(s + k, '"', len - k))) {
		k = q - s;
		for (b = 0; s[k - 1 - b] == '\\'; b++)
			;	/* stops at the opening quote at the latest */
		if (b % 2 == 0)
			return k;
		k++;
	}
	return -1;
}

/* A token of type from start, its end not yet known, inside token in
 * (-1: none), which it counts, as jsmn counts them. */
static int
knowntok(Json *j, int type, size_t start, int in)
{
	Jtok *t;

	if (j->n == j->cap) {
		j->cap = j->cap ? 2 * j->cap : 64;
		j->t = xrealloc(j->t, j->cap * sizeof(*j->t));
	}
	t = &j->t[j->n];
	t->type = type;
	t->start = start;
	t->end = -1;
	t->size = 0;
	t->parent = in;
	if (in >= 0)
		j->t[in].size++;
	return j->n++;
}

/* Tokens of s[len], a container known to be JSON, as jsmn (strict, with
 * parent links) makes them: the token a value goes into is the key
 * before it, a key goes into its object.  Strings are skipped with
 * memchr, not read byte by byte as jsmn does: a resumed session's
 * messages, big tool results among them, are parsed once each for their
 * wire forms, and in make bench "resume 60 MB" spent 30% of its time in
 * jsmn.  0, or -1 (j's tokens left for jsonfree) when s is not what it
 * was said to be. */
static int
knownscan(Json *j, const char *s, size_t len)
{
	size_t i;
	long e;
	int in = -1, open = -1, k;

	for (i = 0; i < len; i++) {
		switch (s[i]) {
		case ' ': case '\t': case '\n': case '\r':
			break;
		case '{': case '[':
			if (open < 0 && j->n)
				return -1;	/* a second value */
			in = open = knowntok(j, s[i] == '{' ? JOBJ : JARR, i,
			                     in);
			break;
		case '}': case ']':
			if (open < 0 || j->t[open].type != (s[i] == '}' ?
			    JOBJ : JARR))
				return -1;
			j->t[open].end = i + 1;
			in = j->t[open].parent;
			/* the container it is in, past the key */
			open = in >= 0 && j->t[in].type == JSTR ?
			       j->t[in].parent : in;
			break;
		case ':':
			in = j->n - 1;
			break;
		case ',':
			if (in >= 0 && j->t[in].type != JOBJ &&
			    j->t[in].type != JARR)
				in = j->t[in].parent;
			break;
		case '"':
			if (open < 0 || (e = knownend(s, len, i)) < 0)
				return -1;
			k = knowntok(j, JSTR, i + 1, in);
			j->t[k].end = e;
			i = e;
			break;
		default:
			if (open < 0)
				return -1;
			k = knowntok(j, JPRIM, i, in);
			while (i + 1 < len && !strchr(" \t\r\n,]}", s[i + 1]))
				i++;
			j->t[k].end = i + 1;
		}
	}
	return open < 0 && j->n ? 0 : -1;
}

/* Parse s, a text already known to be JSON (a message we made, or one
 * whose line was checked whole when the session was indexed), as
 * jsonparse would, without checking it again (knownscan).  Only for
 * such texts: a missing or extra comma goes through.  A text that is no
 * object or array, or turns out torn, goes to jsonparse. */
int
jsonparseknown(Json *j, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len && isws(s[i]); i++)
		;
	if (len >= INT_MAX || i == len || (s[i] != '{' && s[i] != '['))
		return jsonparse(j, s, len);
	memset(j, 0, sizeof(*j));
	if (knownscan(j, s, len) < 0) {	/* jsonparse says why */
		jsonfree(j);
		return jsonparse(j, s, len);
	}
	j->s = s;
	j->len = len;
	return 0;
}

/* jsonparse again into j, zeroed or holding a parse: its token array is
 * kept for the next document, as a stream parses one after another, and
 * what jsmn read of this one's start.  On failure j holds no tokens, but
 * its memory stays for jsonfree. */
int
jsonreparse(Json *j, const char *s, size_t len)
{
	if (!j->pre) {
		j->pre = xcalloc(1, sizeof(*j->pre));
		jsmn_init(&j->pre->p);
	}
	return parse(j, s, len);
}

void
jsonfree(Json *j)
{
	if (j->pre) {
		buffree(&j->pre->last);
		free(j->pre->snap);
		free(j->pre->t);
		free(j->pre);
	}
	free(j->t);
	memset(j, 0, sizeof(*j));
}

/* Whether token i is a string equal to s[n]; plain: s holds no '\\'.
 * An escape is never shorter than what it stands for, so a token of n
 * bytes is s only if it is s byte for byte, without escapes (which a
 * plain s has none of), and only a longer token may need decoding. */
static int
streq(const Json *j, int i, const char *s, size_t n, int plain)
{
	const char *p;
	Buf b;
	size_t len;
	int eq;

	if (i < 0 || i >= j->n || j->t[i].type != JSTR)
		return 0;
	p = j->s + j->t[i].start;
	len = j->t[i].end - j->t[i].start;
	if (len == n)	/* same-length keys differ most often at once */
		return (!n || *p == *s) && !memcmp(p, s, n) &&
		       (plain || !memchr(p, '\\', n));
	if (len < n || !memchr(p, '\\', len))
		return 0;
	/* set here, not where declared: zeroing it on every call, in the
	 * hot path of every key looked up, took a measurable share */
	b.p = NULL;
	b.len = b.cap = 0;
	jsonstrbuf(j, i, &b);
	eq = b.len == n && !memcmp(b.p, s, b.len);
	buffree(&b);
	return eq;
}

/* Whether token i is a string equal to s. */
int
jsoneq(const Json *j, int i, const char *s)
{
	size_t n = strlen(s);

	return streq(j, i, s, n, !memchr(s, '\\', n));
}

/* The index of the token after i and all it holds.  Tokens are in text
 * order, so that is the first one starting past i's end.  For an object
 * key this is its value. */
int
jsonskip(const Json *j, int i)
{
	int k;

	if (i < 0 || i >= j->n)
		return j->n;
	for (k = i + 1; k < j->n && j->t[k].start < j->t[i].end; k++)
		;
	return k;
}

/* The value of key in object obj, or -1. */
int
jsonget(const Json *j, int obj, const char *key)
{
	size_t n = strlen(key);
	int i, k, plain = !memchr(key, '\\', n);

	if (obj < 0 || obj >= j->n || j->t[obj].type != JOBJ)
		return -1;
	i = obj + 1;
	for (k = 0; k < j->t[obj].size && i + 1 < j->n; k++) {
		if (streq(j, i, key, n, plain))
			return i + 1;
		i = jsonskip(j, i + 1);
	}
	return -1;
}

/* Whether the n bytes at p are those at s: a loop, as keys are short and
 * a call to memcmp for each cost more than comparing them. */
static int
same(const char *p, const char *s, size_t n)
{
	while (n && *p == *s)
		p++, s++, n--;
	return !n;
}

/* The values of some keys of object obj in one walk over it: val[k] is
 * that of keys[k] (which holds no '\\'), or -1.  Of a key repeated the
 * first counts, as with jsonget. */
void
jsonkeys(const Json *j, int obj, const char *const keys[], int nkeys,
         int val[])
{
	size_t tl, n;
	const char *p;
	int i, k, m;

	for (k = 0; k < nkeys; k++)
		val[k] = -1;
	if (obj < 0 || obj >= j->n || j->t[obj].type != JOBJ)
		return;
	i = obj + 1;
	for (m = 0; m < j->t[obj].size && i + 1 < j->n; m++) {
		p = j->s + j->t[i].start;
		tl = j->t[i].end - j->t[i].start;
		for (k = 0; k < nkeys && j->t[i].type == JSTR; k++) {
			/* most keys differ at once: no more is read */
			if (val[k] >= 0 ||
			    (tl && *p != '\\' && *p != *keys[k]))
				continue;
			/* only a longer key with escapes needs decoding */
			n = strlen(keys[k]);
			if (tl == n ? same(p, keys[k], n) :
			    tl > n && streq(j, i, keys[k], n, 1)) {
				val[k] = i + 1;
				break;
			}
		}
		if (m + 1 < j->t[obj].size)	/* no walk past the last */
			i = jsonskip(j, i + 1);
	}
}

/* Item k of array arr, or -1. */
int
jsonat(const Json *j, int arr, int k)
{
	int i;

	if (arr < 0 || arr >= j->n || j->t[arr].type != JARR ||
	    k < 0 || k >= j->t[arr].size)
		return -1;
	for (i = arr + 1; k > 0; k--)
		i = jsonskip(j, i);
	return i < j->n ? i : -1;
}

/* The item after item i of an array, or -1.  Walk an array with
 * jsonat(j, arr, 0) and this: jsonat for each k would walk from the
 * start each time, quadratic in a long array from the network. */
int
jsonnext(const Json *j, int i)
{
	int arr, k;

	if (i < 0 || i >= j->n || (arr = j->t[i].parent) < 0 ||
	    j->t[arr].type != JARR)
		return -1;
	k = jsonskip(j, i);
	return k < j->n && j->t[k].parent == arr ? k : -1;
}

int
jsonisnull(const Json *j, int i)
{
	return i >= 0 && i < j->n && j->t[i].type == JPRIM &&
	       j->s[j->t[i].start] == 'n';
}

static unsigned
hex4(const char *p)
{
	unsigned v = 0;
	int k;

	/* validate() saw four hex digits here */
	for (k = 0; k < 4; k++)
		v = v << 4 | hexval(p[k]);
	return v;
}

static void
pututf8(Buf *b, unsigned long c)
{
	char u[4];

	if (c < 0x80) {
		u[0] = c;
		bufadd(b, u, 1);
	} else if (c < 0x800) {
		u[0] = 0xc0 | c >> 6;
		u[1] = 0x80 | (c & 0x3f);
		bufadd(b, u, 2);
	} else if (c < 0x10000) {
		u[0] = 0xe0 | c >> 12;
		u[1] = 0x80 | (c >> 6 & 0x3f);
		u[2] = 0x80 | (c & 0x3f);
		bufadd(b, u, 3);
	} else {
		u[0] = 0xf0 | c >> 18;
		u[1] = 0x80 | (c >> 12 & 0x3f);
		u[2] = 0x80 | (c >> 6 & 0x3f);
		u[3] = 0x80 | (c & 0x3f);
		bufadd(b, u, 4);
	}
}

/* Append the unescaped text of string token i to out; -1 if i is not a
 * string.  Lone surrogates become U+FFFD; other bytes pass unchanged. */
int
jsonstrbuf(const Json *j, int i, Buf *out)
{
	const char *p, *e;
	unsigned long c, lo;

	if (i < 0 || i >= j->n || j->t[i].type != JSTR)
		return -1;
	p = j->s + j->t[i].start;
	e = j->s + j->t[i].end;
	bufgrow(out, e - p);
	while (p < e) {
		if (*p != '\\') {
			const char *q = memchr(p, '\\', e - p);

			q = q ? q : e;
			bufadd(out, p, q - p);
			p = q;
			continue;
		}
		p++;
		switch (*p++) {
		case 'b': bufaddc(out, '\b'); break;
		case 'f': bufaddc(out, '\f'); break;
		case 'n': bufaddc(out, '\n'); break;
		case 'r': bufaddc(out, '\r'); break;
		case 't': bufaddc(out, '\t'); break;
		case 'u':
			c = hex4(p);
			p += 4;
			if (c >= 0xd800 && c <= 0xdbff && e - p >= 6 &&
			    p[0] == '\\' && p[1] == 'u' &&
			    (lo = hex4(p + 2)) >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (c >= 0xd800 && c <= 0xdfff) {
				c = 0xfffd;
			}
			pututf8(out, c);
			break;
		default: bufaddc(out, p[-1]); break;	/* " \ / */
		}
	}
	return 0;
}

/* Text of a message's content: a string, or its text blocks joined. */
void
jsontext(Buf *b, const Json *j, int content)
{
	int blk;

	if (jsonstrbuf(j, content, b) == 0)
		return;
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		if (jsoneq(j, jsonget(j, blk, "type"), "text"))
			jsonstrbuf(j, jsonget(j, blk, "text"), b);
}

/* The unescaped string token i, to be freed; NULL if it is no string. */
char *
jsonstr(const Json *j, int i)
{
	Buf b = { 0 };

	if (jsonstrbuf(j, i, &b) < 0)
		return NULL;
	return bufdetach(&b);
}

/* A number written as JSON writes them (a sign, digits, a fraction, an
 * exponent), white space around it allowed: strtod would take hex, inf
 * and nan too, and brings a large parser into a static binary.  Exact
 * for integers up to 2^53, within a unit or two of the last place for
 * the rest. */
static int
number(const char *s, double *out)
{
	static const double p10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
	};
	unsigned long long m = 0;
	int neg = 0, digits = 0, exp = 0, e = 0, eneg = 0, k;
	double v;

	while (isws(*s))
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (m < 100000000000000000ULL)
			m = m * 10 + (*s - '0');
		else
			exp++;	/* past 17 digits: only their count */
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++)
			if (m < 100000000000000000ULL)
				m = m * 10 + (*s - '0'), exp--;
	}
	if (!digits)
		return -1;
	if (*s == 'e' || *s == 'E') {
		if (*++s == '-' || *s == '+')
			eneg = *s++ == '-';
		if (*s < '0' || *s > '9')
			return -1;
		for (; *s >= '0' && *s <= '9'; s++)
			e = e < 100000 ? e * 10 + (*s - '0') : e;
		exp += eneg ? -e : e;
	}
	while (isws(*s))
		s++;
	if (*s)
		return -1;
	v = (double)m;
	for (k = exp; k > 0 && v != 0; k -= MIN(k, 22))
		v *= p10[MIN(k, 22)];
	for (k = -exp; k > 0 && v != 0; k -= MIN(k, 22))
		v /= p10[MIN(k, 22)];
	*out = neg ? -v : v;
	return 0;
}


/* A number, or a string holding one: models send both. */
int
jsonnum(const Json *j, int i, double *out)
{
	char buf[64];
	const Jtok *t;
	size_t n;

	if (i < 0 || i >= j->n)
		return -1;
	t = &j->t[i];
	if (t->type != JPRIM && t->type != JSTR)
		return -1;
	n = t->end - t->start;
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, j->s + t->start, n);
	buf[n] = '\0';
	if (strchr("tfn", buf[0]) && t->type == JPRIM)
		return -1;
	return number(buf, out);
}

/* A boolean, or the strings "true" and "false". */
int
jsonbool(const Json *j, int i, int *out)
{
	const Jtok *t;
	size_t n;

	if (i < 0 || i >= j->n)
		return -1;
	t = &j->t[i];
	n = t->end - t->start;
	if (t->type != JPRIM && t->type != JSTR)
		return -1;
	if (n == 4 && !memcmp(j->s + t->start, "true", 4))
		*out = 1;
	else if (n == 5 && !memcmp(j->s + t->start, "false", 5))
		*out = 0;
	else
		return -1;
	return 0;
}

/* Append s as a JSON string: quoted, escaped, invalid UTF-8 replaced. */
void
jsonesc(Buf *b, const char *s, size_t n)
{
	size_t i = 0, k;
	unsigned char c;

	bufgrow(b, n + 2);
	bufaddc(b, '"');
	while (i < n) {
		/* most text needs no escape: copy it a run at a time */
		for (k = i; k < n && (unsigned char)s[k] < 0x80 &&
		     !stop[(unsigned char)s[k]]; k++)
			;
		bufadd(b, s + i, k - i);
		if ((i = k) == n)
			break;
		c = s[i];
		if (c >= 0x80) {
			if ((k = utf8seq(s + i, n - i))) {
				bufadd(b, s + i, k);
				i += k;
			} else {
				bufadds(b, "\xef\xbf\xbd");
				i++;
			}
			continue;
		}
		i++;
		switch (c) {
		case '"': bufadds(b, "\\\""); break;
		case '\\': bufadds(b, "\\\\"); break;
		case '\n': bufadds(b, "\\n"); break;
		case '\r': bufadds(b, "\\r"); break;
		case '\t': bufadds(b, "\\t"); break;
		case '\b': bufadds(b, "\\b"); break;
		case '\f': bufadds(b, "\\f"); break;
		default:
			if (c < 0x20)
				bufaddf(b, "\\u%04x", c);
			else
				bufaddc(b, c);
		}
	}
	bufaddc(b, '"');
}

void
jsonescs(Buf *b, const char *s)
{
	jsonesc(b, s, strlen(s));
}

/* Append value i as JSON text, as it stood, but with invalid UTF-8 in its
 * strings replaced, so that what we send on is valid. */
void
jsonraw(Buf *b, const Json *j, int i)
{
	int k, end;
	size_t pos;
	const Jtok *t;

	if (i < 0 || i >= j->n) {
		bufadds(b, "null");
		return;
	}
	end = jsonskip(j, i);
	t = &j->t[i];
	pos = t->type == JSTR ? t->start - 1 : t->start;
	/* room for it all at once: a big value is not moved as b doubles */
	bufgrow(b, t->end + 1 - pos);
	for (k = i; k < end; k++) {
		t = &j->t[k];
		if (t->type != JSTR)
			continue;
		bufadd(b, j->s + pos, t->start - pos);
		utf8repair(b, j->s + t->start, t->end - t->start);
		pos = t->end;
	}
	t = &j->t[i];
	bufadd(b, j->s + pos, t->end + (t->type == JSTR) - pos);
}

/* Value i written anew: no white space, each string unescaped and
 * escaped again with only the escapes JSON requires (jsonesc), numbers
 * and literals as they stood.  So a hook reads one line, with the
 * strings that will be used, whatever escapes or line breaks the model
 * chose.  The index after value i. */
static int
canon(Buf *b, const Json *j, int i, Buf *tmp)
{
	const Jtok *t = &j->t[i];
	int k, next = i + 1;

	switch (t->type) {
	case JOBJ:
	case JARR:
		bufaddc(b, t->type == JOBJ ? '{' : '[');
		for (k = 0; k < t->size && next < j->n; k++) {
			if (k)
				bufaddc(b, ',');
			next = canon(b, j, next, tmp);
			if (t->type == JOBJ && next < j->n) {
				bufaddc(b, ':');
				next = canon(b, j, next, tmp);
			}
		}
		bufaddc(b, t->type == JOBJ ? '}' : ']');
		return next;
	case JSTR:
		bufreset(tmp);
		jsonstrbuf(j, i, tmp);
		jsonesc(b, tmp->p ? tmp->p : "", tmp->len);
		return next;
	}
	bufadd(b, j->s + t->start, t->end - t->start);
	return next;
}

void
jsoncanon(Buf *b, const Json *j, int i)
{
	Buf tmp = { 0 };

	if (i < 0 || i >= j->n) {
		bufadds(b, "null");
		return;
	}
	canon(b, j, i, &tmp);
	buffree(&tmp);
}

/* A key of some object, unescaped, for jsondupkey's sort. */
typedef struct {
	int obj;
	size_t at, len;		/* in the buffer of keys */
	const char *p;
} Jkey;

static int
keycmp(const void *a, const void *b)
{
	const Jkey *x = a, *y = b;
	int c;

	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	c = memcmp(x->p, y->p, x->len);
	return c;
}

/* Whether some object in j has a key twice, as written or through
 * escapes ("a" and "\u0061"): jsonget takes the first and another
 * reader may take the last.  1 and that key in key, or 0.  Sorted, not
 * compared pair by pair: an object of many keys costs n log n. */
int
jsondupkey(const Json *j, Buf *key)
{
	Jkey *k;
	Buf all = { 0 };
	int i, n = 0, dup = 0;

	k = xcalloc(j->n ? j->n : 1, sizeof(*k));
	for (i = 0; i < j->n; i++) {
		if (j->t[i].parent < 0 || j->t[j->t[i].parent].type != JOBJ)
			continue;
		k[n].obj = j->t[i].parent;
		k[n].at = all.len;
		jsonstrbuf(j, i, &all);
		k[n].len = all.len - k[n].at;
		n++;
	}
	for (i = 0; i < n; i++)
		k[i].p = all.p ? all.p + k[i].at : "";
	qsort(k, n, sizeof(*k), keycmp);
	for (i = 1; i < n && !dup; i++)
		if (!keycmp(&k[i - 1], &k[i])) {
			bufadd(key, k[i].p, k[i].len);
			dup = 1;
		}
	free(k);
	buffree(&all);
	return dup;
}
