/* See LICENSE file for copyright and license details. */
/* export.c: a session's branch as one page, HTML or Markdown, to read or
 * to pass on.  Every byte the session gives is escaped: the HTML page
 * runs nothing and loads nothing (its policy says so too), its images
 * only data: URIs of four types; the Markdown page holds the session's
 * prose in quotes, its code in fences that nothing inside can close. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "json.h"
#include "entry.h"
#include "session.h"
#include "file.h"
#include "diff.h"
#include "md.h"
#include "export.h"

enum {
	FOLDLINES = 20,		/* a tool's text of more lines is folded, */
	FOLDBYTES = 2048	/* or of more bytes */
};

/* How pageesc writes: HTML text or attribute; Markdown prose, in a
 * quote; Markdown on one line, no mark in it taken as one; a fence's
 * lines. */
enum { ESCHTML, ESCQUOTE, ESCLINE, ESCCODE };

/* What the branch holds, for the page's head. */
typedef struct {
	long msgs, user, answers, results, calls;
	long long tok[4];	/* as entryusage counts them */
	double cost;
	Buf models;		/* "\nprovider/model\n" each, in order */
	int nmodels;
	Buf end;		/* the last entry's time */
} Totals;

typedef struct {
	Buf b;			/* the page */
	int md;			/* Markdown, else HTML */
	const char *name;	/* the session file, for messages */
} Page;

/* Short: the static build has a size budget. */
static const char htmltop[] =
	"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
	"'none'; img-src data:; style-src 'unsafe-inline'\">\n"
	"<meta name=\"viewport\" content=\"width=device-width\">\n"
	"<style>body{max-width:60em;margin:auto;padding:0 1em;"
	"font:15px/1.5 sans-serif}section{margin:1em 0;padding:0 1em;"
	"border-left:4px solid #bbb}.user{border-color:#36c}"
	".assistant{border-color:#393}.error{border-color:#c33}"
	".summary{border-color:#c80}section>h2,h3{font-size:1em;"
	"margin:.6em 0}pre,.md p,.md li{white-space:pre-wrap;"
	"overflow-wrap:anywhere}pre,code{background:#f3f3f3}pre{padding:.4em}"
	"small,.m{color:#666}img{max-width:100%}table{border-collapse:"
	"collapse}td,th{border:1px solid #ccc;padding:0 .4em}.c{text-align:"
	"center}.r{text-align:right}blockquote{margin:0;padding-left:1em;"
	"border-left:3px solid #ccc}del,ins{display:block;text-decoration:"
	"none}del{background:#fdd}ins{background:#dfd}</style>\n";

/* The images shown; others (SVG could hold script) are named only. */
static const char *const imagetypes[] = {
	"image/png", "image/jpeg", "image/gif", "image/webp"
};

/* Append s[n] to b escaped as how says.  Invalid UTF-8 and control
 * characters but newline and tab become U+FFFD; CR is dropped (CRLF
 * lines), as md.c's mdesc does for HTML. */
static void
pageesc(Buf *b, const char *s, size_t n, int how)
{
	size_t i, k;
	unsigned char c;

	if (how == ESCHTML) {	/* md.c's escape, the one for HTML */
		mdesc(b, s, n);
		return;
	}
	bufgrow(b, n);
	for (i = 0; i < n; i += k) {
		c = s[i];
		k = utf8seq(s + i, n - i);
		if (c == '\r') {
			k = 1;
		} else if (!k || (c < 0x20 && c != '\n' && c != '\t') ||
		           c == 0x7f) {
			bufadds(b, "\xef\xbf\xbd");
			k = 1;
		} else if (how == ESCLINE && (c == '\n' || c == '\t')) {
			bufaddc(b, ' ');
		} else if (how == ESCQUOTE && c == '\n') {
			bufadds(b, "\n> ");
		} else if (how == ESCQUOTE && c == '<') {
			bufadds(b, "&lt;");	/* no raw HTML in a viewer */
		} else if (how == ESCQUOTE && c == '[') {
			bufadds(b, "\\[");	/* nor a link, to javascript: */
		} else if (how == ESCLINE && strchr("\\`*_[]<>!&#|~", c)) {
			bufaddc(b, '\\');
			bufaddc(b, c);
		} else {
			bufadd(b, s + i, k);
		}
	}
}

