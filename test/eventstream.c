/* See LICENSE file for copyright and license details. */
/* test/eventstream.c: unit tests of eventstream.c, each stream also fed
 * split at every byte and a byte at a time. */
#include <string.h>

#include "../util.h"
#include "../eventstream.h"
#include "t.h"

/* Each message is logged as "name=value;...{payload}"; numbers in
 * decimal, bytes and uuids in hex. */
static int
logmsg(void *arg, const Eshead *h, int nh, const char *p, size_t n)
{
	Buf *b = arg;
	size_t k;
	int i;

	for (i = 0; i < nh; i++) {
		bufadd(b, h[i].name, h[i].namelen);
		bufaddc(b, '=');
		if (h[i].type == ESSTRING)
			bufadd(b, h[i].p, h[i].len);
		else if (h[i].type == ESBYTES || h[i].type == ESUUID)
			for (k = 0; k < h[i].len; k++)
				bufaddf(b, "%02x", (unsigned char)h[i].p[k]);
		else
			bufaddf(b, "%lld", h[i].num);
		bufaddc(b, ';');
	}
	bufaddc(b, '{');
	bufadd(b, p, n);
	bufaddc(b, '}');
	return 0;
}

static void
put32(Buf *b, unsigned long v)
{
	bufaddc(b, v >> 24 & 255);
	bufaddc(b, v >> 16 & 255);
	bufaddc(b, v >> 8 & 255);
	bufaddc(b, v & 255);
}

/* A string header into h. */
static void
strhead(Buf *h, const char *name, const char *v)
{
	bufaddc(h, strlen(name));
	bufadds(h, name);
	bufaddc(h, ESSTRING);
	bufaddc(h, strlen(v) >> 8);
	bufaddc(h, strlen(v) & 255);
	bufadds(h, v);
}

/* A whole message of headers h and payload p onto b, CRCs right. */
static void
frame(Buf *b, const Buf *h, const char *p)
{
	size_t start = b->len, total = 16 + h->len + strlen(p);

	put32(b, total);
	put32(b, h->len);
	put32(b, escrc(0, b->p + start, 8));
	bufadd(b, h->p, h->len);
	bufadds(b, p);
	put32(b, escrc(0, b->p + start, b->len - start));
}

/* Feed in n bytes a step (0: split once at every byte, the results
 * compared): the log, and the last return value in *rc. */
static void
feed(Buf *out, const Buf *in, size_t step, size_t max, int *rc)
{
	Es s;
	size_t i;

	esinit(&s, logmsg, out);
	s.max = max;
	*rc = 0;
	for (i = 0; i < in->len && !*rc; i += step)
		*rc = esfeed(&s, in->p + i, MIN(step, in->len - i));
	if (!*rc)
		*rc = esend(&s);
	esfree(&s);
}

/* Whether every split of in logs want with return value rc. */
static int
everysplit(const Buf *in, const char *want, int wantrc)
{
	Buf out = { 0 };
	Es s;
	size_t cut;
	int rc, ok = 1;

	for (cut = 0; cut <= in->len && ok; cut++) {
		bufreset(&out);
		esinit(&s, logmsg, &out);
		rc = esfeed(&s, in->p, cut);
		if (!rc)
			rc = esfeed(&s, in->p + cut, in->len - cut);
		if (!rc)
			rc = esend(&s);
		esfree(&s);
		ok = rc == wantrc && out.len == strlen(want) &&
		     !memcmp(bstr(&out), want, out.len);
	}
	bufreset(&out);
	feed(&out, in, 1, 0, &rc);
	ok = ok && rc == wantrc && !strcmp(bstr(&out), want);
	buffree(&out);
	return ok;
}

/* one header of each type, as the frame holds them */
static const char types[] =
	"\1t\0" "\1f\1" "\1b\2\xff" "\1s\3\x01\x02"
	"\1i\4\xff\xff\xff\xfe" "\1l\5\0\0\1\0\0\0\0\0"
	"\1y\6\0\2\xca\xfe" "\1d\x08\0\0\1\x8c\0\0\0\0"
	"\1u\x09" "0123456789abcdef";

