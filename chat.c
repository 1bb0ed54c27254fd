/* See LICENSE file for copyright and license details. */
/* chat.c: line mode: each line of stdin a message, at a terminal read
 * by line.c's editor; the slash commands (/branch, /fork, /model,
 * /compact, ...) done on agent.c's state. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"
#include "json.h"
#include "sse.h"
#include "eventstream.h"
#include "sigv4.h"
#include "http.h"
#include "record.h"
#include "gauth.h"
#include "wire.h"
#include "entry.h"
#include "session.h"
#include "tree.h"
#include "tools.h"
#include "undo.h"
#include "sandbox.h"
#include "proc.h"
#include "gitguard.h"
#include "guard.h"
#include "events.h"
#include "ask.h"
#include "context.h"
#include "rpc.h"
#include "prompt.h"
#include "mcp.h"
#include "call.h"
#include "task.h"
#include "budget.h"
#include "schema.h"
#include "line.h"
#include "agent.h"

/* Where /branch to entry i goes: to a user's message, its parent (-1:
 * before the first entry), its text into offer to be sent again or
 * edited, as pi's tree does; to any other message, itself. */
static long
chatplace(Agent *a, long i, Buf *offer)
{
	const Entry *e = &a->sess.e[i];

	if (!treeuser(&a->sess, i, offer))
		return i;
	return e->parent ? sessfind(&a->sess, e->parent) : -1;
}

/* /branch ID [summarize]: the leaf moved to message ID (before it, for a
 * user's message, whose text goes into offer), the context made again
 * from the path to it; with summarize, the branch left is summarised
 * first and the summary stored as pi's branch_summary on the new
 * branch, which its context then carries.  Nothing is rewritten. */
static void
chatbranch(Agent *a, const char *arg, Buf *offer)
{
	Buf why = { 0 }, id = { 0 }, sum = { 0 };
	const char *sp = strchr(arg, ' ');
	Ctxcut k;
	long i = -1, to = -1;
	int go = 0;

	bufadd(&id, arg, sp ? (size_t)(sp - arg) : strlen(arg));
	if ((sp && strcmp(sp + 1, "summarize")) || !id.len)
		warn("usage: /branch ID [summarize]");
	else if ((i = treefind(&a->sess, id.p, &why)) < 0)
		warn("%s", why.p);
	else if (strcmp(a->sess.e[i].type, "message")) {
		safetext(&why, a->sess.e[i].type, strlen(a->sess.e[i].type), 1);
		warn("%.8s is a %s entry, not a message: /branch moves only "
		     "to messages", a->sess.e[i].id, why.p);
	} else {
		go = 1;
		to = chatplace(a, i, offer);
	}
	if (go && sp && ctxbranchplan(&a->ctx, to, &k) < 0) {
		warn("nothing to summarise: the branch left is empty");
		sp = NULL;
	} else if (go && sp) {
		go = agentsummarize(a, &k, &sum) == 0 && !*a->intr;
		if (!go)
			warn("no summary: the branch is not moved");
		ctxcutfree(&k);
	}
	if (go) {
		a->ioerr = 0;
		treemove(&a->sess, to, sp ? &sum : NULL, &a->ioerr);
		if (a->ioerr)
			warn("the branch summary is not in the session file");
		a->modelnoted = 0;
		agentloadbranch(a);
		if (to == i)
			fprintf(stderr, "on the branch to %.8s\n", a->sess.e[i].id);
		else
			fprintf(stderr, "on the branch before %.8s: its message "
			        "is yours to send again or change\n",
			        a->sess.e[i].id);
	} else {
		bufreset(offer);
	}
	buffree(&why);
	buffree(&id);
	buffree(&sum);
}

/* /fork [ID]: a new session holding the path to entry ID, or to the
 * leaf. */
static void
chatfork(Agent *a, const char *arg)
{
	Buf why = { 0 };
	long i = -1;

	if (*arg && (i = treefind(&a->sess, arg, &why)) < 0)
		warn("%s", why.p);
	else if (agentforkto(a, i >= 0 ? a->sess.e[i].id : NULL) < 0)
		warn("the fork failed: the session goes on as it was");
	else
		fprintf(stderr, "forked: %s\n", a->sess.path ? a->sess.path :
		        "a new session in memory (-n)");
	buffree(&why);
}

/* A /command typed in line mode: 1 to go on, 0 to quit, -1 none such.
 * A text for the next line to start with goes into offer. */
