/* See LICENSE file for copyright and license details. */
/* agent.h: the one shared header: the types and functions that cross the
 * rooms, each room's under its name (see DESIGN.md, The rooms). */
#include <signal.h>
#include <stddef.h>
#include <sys/stat.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* util.c */
typedef struct {
	char *p;	/* always NUL-terminated when cap > 0 */
	size_t len, cap;
} Buf;

void die(const char *fmt, ...);
void warn(const char *fmt, ...);
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void bufgrow(Buf *b, size_t n);
void bufadd(Buf *b, const void *p, size_t n);
void bufaddc(Buf *b, int c);
void bufadds(Buf *b, const char *s);
void bufaddf(Buf *b, const char *fmt, ...);
const char *bstr(const Buf *b);
void bufreset(Buf *b);
void buffree(Buf *b);
char *bufdetach(Buf *b);
size_t utf8valid(const char *s, size_t n);
size_t utf8seq(const char *s, size_t n);
size_t utf8back(const char *s, size_t n);
void utf8repair(Buf *b, const char *s, size_t n);
void safetext(Buf *b, const char *s, size_t n, int oneline);
long long nowms(void);
long long monoms(void);
int hexval(int c);
int writeall(int fd, const char *p, size_t n);
void b64enc(Buf *b, const void *p, size_t n);
int b64val(int c);
long tokensof(size_t bytes);
int readall(int fd, Buf *b, size_t max);
char *dirof(const char *path);
int mkdirs(const char *dir, int mode, char **bad);
int syncdir(const char *dir);
int rmtree(const char *dir);
int rmtreeat(int dir, const char *name);
int samefile(int fd1, int fd2);
void hidesecrets(const char *const *names);
int pathmatch(const char *pattern, const char *path);
int namematch(const char *pat, const char *name);
void globprep(Buf *b, const char *pat);
void utcdate(long long sec, int f[6]);
char *abspath(const char *path);
int linktarget(const char *path, char **real);

/* json.c: jsmn tokens in, escaped JSON out */
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
} Json;

/* A member that jsonmembers looks for, and where its value lies. */
typedef struct {
	const char *key;
	int in;			/* the member it is in, or -1: top level */
	size_t at, len;		/* out: its value; at 0: not there */
} Jmember;

int jsonparse(Json *j, const char *s, size_t len);
int jsonmembers(const char *s, size_t n, Jmember *m, int nm);
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

/* sse.c: server-sent events push parser; an event's data may point into
 * the bytes fed, with no NUL after it: len says where it ends */
typedef int (*Ssefn)(void *arg, const char *event, const char *data,
                     size_t len);

typedef struct {
	Buf line, data, event;
	int gotdata;	/* a data field was seen in this event */
	int cr;		/* the last byte fed was a CR */
	int bom;	/* still at the very start: a BOM may follow */
	size_t max;	/* bytes of one event, 0 for no bound */
	Ssefn fn;
	void *arg;
} Sse;

enum { SSEBIG = -2 };	/* ssefeed: an event over max bytes */

void sseinit(Sse *s, Ssefn fn, void *arg);
int ssefeed(Sse *s, const char *p, size_t n);
int sseend(Sse *s);
void ssefree(Sse *s);

/* http.c: HTTP/1.1 client, TLS through BearSSL */
typedef int (*Httpfn)(void *arg, const char *p, size_t n);

/* Response push parser: status line, headers, body framing. */
typedef struct {
	int state;
	Buf line;		/* the header line being read */
	size_t headlen;		/* bytes of head seen, against maxhead */
	size_t maxhead;
	int code;		/* of the status line being read */
	int status;		/* final status, 0 until the head is complete */
	char reason[64];	/* its reason phrase */
	int nobody;		/* set by the caller for HEAD and CONNECT */
	long long clen;		/* Content-Length, -1 if none */
	long long left;		/* body or chunk bytes still to come */
	int chunked;
	int keep;		/* the connection may serve another request */
	long retryafter;	/* seconds from Retry-After, -1 if none */
	char ctype[96];		/* Content-Type, Location, Content-Encoding, */
	char location[256];	/* printable ASCII, cut to fit: for saying */
	char encoding[32];	/* what arrived */
	long long nbody;	/* body bytes handed to fn */
	Buf chunks;		/* the chunks' data of one feed: one call */
	Httpfn fn;
	void *arg;
	char err[160];
} Httpresp;