/* Append token i of j: a string unescaped, a number or literal as it
 * stands; nothing for others. */
static void
pagetok(const Json *j, int i, Buf *b)
{
	if (jsonstrbuf(j, i, b) < 0 && i >= 0 && i < j->n &&
	    j->t[i].type == JPRIM)
		bufadd(b, j->s + j->t[i].start, j->t[i].end - j->t[i].start);
}

/* Append the value of key in object obj of j, as pagetok. */
static void
pagekey(const Json *j, int obj, const char *key, Buf *b)
{
	pagetok(j, jsonget(j, obj, key), b);
}

/* An ISO 8601 time in UTC (2026-11-28T14:03:05.123Z) as people read
 * it: to the minute (2026-11-28 14:03 UTC), or the second; another as
 * it is. */
static void
pagedate(Buf *b, const char *s, size_t n, int secs)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;

	for (i = 0; i < n && i < sizeof(shape) - 1; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) :
		    s[i] != shape[i])
			break;
	if (i < sizeof(shape) - 1 || s[n - 1] != 'Z') {
		bufadd(b, s, n);
		return;
	}
	bufadd(b, s, 10);
	bufaddc(b, ' ');
	bufadd(b, s + 11, secs ? 8 : 5);
	bufadds(b, " UTC");
}

/* A line of small print: a setting, the usage, a note. */
static void
pagenote(Page *p, const char *s, size_t n)
{
	bufadds(&p->b, p->md ? "" : "<p class=\"m\">");
	pageesc(&p->b, s, n, p->md ? ESCLINE : ESCHTML);
	bufadds(&p->b, p->md ? "\n\n" : "</p>\n");
}

/* Prose: what the user or the model wrote, a summary; Markdown, shown
 * as HTML by md.c, or quoted as it is. */
static void
pagetext(Page *p, const char *s, size_t n)
{
	if (!n)
		return;
	if (!p->md) {
		bufadds(&p->b, "<div class=\"md\">");
		mdhtml(&p->b, s, n);
		bufadds(&p->b, "</div>\n");
		return;
	}
	bufadds(&p->b, "> ");
	pageesc(&p->b, s, n, ESCQUOTE);
	bufadds(&p->b, "\n\n");
}

/* A folded part, under summary (ours), and its end. */
static void
pagefold(Page *p, const char *summary)
{
	bufadds(&p->b, "<details><summary>");
	pageesc(&p->b, summary, strlen(summary), ESCHTML);
	bufadds(&p->b, p->md ? "</summary>\n\n" : "</summary>\n");
}

static void
pageunfold(Page *p)
{
	bufadds(&p->b, p->md ? "</details>\n\n" : "</details>\n");
}

/* A fence of n backticks; the line's end is the caller's. */
static void
pagefence(Buf *b, size_t n)
{
	while (n--)
		bufaddc(b, '`');
}

/* A diff's lines in HTML, those taken out and put in marked. */
static void
pagediff(Page *p, const char *s, size_t n)
{
	const char *e, *end = s + n;

	bufadds(&p->b, "<pre class=\"diff\">");
	for (; s < end; s = e + 1) {
		e = memchr(s, '\n', end - s);
		e = e ? e : end;
		if (*s == '-' || *s == '+') {
			bufadds(&p->b, *s == '-' ? "<del>" : "<ins>");
			pageesc(&p->b, s, e - s, ESCHTML);
			bufadds(&p->b, *s == '-' ? "</del>" : "</ins>");
		} else {
			pageesc(&p->b, s, e - s, ESCHTML);
			bufaddc(&p->b, '\n');
		}
	}
	bufadds(&p->b, "</pre>\n");
}

