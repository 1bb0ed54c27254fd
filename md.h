/* See LICENSE file for copyright and license details. */
/* md.h: Markdown as HTML that runs nothing, in time linear in the text */

/* Append s[n], Markdown, to b as HTML: headings, emphasis, code spans
 * and fences, lists, quotes, tables, rules, and links to http(s) only.
 * Every byte of s is escaped; no raw HTML passes. */
void mdhtml(Buf *b, const char *s, size_t n);
/* Append s[n] to b as HTML text: & < > " ' as entities, invalid UTF-8
 * and controls but newline and tab as U+FFFD, CR dropped. */
void mdesc(Buf *b, const char *s, size_t n);