void httprespinit(Httpresp *r, Httpfn fn, void *arg, size_t maxhead);
int httprespfeed(Httpresp *r, const char *p, size_t n);	/* -1, 0, 1 done */
int httprespeof(Httpresp *r);	/* 0 clean end, -1 truncated */
void httprespfree(Httpresp *r);

typedef struct {
	int tls;		/* https */
	char host[256];		/* IPv6 without its brackets */
	char port[6];
	int defport;		/* the port is the scheme's default */
	const char *path;	/* into the URL: path and query, maybe "" */
	size_t pathlen;		/* without the #fragment */
} Url;

const char *httpurl(Url *u, const char *s);	/* NULL or why not */
int httpnoproxy(const char *list, const char *host);

/* A piece of a request body that lives elsewhere. */
typedef struct {
	const char *p;
	size_t len;
} Span;

typedef struct Httpclient Httpclient;	/* trust anchors, loaded lazily */

typedef struct {
	/* in */
	const char *method;
	const char *url;
	const char *const *headers;	/* "Name: value", NULL-terminated */
	const char *body;
	size_t bodylen;
	const Span *spans;	/* or the body in pieces, bodylen in all */
	size_t nspans;
	Httpfn fn;		/* body bytes as they arrive, any status */
	void *arg;
	/* out */
	int status;		/* 0 until the head has arrived */
	long retryafter;	/* seconds, -1 if none */
	char ctype[96];		/* the response's Content-Type, Location and */
	char location[256];	/* Content-Encoding, "" if none: see */
	char encoding[32];	/* Httpresp */
	long long nbody;	/* body bytes received */
	int transient;		/* the failure may pass: reset, refused */
	char err[256];		/* why httpdo failed */
} Http;

/* Timeouts in milliseconds (<= 0: none); intr (or NULL) is set by SIGINT. */
Httpclient *httpnew(const char *const *cafiles, int conntimeout,
                    int readtimeout, size_t maxhead,
                    volatile sig_atomic_t *intr);
/* While waiting on the network, call fn when fd is readable (-r reads
 * stdin so); fn returning nonzero ends the watch. */
void httpwatch(Httpclient *c, int fd, int (*fn)(void *), void *arg);
void httpsleep(Httpclient *c, long ms);
int httpdo(Httpclient *c, Http *h);
void httpfree(Httpclient *c);

/* wire.c: what the providers' wires share; openai.c, anthropic.c and
 * responses.c below it are the wires themselves.  No I/O in any. */
enum { OPENAI, ANTHROPIC, RESPONSES };	/* chat completions, messages,
					 * OpenAI's Responses */

/* Thinking levels, pi's names (wirelevel, wirelevelname), and how a
 * provider is asked for them: OpenAI's reasoning_effort (xhigh and max
 * sent as high, or as xhigh), OpenRouter's reasoning object, Anthropic's
 * thinking (as the model takes it: TK* below). */
enum { TOFF, TMINIMAL, TLOW, TMEDIUM, THIGH, TXHIGH, TMAX };
enum { THNONE, THEFFORT, THXHIGH, THROUTER, THANTHROPIC };

/* How an Anthropic model takes thinking: adaptive with an effort of low
 * to max (what a model not in config.h's table gets), or low to high;
 * on a budget of tokens; adaptive even when the request says nothing;
 * always, refusing to be told otherwise. */
enum { TKADAPTIVE, TKHIGH, TKBUDGET, TKOMITTED, TKALWAYS };

/* What agent knows of a model, by a part of its name: config.h's
 * models[]. */
typedef struct {
	const char *part;	/* '.' and '-' alike */
	long context;		/* its window in tokens; 0: the provider's */
	long maxout;		/* output tokens asked for; 0: likewise */
	int thinking;		/* Anthropic: TKADAPTIVE ... TKALWAYS */
	double tokens;		/* its tokens for the text of one of
				 * agent's estimated tokens (4 bytes) */
} Model;

/* A stored message's wire form, made once and kept for the requests
 * after; wire.c makes and reads it. */
enum { WFNONE, WFOTHER, WFUSER, WFANSWER, WFRESULT };

/* A text of the message that a form sends as it stands there: it goes
 * at byte at of the form's own text. */
typedef struct {
	size_t at;
	const char *p;		/* in the message, which outlives the form */
	size_t len;
} Wireref;