/* Text shown as it is, a tool's: in <pre> (a diff's lines marked when
 * lang is "diff"), or in a Markdown fence of lang longer than any run
 * of backticks in it; folded when long, what and its size saying what
 * is folded. */
static void
pagecode(Page *p, const char *s, size_t n, const char *what,
         const char *lang)
{
	char sum[80];
	size_t i, run = 0, most = 2, lines = 0;
	int fold;

	for (i = 0; i < n; i++) {
		lines += s[i] == '\n';
		run = s[i] == '`' ? run + 1 : 0;
		most = MAX(most, run);
	}
	lines += n && s[n - 1] != '\n';
	if ((fold = lines > FOLDLINES || n > FOLDBYTES)) {
		snprintf(sum, sizeof(sum), "%s: %zu lines, %zu bytes", what,
		         lines, n);
		pagefold(p, sum);
	}
	if (!p->md && lang && !strcmp(lang, "diff")) {
		pagediff(p, s, n);
	} else if (!p->md) {
		/* the parser drops one newline after <pre>: this one */
		bufadds(&p->b, "<pre>\n");
		pageesc(&p->b, s, n, ESCHTML);
		bufadds(&p->b, "</pre>\n");
	} else {
		pagefence(&p->b, most + 1);
		bufadds(&p->b, lang ? lang : "");
		bufaddc(&p->b, '\n');
		pageesc(&p->b, s, n, ESCCODE);
		if (p->b.p[p->b.len - 1] != '\n')
			bufaddc(&p->b, '\n');
		pagefence(&p->b, most + 1);
		bufadds(&p->b, "\n\n");
	}
	if (fold)
		pageunfold(p);
}

/* A part's heading: title, and the time of token ts; an HTML section
 * of class cls starts, that pageclose ends. */
static void
pagehead(Page *p, const char *cls, const char *title, const Json *j,
         int ts)
{
	Buf t = { 0 }, d = { 0 };

	if (p->md)
		bufadds(&p->b, "## ");
	else
		bufaddf(&p->b, "<section class=\"%s\"><h2>", cls);
	pageesc(&p->b, title, strlen(title), p->md ? ESCLINE : ESCHTML);
	pagetok(j, ts, &d);
	pagedate(&t, bstr(&d), d.len, 1);
	buffree(&d);
	if (t.len) {
		bufadds(&p->b, p->md ? " (" : " <small>");
		pageesc(&p->b, t.p, t.len, p->md ? ESCLINE : ESCHTML);
		bufadds(&p->b, p->md ? ")" : "</small>");
	}
	bufadds(&p->b, p->md ? "\n\n" : "</h2>\n");
	buffree(&t);
}

static void
pageclose(Page *p)
{
	if (!p->md)
		bufadds(&p->b, "</section>\n");
}

/* A heading within a part: a tool call's. */
static void
pagesub(Page *p, const char *s, size_t n)
{
	bufadds(&p->b, p->md ? "### " : "<h3>");
	pageesc(&p->b, s, n, p->md ? ESCLINE : ESCHTML);
	bufadds(&p->b, p->md ? "\n\n" : "</h3>\n");
}

/* An image block: shown when its type is one of imagetypes and its data
 * base64 alone, so that nothing it holds leaves the data: URI; named
 * else. */
static void
pageimage(Page *p, const Json *j, int blk)
{
	Buf mime = { 0 }, data = { 0 };
	size_t i, k;
	int ok;

	pagekey(j, blk, "mimeType", &mime);
	pagekey(j, blk, "data", &data);
	for (k = 0; k < LEN(imagetypes) && strcmp(bstr(&mime),
	                                          imagetypes[k]); k++)
		;
	ok = k < LEN(imagetypes) && data.len > 0;
	for (i = 0; ok && i < data.len; i++)
		ok = b64val((unsigned char)data.p[i]) >= 0 || data.p[i] == '=';
	if (ok) {
		bufaddf(&p->b, p->md ? "![image](data:%s;base64," :
		        "<p><img alt=\"image\" src=\"data:%s;base64,",
		        imagetypes[k]);
		bufadd(&p->b, data.p, data.len);
		bufadds(&p->b, p->md ? ")\n\n" : "\"></p>\n");
	} else {
		bufreset(&data);
		bufadds(&data, "[an image not shown: ");
		bufadd(&data, bstr(&mime), mime.len);
		bufadds(&data, k < LEN(imagetypes) ? ", its data not base64]" :
		        "]");
		pagenote(p, data.p, data.len);
	}
	buffree(&mime);
	buffree(&data);
}

