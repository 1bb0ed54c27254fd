/* See LICENSE file for copyright and license details. */
/* entry.c: pi's entries and messages as stored, no I/O: where the last
 * compaction cuts a branch and where a new one may, the messages agent
 * writes (a user's, a tool result, a bash command's), an entry's line
 * as a client sees it, and a message's size in tokens. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "entry.h"

/* The last compaction on a branch: its index, or -1.  *from is the first
 * entry the context keeps: the one the compaction names, or the one
 * after it (0 without a compaction); *summary, if asked for, its summary
 * (NULL if none), to be freed. */
long
entrycompaction(const Entry **path, size_t n, size_t *from, char **summary)
{
	Json j;
	char *kept;
	long last = -1;
	size_t i;

	*from = 0;
	if (summary)
		*summary = NULL;
	for (i = 0; i < n; i++)
		if (!strcmp(path[i]->type, "compaction"))
			last = i;
	if (last < 0)
		return -1;
	*from = last + 1;
	if (jsonparse(&j, path[last]->line, path[last]->len) < 0)
		return last;
	if (summary)
		*summary = jsonstr(&j, jsonget(&j, 0, "summary"));
	kept = jsonstr(&j, jsonget(&j, 0, "firstKeptEntryId"));
	for (i = 0; kept && i < (size_t)last; i++)
		if (!strcmp(path[i]->id, kept))
			*from = i;
	free(kept);
	jsonfree(&j);
	return last;
}

/* Whether an entry puts anything into the context. */
int
entryincontext(const Entry *e)
{
	return !strcmp(e->type, "message") ||
	       !strcmp(e->type, "custom_message") ||
	       !strcmp(e->type, "branch_summary");
}

/* Whether the conversation may be cut before e: before what a user or
 * the assistant said (pi's own kinds too), never between a call and its
 * result. */
static int
cutpoint(const Entry *e)
{
	Json j;
	int role, ok;

	if (!strcmp(e->type, "custom_message") ||
	    !strcmp(e->type, "branch_summary"))
		return 1;
	if (strcmp(e->type, "message") ||
	    jsonparse(&j, e->line, e->len) < 0)
		return 0;
	role = jsonget(&j, jsonget(&j, 0, "message"), "role");
	ok = jsoneq(&j, role, "user") || jsoneq(&j, role, "assistant") ||
	     jsoneq(&j, role, "bashExecution");
	jsonfree(&j);
	return ok;
}

/* Messages as pi stores them */

/* A user's message as pi stores it: the text, then more content blocks
 * (each with its comma), or NULL. */
char *
entryuser(const char *text, size_t len, const Buf *more)
{
	Buf b = { 0 };

	bufadds(&b, "{\"role\":\"user\",\"content\":[{\"type\":\"text\","
	        "\"text\":");
	jsonesc(&b, text, len);
	bufaddc(&b, '}');
	if (more)
		bufadd(&b, bstr(more), more->len);
	bufaddf(&b, "],\"timestamp\":%lld}", nowms());
	return bufdetach(&b);
}

/* A tool's result as pi stores it: the call's id and name, the text,
 * then more content blocks (an image read), or NULL; its details, the
 * members of an object, or NULL. */
char *
entryresult(const Buf *id, const Buf *name, const Buf *text, int iserr,
            const Buf *more, const Buf *details)
{
	Buf b = { 0 };

	bufadds(&b, "{\"role\":\"toolResult\",\"toolCallId\":");
	jsonesc(&b, bstr(id), id->len);
	bufadds(&b, ",\"toolName\":");
	jsonesc(&b, bstr(name), name->len);
	bufadds(&b, ",\"content\":[{\"type\":\"text\",\"text\":");
	jsonesc(&b, bstr(text), text->len);
	bufaddc(&b, '}');
	if (more)
		bufadd(&b, bstr(more), more->len);
	bufaddc(&b, ']');
	if (details && details->len) {
		bufadds(&b, ",\"details\":{");
		bufadd(&b, details->p, details->len);
		bufaddc(&b, '}');
	}
	bufaddf(&b, ",\"isError\":%s,\"timestamp\":%lld}",
	        iserr ? "true" : "false", nowms());
	return bufdetach(&b);
}

