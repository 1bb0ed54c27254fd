/* See LICENSE file for copyright and license details. */
/* context.c: the context: the messages built from the session's branch,
 * counted against the model's window, compacted into a summary that the
 * caller asks the model for; and the project's instructions (AGENTS.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "wire.h"
#include "entry.h"
#include "session.h"
#include "tree.h"
#include "context.h"

/* A block the list frees with the rest. */
static void
blockadd(Ctxmsgs *m, char *p)
{
	if (m->nblock == m->blockcap) {
		m->blockcap = m->blockcap ? m->blockcap * 2 : 16;
		m->block = xrealloc(m->block, m->blockcap * sizeof(*m->block));
	}
	m->block[m->nblock++] = p;
}

/* Room in the list for k more messages at least. */
static void
msgsroom(Ctxmsgs *m, size_t k)
{
	if (m->n + k <= m->cap)
		return;
	m->cap = MAX(m->n + k, m->cap * 2);
	m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
	m->len = xrealloc(m->len, m->cap * sizeof(*m->len));
	m->plain = xrealloc(m->plain, m->cap * sizeof(*m->plain));
	m->form = xrealloc(m->form, m->cap * sizeof(*m->form));
}

/* A message of len bytes whose text lies in one of the list's blocks,
 * or in its map; plain as Ctxmsgs says. */
static void
msginblock(Ctxmsgs *m, char *json, size_t len, int plain)
{
	msgsroom(m, 1);
	memset(&m->form[m->n], 0, sizeof(*m->form));
	m->len[m->n] = len;
	m->plain[m->n] = plain;
	m->v[m->n++] = json;
}

/* A message whose text is an allocation of its own: a block of its own. */
static void
msgadd(Ctxmsgs *m, char *json)
{
	blockadd(m, json);
	msginblock(m, json, strlen(json), 0);
}

static void
msgsfree(Ctxmsgs *m)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		wireformfree(&m->form[i]);
	for (i = 0; i < m->nblock; i++)
		free(m->block[i]);
	sessmapfree(&m->map);
	free(m->v);
	free(m->len);
	free(m->plain);
	free(m->form);
	free(m->block);
	memset(m, 0, sizeof(*m));
}

/* A user message holding intro, text and outro, as pi puts summaries
 * into the context. */
static char *
summaryjson(const char *intro, const char *text, const char *outro)
{
	Buf t = { 0 };
	char *json;

	bufadds(&t, intro);
	bufadds(&t, text);
	bufadds(&t, outro);
	json = entryuser(t.p, t.len, NULL);
	buffree(&t);
	return json;
}

/* The message an entry puts into the context, if any. */
static void
entrymsg(Ctx *c, const Entry *e)
{
	Json j;
	Buf b = { 0 };
	char *v;
	size_t len;
	int k = -1, inmap;

	/* most are taken from their lines as they stand, without a parse;
	 * in place in the map of lines, when they were mapped */
	if (!strcmp(e->type, "message") && e->role &&
	    strcmp(e->role, "bashExecution") &&
	    (v = sessmessage(c->sess, e, &inmap, &len))) {
		if (!inmap)
			blockadd(&c->msgs, v);
		msginblock(&c->msgs, v, len, e->plain);
		return;
	}
	if (!entryincontext(e) || !e->line ||
	    jsonparse(&j, e->line, e->len) < 0)
		return;
	if (!strcmp(e->type, "message") &&
	    (k = jsonget(&j, 0, "message")) >= 0 &&
	    jsoneq(&j, jsonget(&j, k, "role"), "bashExecution")) {
		if ((v = entrybash(&j, k)))
			msgadd(&c->msgs, v);
	} else if (!strcmp(e->type, "message") && k >= 0) {
		jsonraw(&b, &j, k);
		msgadd(&c->msgs, bufdetach(&b));
	} else if (!strcmp(e->type, "branch_summary")) {
		v = jsonstr(&j, jsonget(&j, 0, "summary"));
		msgadd(&c->msgs, summaryjson("The following is a summary of a "
		       "branch that this conversation came back from:\n\n"
		       "<summary>\n", v ? v : "", "\n</summary>"));
		free(v);
	} else if (!strcmp(e->type, "custom_message")) {
		jsontext(&b, &j, jsonget(&j, 0, "content"));
		msgadd(&c->msgs, entryuser(bstr(&b), b.len, NULL));
	}
	buffree(&b);
	jsonfree(&j);
}

/* The context of a session's branch (path, from sesscontext; the caller
 * calls sessdone after), in place of the one before: the messages on it.
 * After a compaction its summary stands for what came before the first
 * entry it kept, as pi builds it.  The index on path of the first entry
 * the context keeps: 0 without a compaction. */