/* An edit's arguments as a diff of each of edits[] (or of the single
 * oldText and newText); 0 if they hold no text to compare. */
static int
pageedit(Page *p, const Json *j, int args)
{
	Buf d = { 0 }, a = { 0 }, b = { 0 };
	int e, edits = jsonget(j, args, "edits"), any = 0;

	e = edits >= 0 ? jsonat(j, edits, 0) : args;
	for (; e >= 0; e = edits >= 0 ? jsonnext(j, e) : -1) {
		bufreset(&a);
		bufreset(&b);
		if (jsonget(j, e, "oldText") < 0 &&
		    jsonget(j, e, "newText") < 0)
			continue;
		pagekey(j, e, "oldText", &a);
		pagekey(j, e, "newText", &b);
		diffunified(&d, a.p, a.len, b.p, b.len, 3);
		any = 1;
	}
	if (any)
		pagecode(p, bstr(&d), d.len, "diff", "diff");
	buffree(&d);
	buffree(&a);
	buffree(&b);
	return any;
}

/* The arguments of the tools a reader knows by sight: an edit as a
 * diff, a write as its content, a command as a shell line, each with
 * its path; 0 for other tools, whose arguments pagecall lists. */
static int
pageknown(Page *p, const Json *j, int name, int args)
{
	Buf t = { 0 };
	int edit = jsoneq(j, name, "edit"), write = jsoneq(j, name, "write");
	int cmd = jsonget(j, args, "command"), shown = 1;

	if (edit || write) {
		bufadds(&t, "path: ");
		pagekey(j, args, "path", &t);
		pagenote(p, t.p, t.len);
		bufreset(&t);
	}
	if (edit) {
		shown = pageedit(p, j, args);
	} else if (write && jsonget(j, args, "content") >= 0) {
		pagekey(j, args, "content", &t);
		pagecode(p, bstr(&t), t.len, "content", NULL);
	} else if (jsoneq(j, name, "bash") && cmd >= 0) {
		bufadds(&t, "$ ");
		pagetok(j, cmd, &t);
		pagecode(p, bstr(&t), t.len, "command", p->md ? "sh" : NULL);
	} else {
		shown = 0;
	}
	buffree(&t);
	return shown;
}

/* A tool call: its name and id, then its arguments: as pageknown has
 * them, else a string as it is, other values as JSON. */
static void
pagecall(Page *p, const Json *j, int blk)
{
	Buf t = { 0 };
	int args = jsonget(j, blk, "arguments"), i, k;

	bufadds(&t, "Tool call: ");
	pagekey(j, blk, "name", &t);
	bufadds(&t, " (");
	pagekey(j, blk, "id", &t);
	bufaddc(&t, ')');
	pagesub(p, t.p, t.len);
	bufreset(&t);
	if (args >= 0 && j->t[args].type == JOBJ &&
	    pageknown(p, j, jsonget(j, blk, "name"), args)) {
		buffree(&t);
		return;
	}
	if (args >= 0 && j->t[args].type == JOBJ) {
		for (i = args + 1, k = 0; k < j->t[args].size && i + 1 < j->n;
		     k++, i = jsonskip(j, i + 1)) {
			pagetok(j, i, &t);
			bufadds(&t, ": ");
			if (jsonstrbuf(j, i + 1, &t) < 0)
				jsonraw(&t, j, i + 1);
			bufaddc(&t, '\n');
		}
	} else if (args >= 0) {
		jsonraw(&t, j, args);
	}
	pagecode(p, bstr(&t), t.len, "arguments", NULL);
	buffree(&t);
}

