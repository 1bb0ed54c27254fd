/* See LICENSE file for copyright and license details. */
/* entry.h: pi's entries and messages as stored */
#include <stddef.h>
#include <sys/types.h>

/* An entry of a session file, as session.c indexes it. */
typedef struct {
	char *id;		/* 8 hex digits (pi writes longer ones too) */
	char *parent;		/* NULL for a first entry */
	char *type;		/* "message", "compaction", ... */
	char *line;		/* the line as stored, without its newline
				 * (and without a NUL when shared); NULL if
				 * the context does not use it */
	off_t off;		/* where the line is in the file loaded, or
				 * -1: not read from the file */
	size_t len;		/* its length */
	size_t msgat, msglen;	/* where its "message" lies in the line,
				 * msgat 0 if it has none or is not known */
	char *role;		/* that message's role, or NULL */
	int shared;		/* line lies in the session's map */
	int plain;		/* its strings are ASCII, escaped as jsonesc
				 * does (json.h's JSONNOTPLAIN not seen):
				 * its message goes on the wire as it
				 * stands */
	int hidden;		/* a later entry has the same id */
} Entry;

long entrycompaction(const Entry **path, size_t n, size_t *from,
                     char **summary);
int entryincontext(const Entry *e);
long entrycut(const Entry **path, size_t n, size_t from, long keep);
long entrytokens(const char *json, size_t n);
char *entryuser(const char *text, size_t len, const Buf *more);
char *entryresult(const Buf *id, const Buf *name, const Buf *text, int iserr,
                  const Buf *more, const Buf *details);
char *entrybash(const Json *j, int m);
void entryserialize(Buf *b, const char *type, const char *line,
                    size_t len, size_t maxresult);
char *entrymodel(const Entry **path, size_t n, const char *provider);
int entryheader(const char *p, size_t n, double *version, char **cwd);
const char *entrybrief(Buf *b, const char *type, const char *line,
                       size_t len);
double entryusage(const Json *j, int m, long long tok[4]);