size_t
ctxload(Ctx *c, const Entry **path, size_t n)
{
	size_t i, start = 0;
	long comp;
	char *sum;

	msgsfree(&c->msgs);
	/* a long branch's list made at its size, not doubled up to it */
	msgsroom(&c->msgs, n + 2);
	if ((comp = entrycompaction(path, n, &start, &sum)) >= 0) {
		msgadd(&c->msgs, summaryjson("The conversation history before "
		       "this point was compacted into the following summary:"
		       "\n\n<summary>\n", sum ? sum : "", "\n</summary>"));
		free(sum);
	}
	for (i = start; i < n; i++) {
		if ((long)i == comp)
			c->compactat = c->msgs.n;
		else
			entrymsg(c, path[i]);
		if (path[i]->line)
			sessmapdrop(&c->sess->map, path[i]->line);
	}
	sessmapdrop(&c->sess->map, NULL);
	/* the map the messages may lie in is the list's now */
	sessmap(c->sess, &c->msgs.map);
	return start;
}

/* A message into the session file alone, for the context to take at
 * its next load: -1 if it could not be written. */
int
ctxappend(Ctx *c, const char *json)
{
	Buf f = { 0 };
	int rc;

	bufadds(&f, "\"message\":");
	bufadds(&f, json);
	rc = sessappend(c->sess, "message", f.p);
	buffree(&f);
	return rc < 0 ? -1 : 0;
}

/* A message joins the context and, at once, the session file: -1 if it
 * could not be written there. */
int
ctxrecord(Ctx *c, char *json)
{
	int rc = ctxappend(c, json);

	msgadd(&c->msgs, json);
	return rc;
}

/* A note to the model: pi's custom_message, of customType type (a word,
 * put in as it is), shown to the user; into the session file, synced,
 * and the context, where it is a user message, as pi puts it.  text is
 * taken over (NULL: no note).  -1, said by session.c, if the file could
 * not be written. */
int
ctxnote(Ctx *c, const char *type, char *text)
{
	Buf f = { 0 };
	int rc;

	if (!text)
		return 0;
	bufaddf(&f, "\"customType\":\"%s\",\"content\":", type);
	jsonescs(&f, text);
	bufadds(&f, ",\"display\":true");
	rc = sessappend(c->sess, "custom_message", f.p) < 0 ||
	     sesssync(c->sess) < 0 ? -1 : 0;
	msgadd(&c->msgs, entryuser(text, strlen(text), NULL));
	buffree(&f);
	free(text);
	return rc;
}

void
ctxfree(Ctx *c)
{
	msgsfree(&c->msgs);
}

/* Wireforms' made: message i has its form, the mapped lines up to it
 * may go (session.c's sessmapdrop). */
static void
formmade(void *c, size_t i)
{
	Ctxmsgs *m = &((Ctx *)c)->msgs;

	sessmapdrop(&m->map, m->v[i]);
}

/* The forms of q made in one pass, the mapped lines behind them let go
 * as it goes. */
void
ctxforms(Ctx *c, const Wirereq *q)
{
	wireforms(q, formmade, c);
	sessmapdrop(&c->msgs.map, NULL);
}

/* Whether the session file was rewritten in place under the lines the
 * messages lie in, since they were mapped: a request would send what
 * it holds there now. */
int
ctxrewritten(Ctx *c)
{
	return sessrewritten(c->sess, &c->msgs.map);
}

/* Ask's sent: the request has gone up to end, which may lie in the map
 * of lines. */
void
ctxsentupto(void *c, const char *end)
{
	sessmapdrop(&((Ctx *)c)->msgs.map, end);
}

void
ctxsent(Ctx *c)
{
	sessmapdrop(&c->msgs.map, NULL);
}

/* The tokens kept free for the answer, and those of recent conversation
 * kept whole: config.h's, made to fit a small window. */
static long
answerreserve(const Ctx *c)
{
	return MAX(c->conf->reservetokens, c->maxout);
}

static long
keepbudget(const Ctx *c)
{
	return MIN(c->conf->keeptokens,
	           MAX(c->window - answerreserve(c), 0) / 2);
}

/* The tokens the context holds: the usage of the last answer, and an
 * estimate of what came after it. */