/* Text of a message: prose, or a tool's output. */
static void
pagesaid(Page *p, const Buf *t, int code)
{
	if (code)
		pagecode(p, bstr(t), t->len, "output", NULL);
	else
		pagetext(p, t->p, t->len);
}

/* A message's content: a string, or blocks of text, thinking, tool
 * calls and images; with code, its text is a tool's. */
static void
pageblocks(Page *p, const Json *j, int content, int code)
{
	Buf t = { 0 };
	int blk, type, redacted;

	if (jsonstrbuf(j, content, &t) == 0)
		pagesaid(p, &t, code);
	for (blk = jsonat(j, content, 0); blk >= 0; blk = jsonnext(j, blk)) {
		type = jsonget(j, blk, "type");
		bufreset(&t);
		if (jsoneq(j, type, "text")) {
			pagekey(j, blk, "text", &t);
			pagesaid(p, &t, code);
		} else if (jsoneq(j, type, "thinking")) {
			pagekey(j, blk, "thinking", &t);
			redacted = 0;
			jsonbool(j, jsonget(j, blk, "redacted"), &redacted);
			if (redacted) {
				bufreset(&t);
				bufadds(&t, "[thinking redacted]");
				pagenote(p, t.p, t.len);
			} else if (t.len) {
				pagefold(p, "Thinking");
				pagetext(p, t.p, t.len);
				pageunfold(p);
			}
		} else if (jsoneq(j, type, "toolCall")) {
			pagecall(p, j, blk);
		} else if (jsoneq(j, type, "image")) {
			pageimage(p, j, blk);
		} else {
			bufadds(&t, "[a block of type ");
			pagetok(j, type, &t);
			bufaddc(&t, ']');
			pagenote(p, t.p, t.len);
		}
	}
	buffree(&t);
}

/* Who answered and what it cost: model, tokens, dollars; how it ended. */
static void
pageusage(Page *p, const Json *j, int m)
{
	static const char *const keys[] = {
		"input", "output", "cacheRead", "cacheWrite"
	};
	static const char *const says[] = {
		"in", "out", "cache read", "cache write"
	};
	Buf t = { 0 };
	double v;
	int u = jsonget(j, m, "usage");
	size_t k;

	pagekey(j, m, "provider", &t);
	bufadds(&t, t.len ? "/" : "");
	pagekey(j, m, "model", &t);
	for (k = 0; k < LEN(keys); k++)
		if (jsonnum(j, jsonget(j, u, keys[k]), &v) == 0)
			bufaddf(&t, "%s%s %.0f", t.len ? ", " : "", says[k],
			        v);
	if (jsonnum(j, jsonget(j, jsonget(j, u, "cost"), "total"), &v) == 0)
		bufaddf(&t, "%s$%.4f", t.len ? ", " : "", v);
	if (jsonget(j, m, "stopReason") >= 0) {
		bufadds(&t, t.len ? ", stop: " : "stop: ");
		pagekey(j, m, "stopReason", &t);
	}
	if (t.len)
		pagenote(p, t.p, t.len);
	bufreset(&t);
	pagekey(j, m, "errorMessage", &t);
	if (t.len) {
		pagenote(p, "Error:", strlen("Error:"));
		pagecode(p, t.p, t.len, "error", NULL);
	}
	buffree(&t);
}

/* A command the user ran (pi's !cmd), its output and how it ended. */
static void
pagebash(Page *p, const Json *j, int m, int ts)
{
	Buf t = { 0 };
	double v;
	int yes = 0;

	pagehead(p, "tool", "Bash", j, ts);
	bufadds(&t, "$ ");
	pagekey(j, m, "command", &t);
	pagecode(p, t.p, t.len, "command", NULL);
	bufreset(&t);
	pagekey(j, m, "output", &t);
	pagecode(p, bstr(&t), t.len, "output", NULL);
	bufreset(&t);
	if (jsonnum(j, jsonget(j, m, "exitCode"), &v) == 0)
		bufaddf(&t, "exit code %.0f", v);
	if (jsonbool(j, jsonget(j, m, "cancelled"), &yes) == 0 && yes)
		bufadds(&t, t.len ? ", cancelled" : "cancelled");
	if (jsonbool(j, jsonget(j, m, "truncated"), &yes) == 0 && yes) {
		bufadds(&t, t.len ? ", cut short; all of it in " :
		        "cut short; all of it in ");
		pagekey(j, m, "fullOutputPath", &t);
	}
	if (t.len)
		pagenote(p, t.p, t.len);
	buffree(&t);
}

