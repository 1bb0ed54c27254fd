/* See LICENSE file for copyright and license details. */
/* patch.h: the hunks diffunified makes, applied to the old text, for
 * test/diff.c and test/fuzz_diff.c: each context and deleted line must
 * be the old text's, in order, and the result is the new text. */

/* The next line of p[*at..n), its newline with it. */
static size_t
patchline(const char *p, size_t n, size_t *at, const char **l)
{
	const char *nl = memchr(p + *at, '\n', n - *at);
	size_t len = nl ? (size_t)(nl + 1 - (p + *at)) : n - *at;

	*l = p + *at;
	*at += len;
	return len;
}

/* One hunk line's text into t, without the newline a following "\ No
 * newline" line takes away. */
static void
patchtext(Buf *t, const char *l, size_t len, const char *h, size_t hn,
          size_t at)
{
	bufreset(t);
	bufadd(t, l + 1, len - 1);
	if (at < hn && h[at] == '\\' && t->len && t->p[t->len - 1] == '\n')
		t->p[--t->len] = '\0';
}

/* b of a and the hunks h; -1 if they do not fit a. */
static int
patchapply(Buf *b, const char *a, size_t an, const char *h, size_t hn)
{
	size_t at = 0, ap = 0, len, alen;
	long line = 0, start, cnt;
	const char *l, *al;
	Buf t = { 0 };
	int rc = 0;

	while (!rc && at < hn) {
		len = patchline(h, hn, &at, &l);
		if (l[0] == '\\')
			continue;
		if (l[0] == '@') {
			if (sscanf(l, "@@ -%ld,%ld", &start, &cnt) < 2)
				cnt = 1, sscanf(l, "@@ -%ld", &start);
			if (cnt)
				start--;
			for (; line < start && ap < an; line++) {
				alen = patchline(a, an, &ap, &al);
				bufadd(b, al, alen);
			}
			rc = line == start ? 0 : -1;
			continue;
		}
		patchtext(&t, l, len, h, hn, at);
		if (l[0] == '+') {
			bufadd(b, t.p, t.len);
			continue;
		}
		if (ap >= an) {
			rc = -1;
			break;
		}
		alen = patchline(a, an, &ap, &al);
		line++;
		if (alen != t.len || memcmp(al, t.p, alen))
			rc = -1;
		else if (l[0] == ' ')
			bufadd(b, t.p, t.len);
		else if (l[0] != '-')
			rc = -1;
	}
	if (ap < an)
		bufadd(b, a + ap, an - ap);
	buffree(&t);
	bufgrow(b, 0);
	return rc;
}