typedef struct {
	int wire;		/* made for this wire, */
	char *model;		/* and model (whose thinking goes back) */
	char *provider;		/* and provider, or NULL */
	int kind;		/* what it is in the conversation */
	char *text;		/* NULL until made */
	size_t len;
	Wireref *refs;		/* the message's texts it holds, in order */
	int nrefs;
	char **calls;		/* ids of the calls an answer makes */
	int ncalls;
	char *result;		/* the call a result answers */
	char *imgs;		/* OpenAI: a result's images, as parts */
	size_t imglen;
	size_t mark;		/* OpenAI: where its content, a string, is
				 * in text (a cache mark may wrap it); 0 */
} Wireform;

/* A request body in pieces: the big forms are sent from where they are
 * kept, not copied into one more whole body. */
typedef struct {
	Buf glue;		/* the bytes between them */
	Span *v;		/* the body in order */
	size_t n, cap, len;
} Wirebody;

/* A request: the model, the system prompt, the conversation as pi stores
 * messages (JSON texts) with their forms, the offered tools and the
 * output limit. */
typedef struct {
	int wire;
	const char *model;
	const char *provider;	/* or NULL: any stored answer's model of
				 * that name is the same */
	const char *system;
	char *const *msgs;
	size_t nmsgs;
	Wireform *forms;	/* one a message, kept by the caller; or NULL */
	const struct Tool *tools;
	int ntools;
	long maxout;
	const char *maxfield;	/* OpenAI: the field naming maxout */
	int level;		/* TOFF ... TMAX */
	int think;		/* THNONE ... THANTHROPIC */
	int thinkas;		/* Anthropic: TKADAPTIVE ... TKALWAYS */
	int cachehour;		/* cache marks live an hour, not 5 min */
	int images;		/* the model takes images: else a note */
	const char *cachekey;	/* Responses: the prompt_cache_key (the
				 * session's id), or NULL */
} Wirereq;

/* A model's prices in dollars per million tokens, keyed by its name. */
typedef struct {
	const char *model;
	double in, out, cacheread, cachewrite;
} Price;

/* Kinds of streamed pieces and of an answer's parts.  A WCALL piece is
 * a piece of the arguments of calls[call], p NULL when the call has only
 * begun; WREDACTED is a part only, never streamed. */
enum { WTEXT, WTHINK, WREDACTED, WCALL };

/* A piece of the answer as it streams; nonzero stops the stream. */
typedef int (*Wirefn)(void *arg, int kind, const char *p, size_t n);

typedef struct {
	Buf id, name, args;	/* arguments arrive in pieces */
	int block;		/* Anthropic: the content block it came in */
} Wirecall;

/* Anthropic: one content block of the answer, in the stream's order. */
typedef struct {
	int kind;		/* WTEXT, WTHINK, WREDACTED or WCALL */
	int block;		/* the stream's index of it */
	size_t from, to;	/* WTEXT, WTHINK: its bytes of text, think */
	Buf sig;		/* WTHINK's signature, WREDACTED's data */
	int lost;		/* the signature was over the bound: none */
	int call;		/* WCALL: its index in calls */
} Wirepart;

/* What one model call streamed back. */
typedef struct {
	int wire;
	Wirefn fn;		/* each piece, before it is kept */
	void *arg;
	int maxcalls;		/* calls kept; the rest set dropped */
	size_t maxkeep;		/* bytes of text, of thinking kept */
	int atend;		/* set by the caller when the connection
				 * closed: a cut event is then the end */
	int call;		/* WCALL: the call the piece is of */
	const Price *price;	/* the model's, or NULL: costs are 0 */
	/* out */
	Buf text, think;
	Buf sig;		/* Anthropic: the thinking's signature;
				 * OpenAI: the field that held it */
	Wirecall *calls;
	int ncalls;
	Wirepart *parts;	/* Anthropic: the blocks, or none */
	int nparts;
	size_t sigs;		/* bytes of the parts' signatures */
	unsigned long hi[2];	/* by kind: a high surrogate that ended the
				 * last piece, for the next to complete */
	int dropped;
	char finish[32];	/* finish_reason, in OpenAI's words */
	long long in, out, cached, cachewrite;	/* in counts the cache */
	long long reasoning;	/* of out, the reasoning's (Responses) */
	int done;		/* the stream said it is over */
	int cut;		/* Responses: it is over, incomplete (the
				 * reason in finish) */
	int again;		/* an error in the stream a retry may mend */
	Buf err;		/* an error from the stream */
	Json json;		/* the last event's tokens: their array is
				 * used again for the next */
} Wire;