/* A command the user ran in pi (!cmd), message m of j, as pi shows it to
 * the model: a user's message, or NULL when pi keeps it out. */
char *
entrybash(const Json *j, int m)
{
	Buf t = { 0 }, v = { 0 };
	double code;
	char *msg;
	int no;

	if (jsonbool(j, jsonget(j, m, "excludeFromContext"), &no) == 0 && no)
		return NULL;
	jsonstrbuf(j, jsonget(j, m, "command"), &v);
	bufadds(&t, "Ran `");
	bufadd(&t, bstr(&v), v.len);
	bufadds(&t, "`\n```\n");
	bufreset(&v);
	jsonstrbuf(j, jsonget(j, m, "output"), &v);
	bufadd(&t, bstr(&v), v.len);
	bufadds(&t, v.len && v.p[v.len - 1] != '\n' ? "\n```" : "```");
	if (jsonnum(j, jsonget(j, m, "exitCode"), &code) == 0 && code != 0 &&
	    code > -1e9 && code < 1e9)
		bufaddf(&t, "\n\nCommand exited with code %d", (int)code);
	if (jsonbool(j, jsonget(j, m, "cancelled"), &no) == 0 && no)
		bufadds(&t, "\n\n(command cancelled)");
	msg = entryuser(bstr(&t), t.len, NULL);
	buffree(&t);
	buffree(&v);
	return msg;
}

/* A session entry (its type and line) as text for the summariser; a
 * tool result is cut after maxresult bytes. */
void
entryserialize(Buf *b, const char *type, const char *line, size_t len,
               size_t maxresult)
{
	Json j;
	Buf t = { 0 }, calls = { 0 };
	int m, c, blk, ty;

	if (jsonparse(&j, line, len) < 0)
		return;
	m = jsonget(&j, 0, "message");
	c = jsonget(&j, m, "content");
	if (!strcmp(type, "custom_message")) {
		jsontext(&t, &j, jsonget(&j, 0, "content"));
		bufaddf(b, "[User]: %s\n\n", bstr(&t));
	} else if (!strcmp(type, "branch_summary")) {
		jsonstrbuf(&j, jsonget(&j, 0, "summary"), &t);
		bufaddf(b, "[Summary of another branch]: %s\n\n", bstr(&t));
	} else if (!strcmp(type, "compaction")) {
		jsonstrbuf(&j, jsonget(&j, 0, "summary"), &t);
		bufaddf(b, "[Summary of the conversation before]: %s\n\n",
		        bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "bashExecution")) {
		jsonstrbuf(&j, jsonget(&j, m, "command"), &t);
		bufaddf(b, "[User ran]: %s\n", bstr(&t));
		bufreset(&t);
		jsonstrbuf(&j, jsonget(&j, m, "output"), &t);
		bufaddf(b, "%s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "user")) {
		jsontext(&t, &j, c);
		bufaddf(b, "[User]: %s\n\n", bstr(&t));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "toolResult")) {
		jsontext(&t, &j, c);
		bufadds(b, "[Tool result]: ");
		if (t.len > maxresult) {
			bufadd(b, t.p, utf8back(t.p, maxresult));
			bufaddf(b, "\n[... %zu more bytes]", t.len -
			        utf8back(t.p, maxresult));
		} else {
			bufadd(b, bstr(&t), t.len);
		}
		bufadds(b, "\n\n");
	}
	blk = jsoneq(&j, jsonget(&j, m, "role"), "assistant") ?
	      jsonat(&j, c, 0) : -1;
	for (; blk >= 0; blk = jsonnext(&j, blk)) {
		ty = jsonget(&j, blk, "type");
		bufreset(&t);
		if (jsoneq(&j, ty, "thinking")) {
			jsonstrbuf(&j, jsonget(&j, blk, "thinking"), &t);
			bufaddf(b, "[Assistant thinking]: %s\n\n", bstr(&t));
		} else if (jsoneq(&j, ty, "text")) {
			jsonstrbuf(&j, jsonget(&j, blk, "text"), &t);
			bufaddf(b, "[Assistant]: %s\n\n", bstr(&t));
		} else if (jsoneq(&j, ty, "toolCall")) {
			bufadds(&calls, calls.len ? "; " : "");
			jsonstrbuf(&j, jsonget(&j, blk, "name"), &calls);
			bufaddc(&calls, '(');
			jsonraw(&calls, &j, jsonget(&j, blk, "arguments"));
			bufaddc(&calls, ')');
		}
	}
	if (calls.len)
		bufaddf(b, "[Assistant tool calls]: %s\n\n", calls.p);
	buffree(&t);
	buffree(&calls);
	jsonfree(&j);
}

