/* See LICENSE file for copyright and license details. */
/* test/diff.c: diff.c's hunks against diff -u's for cases written by
 * hand, applied back to give the new text for random ones, bounded on
 * large ones; and a file's change in git's form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util.h"
#include "../diff.h"
#include "t.h"
#include "patch.h"

static unsigned long seed = 2718;

static int
rnd(int n)
{
	seed = seed * 1103515245 + 12345;
	return (seed >> 16) % n;
}

/* The hunks of a to b, with 3 lines of context. */
static char *
hunksof(const char *a, const char *b)
{
	Buf o = { 0 };

	diffunified(&o, a, strlen(a), b, strlen(b), 3);
	bufgrow(&o, 0);
	return bufdetach(&o);
}

static int
applies(const char *a, size_t an, const char *b, size_t bn, int ctx)
{
	Buf h = { 0 }, r = { 0 };
	int ok;

	diffunified(&h, a, an, b, bn, ctx);
	ok = patchapply(&r, a, an, h.p ? h.p : "", h.len) == 0 &&
	    r.len == bn && !memcmp(r.p ? r.p : "", b, bn);
	buffree(&h);
	buffree(&r);
	return ok;
}

static void
expect(const char *what, const char *a, const char *b, const char *want)
{
	char *got = hunksof(a, b);
	int same = !strcmp(got, want);

	T(same, "%s%s%s", what, same ? "" : ": got\n", same ? "" : got);
	T(applies(a, strlen(a), b, strlen(b), 3), "%s: applies", what);
	free(got);
}

static void
byhand(void)
{
	expect("empty files", "", "", "");
	expect("the same", "a\nb\n", "a\nb\n", "");
	expect("from nothing", "", "a\nb\n", "@@ -0,0 +1,2 @@\n+a\n+b\n");
	expect("to nothing", "a\n", "", "@@ -1 +0,0 @@\n-a\n");
	expect("all different", "a\nb\n", "c\nd\n",
	       "@@ -1,2 +1,2 @@\n-a\n-b\n+c\n+d\n");
	expect("insert at start", "b\nc\n", "a\nb\nc\n",
	       "@@ -1,2 +1,3 @@\n+a\n b\n c\n");
	expect("insert at end", "a\nb\n", "a\nb\nc\n",
	       "@@ -1,2 +1,3 @@\n a\n b\n+c\n");
	expect("no newline on the old side", "a\nb", "a\nb\n",
	       "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
	       "+b\n");
	expect("no newline on the new side", "a\nb\n", "a\nb",
	       "@@ -1,2 +1,2 @@\n a\n-b\n+b\n"
	       "\\ No newline at end of file\n");
	expect("no newline on either", "a\nb", "a\nc",
	       "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n"
	       "+c\n\\ No newline at end of file\n");
	expect("CRLF", "a\r\nb\r\n", "a\r\nc\r\n",
	       "@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n");
	expect("two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n",
	       "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n",
	       "@@ -1,3 +1,4 @@\n+0\n 1\n 2\n 3\n"
	       "@@ -9,4 +10,3 @@\n 9\n 10\n 11\n-12\n");
	expect("joined", "1\n2\n3\n4\n5\n6\n7\n8\n",
	       "0\n2\n3\n4\n5\n6\n7\n9\n",
	       "@@ -1,8 +1,8 @@\n-1\n+0\n 2\n 3\n 4\n 5\n 6\n 7\n-8\n+9\n");
}

/* Random texts over few distinct lines, so that they share many. */
static void
randomtext(Buf *b, int lines)
{
	static const char *w[] = { "a\n", "b\n", "c\n", "\n", "a\r\n",
	                           "d", "{\n", "}\n" };
	int i;

	bufreset(b);
	for (i = 0; i < lines; i++)
		bufadds(b, w[rnd(LEN(w))]);
}

static void
randomised(void)
{
	Buf a = { 0 }, b = { 0 };
	int i, bad = 0;

	for (i = 0; i < 3000; i++) {
		randomtext(&a, rnd(30));
		randomtext(&b, rnd(30));
		if (!applies(bstr(&a), a.len, bstr(&b), b.len, rnd(5)))
			bad++;
	}
	T(!bad, "3000 random pairs: the hunks give the new text (%d not)",
	  bad);
	buffree(&a);
	buffree(&b);
}

/* Long files: a few changes far apart are small hunks; texts with
 * nothing in common past the bound are one hunk, in bounded time. */
static void
large(void)
{
	Buf a = { 0 }, b = { 0 }, h = { 0 };
	clock_t t0;
	int i, n;

	for (i = 0; i < 200000; i++) {
		bufaddf(&a, "line %d\n", i);
		if (i % 50000 != 7)
			bufaddf(&b, "line %d\n", i);
	}
	n = diffunified(&h, a.p, a.len, b.p, b.len, 3);
	T(n == 4 && h.len < 600, "200,000 lines, 4 apart: 4 hunks, %lu bytes",
	  (unsigned long)h.len);
	T(applies(a.p, a.len, b.p, b.len, 3), "200,000 lines: applies");
	bufreset(&a);
	bufreset(&b);
	for (i = 0; i < 50000; i++) {
		bufaddf(&a, "%d\n", rnd(1000));
		bufaddf(&b, "%d\n", rnd(1000));
	}
	bufreset(&h);
	t0 = clock();
	n = diffunified(&h, a.p, a.len, b.p, b.len, 3);
	T((clock() - t0) / CLOCKS_PER_SEC < 10 && n >= 1,
	  "50,000 random lines each: %d hunks in %.1f s", n,
	  (double)(clock() - t0) / CLOCKS_PER_SEC);
	T(applies(a.p, a.len, b.p, b.len, 3), "50,000 random lines: applies");
	buffree(&a);
	buffree(&b);
	buffree(&h);
}