int wirelevel(const char *name);
const char *wirelevelname(int level);
const Model *wiremodel(const Model *m, size_t n, const char *model);
void wirebody(const Wirereq *q, Buf *b);
void wirespans(const Wirereq *q, Wirebody *wb);
void wirebodyfree(Wirebody *wb);
const char *wirebeta(const Wirereq *q);
int wireheaders(const Wirereq *q, const char *key, Buf *auth,
                const char **h);
void wireformfree(Wireform *f);
void wireinit(Wire *w, int wire, Wirefn fn, void *arg);
int wireevent(void *w, const char *event, const char *data, size_t len);
int wirecomplete(const Wire *w);
char *wiremessage(const Wire *w, const char *provider, const char *model,
                  const char *stop);
void wirefree(Wire *w);
const Price *wireprice(const Price *p, size_t n, const char *model);
double wirecost(const Wire *w, double c[4]);
void wireerror(Buf *out, const Json *j, int i);
int wireoverflow(int status, const char *err, size_t len);
const char *wireapi(int wire);
const char *wirepath(int wire);

/* wire.c, for the wires: the stream's pieces, passed on and kept */
int wiredelta(Wire *w, int kind, const char *p, size_t n);
int wirepiece(Wire *w, int kind, const Json *j, int i);
int wirecalldelta(Wire *w, int k, size_t off);
void wiresetstr(Buf *b, const Json *j, int i);
Wirecall *wirecallat(Wire *w, int idx);
int wirebadevent(Wire *w, const char *data, size_t len);
int wirecount(const Json *j, int i, long long *out);
void wirestorecall(Buf *b, const Wirecall *c);
void wirestorethink(Buf *b, const char *p, size_t n, const Buf *sig);
/* and the request: stored messages' forms, the body from them */
int wirethinks(const Wirereq *q);
void wirecache(const Wirereq *q, Buf *b);
int wireanswered(const Json *j);
void wiretools(const Wirereq *q, Buf *b, const char *open, const char *key,
               const char *close, int mark);
void wireformcall(Wireform *f, char *id);
int wireidchar(int c);
int wirehasimage(const Json *j, int content);
void wiretextpart(Buf *b, const Json *j, int i);
int wireblank(const Json *j, int i);
int wirerefer(Wireform *f, Buf *b, const Json *j, int content);
int wireown(const Json *j, const Wirereq *q, const char *api);
void wireputform(Wirebody *wb, Buf *b, const Wireform *f);

/* The calls still owed a result, as the forms are put together. */
typedef struct {
	const char **id;
	int n, cap;
} Wireowed;

void wireowe(Wireowed *o, const Wireform *f);
void wirepaid(Wireowed *o, const char *id);

/* openai.c: chat completions */
int openaievent(Wire *w, const char *data, size_t len);
void openaiform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void openaibody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);

/* anthropic.c: messages */
int anthropicevent(Wire *w, const char *data, size_t len);
void anthropicform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void anthropicbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
const char *anthropicbeta(const Wirereq *q);
int anthropicstore(Buf *b, const Wire *w);

/* responses.c: OpenAI's Responses */
int respevent(Wire *w, const char *data, size_t len);
void respform(Wireform *f, Buf *b, const Json *j, const Wirereq *q);
void respbody(const Wirereq *q, Wireform *f, Buf *b, Wirebody *wb);
int respstore(Buf *b, const Wire *w);

/* session.c: the JSONL session file, pi's format version 3 */
typedef struct {
	char *id;		/* 8 hex digits (pi writes longer ones too) */
	char *parent;		/* NULL for a first entry */
	char *type;		/* "message", "compaction", ... */
	char *line;		/* the line as stored, without its newline;
				 * NULL if the context does not use it */
	off_t off;		/* where the line is in the file loaded, or
				 * -1: not read from the file */
	size_t len;		/* its length */
	size_t msgat, msglen;	/* where its "message" lies in the line,
				 * msgat 0 if it has none or is not known */
	char *role;		/* that message's role, or NULL */
	int shared;		/* line lies in the session's block */
	int hidden;		/* a later entry has the same id */
} Entry;

typedef struct {
	char *path;		/* NULL: in memory only (-n) */
	int fd;			/* open O_APPEND once the file exists, or -1 */
	int oldfd;		/* the file loaded, when path came to name
				 * another: its entries' lines are read from
				 * it; or -1 */
	char *head;		/* the header line */
	char *cwd;		/* from the header */
	Entry *e;		/* every entry, in file order */
	size_t n, cap;
	const char *leaf;	/* id of the current leaf (an e[].id), or NULL */
	size_t saved;		/* e[0..saved) are in the file: a failed
				 * append is retried by the next one */
	char *block;		/* the context's lines, read at once, or
				 * NULL */
	size_t *ids;		/* the entries by id: a hash table of
				 * indexes + 1, 0 a free slot */
	size_t nids;		/* its slots, a power of two, or 0 */
	unsigned long long seed;	/* its hash's, drawn at random */
} Session;

