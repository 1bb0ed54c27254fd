/* See LICENSE file for copyright and license details. */
/* cut.c: unit tests of the compaction rules in session.c: which compaction
 * a branch's context starts from, and where a branch is cut. */
#include <stdlib.h>
#include <string.h>

#include "../util.h"
#include "../json.h"
#include "../entry.h"
#include "../session.h"
#include "t.h"

/* A session in memory whose entries each hold about size bytes; kinds is
 * one letter an entry: u user, a assistant, c assistant calling a tool,
 * r tool result, m model_change, s custom_message. */
static void
build(Session *s, const char *kinds, size_t size)
{
	Buf b = { 0 }, pad = { 0 };
	size_t i;

	while (pad.len < size)
		bufaddc(&pad, 'x');
	bufadds(&b, "{\"type\":\"session\",\"version\":3,\"id\":\"t\","
	        "\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/\"}\n");
	for (i = 0; kinds[i]; i++) {
		bufaddf(&b, "{\"type\":\"%s\",\"id\":\"e%07zu\",\"parentId\":",
		        kinds[i] == 'm' ? "model_change" : kinds[i] == 's' ?
		        "custom_message" : "message", i);
		if (i)
			bufaddf(&b, "\"e%07zu\"", i - 1);
		else
			bufadds(&b, "null");
		bufadds(&b, ",\"timestamp\":\"2026-01-01T00:00:00.000Z\"");
		switch (kinds[i]) {
		case 'u':
			bufaddf(&b, ",\"message\":{\"role\":\"user\",\"content\":"
			        "\"%s\"}", pad.p);
			break;
		case 'a':
			bufaddf(&b, ",\"message\":{\"role\":\"assistant\","
			        "\"content\":[{\"type\":\"text\",\"text\":"
			        "\"%s\"}]}", pad.p);
			break;
		case 'c':
			bufaddf(&b, ",\"message\":{\"role\":\"assistant\","
			        "\"content\":[{\"type\":\"toolCall\",\"id\":"
			        "\"c%zu\",\"name\":\"ls\",\"arguments\":{\"p\":"
			        "\"%s\"}}]}", i, pad.p);
			break;
		case 'r':
			bufaddf(&b, ",\"message\":{\"role\":\"toolResult\","
			        "\"toolCallId\":\"c%zu\",\"content\":\"%s\"}",
			        i - 1, pad.p);
			break;
		case 's':
			bufaddf(&b, ",\"customType\":\"x\",\"content\":\"%s\"",
			        pad.p);
			break;
		default:
			bufadds(&b, ",\"provider\":\"p\",\"modelId\":\"m\"");
		}
		bufadds(&b, "}\n");
	}
	memset(s, 0, sizeof(*s));
	sessparse(s, b.p, b.len, "test");
	buffree(&b);
	buffree(&pad);
}

/* entrycut of a branch of those kinds, keep tokens kept, from from. */
static long
cutof(const char *kinds, size_t from, long keep)
{
	Session s;
	const Entry **path;
	size_t n;
	long cut;

	build(&s, kinds, 400);
	n = sessbranch(&s, &path);
	cut = entrycut(path, n, from, keep);
	free(path);
	sessfree(&s);
	return cut;
}

/* Each entry is about 500 bytes, so about 125 tokens. */
static void
testcut(void)
{
	T(cutof("uaua", 0, 10000) == -1,
	  "cut: a context shorter than keep is not cut");
	T(cutof("", 0, 0) == -1, "cut: an empty branch, keep 0: nothing");
	T(cutof("u", 0, 0) == -1, "cut: one entry, keep 0: nothing before it");
	T(cutof("uaua", 0, 200) == 2,
	  "cut: at the entry that fills the budget, when it is a cut point");
	T(cutof("uaua", 0, 100) == 3,
	  "cut: keep within the last entry: cut before it");
	T(cutof("ucrrua", 0, 300) == 4,
	  "cut: a result fills the budget: the next cut point after it");
	T(cutof("uacrrr", 0, 300) == 2,
	  "cut: only results follow: the call that made them");
	T(cutof("uacrrr", 2, 300) == -1,
	  "cut: never at or before from");
	T(cutof("uaumua", 0, 300) == 2,
	  "cut: a model_change counts nothing");
	T(cutof("uausa", 0, 200) == 3,
	  "cut: a custom_message is a cut point");
}

/* A compaction entry appended after those of kinds. */
static void
compacted(Session *s, const char *kinds, const char *kept)
{
	Buf f = { 0 };

	build(s, kinds, 40);
	bufadds(&f, "\"summary\":\"the story so far\",\"firstKeptEntryId\":");
	bufadds(&f, kept);
	bufadds(&f, ",\"tokensBefore\":1000");
	sessappend(s, "compaction", f.p);
	buffree(&f);
}

static void
testcompaction(void)
{
	Session s;
	const Entry **path;
	size_t n, from = 99;
	char *sum = (char *)"x";
	long last;

	build(&s, "uaua", 40);
	n = sessbranch(&s, &path);
	last = entrycompaction(path, n, &from, &sum);
	T(last == -1 && from == 0 && sum == NULL,
	  "compaction: none: -1, from 0, no summary");
	free(path);
	sessfree(&s);

	compacted(&s, "uaua", "\"e0000002\"");
	n = sessbranch(&s, &path);
	last = entrycompaction(path, n, &from, &sum);
	T(last == 4 && from == 2 && sum && !strcmp(sum, "the story so far"),
	  "compaction: the last one, from the entry it kept, its summary");
	free(sum);
	free(path);
	sessfree(&s);

	compacted(&s, "uaua", "\"gone\"");
	n = sessbranch(&s, &path);
	last = entrycompaction(path, n, &from, NULL);
	T(last == 4 && from == 5,
	  "compaction: a kept id not on the branch: from the entry after it");
	free(path);
	sessfree(&s);

	compacted(&s, "uaua", "null");
	sessappend(&s, "message", "\"message\":{\"role\":\"user\","
	           "\"content\":\"more\"}");
	sessappend(&s, "compaction", "\"summary\":\"later\","
	           "\"firstKeptEntryId\":\"e0000003\",\"tokensBefore\":9");
	n = sessbranch(&s, &path);
	last = entrycompaction(path, n, &from, &sum);
	T(last == 6 && from == 3 && sum && !strcmp(sum, "later"),
	  "compaction: of two, the later one counts");
	free(sum);
	free(path);
	sessfree(&s);
}

int
main(void)
{
	testcut();
	testcompaction();
	return tfail != 0;
}