/* A message entry: the user's, an answer, a tool's result, a command;
 * other roles by their name, with their content and summary. */
static void
pagemessage(Page *p, const Json *j, int m, int ts)
{
	Buf t = { 0 };
	int role = jsonget(j, m, "role"), content = jsonget(j, m, "content");
	int err = 0;

	if (jsoneq(j, role, "user")) {
		pagehead(p, "user", "User", j, ts);
		pageblocks(p, j, content, 0);
	} else if (jsoneq(j, role, "assistant")) {
		pagehead(p, "assistant", "Assistant", j, ts);
		pageblocks(p, j, content, 0);
		pageusage(p, j, m);
	} else if (jsoneq(j, role, "toolResult")) {
		jsonbool(j, jsonget(j, m, "isError"), &err);
		bufadds(&t, err ? "Tool error: " : "Tool result: ");
		pagekey(j, m, "toolName", &t);
		bufadds(&t, " (");
		pagekey(j, m, "toolCallId", &t);
		bufaddc(&t, ')');
		pagehead(p, err ? "error" : "tool", t.p, j, ts);
		pageblocks(p, j, content, 1);
	} else if (jsoneq(j, role, "bashExecution")) {
		pagebash(p, j, m, ts);
	} else {
		bufadds(&t, "Message: ");
		pagetok(j, role, &t);
		pagehead(p, "summary", t.p, j, ts);
		pageblocks(p, j, content, 0);
		bufreset(&t);
		pagekey(j, m, "summary", &t);
		pagetext(p, t.p, t.len);
	}
	pageclose(p);
	buffree(&t);
}

/* An entry of one line: a model or thinking level chosen, a label, a
 * name; another type by its name. */
static void
pagesetting(Page *p, const Json *j, const char *type)
{
	static const struct {
		const char *type, *says, *key, *sep, *key2;
	} rows[] = {
		{ "model_change", "Model: ", "provider", "/", "modelId" },
		{ "thinking_level_change", "Thinking: ", "thinkingLevel",
		  NULL, NULL },
		{ "label", "Label: ", "label", " on ", "targetId" },
		{ "session_info", "Session name: ", "name", NULL, NULL },
	};
	Buf t = { 0 };
	size_t k;

	for (k = 0; k < LEN(rows) && strcmp(type, rows[k].type); k++)
		;
	if (k == LEN(rows)) {
		bufadds(&t, "Entry: ");
		bufadds(&t, type);
	} else {
		bufadds(&t, rows[k].says);
		pagekey(j, 0, rows[k].key, &t);
		if (rows[k].key2 && jsonget(j, 0, rows[k].key2) >= 0) {
			bufadds(&t, rows[k].sep);
			pagekey(j, 0, rows[k].key2, &t);
		}
	}
	pagenote(p, t.p, t.len);
	buffree(&t);
}