char *sessbase(void);
char *sessdir(const char *base, const char *cwd);
char *sesslatest(const char *dir, const char *cwd);
int sessparse(Session *s, const char *text, size_t len, const char *name);
int sessread(Session *s, const char *path);	/* read only, in memory */
int sessload(Session *s, const char *path);
int sessnew(Session *s, const char *dir, const char *cwd);
int sessfork(Session *s, const Session *from, const char *frompath,
             const char *dir, const char *cwd);
int sessappend(Session *s, const char *type, const char *fields);
int sesssync(Session *s);
size_t sessbranch(const Session *s, const Entry ***path);
size_t sesscontext(Session *s, const Entry ***path);
void sessdone(Session *s, const Entry **path);
char *sessmessage(Session *s, const Entry *e, int *shared);
char *sessblock(Session *s);
long sesscompaction(const Entry **path, size_t n, size_t *from,
                    char **summary);
int sessincontext(const Entry *e);
long sesscut(const Entry **path, size_t n, size_t from, long keep);
long sesstokens(const char *json);
char *sessuser(const char *text, size_t len, const Buf *more);
char *sessresult(const Buf *id, const Buf *name, const Buf *text, int iserr,
                 const Buf *more);
char *sessbash(const Json *j, int m);
void sessserialize(Buf *b, const char *type, const char *line,
                   size_t maxresult);
char *sessmodel(const Entry **path, size_t n, const char *provider);
double sessusage(Session *s, long long tok[4]);
void sessfree(Session *s);

/* tools.c: the tools the model calls */
enum { WALL, WTREE, WPLAN, WNONE };	/* where tool processes may write */

typedef struct {
	int maxlines;		/* output cut after this many lines */
	size_t maxbytes;	/* or this many bytes */
	int greplinemax;	/* grep cuts a matched line to this many bytes */
	int greplimit;		/* default match limit */
	int findlimit;		/* default result limit */
	int lslimit;		/* default entry limit */
	int bashtimeout;	/* seconds, 0 for none */
	int killgrace;		/* milliseconds between TERM and KILL */
	size_t maxedit;		/* bytes of a file edit loads, of write's
				 * content */
	size_t maxlog;		/* bytes of bash output saved to a file */
	const char *const *shells;	/* first that exists runs bash */
	const char *const *scrubenv;	/* variables removed for bash */
	volatile sig_atomic_t *intr;	/* set by SIGINT: stop the tool */
	volatile sig_atomic_t *pgid;	/* the running bash group, or 0: a
					 * second SIGINT kills it and exits */
	/* the tools' state in a run: zero to begin with, toolcleanup at
	 * the end */
	char *logdir;		/* bash logs' directory, or NULL till needed */
	int nlogs;		/* files made in it */
	int logkept;		/* the model was told of one: keep it */
	/* the sandbox: write, net and plan from the profile, the rest made
	 * by sandboxinit, freed by toolcleanup */
	int write;		/* WALL (no sandbox), WTREE, WPLAN, WNONE */
	int net;		/* tool processes may use TCP */
	const char *plan;	/* WPLAN: the one file that may be written */
	char *root;		/* the working directory, links resolved
				 * (under WALL too) */
	char *planpath;		/* the plan file from the root */
	char *tmpdir;		/* the run's own temporary directory */
	int abi;		/* the Landlock ABI in force, 0 for none */
	int filter;		/* a seccomp filter holds what it does not */
	char *unheld;		/* what it does not hold, said when a tool
				 * that it would hold first runs */
	size_t maximage;	/* bytes of an image file read returns */
	Buf image;		/* read: an image's content block, with its
				 * comma, for the caller's result */
	/* bash's output as it comes, to progress(progarg, ...), or NULL */
	void (*progress)(void *arg, const char *p, size_t n);
	void *progarg;
	int (*watch)(void *);	/* or NULL: called while bash runs when */
	int watchfd;		/* watchfd is readable; nonzero: no more */
	void *watcharg;
	int keepnl;		/* bash's output ends as printed, with its
				 * last newline: the user's, not the model's */
	const char *const *secretwords;	/* variables whose names hold one
					 * are removed for bash too, */
	const char *const *keepenv;	/* unless named here */
	/* what grep and find take in of .gitignore files (walk.c's
	 * Walkopt), and how long grep, find and ls may search */
	size_t ignorebytes;
	int ignorelines, maxrules;
	size_t rulebytes;
	int searchtime;		/* seconds, 0 for no limit */
	/* .git's config and hooks: gitwrite from the profile; 0, a .git
	 * at start is kept as it was by gitguard.c (gitinit) */
	int gitwrite;		/* tools may change git's configuration */
	struct Gitguard *git;	/* or NULL */
	int stay;		/* what a call leaves running may stay (the
				 * profile's); else it is killed at its end */
	int reaper;		/* agent is the subreaper of tool processes:
				 * every child is theirs (toolreaper) */
	int gitbad;		/* at exit, .git could not be put back
				 * (gitexit): agent exits 1 */
	pid_t groups[64];	/* the live groups of calls whose processes
				 * stay, killed whole at exit; past 64, */
	int ngroups;		/* the scan of /proc alone finds them */
} Toolenv;

