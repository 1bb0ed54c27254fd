/* See LICENSE file for copyright and license details. */
/* export.h: a session's branch as one page, HTML or Markdown */
enum { EXPORTHTML, EXPORTMD };	/* the pages, by out's ending */

char *exportdefault(const char *in);
int exportsession(const char *in, const char *leaf, const char *out);
/* -e: in's branch exported to the page out (NULL: exportdefault's), its
 * name on stdout; the exit status: 0, 1 failed, 2 a bad name. */
int exportcmd(const char *in, const char *out);