/* Ours against diff -u's, past its two header lines, where there is a
 * diff. */
static void
againstdiff(void)
{
	static const char *cases[][2] = {
		{ "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nX\nd\ne\nf\ng\nh\n" },
		{ "x\ny\n", "y\nx\n" },
		{ "1\n2\n3\n", "1\n2\n3" },
		{ "", "only\n" },
	};
	char dir[] = "/tmp/agent-difftest-XXXXXX", cmd[256];
	Buf want = { 0 };
	FILE *f, *p;
	size_t i, n;
	char *got, buf[4096];

	if (!mkdtemp(dir) || system("diff -u /dev/null /dev/null "
	    ">/dev/null 2>&1") != 0) {
		SKIP("diff -u: none here");
		return;
	}
	for (i = 0; i < LEN(cases); i++) {
		snprintf(cmd, sizeof(cmd), "%s/a", dir);
		f = fopen(cmd, "w");
		fputs(cases[i][0], f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "%s/b", dir);
		f = fopen(cmd, "w");
		fputs(cases[i][1], f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "diff -u %s/a %s/b | tail -n +3",
		         dir, dir);
		bufreset(&want);
		p = popen(cmd, "r");
		while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
			bufadd(&want, buf, n);
		pclose(p);
		got = hunksof(cases[i][0], cases[i][1]);
		T(!strcmp(got, bstr(&want)), "as diff -u, case %lu%s%s",
		  (unsigned long)i, strcmp(got, bstr(&want)) ? ": got\n" :
		  "", strcmp(got, bstr(&want)) ? got : "");
		free(got);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		T(0, "rm -rf %s", dir);
	buffree(&want);
}

static void
filecase(const char *what, const Diffhead *h, const char *a,
         const char *b, const char *want)
{
	Buf o = { 0 };

	difffile(&o, h, a, a ? strlen(a) : 0, b, b ? strlen(b) : 0, 3);
	T(!strcmp(bstr(&o), want), "%s%s%s", what,
	  strcmp(bstr(&o), want) ? ": got\n" : "",
	  strcmp(bstr(&o), want) ? bstr(&o) : "");
	buffree(&o);
}

static void
files(void)
{
	Diffhead h = { "x", "x", 0100644, 0100644, 1 };
	Buf o = { 0 };
	const char *want;

	filecase("the same: nothing", &h, "a\n", "a\n", "");
	filecase("changed", &h, "a\n", "b\n", "diff --git a/x b/x\n"
	         "index 7898192..6178079 100644\n--- a/x\n+++ b/x\n"
	         "@@ -1 +1 @@\n-a\n+b\n");
	h.bmode = 0100755;
	filecase("mode", &h, "a\n", "a\n", "diff --git a/x b/x\n"
	         "old mode 100644\nnew mode 100755\n");
	h.amode = 0;
	filecase("new", &h, NULL, "a\n", "diff --git a/x b/x\n"
	         "new file mode 100755\nindex 0000000..7898192\n"
	         "--- /dev/null\n+++ b/x\n"
	         "@@ -0,0 +1 @@\n+a\n");
	filecase("new and empty", &h, NULL, "", "diff --git a/x b/x\n"
	         "new file mode 100755\n");
	h.amode = 0120000, h.bmode = 0;
	filecase("deleted link", &h, "t", NULL, "diff --git a/x b/x\n"
	         "deleted file mode 120000\nindex 32f64f4..0000000\n"
	         "--- a/x\n+++ /dev/null\n"
	         "@@ -1 +0,0 @@\n-t\n\\ No newline at end of file\n");
	h.amode = h.bmode = 0100644, h.b = "y";
	filecase("renamed", &h, "a\n", "a\n", "diff --git a/x b/y\n"
	         "similarity index 100%\nrename from x\nrename to y\n");
	h.a = "sp ace\"q", h.b = "t\xc3\xa9";
	filecase("quoted", &h, "a\n", "b\n", "diff --git \"a/sp ace\\\"q\" "
	         "\"b/t\\303\\251\"\nrename from \"sp ace\\\"q\"\n"
	         "rename to \"t\\303\\251\"\nindex 7898192..6178079 100644\n"
	         "--- \"a/sp ace\\\"q\"\t\n"
	         "+++ \"b/t\\303\\251\"\n@@ -1 +1 @@\n-a\n+b\n");
	h.a = h.b = "bin", h.literal = 0;
	difffile(&o, &h, "a\0b", 3, "a\0c", 3, 3);
	T(!strcmp(bstr(&o), "diff --git a/bin b/bin\n"
	  "Binary files a/bin and b/bin differ\n"), "binary, as a line");
	bufreset(&o);
	h.literal = 1, h.amode = 0;
	difffile(&o, &h, NULL, 0, "a\0c", 3, 3);
	/* as git diff --binary shows it */
	want = "diff --git a/bin b/bin\nnew file mode 100644\n"
	    "index 0000000000000000000000000000000000000000.."
	    "88f37001cec36655decf891d4244853aaa51a00a\n"
	    "GIT binary patch\nliteral 3\n";
	T(!strncmp(bstr(&o), want, strlen(want)), "binary, as a patch");
	buffree(&o);
}

int
main(void)
{
	byhand();
	randomised();
	large();
	againstdiff();
	files();
	return tfail != 0;
}