int
main(void)
{
	Buf h = { 0 }, in = { 0 }, out = { 0 };
	const char *want;
	Es s;
	int rc;

	T(escrc(0, "123456789", 9) == 0xcbf43926UL, "crc: the check value");
	T(escrc(escrc(0, "1234", 4), "56789", 5) == 0xcbf43926UL,
	  "crc: in pieces");

	/* Bedrock's chunk: three string headers, a JSON payload */
	strhead(&h, ":event-type", "chunk");
	strhead(&h, ":content-type", "application/json");
	strhead(&h, ":message-type", "event");
	frame(&in, &h, "{\"bytes\":\"eyJ0eXBlIjoibWVzc2FnZV9zdG9wIn0=\"}");
	frame(&in, &h, "{\"bytes\":\"e30=\"}");
	want = ":event-type=chunk;:content-type=application/json;"
	       ":message-type=event;{{\"bytes\":\"eyJ0eXBlIjoibWVzc2FnZV9zdG9w"
	       "In0=\"}}:event-type=chunk;:content-type=application/json;"
	       ":message-type=event;{{\"bytes\":\"e30=\"}}";
	T(everysplit(&in, want, 0), "two chunks, split anywhere");

	/* every type of header value */
	bufreset(&h);
	bufadd(&h, types, sizeof(types) - 1);
	bufreset(&in);
	frame(&in, &h, "");
	T(everysplit(&in, "t=1;f=0;b=-1;s=258;i=-2;l=1099511627776;y=cafe;"
	  "d=1700807049216;u=30313233343536373839616263646566;{}", 0),
	  "headers: bool, byte, short, int, long, bytes, time, uuid");
	T(esis(NULL, "x") == 0, "esis: no header is no string");

	/* a message with no headers and no payload */
	bufreset(&h);
	bufreset(&in);
	frame(&in, &h, "");
	T(everysplit(&in, "{}", 0), "an empty message");

	/* bad frames: a clear error, never a crash */
	bufreset(&h);
	strhead(&h, ":message-type", "event");
	bufreset(&in);
	frame(&in, &h, "{}");
	in.p[in.len - 1] ^= 1;
	T(everysplit(&in, "", ESBAD), "a bad message CRC");
	in.p[in.len - 1] ^= 1;
	in.p[9] ^= 1;
	T(everysplit(&in, "", ESBAD), "a bad prelude CRC");
	in.p[9] ^= 1;
	in.len -= 3;
	T(everysplit(&in, "", ESBAD), "cut inside a message");
	in.len += 3;
	feed(&out, &in, in.len, 10, &rc);
	T(rc == ESBIG, "a message over the bound");
	esinit(&s, logmsg, &out);
	rc = esfeed(&s, "\0\0\0\x0c\0\0\0\0", 8);
	T(rc == 0, "a prelude, its CRC not in yet");
	esfree(&s);

	/* lengths that do not add up, with good CRCs */
	bufreset(&in);
	put32(&in, 16);
	put32(&in, 4);
	put32(&in, escrc(0, in.p, 8));
	put32(&in, escrc(0, in.p, 12));
	T(everysplit(&in, "", ESBAD), "headers longer than the message");
	bufreset(&in);
	put32(&in, 8);
	put32(&in, 0);
	put32(&in, escrc(0, in.p, 8));
	T(everysplit(&in, "", ESBAD), "a total shorter than a message");

	/* headers that overrun their length */
	bufreset(&h);
	bufadd(&h, "\5:name\7\0\x09short", 14);
	bufreset(&in);
	frame(&in, &h, "");
	T(everysplit(&in, "", ESBAD), "a string header past the headers");
	bufreset(&h);
	bufadd(&h, "\1x\x0a", 3);
	bufreset(&in);
	frame(&in, &h, "");
	T(everysplit(&in, "", ESBAD), "a header of no known type");
	bufreset(&h);
	bufadd(&h, "\0", 1);
	bufreset(&in);
	frame(&in, &h, "");
	T(everysplit(&in, "", ESBAD), "a header with no name");
	bufreset(&h);
	bufadd(&h, "\1i\4\0\0", 5);
	bufreset(&in);
	frame(&in, &h, "");
	T(everysplit(&in, "", ESBAD), "an int header cut short");
	buffree(&h);
	buffree(&in);
	buffree(&out);
	return tfail != 0;
}