long
ctxtokens(const Ctx *c)
{
	Json j;
	double v;
	long tail = 0, got = -1;
	size_t i, *len = c->msgs.len;
	int stop;
	char **msg = c->msgs.v;

	for (i = c->msgs.n; i-- > 0 && got < 0; ) {
		if (i >= c->compactat &&
		    jsonparse(&j, msg[i], len[i]) == 0) {
			stop = jsonget(&j, 0, "stopReason");
			if (jsoneq(&j, jsonget(&j, 0, "role"), "assistant") &&
			    !jsoneq(&j, stop, "error") &&
			    !jsoneq(&j, stop, "aborted") &&
			    jsonnum(&j, jsonget(&j, jsonget(&j, 0, "usage"),
			            "totalTokens"), &v) == 0 &&
			    v > 0 && v < 1e12)
				got = (long)v;
			jsonfree(&j);
		}
		if (got < 0)
			tail += entrytokens(msg[i], len[i]);
	}
	return (got < 0 ? 0 : got) + (long)(tail * c->tokens);
}

/* Whether the context leaves less than the reserve of the window free. */
int
ctxfull(const Ctx *c)
{
	return c->msgs.n && ctxtokens(c) > c->window - answerreserve(c);
}

/* What the summariser is asked: the conversation, the summary before if
 * there is one, what to make of it, and the focus the user gave. */
static char *
summarizerask(const Buf *conv, const char *prev, const char *ask,
              const char *focus)
{
	Buf p = { 0 };
	char *msg;

	bufadds(&p, "<conversation>\n");
	bufadd(&p, bstr(conv), conv->len);
	bufadds(&p, "</conversation>\n\n");
	if (prev)
		bufaddf(&p, "<previous-summary>\n%s\n</previous-summary>\n\n",
		        prev);
	bufadds(&p, ask);
	if (focus && *focus)
		bufaddf(&p, "\n\nAdditional focus: %s", focus);
	msg = entryuser(p.p, p.len, NULL);
	buffree(&p);
	return msg;
}

/* Ask the summariser, into k, of conv: its oldest part left out past
 * what the model's window takes. */
static void
summaryplan(const Ctx *c, Buf *conv, const char *prev, const char *ask,
            const char *focus, Ctxcut *k)
{
	Buf cat = { 0 };
	size_t room;

	room = (size_t)(MAX(c->window - answerreserve(c), 0) * 3 / c->tokens);
	if (conv->len > room) {
		bufadds(&cat, "[... the oldest part of the conversation left "
		        "out]\n");
		bufadd(&cat, conv->p + conv->len - room, room);
		buffree(conv);
		*conv = cat;
	}
	k->system = c->conf->system;
	k->ask = summarizerask(conv, prev, ask, focus);
	k->maxout = answerreserve(c) * 4 / 5;
}

/* Plan to replace the older part of the conversation by a summary: what
 * to ask the summariser, into k.  The last keeptokens stay as they are.
 * 0, or -1: nothing to compact, the conversation is short. */
int
ctxplan(Ctx *c, const char *focus, Ctxcut *k)
{
	const Entry **path;
	long n, i, cut, last;
	size_t from;
	Buf conv = { 0 };
	char *prev = NULL;
	int rc = -1;

	memset(k, 0, sizeof(*k));
	k->tokensbefore = ctxtokens(c);
	n = (long)sesscontext(c->sess, &path);
	last = entrycompaction(path, n, &from, &prev);
	/* what is kept is counted in the model's tokens */
	cut = entrycut(path, n, from, (long)(keepbudget(c) / c->tokens));
	for (i = (long)from; i < cut; i++)
		if (i != last && entryincontext(path[i]))
			entryserialize(&conv, path[i]->type, path[i]->line,
			               path[i]->len, c->conf->maxresult);
	if (cut < 0 || !conv.len)
		goto done;
	k->firstkept = xstrdup(path[cut]->id);
	summaryplan(c, &conv, prev, c->conf->ask, focus, k);
	rc = 0;
done:
	sessdone(c->sess, path);	/* the lines back to the file */
	free(prev);
	buffree(&conv);
	return rc;
}

int
ctxbranchplan(Ctx *c, long to, Ctxcut *k)
{
	const Entry **path, **left;
	size_t n, i;
	Buf conv = { 0 };

	memset(k, 0, sizeof(*k));
	/* the context's lines: those before its compaction are in its
	 * summary, which is serialised in their place */
	path = NULL;
	sesscontext(c->sess, &path);
	n = treeleaving(c->sess, to, &left);
	for (i = 0; i < n; i++)
		if (left[i]->line && (entryincontext(left[i]) ||
		    !strcmp(left[i]->type, "compaction")))
			entryserialize(&conv, left[i]->type, left[i]->line,
			               left[i]->len, c->conf->maxresult);
	free(left);
	sessdone(c->sess, path);
	if (conv.len)
		summaryplan(c, &conv, NULL, c->conf->branchask, NULL, k);
	buffree(&conv);
	return k->ask ? 0 : -1;
}