/* The tokens an entry or a message holds, estimated from its bytes; an
 * image's data counts as pi counts an image, 4800 bytes. */
long
entrytokens(const char *json, size_t n)
{
	Json j;
	size_t skip = 0;
	int i, d;

	if (!memfind(json, n, "\"image\"") || jsonparse(&j, json, n) < 0)
		return tokensof(n);
	for (i = 0; i < j.n; i++) {
		if (j.t[i].type != JOBJ ||
		    !jsoneq(&j, jsonget(&j, i, "type"), "image") ||
		    (d = jsonget(&j, i, "data")) < 0 || j.t[d].type != JSTR)
			continue;
		skip += j.t[d].end - j.t[d].start;
		n += 4800;
	}
	jsonfree(&j);
	return tokensof(n - skip);
}

/* Where to cut a branch to compact it: path[from..n) is the context, and
 * its last keep tokens (estimated) stay whole.  The cut is the first cut
 * point at or after the entry that fills that budget or, when only tool
 * results follow it, the last one before.  -1: nothing to cut, the
 * context being shorter than keep. */
long
entrycut(const Entry **path, size_t n, size_t from, long keep)
{
	long k, cut, acc = 0;

	for (k = (long)n - 1; k > (long)from; k--) {
		if (entryincontext(path[k]))
			acc += entrytokens(path[k]->line, path[k]->len);
		if (acc >= keep)
			break;
	}
	if (acc < keep)
		return -1;
	k = MAX(k, (long)from);	/* nothing after from: keep may be 0 */
	for (cut = k; cut < (long)n && !cutpoint(path[cut]); cut++)
		;
	if (cut == (long)n)
		for (cut = k; cut > (long)from && !cutpoint(path[cut]); cut--)
			;
	return cut > (long)from ? cut : -1;
}

/* The model of the last model_change on the path, if it names provider's
 * (a session goes on with the model it was switched to); NULL if not.
 * To be freed. */
char *
entrymodel(const Entry **path, size_t n, const char *provider)
{
	Json j;
	char *p, *m = NULL;
	size_t k;

	for (k = n; k-- > 0; ) {
		if (strcmp(path[k]->type, "model_change") || !path[k]->line ||
		    jsonparse(&j, path[k]->line, path[k]->len) < 0)
			continue;
		p = jsonstr(&j, jsonget(&j, 0, "provider"));
		if (p && !strcmp(p, provider))
			m = jsonstr(&j, jsonget(&j, 0, "modelId"));
		free(p);
		jsonfree(&j);
		if (m && !*m) {
			free(m);
			m = NULL;
		}
		return m;
	}
	return NULL;
}

/* Whether p[n] is a session header (pi: type "session", a string id);
 * if so its version and cwd. */