/* Entry e of the branch, as its type has it shown. */
static void
pageentry(Page *p, const Entry *e)
{
	Buf t = { 0 };
	Json j;
	double v;
	int ts, c;

	if (!e->line || jsonparse(&j, e->line, e->len) < 0) {
		safetext(&t, e->id, strlen(e->id), 1);
		warn("%s: entry %s cannot be read: left out", p->name, t.p);
		buffree(&t);
		return;
	}
	ts = jsonget(&j, 0, "timestamp");
	if (!strcmp(e->type, "message")) {
		pagemessage(p, &j, jsonget(&j, 0, "message"), ts);
	} else if ((c = !strcmp(e->type, "compaction")) ||
	           !strcmp(e->type, "branch_summary")) {
		pagehead(p, "summary", c ? "Compaction" : "Branch summary",
		         &j, ts);
		if (c && !jsonnum(&j, jsonget(&j, 0, "tokensBefore"), &v)) {
			bufaddf(&t, "%.0f tokens before", v);
			pagenote(p, t.p, t.len);
			bufreset(&t);
		}
		pagekey(&j, 0, "summary", &t);
		pagetext(p, t.p, t.len);
		pageclose(p);
	} else if (!strcmp(e->type, "custom_message")) {
		bufadds(&t, "Message: ");
		pagekey(&j, 0, "customType", &t);
		pagehead(p, "summary", t.p, &j, ts);
		pageblocks(p, &j, jsonget(&j, 0, "content"), 0);
		pageclose(p);
	} else {
		pagesetting(p, &j, e->type);
	}
	jsonfree(&j);
	buffree(&t);
}

/* Entry e counted into to: its time, its message and what the message
 * cost, the tools it called, the model that wrote it. */
static void
pagecount(Totals *to, const Entry *e)
{
	Buf t = { 0 };
	Json j;
	int m, role, blk;

	if (!e->line || jsonparse(&j, e->line, e->len) < 0)
		return;
	bufreset(&to->end);
	pagekey(&j, 0, "timestamp", &to->end);
	m = strcmp(e->type, "message") ? -1 : jsonget(&j, 0, "message");
	role = jsonget(&j, m, "role");
	to->msgs += m >= 0;
	to->user += jsoneq(&j, role, "user");
	to->results += jsoneq(&j, role, "toolResult");
	if (m >= 0 && jsoneq(&j, role, "assistant")) {
		to->answers++;
		to->cost += entryusage(&j, m, to->tok);
		blk = jsonat(&j, jsonget(&j, m, "content"), 0);
		for (; blk >= 0; blk = jsonnext(&j, blk))
			to->calls += jsoneq(&j, jsonget(&j, blk, "type"),
			                    "toolCall");
		bufaddc(&t, '\n');
		pagekey(&j, m, "provider", &t);
		bufadds(&t, t.len > 1 ? "/" : "");
		pagekey(&j, m, "model", &t);
		bufaddc(&t, '\n');
		if (t.len > 2 && to->nmodels < 8 &&
		    !strstr(bstr(&to->models), t.p)) {
			bufadd(&to->models, t.p + !!to->models.len,
			       t.len - !!to->models.len);
			to->nmodels++;
		}
	}
	buffree(&t);
	jsonfree(&j);
}

/* The totals of the branch path[n], as notes under the page's head. */
static void
pagetotals(Page *p, const Entry **path, size_t n)
{
	Totals to;
	Buf t = { 0 };
	size_t i;

	memset(&to, 0, sizeof(to));
	for (i = 0; i < n; i++)
		pagecount(&to, path[i]);
	if (to.end.len) {
		bufadds(&t, "Last entry: ");
		pagedate(&t, to.end.p, to.end.len, 0);
		pagenote(p, t.p, t.len);
	}
	bufreset(&t);
	bufaddf(&t, "Messages: %ld (%ld from the user, %ld answers, %ld tool "
	        "results), %ld tool calls", to.msgs, to.user, to.answers,
	        to.results, to.calls);
	pagenote(p, t.p, t.len);
	bufreset(&t);
	bufaddf(&t, "Tokens: in %lld, out %lld, cache read %lld, cache "
	        "write %lld; cost $%.4f", to.tok[0], to.tok[1], to.tok[2],
	        to.tok[3], to.cost);
	pagenote(p, t.p, t.len);
	for (i = 0; i + 1 < to.models.len; i++)
		to.models.p[i] = to.models.p[i] == '\n' ? ',' : to.models.p[i];
	if (to.nmodels) {
		bufreset(&t);
		bufadds(&t, to.nmodels > 1 ? "Models: " : "Model: ");
		bufadd(&t, to.models.p + 1, to.models.len - 2);
		pagenote(p, t.p, t.len);
	}
	buffree(&t);
	buffree(&to.models);
	buffree(&to.end);
}

