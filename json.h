/* See LICENSE file for copyright and license details. */
/* json.h: jsmn tokens in, escaped JSON out */
#include <stddef.h>

enum { JOBJ = 1, JARR, JSTR, JPRIM };	/* the values of Debian jsmn 1.1.0 */

typedef struct {
	int type;
	int start, end;	/* byte span in the text; strings exclude quotes */
	int size;	/* children: keys of an object, items of an array */
	int parent;
} Jtok;

typedef struct {
	const char *s;
	size_t len;
	Jtok *t;
	int n;
	int cap;	/* tokens t has room for */
	struct Jpre *pre;	/* json.c's, for jsonreparse: what jsmn read
				 * of the last document */
	int plain;		/* set by the caller: every string of s is
				 * as jsonesc writes it (JSONNOTPLAIN) */
} Json;

/* A string past ASCII, or with an escape jsonesc does not write. */
enum { JSONNOTPLAIN = 1 };

/* A member that jsonmembers looks for, and where its value lies. */
typedef struct {
	const char *key;
	int in;			/* the member it is in, or -1: top level */
	size_t at, len;		/* out: its value; at 0: not there */
} Jmember;

int jsonparse(Json *j, const char *s, size_t len);
int jsonmembers(const char *s, size_t n, Jmember *m, int nm);
int jsonmembersof(const char *s, size_t n, Jmember *m, int nm, unsigned *fl);
int jsonreparse(Json *j, const char *s, size_t len);
int jsonparseknown(Json *j, const char *s, size_t len);
void jsonfree(Json *j);
int jsonskip(const Json *j, int i);
int jsonget(const Json *j, int obj, const char *key);
void jsonkeys(const Json *j, int obj, const char *const keys[], int nkeys,
              int val[]);
int jsonat(const Json *j, int arr, int k);
int jsonnext(const Json *j, int i);
int jsoneq(const Json *j, int i, const char *s);
int jsonisnull(const Json *j, int i);
char *jsonstr(const Json *j, int i);
int jsonstrbuf(const Json *j, int i, Buf *out);
void jsontext(Buf *b, const Json *j, int content);
int jsonnum(const Json *j, int i, double *out);
int jsonbool(const Json *j, int i, int *out);
void jsonesc(Buf *b, const char *s, size_t n);
void jsonescs(Buf *b, const char *s);
void jsonraw(Buf *b, const Json *j, int i);
void jsoncanon(Buf *b, const Json *j, int i);
int jsondupkey(const Json *j, Buf *key);