/* The compaction k planned, with the summary the model made: its entry,
 * as pi writes them, appended to the session; nothing is deleted.  The
 * caller loads the context again.  -1 if it could not be written. */
int
ctxcompact(Ctx *c, const Ctxcut *k, const Buf *summary)
{
	Buf f = { 0 };
	int rc;

	bufadds(&f, "\"summary\":");
	jsonesc(&f, summary->p, summary->len);
	bufadds(&f, ",\"firstKeptEntryId\":");
	jsonescs(&f, k->firstkept);
	bufaddf(&f, ",\"tokensBefore\":%ld", k->tokensbefore);
	rc = sessappend(c->sess, "compaction", f.p);
	buffree(&f);
	return rc < 0 ? -1 : 0;
}

void
ctxcutfree(Ctxcut *k)
{
	free(k->ask);
	free(k->firstkept);
	memset(k, 0, sizeof(*k));
}

/* Append up to max bytes of the file open on fd, and close it; -1 with
 * errno if it cannot be read. */
static int
appendfile(Buf *b, int fd, size_t max)
{
	size_t start = b->len;
	int rc, err;

	rc = readall(fd, b, max);
	err = errno;
	close(fd);
	if (rc > 0) {
		b->len = start + utf8back(b->p + start, max);
		bufaddf(b, "\n[cut at %zu bytes]", max);
	}
	errno = err;
	return rc < 0 ? -1 : 0;
}

/* The project's instructions, for the system prompt: in each directory
 * from cwd up to the root, the first of names (NULL-terminated) there,
 * up to max bytes of each; outermost first.  A file found in directory
 * D is read only if its real path lies beneath the real path of D (see
 * trustedopen): CLAUDE.md -> AGENTS.md or -> docs/AGENTS.md is read,
 * -> ~/.ssh/id_rsa is not. */
static void
ctxinstructions(Buf *b, const char *cwd, const char *const *names,
                size_t max)
{
	char dir[4096], path[4200], *found[128], *slash;
	int fds[LEN(found)], n = 0, k;

	snprintf(dir, sizeof(dir), "%s", cwd);
	while (n < (int)LEN(found)) {
		for (k = 0; names[k]; k++) {
			snprintf(path, sizeof(path), "%s/%s",
			         strcmp(dir, "/") ? dir : "", names[k]);
			if ((fds[n] = trustedopen(path, dir)) >= 0) {
				found[n++] = xstrdup(path);
				break;
			}
		}
		if (!(slash = strrchr(dir, '/')) || !strcmp(dir, "/"))
			break;
		if (slash == dir)
			dir[1] = '\0';	/* up to the root */
		else
			*slash = '\0';
	}
	if (n)
		bufadds(b, "\n\n# Project instructions\n\nThe user's "
		        "instructions for this project, from these files:");
	while (n-- > 0) {
		bufaddf(b, "\n\n## %s\n\n", found[n]);
		if (appendfile(b, fds[n], max) < 0)
			warn("%s:", found[n]);
		free(found[n]);
	}
}
/* The system prompt's end: the project's instructions and the skills.
 * Nothing in it changes from day to day or run to run, so that the
 * provider's cache of the prompt and the tools holds across runs: the
 * date and the directory go with the first message (ctxenv). */
void
ctxsystem(Buf *b, const char *const *names, size_t max, const Buf *skills)
{
	char cwd[4096];

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	ctxinstructions(b, cwd, names, max);
	bufadd(b, bstr(skills), skills->len);
}

/* What a session's first message is sent with, before it (wire.c's
 * env): the day the session began, from its header (head; today
 * without one), so that every request of the session says the same, and
 * where the tools work.  A paragraph of its own: chat completions join
 * a message's texts. */
void
ctxenv(Buf *out, const char *head)
{
	char cwd[4096], day[32] = "";
	Json j = { 0 };
	int f[6], t;

	if (head && jsonparse(&j, head, strlen(head)) == 0 &&
	    (t = jsonget(&j, 0, "timestamp")) >= 0 && j.t[t].type == JSTR &&
	    j.t[t].end - j.t[t].start >= 10)
		memcpy(day, head + j.t[t].start, 10);
	jsonfree(&j);
	if (!*day) {	/* the day in UTC: local time would link the zones */
		utcdate(time(NULL), f);
		snprintf(day, sizeof(day), "%04d-%02d-%02d", f[0], f[1], f[2]);
	}
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), ".");
	bufreset(out);
	bufaddf(out, "Current date: %s\nCurrent working directory: %s\n\n",
	        day, cwd);
}
