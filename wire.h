/* See LICENSE file for copyright and license details. */
/* wire.h: what the providers' wires share; openai.c, anthropic.c,
 * responses.c and gemini.c below it are the wires themselves.  No I/O
 * in any; BEDROCK is anthropic.c's messages in AWS's frames
 * (eventstream.c, read by ask.c). */
#include <stddef.h>

/* The wires: chat completions, messages, OpenAI's Responses, Google's
 * generateContent, Anthropic's messages on Google's Vertex (the model in
 * the URL, the version in the body) and on Amazon's Bedrock. */
enum { OPENAI, ANTHROPIC, RESPONSES, GEMINI, VERTEX, BEDROCK };

/* Headers a request may have: the wire's, a provider row's extra lines. */
enum { WIREHDRS = 12 };

/* Thinking levels, pi's names (wirelevel, wirelevelname), and how a
 * provider is asked for them: OpenAI's reasoning_effort (xhigh and max
 * sent as high, or as xhigh), OpenRouter's reasoning object, Anthropic's
 * thinking (as the model takes it: TK* below), Gemini's thinkingConfig
 * (a level or a budget, as the model's name says). */
enum { LEVELOFF, LEVELMINIMAL, LEVELLOW, LEVELMEDIUM, LEVELHIGH, LEVELXHIGH,
       LEVELMAX };
enum { THNONE, THEFFORT, THXHIGH, THROUTER, THANTHROPIC, THGEMINI };

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
enum { FORMNONE, FORMOTHER, FORMUSER, FORMANSWER, FORMRESULT };

/* A text of the message that a form sends as it stands there: it goes
 * at byte at of the form's own text. */
typedef struct {
	size_t at;
	const char *p;		/* in the message, which outlives the form */
	size_t len;
} Wireref;

typedef struct {
	unsigned long long key;	/* the wire, model (whose thinking goes
				 * back) and provider it was made for, in
				 * one number (wire.c's formkey) */
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
	char *env;		/* the message with Wirereq's env added, which
				 * it was made of (its refs point in), or
				 * NULL: made of the message as stored */
} Wireform;

/* A request body in pieces: the big forms are sent from where they are
 * kept, not copied into one more whole body. */
typedef struct {
	Buf glue;		/* the bytes between them */
	Span *v;		/* the body in order */
	size_t n, cap, len;
} Wirebody;

/* A tool as the wires offer it: what the model reads of it. */
typedef struct {
	const char *name;
	const char *desc;
	const char *schema;	/* JSON schema of the parameters */
} Wiretool;

/* A request: the model, the system prompt, the conversation as pi stores
 * messages (JSON texts) with their forms, the offered tools and the
 * output limit. */
typedef struct {
	int wire;
	const char *model;
	const char *provider;	/* or NULL: any stored answer's model of
				 * that name is the same */
	const char *system;
	char *const *msgs;	/* which need not end in a NUL, with */
	const size_t *msglens;	/* their lengths; NULL: each ends in a
				 * NUL */
	const unsigned char *msgplain;	/* 1: its strings are as jsonesc
					 * writes them, known; or NULL */
	size_t nmsgs;
	Wireform *forms;	/* one a message, kept by the caller; or NULL */
	const Wiretool *tools;
	int ntools;
	long maxout;
	const char *maxfield;	/* OpenAI: the field naming maxout */
	int level;		/* LEVELOFF ... LEVELMAX */
	int think;		/* THNONE ... THGEMINI */
	int thinkas;		/* Anthropic: TKADAPTIVE ... TKALWAYS */
	int cachehour;		/* cache marks live an hour, not 5 min */
	int images;		/* the model takes images: else a note */
	const char *cachekey;	/* Responses: the prompt_cache_key (the
				 * session's id), or NULL */
	const char *env;	/* a text added to the first user message as
				 * a block of its own (the date, the
				 * directory: kept out of the system prompt,
				 * which stays the same from run to run), or
				 * NULL */
	const char *schema;	/* -o: the answer's JSON Schema, compact,
				 * asked for in the wire's own way; NULL */
	int strict;		/* OpenAI: the schema suits strict mode */
} Wirereq;

/* A model's prices in dollars per million tokens, keyed by its name. */
typedef struct {
	const char *model;
	double in, out, cacheread, cachewrite;
} Price;

/* Kinds of streamed pieces and of an answer's parts.  A PIECECALL piece is
 * a piece of the arguments of calls[call], p NULL when the call has only
 * begun; PIECEREDACTED is a part only, never streamed. */
enum { PIECETEXT, PIECETHINK, PIECEREDACTED, PIECECALL };

/* A piece of the answer as it streams; nonzero stops the stream. */
typedef int (*Wirefn)(void *arg, int kind, const char *p, size_t n);

typedef struct {
	Buf id, name, args;	/* arguments arrive in pieces */
	int block;		/* Anthropic: the content block it came in */
	int over;		/* its arguments passed maxargs: dropped */
} Wirecall;

/* Anthropic: one content block of the answer, in the stream's order. */
typedef struct {
	int kind;		/* PIECETEXT, PIECETHINK, PIECEREDACTED or PIECECALL */
	int block;		/* the stream's index of it */
	size_t from, to;	/* PIECETEXT, PIECETHINK: its bytes of text, think */
	Buf sig;		/* PIECETHINK's signature, PIECEREDACTED's data */
	int lost;		/* the signature was over the bound: none */
	int call;		/* PIECECALL: its index in calls */
} Wirepart;

/* What one model call streamed back. */
typedef struct {
	int wire;
	Wirefn fn;		/* each piece, before it is kept */
	void *arg;
	int maxcalls;		/* calls kept; the rest set dropped */
	size_t maxargs;		/* bytes of a call's arguments kept */
	size_t maxkeep;		/* bytes of text, of thinking kept */
	int atend;		/* set by the caller when the connection
				 * closed: a cut event is then the end */
	int call;		/* PIECECALL: the call the piece is of */
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
/* The forms of q->forms made, as the body would make them, made(arg, i)
 * told after each: the caller may then let go of what it was made from. */
void wireforms(const Wirereq *q, void (*made)(void *arg, size_t i),
               void *arg);
void wirebodyfree(Wirebody *wb);
const char *wirebeta(const Wirereq *q);
int wireheaders(const Wirereq *q, const char *key, const char *extra,
                Buf *b, const char **h);
void wireformfree(Wireform *f);
int wireformfor(const Wireform *f, const Wirereq *q);
void wireinit(Wire *w, int wire, Wirefn fn, void *arg);
int wireevent(void *w, const char *event, const char *data, size_t len);
int wirecomplete(const Wire *w);
char *wiremessage(const Wire *w, const char *provider, const char *model,
                  const char *stop);
void wirefree(Wire *w);
int wirewhole(const Wire *w);
const Price *wireprice(const Price *p, size_t n, const char *model);
double wirecost(const Wire *w, double c[4]);
void wireerror(Buf *out, const Json *j, int i);
int wireoverflow(int status, const char *err, size_t len);
const char *wireapi(int wire);
void wireurl(Buf *url, const char *base, const char *query,
             const Wirereq *q);

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

/* The calls still owed a result, as the forms are put together;
 * wireowedpaid is 0 for a result no call is owed (after a compaction
 * kept it without its call, say), which every API refuses: left out. */
typedef struct {
	const char **id;
	int n, cap;
} Wireowed;

void wireowedadd(Wireowed *o, const Wireform *f);
int wireowedpaid(Wireowed *o, const char *id);