/* The page's head: the session's id, directory, start, its totals. */
static void
pagestart(Page *p, const char *head, const Entry **path, size_t n)
{
	static const char *const keys[] = {
		"id", "cwd", "timestamp", "parentSession"
	};
	static const char *const says[] = {
		"Session: ", "Directory: ", "Started: ", "Forked from: "
	};
	Buf t = { 0 }, v = { 0 };
	Json j;
	size_t k;

	jsonparse(&j, head, strlen(head));	/* checked by the load */
	if (p->md) {
		bufadds(&p->b, "# Session\n\n");
	} else {
		bufadds(&p->b, htmltop);
		bufadds(&p->b, "<title>Session ");
		pagekey(&j, 0, "id", &t);
		pageesc(&p->b, bstr(&t), t.len, ESCHTML);
		bufadds(&p->b, "</title></head><body>\n<h1>Session</h1>\n");
	}
	for (k = 0; k < LEN(keys); k++) {
		bufreset(&t);
		bufreset(&v);
		pagekey(&j, 0, keys[k], &v);
		bufadds(&t, says[k]);
		pagedate(&t, bstr(&v), v.len, 0);
		if (v.len)
			pagenote(p, t.p, t.len);
		if (k == 2)
			pagetotals(p, path, n);
	}
	jsonfree(&j);
	buffree(&t);
	buffree(&v);
}

/* The page out names by its ending: EXPORTHTML, EXPORTMD, or -1. */
static int
exportformat(const char *out)
{
	size_t n = strlen(out);

	if (n >= 5 && !strcmp(out + n - 5, ".html"))
		return EXPORTHTML;
	if (n >= 3 && !strcmp(out + n - 3, ".md"))
		return EXPORTMD;
	return -1;
}

/* The page's name when none is given: in's, .jsonl made .html. */
char *
exportdefault(const char *in)
{
	Buf b = { 0 };
	size_t n = strlen(in);

	if (n >= 6 && !strcmp(in + n - 6, ".jsonl"))
		n -= 6;
	bufadd(&b, in, n);
	bufadds(&b, ".html");
	return bufdetach(&b);
}

/* Write the branch of session file in that ends at entry leaf (NULL:
 * the file's leaf) as the page out, HTML or Markdown by its ending, in
 * place at once (filereplace).  Lines the load skips are said, and the
 * rest written.  0, or -1 with a message said. */
int
exportsession(const char *in, const char *leaf, const char *out)
{
	Session s;
	Page p;
	Buf why = { 0 };
	const Entry **path;
	size_t n, i;
	int fmt, rc = 0;

	if ((fmt = exportformat(out)) < 0) {
		warn("%s: the page's name must end in .html or .md", out);
		return -1;
	}
	if (sessreadat(&s, in, leaf) < 0) {
		if (errno == ENOENT)
			warn("%s: no such session file, or empty", in);
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.md = fmt == EXPORTMD;
	p.name = in;
	n = sessbranch(&s, &path);
	pagestart(&p, s.head, path, n);
	for (i = 0; i < n; i++)
		pageentry(&p, path[i]);
	if (!p.md)
		bufadds(&p.b, "</body></html>\n");
	if (filereplace(out, p.b.p, p.b.len, &why) < 0) {
		warn("%s", why.p);
		rc = -1;
	}
	buffree(&why);
	buffree(&p.b);
	free(path);
	sessfree(&s);
	return rc;
}

int
exportcmd(const char *in, const char *out)
{
	char *page = out ? xstrdup(out) : exportdefault(in);
	int rc = 0;

	if (exportformat(page) < 0) {
		warn("%s: the page's name must end in .html or .md", page);
		rc = 2;
	} else if (exportsession(in, NULL, page) < 0) {
		rc = 1;
	} else if (puts(page) == EOF || fflush(stdout)) {
		warn("write stdout:");
		rc = 1;
	}
	free(page);
	return rc;
}