int
entryheader(const char *p, size_t n, double *version, char **cwd)
{
	Json j;
	double v;
	int i, ok;

	if (jsonparse(&j, p, n) < 0)
		return 0;
	i = jsonget(&j, 0, "id");
	ok = jsoneq(&j, jsonget(&j, 0, "type"), "session") &&
	     i >= 0 && j.t[i].type == JSTR;
	i = jsonget(&j, 0, "cwd");
	if (ok && i >= 0 && j.t[i].type != JSTR)
		ok = 0;
	if (ok && version) {
		if (jsonnum(&j, jsonget(&j, 0, "version"), &v) < 0)
			v = 1;	/* pi's first files had none */
		*version = v;
	}
	if (ok && cwd)
		*cwd = i >= 0 ? jsonstr(&j, i) : xstrdup("");
	jsonfree(&j);
	return ok;
}

/* The first text block of an assistant's content, else its tool calls'
 * names, into b. */
static void
assistantbrief(Buf *b, const Json *j, int content)
{
	int blk, ty;

	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk))
		if (jsoneq(j, jsonget(j, blk, "type"), "text") &&
		    jsonstrbuf(j, jsonget(j, blk, "text"), b) == 0 && b->len)
			return;
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		ty = jsonget(j, blk, "type");
		if (!jsoneq(j, ty, "toolCall"))
			continue;
		bufadds(b, b->len ? ", " : "calls ");
		jsonstrbuf(j, jsonget(j, blk, "name"), b);
	}
}

/* What an entry (its type and line) is, in brief, for a list or a tree:
 * its kind ("user", "assistant", "tool", "bash", "compaction", "branch
 * summary", or its type), and its text into b: a message's first text,
 * an answer's tool calls, a tool's name and result, a summary.  The
 * text is raw: the caller makes it safe to show. */
const char *
entrybrief(Buf *b, const char *type, const char *line, size_t len)
{
	const char *kind = type;
	Json j;
	int m, c;

	if (!line || jsonparse(&j, line, len) < 0)
		return kind;
	m = jsonget(&j, 0, "message");
	c = jsonget(&j, m, "content");
	if (!strcmp(type, "compaction") || !strcmp(type, "branch_summary")) {
		kind = *type == 'c' ? "compaction" : "branch summary";
		jsonstrbuf(&j, jsonget(&j, 0, "summary"), b);
	} else if (!strcmp(type, "custom_message")) {
		kind = "custom";
		jsontext(b, &j, jsonget(&j, 0, "content"));
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "user")) {
		kind = "user";
		jsontext(b, &j, c);
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "assistant")) {
		kind = "assistant";
		assistantbrief(b, &j, c);
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "toolResult")) {
		kind = "tool";
		jsonstrbuf(&j, jsonget(&j, m, "toolName"), b);
		bufadds(b, ": ");
		jsontext(b, &j, c);
	} else if (jsoneq(&j, jsonget(&j, m, "role"), "bashExecution")) {
		kind = "bash";
		jsonstrbuf(&j, jsonget(&j, m, "command"), b);
	}
	jsonfree(&j);
	return kind;
}

/* Add the usage of message m (an answer's, as pi stores it) to tok:
 * input, output, cache read, cache write; its cost in dollars. */
double
entryusage(const Json *j, int m, long long tok[4])
{
	static const char *keys[] = {
		"input", "output", "cacheRead", "cacheWrite"
	};
	double v, cost = 0;
	size_t k;
	int u;

	u = jsoneq(j, jsonget(j, m, "role"), "assistant") ?
	    jsonget(j, m, "usage") : -1;
	for (k = 0; u >= 0 && k < LEN(keys); k++)
		if (jsonnum(j, jsonget(j, u, keys[k]), &v) == 0 &&
		    v >= 0 && v < 1e12)	/* no sum can overflow */
			tok[k] += (long long)v;
	if (jsonnum(j, jsonget(j, jsonget(j, u, "cost"), "total"),
	            &v) == 0 && v >= 0 && v < 1e12)
		cost = v;
	return cost;
}