/* Fill out with the result text; return 0 on success, 1 if the text is an
 * error for the model.  args is the index of the arguments object in j. */
typedef int (*Toolfn)(Toolenv *e, const Json *j, int args, Buf *out);

typedef struct Tool {
	const char *name;
	Toolfn fn;
	int approve;		/* ask the user before running it */
	const char *desc;
	const char *schema;	/* JSON schema of the parameters */
} Tool;

int toolread(Toolenv *e, const Json *j, int args, Buf *out);
int toolwrite(Toolenv *e, const Json *j, int args, Buf *out);
int tooledit(Toolenv *e, const Json *j, int args, Buf *out);
int toolbash(Toolenv *e, const Json *j, int args, Buf *out);
int toolgrep(Toolenv *e, const Json *j, int args, Buf *out);
int toolfind(Toolenv *e, const Json *j, int args, Buf *out);
int toolls(Toolenv *e, const Json *j, int args, Buf *out);
const char *imageblock(const char *path, size_t max, Buf *b, Buf *out);
void toolreaper(Toolenv *e);
void toolcleanup(Toolenv *e);

/* sandbox.c: what tool processes may do */
typedef int (*Jobfn)(void *arg, Buf *out);

int sandboxinit(Toolenv *e, Buf *why);
int sandboxplan(const Toolenv *e, int flags, int mode);
void sandboxsay(Toolenv *e);
int sandboxheld(const Toolenv *e);
int sandboxruleset(const Toolenv *e);
int sandboxenter(const Toolenv *e, int rs);
char *sandboxlanding(const char *path);
int sandboxwritable(const Toolenv *e, const char *tool, const char *path,
                    Buf *out);
int sandboxrun(const Toolenv *e, Jobfn fn, void *arg, Buf *out);

/* gitguard.c: .git's config and hooks kept as they were at start */
typedef struct Gitguard Gitguard;

int gitinit(Toolenv *e, size_t maxbytes, int maxfiles, Buf *why);
int gitcheck(Toolenv *e);
void gitagain(Toolenv *e);
void gitnote(Toolenv *e, Buf *res);
void gitexit(Toolenv *e);
void gitfree(Toolenv *e);

/* walk.c: the tree walk of grep, find and ls, and their globs */
typedef struct {
	char **v;		/* the alternatives of {a,b} spelt out */
	size_t n;
} Glob;

typedef int (*Walkfn)(void *arg, const char *path, const char *rel,
                      const struct stat *st);

int globinit(Glob *gl, const char *tool, const char *g, Buf *out);
int globmatch(const Glob *gl, const char *rel, const char *name);
void globfree(Glob *gl);
char **dirnames(const char *path, size_t *n, int nogit,
                int (*cmp)(const void *, const void *));
/* What a walk takes in of .gitignore files (each pattern of them is
 * matched against each path, and they come with the repository), and
 * when it stops. */
typedef struct {
	size_t ignorebytes;	/* bytes read of one .gitignore */
	int ignorelines;	/* its lines read */
	int maxrules;		/* patterns kept, of all the files in force */
	size_t rulebytes;	/* their bytes */
	int (*stop)(void *);	/* or NULL: nonzero, the walk stops */
	void *stoparg;
} Walkopt;