static int
chatcommand(Agent *a, const char *line, Buf *offer)
{
	if (!strcmp(line, "/quit") || !strcmp(line, "/exit"))
		return 0;
	if (!strcmp(line, "/help")) {
		fputs("/help     this list\n"
		      "/session  the session file, its tokens and cost\n"
		      "/model [name]  the model, or switch to another\n"
		      "/compact [focus]  summarise the older conversation\n"
		      "/tree     the session's tree of messages\n"
		      "/branch ID [summarize]  go on from message ID (before\n"
		      "          it, its text to edit, if it is yours)\n"
		      "/fork [ID]  a new session holding the path to ID\n"
		      "/thinking [level]  the thinking level, or set it\n"
		      "/undo     undo the last turn's writes and edits\n"
		      "/quit     leave (also /exit, Ctrl-D)\n", stderr);
		prompthelp(&a->pc, stderr);
		return 1;
	}
	if (!strncmp(line, "/compact", 8) && (!line[8] || line[8] == ' ')) {
		a->ioerr = 0;
		agentcompact(a, "manual", line[8] ? line + 9 : NULL);
		if (sesssync(&a->sess) < 0 || a->ioerr)
			warn("the compaction is not saved in the session file");
		return 1;
	}
	if (!strncmp(line, "/thinking", 9) && (!line[9] || line[9] == ' ')) {
		if (!line[9])
			fprintf(stderr, "%s\n", wirelevelname(a->level));
		else if (agentsetlevel(a, line + 10) == 0) {
			agentnotelevel(a);
			fprintf(stderr, "thinking: %s\n",
			        wirelevelname(a->level));
		}
		return 1;
	}
	if (!strcmp(line, "/tree"))
		return treeshow(&a->sess, stderr, termcols()) + 1;
	if (!strncmp(line, "/branch", 7) && (!line[7] || line[7] == ' ')) {
		chatbranch(a, line[7] ? line + 8 : "", offer);
		return 1;
	}
	if (!strncmp(line, "/fork", 5) && (!line[5] || line[5] == ' ')) {
		chatfork(a, line[5] ? line + 6 : "");
		return 1;
	}
	if (!strcmp(line, "/undo")) {
		ctxnote(&a->ctx, "undo", undorun(&a->undo));
		return 1;
	}
	if (!strcmp(line, "/session"))
		return treesay(&a->sess, stderr) + 1;
	if (!strncmp(line, "/model ", 7) && line[7]) {
		agentusemodel(a, xstrdup(line + 7));
		a->modelnoted = a->ioerr = 0;
		agentnotemodel(a);	/* saved now, as pi does */
		if (sesssync(&a->sess) < 0 || a->ioerr)
			warn("the model change is not in the session file");
	}
	if (!strncmp(line, "/model", 6) && (!line[6] || line[6] == ' ')) {
		fprintf(stderr, "%s/%s\n", a->prov->name, a->model);
		return 1;
	}
	return -1;	/* a template's, or an unknown command */
}

/* The next line of stdin into b, its line end taken off: 1, or 0 at
 * the end, *rc set when it is not a clean one.  At a terminal the
 * editor (line.c) reads it and keeps it in its history; else fdgetline,
 * not stdio's getline, which brought the static build 1 KB for this;
 * intr is agent.c's flag. */
static int
chatread(Line *ed, const char *prompt, Buf *b, int *rc,
         volatile sig_atomic_t *intr)
{
	ssize_t n;

	if (ed) {
		if ((n = lineread(ed, prompt, b)) > 0)
			lineadd(ed, b->p, b->len);
	} else {
		bufreset(b);
		n = fdgetline(0, b, (size_t)-1);
	}
	if (n >= 0)
		return n;
	if (errno == EINTR && *intr) {
		*rc = 130;
	} else {	/* a terminal hung up: EIO */
		warn("read stdin:");
		*rc = 1;
	}
	return 0;
}

/* Line mode at a terminal starts by saying what it runs with. */
static void
chatbanner(const Agent *a)
{
	fprintf(stderr, "agent %s: %s on %s, %s%s; /help for commands\n",
	        VERSION, a->model, a->prov->name, a->sess.path ? "session " :
	        "", a->sess.path ? a->sess.path : "no session");
}

/* A text a command gave back (/branch's user message): on the next line
 * to edit, at a terminal; else said, for the next line to replace. */
static void
chatoffer(Line *ed, Buf *text)
{
	Buf b = { 0 };

	if (!text->len)
		return;
	if (ed) {
		lineoffer(ed, text->p, text->len);
	} else {
		safetext(&b, text->p, text->len, 0);
		fprintf(stderr, "its text, which the next line takes the place "
		        "of:\n%s\n", b.p);
		buffree(&b);
	}
	bufreset(text);
}

/* Each line of stdin is a message; a line ending in \ goes on.  At a
 * terminal, the line editor (line.c) draws on stderr, or on the
 * terminal itself when stderr is not one. */
int
chatmode(Agent *a, size_t histmax)
{
	Buf msg = { 0 }, text = { 0 }, in = { 0 };
	Line ed, *edp = NULL;
	const char *pr;
	int rc = 0, r;

	if (isatty(0)) {
		lineopen(&ed, 0, isatty(2) ? 2 : 0, histmax);
		edp = &ed;
		if (!a->ev.quiet)
			chatbanner(a);
	}
	for (;;) {
		pr = msg.len ? ". " : "> ";
		if (!edp && isatty(0))
			fputs(pr, stderr);
		*a->intr = *a->quit != 0;	/* outoftime is a quit */
		if (!chatread(edp, pr, &in, &rc, a->intr))
			break;	/* to the cleanup at main's end */
		if (in.len && in.p[in.len - 1] == '\\') {
			bufadd(&msg, in.p, in.len - 1);
			bufaddc(&msg, '\n');
			continue;
		}
		bufadd(&msg, in.p, in.len);
		if (!msg.len)
			continue;
		if (msg.p[0] == '/' && !memchr(msg.p, '\n', msg.len) &&
		    (r = chatcommand(a, msg.p, &text)) >= 0) {
			bufreset(&msg);
			if (!r)
				break;
			chatoffer(edp, &text);
			continue;
		}
		r = promptline(&a->pc, &text, &a->attach, msg.p) < 0 ? 0 :
		    agentturn(a, text.p, text.len);
		if (r)
			rc = r == 130 ? rc : 1;
		bufreset(&msg);
		if (*a->quit)
			break;
	}
	if (edp)
		lineclose(edp);
	buffree(&in);
	buffree(&msg);
	buffree(&text);
	return rc;
}
