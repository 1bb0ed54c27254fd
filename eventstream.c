/* See LICENSE file for copyright and license details. */
/* eventstream.c: a push parser for AWS's binary event-stream framing, as
 * Bedrock streams an answer: each message a 12-byte prelude (total
 * length, headers length, CRC-32 of those 8 bytes), typed headers, the
 * payload and a CRC-32 of all before it, big-endian throughout. */
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "eventstream.h"

enum {
	PRELUDE = 12,		/* total, headers length, prelude CRC */
	MINMSG = PRELUDE + 4,	/* and the message CRC */
	MAXHEADERS = 128 * 1024	/* AWS's bound on a message's headers */
};

/* CRC-32 (ISO-HDLC, zlib's) of n bytes, on from crc (0 to start).  A
 * table of 16 keeps it small; an answer is a few MB at most. */
unsigned long
escrc(unsigned long crc, const void *p, size_t n)
{
	static const unsigned long t[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c
	};
	const unsigned char *b = p;

	crc = ~crc & 0xffffffffUL;
	while (n--) {
		crc ^= *b++;
		crc = crc >> 4 ^ t[crc & 15];
		crc = crc >> 4 ^ t[crc & 15];
	}
	return ~crc & 0xffffffffUL;
}

static unsigned long
be32(const char *p)
{
	const unsigned char *b = (const unsigned char *)p;

	return (unsigned long)b[0] << 24 | (unsigned long)b[1] << 16 |
	       (unsigned long)b[2] << 8 | b[3];
}

/* A big-endian signed integer of n bytes (1, 2, 4 or 8). */
static long long
benum(const char *p, int n)
{
	unsigned long long v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | (unsigned char)p[i];
	if (n < 8 && v >> (8 * n - 1))	/* negative: extend the sign */
		v |= ~0ULL << (8 * n);
	return (long long)v;
}

void
esinit(Es *s, Esfn fn, void *arg)
{
	memset(s, 0, sizeof(*s));
	s->fn = fn;
	s->arg = arg;
}

void
esfree(Es *s)
{
	buffree(&s->msg);
}

static int
esbad(Es *s, const char *why)
{
	snprintf(s->err, sizeof(s->err), "a malformed event-stream frame: "
	         "%s", why);
	return ESBAD;
}

/* The fixed size of a header value of type t, or -1 if it has a length
 * of its own (bytes, string), -2 if t is no type. */
static int
valsize(int t)
{
	static const signed char size[] = { 0, 0, 1, 2, 4, 8, -1, -1, 8, 16 };

	return t >= 0 && t < (int)sizeof(size) ? size[t] : -2;
}

/* The headers of a message, p[n], into h; their number, or -1 with err
 * set. */
static int
esheaders(Es *s, const char *p, size_t n, Eshead *h)
{
	const char *e = p + n;
	int nh = 0, size;

	while (p < e) {
		if (nh == ESMAXHEAD)
			return esbad(s, "too many headers"), -1;
		memset(&h[nh], 0, sizeof(h[nh]));
		h[nh].namelen = (unsigned char)*p++;
		if (!h[nh].namelen || (size_t)(e - p) < h[nh].namelen + 1)
			return esbad(s, "a header's name"), -1;
		h[nh].name = p;
		p += h[nh].namelen;
		h[nh].type = (unsigned char)*p++;
		if ((size = valsize(h[nh].type)) == -2)
			return esbad(s, "a header of no known type"), -1;
		if (size == -1) {
			if (e - p < 2 || (size_t)(e - p - 2) <
			    ((size_t)(unsigned char)p[0] << 8 |
			     (unsigned char)p[1]))
				return esbad(s, "a header's value"), -1;
			h[nh].len = (size_t)(unsigned char)p[0] << 8 |
			            (unsigned char)p[1];
			h[nh].p = p + 2;
			p += 2 + h[nh].len;
		} else {
			if (e - p < size)
				return esbad(s, "a header's value"), -1;
			h[nh].p = p;
			h[nh].len = size;
			if (h[nh].type <= ESFALSE)
				h[nh].num = h[nh].type == ESTRUE;
			else if (size <= 8)
				h[nh].num = benum(p, size);
			p += size;
		}
		nh++;
	}
	return nh;
}

/* A whole message, its length checked: CRCs, headers, the callback. */
static int
esmessage(Es *s, const char *p, size_t total)
{
	Eshead h[ESMAXHEAD];
	size_t hlen = be32(p + 4);
	int nh;

	if (escrc(0, p, total - 4) != be32(p + total - 4))
		return esbad(s, "its CRC does not match");
	if ((nh = esheaders(s, p + PRELUDE, hlen, h)) < 0)
		return ESBAD;
	return s->fn(s->arg, h, nh, p + PRELUDE + hlen,
	             total - MINMSG - hlen);
}

/* The prelude at p: the message's total length, or 0 with err set. */
static size_t
esprelude(Es *s, const char *p, int *rc)
{
	size_t total = be32(p), hlen = be32(p + 4);

	*rc = ESBAD;
	if (escrc(0, p, 8) != be32(p + 8))
		return esbad(s, "its prelude's CRC does not match"), 0;
	if (total < MINMSG || hlen > total - MINMSG || hlen > MAXHEADERS)
		return esbad(s, "its lengths do not add up"), 0;
	if (s->max && total > s->max) {
		*rc = ESBIG;
		return 0;
	}
	*rc = 0;
	return total;
}

/* Feed n bytes, split anywhere.  Returns 0, ESBAD (s->err says why),
 * ESBIG for a message over s->max bytes, or the first non-zero value the
 * callback returned; after a non-zero value it must not be fed again. */
int
esfeed(Es *s, const char *p, size_t n)
{
	size_t total, k;
	int rc;

	while (n) {
		/* a whole message in what was fed is read where it is */
		if (!s->msg.len && n >= PRELUDE) {
			if (!(total = esprelude(s, p, &rc)))
				return rc;
			if (n >= total) {
				if ((rc = esmessage(s, p, total)))
					return rc;
				p += total;
				n -= total;
				continue;
			}
		}
		k = s->msg.len < PRELUDE ? PRELUDE - s->msg.len : 0;
		if (!k) {
			total = be32(s->msg.p);
			k = total - s->msg.len;
		}
		k = MIN(k, n);
		bufadd(&s->msg, p, k);
		p += k;
		n -= k;
		if (s->msg.len == PRELUDE &&
		    !(total = esprelude(s, s->msg.p, &rc)))
			return rc;
		if (s->msg.len > PRELUDE && s->msg.len == be32(s->msg.p)) {
			rc = esmessage(s, s->msg.p, s->msg.len);
			bufreset(&s->msg);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* The stream ended: ESBAD if it ended inside a message. */
int
esend(Es *s)
{
	if (s->msg.len)
		return esbad(s, "the stream ended inside a message");
	return 0;
}

/* The header of that name, or NULL. */
const Eshead *
eshead(const Eshead *h, int nh, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 0; i < nh; i++)
		if (h[i].namelen == n && !memcmp(h[i].name, name, n))
			return &h[i];
	return NULL;
}

/* Whether header h is the string s. */
int
esis(const Eshead *h, const char *s)
{
	return h && h->type == ESSTRING && h->len == strlen(s) &&
	       !memcmp(h->p, s, h->len);
}