void walk(const char *root, Walkfn fn, void *arg, const Walkopt *o);
int statroot(const char *path, struct stat *st, Buf *out);
int toolhook(const Toolenv *e, const char *cmd, const char *in, size_t n,
             int ms, Buf *err);

/* regex.c: grep's POSIX extended regular expressions over bytes */
typedef struct Reinst Reinst;
typedef struct {
	Reinst *prog;		/* the NFA, n instructions */
	unsigned char (*set)[32];	/* the byte sets it matches */
	int n, nset;
	int *work;		/* rematch's thread lists: one match at a time */
	unsigned char first[32];	/* the bytes a match starts with */
	int skip;		/* whether those are all it can start with */
} Regex;

/* recomp: 0, or -1 with why in err; rematch: whether a match lies in the
 * n bytes at s (any byte but NUL), or -1 once stop(arg) (if not NULL),
 * asked every few KB, says to stop. */
int recomp(Regex *r, const char *pat, int icase, char *err, size_t errlen);
int rematch(const Regex *r, const char *s, size_t n, int (*stop)(void *),
            void *arg);
void refree(Regex *r);

/* guard.c: whether a call may run: the profile, the rules, the hooks */
enum { ALLOW = 1, ASK, DENY };	/* what a rule says */
enum { PRE = 1, POST };		/* when a hook runs */

typedef struct {
	const char *name;
	const char *ask;	/* tools that ask first, comma-separated; NULL:
				 * those whose row in tools[] says approve */
	const char *off;	/* tools not offered, or NULL */
	int write;		/* WALL, WTREE, WPLAN or WNONE */
	int net;		/* tool processes may use TCP */
	const char *plan;	/* WPLAN: the plan file */
	const char *prompt;	/* added to the system prompt, or NULL */
	int gitwrite;		/* tools may change git's config */
	int stay;		/* a call's background processes may run on
				 * till agent exits */
} Profile;

typedef struct {
	const char *tool;	/* NULL ends the table */
	const char *glob;	/* over bash's command, other tools' path */
	int action;		/* ALLOW, ASK or DENY */
} Rule;

typedef struct {
	int when;		/* PRE or POST; 0 ends the table */
	const char *tool;	/* a tool's name, or "*" for all */
	const char *cmd;	/* run with /bin/sh -c */
	int timeout;		/* milliseconds before it is killed */
} Hook;

typedef struct {
	const Profile *prof;
	const Rule *rules;
	const Hook *hooks;
	Toolenv *tenv;		/* hooks run with bash's environment */
	int yes;		/* -y: do not ask */
	int color;
	int *always;		/* by row of tools[]: 'a' was answered */
} Guard;

/* A bash command line as rules read it: its simple commands, each in two
 * forms, and the files its redirections write. */
typedef struct {
	Buf parts;		/* each simple command as written (words
				 * unquoted, one space apart, command, exec,
				 * nohup, time and a bare env dropped), then
				 * normalised (assignments, every wrapper with
				 * its options, git's global options and the
				 * command's directory dropped): each form
				 * ended by a NUL */
	int n;			/* simple commands */
	Buf writes;		/* the paths written to, each ended by a NUL */
	int nwrites;
	const char *unsure;	/* why no rule may allow the line unasked
				 * (a substitution, a subshell...), or NULL */
} Shline;

int guardlisted(const char *list, const char *name);
void guardsplit(const char *cmd, Shline *l);
void guardsplitfree(Shline *l);
int guardcheck(const Profile *profiles, int nprofiles, const Rule *rules,
               const Hook *hooks, const Tool *tools, int ntools, Buf *why);
void guardprofile(Guard *g, const Profile *profiles, int n,
                  const char *name);
void guardprompt(const Guard *g, Buf *b);
int guardcall(Guard *g, const Tool *t, int row, const Json *j,
              const char *what, Buf *res);
void guardafter(Guard *g, const char *tool, const Json *j, const Buf *res,
                int iserr);
/* events.c: what a run shows: the answer as text, or pi's json-mode
 * events */
