/* See LICENSE file for copyright and license details. */
/* agent.h: the run's state (Agent), which agent.c owns and sets up from
 * config.h, and what agent.c does with it for line mode (chat.c) and -r
 * (serve.c): a turn, a compaction, a move to another model, level,
 * branch or session.  Provider is config.h's row: only agent.c includes
 * config.h. */

typedef struct {
	const char *name;
	int wire;
	const char *url;	/* base URL, without the endpoint */
	const char *keyenv;	/* variable holding the key; NULL: none needed */
	const char *model;	/* default model; NULL: -m is required */
	long context;		/* context window, tokens */
	long maxout;		/* output tokens asked for */
	const char *maxfield;	/* the request field naming maxout */
	const char *thinking;	/* default thinking level */
	int think;		/* how it takes one: THNONE, ... */
	int images;		/* its models take images */
	int schema;		/* it takes a JSON Schema for the answer */
	const char *headers;	/* extra header lines, '\n' between, {key}
				 * the key; or NULL */
	const char *query;	/* added to every request's URL, or NULL */
	int auth;		/* AUTHKEY, or AUTHGOOGLE: else Google's
				 * service account */
} Provider;

/* Where a provider's key comes from: its variable (or AGENT_API_KEY,
 * -K); or, with none of them set, a Google service account's key file
 * (GOOGLE_APPLICATION_CREDENTIALS) exchanged for an access token. */
enum { AUTHKEY, AUTHGOOGLE };

typedef struct {
	const Provider *prov;
	char *model;		/* -m's, else the session's, else a default */
	const char *url;
	char *urlmade;		/* url, when made here (Vertex's, Bedrock's), or
				 * NULL */
	Gauth gauth;		/* the service account whose token is the
				 * key (AUTHGOOGLE, no key set) */
	int modelset;		/* -m was given */
	Buf attach;		/* -i's images, for the first message */
	char *key;
	int json;		/* -j: events on stdout instead of text */
	Events ev;		/* what the run shows, text or events */
	Calls calls;		/* the tools offered, a call of one */
	Mcpconf mcpconf;	/* config.h's, for the MCP servers */
	Guard guard;
	Httpclient *http;
	Ask ask;		/* how the model is asked */
	Rec rec;		/* AGENT_RECORD's or AGENT_REPLAY's */
	Toolenv tenv;		/* what the tools take: pointers to the */
	Sandbox box;		/* rooms' own state below */
	Procs procs;
	Gitguard git;
	Undo undo;
	const char **scrub;
	char **desc, **schema;	/* the tools' descriptions and schemas, by
				 * config.h's row, their numbers filled in
				 * (calls') */
	Ctx ctx;		/* the context: the session's branch */
	Session sess;
	int modelnoted;		/* a model_change is on the branch */
	int level, levelset;	/* thinking level; named by -T or the env */
	int branchlevel;	/* the level the branch says, or -1 */
	int ioerr;		/* the session file could not be written */
	char *system;
	int nids;		/* ids made up for calls that came without */
	long long turnin, turnout, turncached;
	double turncost;
	Rpc *rpc;		/* -r, or NULL */
	volatile sig_atomic_t *intr;	/* agent.c's signal flags: SIGINT came, */
	volatile sig_atomic_t *quit;	/* a signal said quit (its number) */
	Buf sid;		/* the session's id, a request's cache key */
	Buf env;		/* the date and directory the first message
				 * is sent with (ctxenv) */
	Promptconf pc;		/* config.h's, for skills, templates, @files */
	Task task;		/* what the task tool starts children with */
	char *taskkey;		/* the key of the task row's provider */
	char *taskcreds[4];	/* Task's creds: the AWS keys or Google's key
				 * file, NAME=value */
	Httpproxy proxy;	/* as the environment named them at start */
	int keyin;		/* -K: the key is stdin's first line */
	Budget budget;		/* -b, AGENT_BUDGET or config.h's */
	Spent spent;		/* what the run spent, for it and -j's
				 * summary */
	const char *ledger;	/* AGENT_LEDGER, or NULL */
	char runid[37];		/* the run's, in the ledger */
	Buf stopped;		/* why the run stopped early, or empty */
	Buf taskbudget;		/* what is left of it, for a task's child */
	Schema answer;		/* -o's; its text NULL without */
	Sigv4 aws;		/* Bedrock without a key: the credentials,
				 * copies of the environment's (prochide
				 * blanks it) */
	char *awsown[4];	/* those copies: id, secret, token, region */
} Agent;


/* what agent.c does with it (Ctxcut is context.h's) */
void agentusemodel(Agent *a, char *m);
void agentnotemodel(Agent *a);
void agentnotelevel(Agent *a);
int agentsetlevel(Agent *a, const char *name);
void agentloadbranch(Agent *a);
int agentsummarize(Agent *a, const Ctxcut *k, Buf *out);
int agentcompact(Agent *a, const char *why, const char *focus);
int agentturn(Agent *a, const char *text, size_t len);
void agentusesession(Agent *a, Session *s);
int agentforkto(Agent *a, const char *at);

/* line mode (chat.c): histmax lines of history, config.h's; and -r's
 * loop (serve.c), which compacts when the context is full if
 * autocompact */
int chatmode(Agent *a, size_t histmax);
int servemode(Agent *a, int autocompact);