enum { TOOUT, TOERR, TOHOLD };	/* where a message's text goes */
typedef struct {
	int on;			/* events on stdout, not text */
	Toolenv *tenv;		/* cleaned up if stdout goes away */
	Buf pending;		/* stdout held while one read is parsed: */
	int hold;		/* its deltas go out in one write */
	int lastc;		/* last byte written to stdout, -1 none */
	/* text: stdout for the answer, stderr for the rest */
	int quiet, color;	/* -q; colour on stderr */
	int ttyout;		/* stdout is read by a person: end lines */
	int ttyesc;		/* stdout is a terminal: the answer's control
				 * characters are shown, not obeyed */
	size_t maxhold;		/* bytes held before they go to stdout */
	int thinking;		/* thinking is being shown on stderr */
	int textseen;		/* stdout has text from an earlier message */
	int textto;		/* where this message's text goes: TOOUT,
				 * TOERR (tools follow), or TOHOLD: */
	Buf held;		/* not known yet, stdout being no terminal */
	int began;		/* this message's text has gone to stdout */
	int narrated;		/* the last byte of narration on stderr */
	/* events: the answer streaming, its blocks' contentIndex, -1 until
	 * begun */
	int blocks;		/* begun so far */
	int text, think;
	int *calls;		/* by call */
	int ncalls;
	/* what the run and the round made, for agent_end and turn_end */
	Buf run;		/* the messages, comma-separated */
	Buf results;		/* the round's tool results, the same */
	size_t last, lastlen;	/* where the round's answer is in run */
	/* the tool running, for tool_execution_update */
	size_t maxtail;		/* bytes of its output in an update */
	Buf call;		/* its toolCallId, toolName and args fields */
	Buf tail;		/* the end of its output so far */
	long long updated;	/* when the last update went, ms */
	int dirty;		/* output came since */
} Events;
void outwrite(Events *e, const char *p, size_t n);
void outflush(Events *e);
void endline(Events *e);
void endthinking(Events *e);
void textstart(Events *e);
void settle(Events *e, int to);
void textdone(Events *e);
void showtext(Events *e, const char *p, size_t n);
void showthink(Events *e, const char *p, size_t n);
void emit(Events *e, const char *type, const char *fields);
void emitmsg(Events *e, const char *json, int start);
void emitstart(Events *e, int wire, const char *provider,
               const char *model);
void emitpiece(Events *e, const Wire *w, int kind, const char *p, size_t n);
void emitends(Events *e, const char *json);
void emitcall(Events *e, const Wirecall *c, const char *type,
              const Json *args, const Buf *res, const Buf *image,
              int iserr);
void emitoutput(void *e, const char *p, size_t n);
void emitcompacted(Events *e, const char *why, const Buf *sum,
                   const char *firstkept, long before, const char *err,
                   int aborted);
char *witherror(char *msg, const char *err);
void eventsfree(Events *e);

/* rpc.c: -r, pi's rpc mode: one JSON command a line on stdin */
/* What agent.c is to do: the others need the context loaded again. */
enum { RPROMPT = 1, RCOMPACT, RNEW, RMODEL, RLEVEL, RRECORD };
enum { RIDLE, RTURN, RBASH };	/* what runs */

typedef struct {
	int kind;		/* RPROMPT, ... */
	char *arg;		/* the prompt or the focus, or NULL */
	char *id;		/* the request's id as JSON, or NULL */
	char *type;		/* the command's name */
} Rpccmd;

typedef struct {
	char **v;
	size_t n, cap;
} Rpcq;

typedef struct {
	/* agent.c's state, shown to the commands that ask about it */
	const char *provider;
	char **model;		/* agent.c's: set_model replaces it */
	const int *level;	/* the thinking level: set_thinking_level's
				 * arg, agent.c sets it */
	int wire;
	long context, maxout;
	int autocompact;
	Session *sess;		/* new_session and bash change it */
	char **const *msgs;	/* the context's messages, */
	const size_t *nmsgs;	/* and how many */
	Toolenv *tenv;		/* where the bash command runs */
	volatile sig_atomic_t *intr;	/* abort sets it */
	volatile sig_atomic_t *quit;	/* a signal asks us to leave */
	int out;		/* where responses go: 1 */
	/* rpc.c's */
	int busy;		/* RIDLE, RTURN or RBASH */
	int eof;		/* stdin ended or stdout went away */
	Buf in;			/* stdin not yet a whole line */
	int skip;		/* in a line too long: drop to its end */
	Rpcq steer, follow;	/* messages waiting for the turn */
	Rpcq later;		/* commands waiting for it to end */
	Buf after;		/* answers sent when it ends */
} Rpc;

void rpcfeed(Rpc *r, const char *p, size_t n);
int rpcwatch(void *r);
int rpcnext(Rpc *r, Rpccmd *c);
int rpcpending(const Rpc *r, int follow);
char *rpctake(Rpc *r, int follow);
void rpcdone(Rpc *r, Rpccmd *c, int ok);
void rpcfree(Rpc *r);
