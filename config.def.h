/* See LICENSE file for copyright and license details. */
/* config.def.h: copied to config.h, which you edit and recompile. */

/* tls.c includes this file for the TLS tables at its end alone (it
 * defines TLSCONFIG); all the rest is agent.c's. */
#ifndef TLSCONFIG

/*
 * Providers.  The first row is the default (AGENT_PROVIDER or -P picks
 * another).  The wire is OPENAI (chat completions), RESPONSES (OpenAI's
 * Responses API: its newest models take tools nowhere else; nothing is
 * stored on the server, the session's id is the prompt_cache_key),
 * ANTHROPIC (messages), GEMINI (Google's generateContent, the key in
 * x-goog-api-key, the model in the URL), VERTEX (Anthropic's messages
 * on Vertex AI) or BEDROCK (below); a provider whose key variable is NULL needs no
 * key (AGENT_API_KEY is still sent if set).  The max tokens field is
 * chat completions' alone: RESPONSES sends max_output_tokens.  The
 * openai-chat row is OpenAI's chat completions, for the older models and
 * the proxies that speak only that.  The context window and the
 * output tokens asked for are the row's, for a model models[] below has
 * no figure for.
 *
 * Thinking: the default level (AGENT_THINKING or -T picks another: off,
 * minimal, low, medium, high, xhigh, max), and how the provider takes
 * one: THEFFORT, OpenAI's reasoning_effort with xhigh and max sent as
 * high; THXHIGH, GPT-6's: the same with them sent as xhigh and minimal
 * as low (Astra and 6.1 Sol refuse none and minimal); THROUTER,
 * OpenRouter's reasoning object (xhigh and max as high), and on Claude
 * models cache marks as pi sends them; THANTHROPIC, Anthropic's
 * thinking, as models[] says the model takes it; THGEMINI, Gemini's
 * thinkingConfig as pi sends it (a level for Gemini 3, a budget for
 * 2.5, by the model's name; off asks Gemini 3 for its least, which it
 * cannot go below); THNONE, not at all.
 *
 * images: 1 if its models take images (read's, -i's); with 0 they get
 * a note in the image's place.
 *
 * schema: 1 if it takes a JSON Schema for the answer (-o) in its wire's
 * way: chat completions' response_format, Responses' text.format,
 * Anthropic's output_config.format (for a schema Anthropic takes: each
 * object closed, no bounds); with 0, or a schema Anthropic would refuse,
 * the system prompt says it.  Either way agent checks the answer.
 *
 * headers: more header lines for each request, '\n' between them
 * ("Name: value", at most 9), or NULL: OpenRouter's attribution
 * ("HTTP-Referer: https://example.org\nX-Title: mytool"), a gateway's
 * tenant header.  {key} in a line is the key; the key then goes there
 * alone, not in the wire's own header (Authorization: Bearer,
 * x-api-key, x-goog-api-key), and with no key the line is left out.
 * query: added to each request's URL ("api-version=2024-10-21"), or
 * NULL; a query in the base URL (AGENT_BASE_URL) goes there too.
 *
 * auth: AUTHKEY, the key from its variable (or AGENT_API_KEY, -K);
 * AUTHGOOGLE, Google Cloud's access token: the variable's (gcloud auth
 * print-access-token gives one, valid an hour), else one agent gets
 * for the service account whose key file GOOGLE_APPLICATION_CREDENTIALS
 * names (an RS256 JWT exchanged at the file's token_uri, renewed as it
 * expires).  The base URL's {project} is GOOGLE_CLOUD_PROJECT (else
 * ANTHROPIC_VERTEX_PROJECT_ID, else the key file's project_id),
 * {location} GOOGLE_CLOUD_LOCATION (else CLOUD_ML_REGION, else global),
 * and {location-} the location and a '-', nothing for global, as in
 * Vertex's host names.
 *
 * azure: Azure OpenAI's v1 API, the base URL set with AGENT_BASE_URL
 * (https://RESOURCE.openai.azure.com/openai/v1), the key in api-key;
 * the model is your deployment's name.  A deployment URL works on
 * either wire: .../openai/deployments/NAME?api-version=2025-04-01-preview
 * (azure-chat for chat completions).  vertex: Claude on Vertex AI
 * (VERTEX: Anthropic's messages through streamRawPredict, the model in
 * the URL); vertex-gemini: Gemini on Vertex AI.
 *
 * The defaults and their figures: models-now.md, late 2026; GPT-6's
 * window (1,050,000 tokens, 128,000 of them output) is models[]'s.
 * GPT-6.1 Sol takes tools on the Responses wire alone, so openai-chat's
 * default is GPT-5, which takes them on chat completions too.  Gemini's
 * row and figures are pi 0.73's (gemini-3.1-pro-preview).
 *
 * BEDROCK is Anthropic's messages through Amazon Bedrock's
 * InvokeModelWithResponseStream, so Claude there keeps what it has on
 * Anthropic's own API (thinking signatures, cache marks).  {region} in
 * the URL is AWS_REGION's, else AWS_DEFAULT_REGION's.  The key is a
 * Bedrock API key, sent as a bearer token; without one each request is
 * signed (SigV4) with AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and
 * AWS_SESSION_TOKEN.  The model is an inference profile: global.* is
 * served from every commercial region, us.*, eu.*, jp.*, apac.* keep
 * the data in theirs (Claude Sonnet 5 is anthropic.claude-sonnet-5 on
 * Bedrock, June 2026).  models[] and prices[] find it by Anthropic's
 * name inside.
 */
static const Provider providers[] = {
	/* name       wire    base URL                          key variable           default model               context  max out  max tokens field        thinking how  images  schema  headers  query  auth */
	{ "openai",     RESPONSES, "https://api.openai.com/v1",       "OPENAI_API_KEY",      "gpt-6.1-sol",              400000,  32000,  "max_completion_tokens", "off", THXHIGH,  1, 1, NULL, NULL, AUTHKEY },
	{ "openai-chat", OPENAI, "https://api.openai.com/v1",       "OPENAI_API_KEY",      "gpt-5",                    400000,  32000,  "max_completion_tokens", "off", THEFFORT, 1, 1, NULL, NULL, AUTHKEY },
	{ "anthropic",  ANTHROPIC, "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY",   "claude-sonnet-5",          1000000, 128000, NULL,                    "off", THANTHROPIC, 1, 1, NULL, NULL, AUTHKEY },
	{ "gemini",     GEMINI, "https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY", "gemini-3.1-pro-preview", 1048576, 65536, NULL,           "off", THGEMINI, 1, 0, NULL, NULL, AUTHKEY },
	{ "openrouter", OPENAI, "https://openrouter.ai/api/v1",    "OPENROUTER_API_KEY",  "anthropic/claude-sonnet-5", 1000000, 128000, "max_tokens",          "off", THROUTER, 1, 1, NULL, NULL, AUTHKEY },
	{ "deepseek",   OPENAI, "https://api.deepseek.com/v1",     "DEEPSEEK_API_KEY",    "deepseek-chat",            128000,  8000,   "max_tokens",            "off", THNONE,   0, 0, NULL, NULL, AUTHKEY },
	{ "groq",       OPENAI, "https://api.groq.com/openai/v1",  "GROQ_API_KEY",        "openai/gpt-oss-120b",      131072,  32000,  "max_tokens",            "off", THEFFORT, 0, 1, NULL, NULL, AUTHKEY },
	{ "mistral",    OPENAI, "https://api.mistral.ai/v1",       "MISTRAL_API_KEY",     "devstral-medium-latest",   128000,  32000,  "max_tokens",            "off", THNONE,   0, 1, NULL, NULL, AUTHKEY },
	{ "ollama",     OPENAI, "http://127.0.0.1:11434/v1",       NULL,                  "qwen2.5-coder:7b",         32768,   8192,   "max_tokens",            "off", THEFFORT, 0, 1, NULL, NULL, AUTHKEY },
	{ "llamacpp",   OPENAI, "http://127.0.0.1:8080/v1",        NULL,                  "local",                    32768,   8192,   "max_tokens",            "off", THNONE,   0, 1, NULL, NULL, AUTHKEY },
	{ "vllm",       OPENAI, "http://127.0.0.1:8000/v1",        NULL,                  NULL,                       32768,   8192,   "max_tokens",            "off", THEFFORT, 0, 1, NULL, NULL, AUTHKEY },
	/* Azure OpenAI: the base URL is the resource's, set with
	 * AGENT_BASE_URL; the model is the deployment's name */
	{ "azure",      RESPONSES, NULL,                           "AZURE_OPENAI_API_KEY", "gpt-6.1-sol",             400000,  32000,  "max_completion_tokens", "off", THXHIGH,  1, 1, "api-key: {key}", NULL, AUTHKEY },
	{ "azure-chat", OPENAI, NULL,                              "AZURE_OPENAI_API_KEY", "gpt-5",                   400000,  32000,  "max_completion_tokens", "off", THEFFORT, 1, 1, "api-key: {key}", NULL, AUTHKEY },
	/* Google Vertex: Claude, and Gemini */
	{ "vertex",     VERTEX, "https://{location-}aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/anthropic/models", "GOOGLE_CLOUD_ACCESS_TOKEN", "claude-sonnet-5", 1000000, 128000, NULL, "off", THANTHROPIC, 1, 0, NULL, NULL, AUTHGOOGLE },
	{ "vertex-gemini", GEMINI, "https://{location-}aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google", "GOOGLE_CLOUD_ACCESS_TOKEN", "gemini-3.1-pro-preview", 1048576, 65536, NULL, "off", THGEMINI, 1, 0, "Authorization: Bearer {key}", NULL, AUTHGOOGLE },
	/* Amazon Bedrock: Claude */
	{ "bedrock",    BEDROCK, "https://bedrock-runtime.{region}.amazonaws.com", "AWS_BEARER_TOKEN_BEDROCK", "global.anthropic.claude-sonnet-5", 1000000, 128000, NULL, "off", THANTHROPIC, 1, 0, NULL, NULL, AUTHKEY },
};

/*
 * Models, by a part of the name as sent (the first row whose part is in
 * it; '.' and '-' alike, so that OpenRouter's anthropic/claude-opus-4.7
 * is claude-opus-4-7): the context window and output tokens asked for
 * (0: the provider row's), how Anthropic's API takes its thinking, and
 * tokens, how many of its tokens the text of one of agent's estimated
 * tokens (4 bytes) makes: compaction is set off by that estimate for
 * what came after the last answer's usage, and keeps its keeptokens so.
 *
 * thinking (THANTHROPIC rows alone; -T off sends no thinking field but
 * where said):
 *   TKADAPTIVE  adaptive, -T minimal and low as effort low, medium,
 *               high, xhigh, max as they are
 *   TKHIGH      the same, xhigh and max as high
 *   TKBUDGET    budget_tokens (pi's: 1024 to 16384, xhigh and max as
 *               high) on top of max_tokens, and the interleaved-thinking
 *               beta header with tools
 *   TKOMITTED   TKADAPTIVE, and off sends thinking disabled: the model
 *               thinks when the field is left out
 *   TKALWAYS    TKADAPTIVE, and off sends no field: the model always
 *               thinks and refuses disabled
 * A model in no row is TKADAPTIVE, its tokens 1: the last row makes
 * next year's Claude adaptive, on the new tokenizer.
 *
 * From models-now.md (Anthropic's guide in Claude Code 2.1, late 2026):
 * 1M windows but Haiku's 200K, 128K output streamed, the thinking each
 * takes, ~30% more tokens for the same text on Opus 4.7 and later and
 * Sonnet 5 (Fable 5's is not said: taken as theirs).  A budget goes on
 * top of max out, so a budget model's max out leaves it room within its
 * output limit (64K; Opus 4.1 and 4's 32K, Anthropic's pages of 2025).
 * The older models' windows are this file's of late 2025.
 */
static const Model models[] = {
	/* name part            context  max out  thinking     tokens */
	{ "claude-fable-5",     1000000, 128000,  TKALWAYS,    1.3 },
	{ "claude-sonnet-5",    1000000, 128000,  TKOMITTED,   1.3 },
	{ "claude-opus-4-8",    1000000, 128000,  TKADAPTIVE,  1.3 },
	{ "claude-opus-4-7",    1000000, 128000,  TKADAPTIVE,  1.3 },
	{ "claude-opus-4-6",    1000000, 128000,  TKHIGH,      1 },
	{ "claude-sonnet-4-6",  1000000, 128000,  TKHIGH,      1 },
	{ "claude-haiku-4-5",   200000,  32000,   TKBUDGET,    1 },
	{ "claude-opus-4-5",    200000,  32000,   TKBUDGET,    1 },
	{ "claude-sonnet-4-5",  200000,  32000,   TKBUDGET,    1 },
	{ "claude-opus-4-1",    200000,  15000,   TKBUDGET,    1 },
	{ "claude-opus-4-0",    200000,  15000,   TKBUDGET,    1 },
	{ "claude-opus-4-2",    200000,  15000,   TKBUDGET,    1 },	/* 4-2025... */
	{ "claude-sonnet-4-0",  200000,  32000,   TKBUDGET,    1 },
	{ "claude-sonnet-4-2",  200000,  32000,   TKBUDGET,    1 },
	{ "claude-3",           200000,  8192,    TKBUDGET,    1 },
	{ "gpt-6",              1050000, 128000,  TKADAPTIVE,  1 },
	{ "claude",             0,       0,       TKADAPTIVE,  1.3 },
};

/* 1: cache marks live an hour ("ttl":"1h"), not five minutes, on both
 * Anthropic's wire and OpenRouter's Claude; a write then costs twice the
 * input price, not 1.25 times (the prices below are the 5-minute ones). */
static const int cachehour = 0;

/*
 * Prices in dollars per million tokens, by the model's name as sent (a
 * Vertex version after '@' not looked at): input (not from the cache),
 * output, cache read, cache write.  The usage line and each answer's
 * usage.cost in the session come from them; for a model not here the
 * usage line says "cost unknown" (and the session 0).  Every default
 * model of the rows above has one.  Where they come from, as of
 * November 2026 (check your provider's page: they change):
 *   Claude: models-now.md (Anthropic's guide in Claude Code 2.1) for
 *     Fable 5, Opus 4.8 and Sonnet 5, Anthropic's pricing page for the
 *     4.x models; cache reads and writes at 0.1 and 1.25 times the
 *     input price.  Vertex's global endpoint charges the same; its
 *     regional ones 10% more, not counted here.
 *   GPT-6: OpenAI's model pages of October 2026 (GPT-6.1 Sol's cache
 *     read half 6 Sol's; past 272K tokens of prompt OpenAI charges twice
 *     the input and 1.5 times the output, not counted here); GPT-5:
 *     OpenAI's page.  Azure's global deployments charge OpenAI's.
 *   Gemini: pi 0.73's table (up to 200K tokens of prompt: Google charges
 *     more past that), the same on Vertex.
 *   DeepSeek (V3.2's prices under deepseek-chat), Groq, Mistral: their
 *     pricing pages, the last figures found (late 2025).
 *   The local rows' defaults (ollama, llamacpp) cost nothing: a model
 *     of your own machine is free.  vllm has no default model: a server
 *     of your own, price its model here if it is not free.
 */
static const Price prices[] = {
	/* model                          input  output  cache read  cache write */
	{ "claude-fable-5",               10,    50,     1,          12.5 },
	{ "claude-opus-4-8",              5,     25,     0.5,        6.25 },
	{ "claude-opus-4-7",              5,     25,     0.5,        6.25 },
	{ "claude-opus-4-6",              5,     25,     0.5,        6.25 },
	{ "claude-opus-4-5",              5,     25,     0.5,        6.25 },
	{ "claude-sonnet-5",              3,     15,     0.3,        3.75 },
	{ "claude-sonnet-4-6",            3,     15,     0.3,        3.75 },
	{ "claude-sonnet-4-5",            3,     15,     0.3,        3.75 },
	{ "claude-haiku-4-5",             1,     5,      0.1,        1.25 },
	{ "claude-opus-4-1",              15,    75,     1.5,        18.75 },
	{ "anthropic/claude-sonnet-5",    3,     15,     0.3,        3.75 },
	{ "anthropic/claude-opus-4.8",    5,     25,     0.5,        6.25 },
	{ "anthropic/claude-sonnet-4.5",  3,     15,     0.3,        3.75 },
	{ "gpt-6-astra",                  10,    50,     1,          12.5 },
	{ "gpt-6.1-sol",                  2,     10,     0.1,        2.5 },
	{ "gpt-6-sol",                    2,     10,     0.2,        2.5 },
	{ "gpt-6-luna",                   0.1,   0.5,    0.01,       0.125 },
	{ "gpt-5",                        1.25,  10,     0.125,      0 },
	{ "gpt-5-mini",                   0.25,  2,      0.025,      0 },
	{ "gpt-5-nano",                   0.05,  0.4,    0.005,      0 },
	{ "gemini-3.1-pro-preview",       2,     12,     0.2,        0 },
	{ "gemini-3-flash-preview",       0.5,   3,      0.05,       0 },
	{ "gemini-2.5-pro",               1.25,  10,     0.125,      0 },
	{ "gemini-2.5-flash",             0.3,   2.5,    0.03,       0 },
	{ "deepseek-chat",                0.28,  0.42,   0.028,      0 },
	{ "openai/gpt-oss-120b",          0.15,  0.6,    0.075,      0 },
	{ "devstral-medium-latest",       0.4,   2,      0.4,        0 },
	{ "qwen2.5-coder:7b",             0,     0,      0,          0 },
	{ "local",                        0,     0,      0,          0 },
};

/*
 * The environment of tool processes (bash, and the hooks below).  Never
 * passed: AGENT_API_KEY, the key variables of the providers above and
 * the names in secretenv.  Nor is a variable whose name holds one of
 * secretwords, in any case (GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY,
 * DB_PASSWORD, npm_config__authToken, CI_JOB_JWT, SENTRY_DSN), unless
 * keepenv names it exactly (it cannot bring back the keys named before).
 * A URL is passed without its user:password@ (DATABASE_URL=postgres://
 * u:pw@db/x, PIP_INDEX_URL), as are proxies (names ending in proxy, any
 * case: HTTPS_PROXY, all_proxy), whose URL may lack its scheme.
 */
static const char *const secretenv[] = {
	"ANTHROPIC_OAUTH_TOKEN", "GEMINI_API_KEY", "XAI_API_KEY", "HF_TOKEN",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"GOOGLE_APPLICATION_CREDENTIALS",	/* a key file's path */
	NULL
};
static const char *const secretwords[] = {
	"KEY", "SECRET", "TOKEN", "PASS", "CREDENTIAL", "JWT", "DSN", NULL
};
/* names that hold a word above but no secret: zsh's key delay, Hugging
 * Face's tokenizer threads, pass(1)'s directory, the programs that ask
 * for a password */
static const char *const keepenv[] = {
	"KEYTIMEOUT", "TOKENIZERS_PARALLELISM", "PASSWORD_STORE_DIR",
	"SSH_ASKPASS", "GIT_ASKPASS", "SUDO_ASKPASS", NULL
};

/* CA bundles tried in order when SSL_CERT_FILE is not set. */
static const char *const cafiles[] = {
	"/etc/ssl/certs/ca-certificates.crt",	/* Debian, Alpine, Arch */
	"/etc/pki/tls/certs/ca-bundle.crt",	/* Fedora, RHEL */
	"/etc/ssl/ca-bundle.pem",		/* openSUSE */
	"/etc/ssl/cert.pem",			/* OpenBSD, macOS */
	NULL
};

/* The bash tool runs the first of these that exists. */
static const char *const shells[] = { "/bin/bash", "/bin/sh", NULL };

static const int conntimeout = 15;	/* seconds to connect */
static const int readtimeout = 300;	/* seconds without a byte (AGENT_TIMEOUT) */
static const size_t maxhead = 64 * 1024;	/* bytes of response head */
static const size_t maxstdin = 16 << 20;	/* bytes of piped stdin attached */
static const size_t maxschema = 1 << 20;	/* bytes of -o's schema file */
static const size_t histmax = 1000;	/* lines the line editor's history
					 * keeps (0: none, and no file) */
static const size_t maxhold = 64 << 10;	/* bytes of a message held
					 * while stdout, no terminal,
					 * waits to know if it is the
					 * final answer */
static const int maxrounds = 100;	/* model calls in one turn; then the
					 * run stops as a budget does (exit 3) */
/* The run's budget when neither -b nor AGENT_BUDGET names one, as -b
 * takes it: "turns=50,cost=2.50,time=1800" (model calls, dollars,
 * seconds; any of them), or "" for none. */
static const char defbudget[] = "";
/* Asking the model (ask.c's Askconf): the bounds on an answer, and
 * when a failed request is tried again. */
static const Askconf askconf = {
	.prices = prices,
	.nprices = LEN(prices),
	.maxerrbody = 64 * 1024,	/* bytes of an error body kept */
	.maxevent = 32 << 20,	/* bytes of one streamed event */
	.maxkeep = 1 << 20,	/* bytes of one answer kept in the
				 * conversation; the rest is shown only */
	.maxcalls = 128,	/* tool calls kept from one answer; the
				 * rest are dropped, with a warning */
	.maxattempts = 4,	/* tries of one request: 429, 5xx, reset */
	.retrybase = 1000,	/* milliseconds before the first retry */
	.retrymax = 60,		/* seconds: longer Retry-After gives up */
};

/* Compaction: when fewer than reservetokens of the context window are
 * left, the older part of the conversation is replaced by a summary the
 * model writes; the last keeptokens (estimated) stay as they are. */
static const int autocompact = 1;	/* 0: only /compact */

static const char summaryprompt[] =
	"You summarise a coding session between a user and an assistant, "
	"so that the assistant can carry on from the summary alone. Do not "
	"carry on the conversation or answer anything in it: write only "
	"the summary.";

static const char summaryask[] =
	"Summarise the conversation above for the assistant to continue "
	"from. Use these sections:\n"
	"## Goal\n## Constraints and preferences\n"
	"## Progress\n### Done\n### In progress\n### Blocked\n"
	"## Key decisions\n## Next steps\n## Critical context\n"
	"Keep exact file paths, names of functions and error messages. "
	"If a previous summary is given, fold it into the new one.";

/* /branch ID summarize: what the model is asked of the branch left */
static const char branchask[] =
	"The user is leaving the conversation above to go back to an "
	"earlier point and try another way. Summarise what was done on it "
	"for the conversation that goes on from that point: what was tried "
	"and how it turned out, what was learnt, the files read and "
	"changed, and the decisions made and why. Keep exact file paths, "
	"names of functions and error messages. Be brief.";

/* The context (context.c's Ctxconf): compaction's numbers and texts. */
static const Ctxconf ctxconf = {
	.reservetokens = 16384,
	.keeptokens = 20000,
	.maxresult = 2000,	/* bytes of a tool result shown to the
				 * summariser */
	.system = summaryprompt,
	.ask = summaryask,
	.branchask = branchask,
};

/* -d: the working tree is copied (what .gitignore ignores and .git left
 * out) for the run to work in; a bigger one does not start (exit 2).
 * The diff holds each file whole in memory, up to maxscratch. */
static const unsigned long long maxscratch = 256ULL << 20;	/* bytes */
static const long maxscratchfiles = 20000;	/* files, links, dirs */
/* Before a call is allowed, on the terminal: write's and edit's change
 * (a new file's content), cut to its first and last showlines lines,
 * and an MCP call's arguments, cut to showbytes.  bash's command is
 * shown whole: a line left out could be the one that matters. */
static const int showlines = 20;	/* lines, at each end */
static const size_t showbytes = 2048;	/* bytes of MCP arguments */

/* The tools' limits (tools.h's Toollimits): first what the model sees.
 * The tools' descriptions and schemas below name them as ${maxlines},
 * ${maxkb} (maxbytes in KB), ${greplimit}, ${greplinemax},
 * ${findlimit}, ${lslimit}, ${maxlogmb} and ${maxeditmb} (in MB): the
 * numbers are filled in at start. */
static const Toollimits toollimits = {
	.maxlines = 2000,	/* lines of output */
	.maxbytes = 50 * 1024,	/* bytes of output */
	.greplinemax = 500,	/* bytes of one matched line */
	.greplimit = 100,	/* default grep matches */
	.findlimit = 1000,	/* default find results */
	.lslimit = 500,		/* default ls entries */
	.bashtimeout = 0,	/* default bash timeout in seconds, 0 none */
	.searchtime = 10,	/* seconds grep, find and ls search: then
				 * they return what they found, with a
				 * note; 0 for no limit */
	/* .gitignore files come with the repository, and each path grep
	 * and find meet is matched against every pattern in force (those
	 * of the files from the top of the work tree down to its
	 * directory), at a cost of up to the pattern's bytes times the
	 * name's: */
	.ignorebytes = 256 << 10,	/* bytes read of one file */
	.ignorelines = 10000,	/* lines read of one file */
	.maxrules = 10000,	/* patterns in force, past which the rest
				 * are not read */
	.rulebytes = 32 << 10,	/* and their bytes */
	.diffcontext = 3,	/* lines around a change, in -d's diff, in
				 * the diff shown before a write or an
				 * edit is allowed, and in the one edit's
				 * result keeps */
	.killgrace = 2000,	/* milliseconds from TERM to KILL */
	.maxedit = 16 << 20,	/* bytes of a file edit changes, of the
				 * content write writes: both are held
				 * whole in memory */
	.maxundo = 8 << 20,	/* bytes of files' content kept in memory
				 * in a turn, before write and edit first
				 * change each, for /undo; a file past it
				 * is not put back */
	.maxlog = 64 << 20,	/* bytes of one bash command's output
				 * saved to a file once it is cut */
	.maximage = 5 << 20,	/* bytes of an image file read or -i
				 * sends (Anthropic takes 5 MB) */
};

/* Tools.  approve: ask on the terminal first, unless -y. */
static const Tool tools[] = {
	/* name   function   approve  description, parameters */
	{ "read", toolread, 0,
	  "Read a text file, or a png, jpeg, gif or webp image (sent as an "
	  "attachment). Output stops at ${maxlines} lines or ${maxkb}KB, "
	  "with a note on how to read on (offset). Other binary files are "
	  "refused.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":\"Path of the file\"},"
	  "\"offset\":{\"type\":\"number\",\"description\":\"Line to start at, from 1\"},"
	  "\"limit\":{\"type\":\"number\",\"description\":\"Most lines to read\"}},"
	  "\"required\":[\"path\"]}" },
	{ "write", toolwrite, 1,
	  "Write a whole file: create it, parent directories too, or replace "
	  "what it held.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":\"Path of the file\"},"
	  "\"content\":{\"type\":\"string\",\"description\":\"The whole new content\"}},"
	  "\"required\":[\"path\",\"content\"]}" },
	{ "edit", tooledit, 1,
	  "Replace exact text in a file. Each edits[].oldText must match one "
	  "place in the original file exactly, whitespace included; edits "
	  "must not overlap, and apply all or none. Merge nearby changes "
	  "into one edit; carry no large unchanged text along.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":\"Path of the file\"},"
	  "\"edits\":{\"type\":\"array\",\"description\":\"Replacements in the original file\","
	  "\"items\":{\"type\":\"object\",\"properties\":{"
	  "\"oldText\":{\"type\":\"string\",\"description\":\"Exact text, unique in the file\"},"
	  "\"newText\":{\"type\":\"string\",\"description\":\"Its replacement\"}},"
	  "\"required\":[\"oldText\",\"newText\"]}}},"
	  "\"required\":[\"path\",\"edits\"]}" },
	{ "bash", toolbash, 1,
	  "Run a shell command in the working directory: stdout and stderr "
	  "together. Output keeps the last ${maxlines} lines or ${maxkb}KB, "
	  "the whole (up to ${maxlogmb}MB) saved to a file it names. Stdin "
	  "is empty; give long commands a timeout.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"string\",\"description\":\"The command line\"},"
	  "\"timeout\":{\"type\":\"number\",\"description\":\"Seconds before it is killed\"}},"
	  "\"required\":[\"command\"]}" },
	{ "grep", searchgrep, 0,
	  "Search file contents with a POSIX extended regex (or literal "
	  "text): path:line: text. Skips .git, binary and ignored files "
	  "(.gitignore). Stops at ${greplimit} matches or ${maxkb}KB; lines "
	  "over ${greplinemax} bytes are cut.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":\"Regex, or text with literal\"},"
	  "\"path\":{\"type\":\"string\",\"description\":\"File or directory (default .)\"},"
	  "\"glob\":{\"type\":\"string\",\"description\":\"Only files matching it, e.g. *.c\"},"
	  "\"ignoreCase\":{\"type\":\"boolean\",\"description\":\"Case-insensitive\"},"
	  "\"literal\":{\"type\":\"boolean\",\"description\":\"The pattern is plain text\"},"
	  "\"context\":{\"type\":\"number\",\"description\":\"Lines around each match\"},"
	  "\"limit\":{\"type\":\"number\",\"description\":\"Most matches (default ${greplimit})\"}},"
	  "\"required\":[\"pattern\"]}" },
	{ "find", searchfind, 0,
	  "Find files by glob, e.g. *.c or src/**/*.h: paths from the "
	  "directory searched, sorted. Skips .git and ignored files "
	  "(.gitignore). Stops at ${findlimit} results or ${maxkb}KB.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"pattern\":{\"type\":\"string\",\"description\":\"Glob of names or paths\"},"
	  "\"path\":{\"type\":\"string\",\"description\":\"Directory (default .)\"},"
	  "\"limit\":{\"type\":\"number\",\"description\":\"Most results (default ${findlimit})\"}},"
	  "\"required\":[\"pattern\"]}" },
	{ "ls", searchls, 0,
	  "List a directory, sorted, dotfiles too, directories ending in /. "
	  "Stops at ${lslimit} entries or ${maxkb}KB.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"description\":\"Directory (default .)\"},"
	  "\"limit\":{\"type\":\"number\",\"description\":\"Most entries (default ${lslimit})\"}}}" },
	{ "task", taskcall, 0,
	  "Hand a self-contained job to a sub-agent: a fresh agent with your "
	  "tools but write and edit, that changes nothing and answers once. "
	  "Use it for work whose details you need not keep, such as "
	  "searching a large codebase. It sees none of this conversation: "
	  "say all it needs and what to answer. Task calls in one answer run "
	  "at once.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"description\":{\"type\":\"string\",\"description\":\"A few words, shown to the user\"},"
	  "\"prompt\":{\"type\":\"string\",\"description\":\"The whole task, for an agent that knows nothing else\"}},"
	  "\"required\":[\"description\",\"prompt\"]}" },
};

/*
 * The task tool's sub-agents.  A task is this binary run again
 * (agent -jK ...) in the working directory, on the prompt alone: a fresh
 * context, the system prompt and project files as at any start, the
 * tools this run offers that its profile keeps on (not the MCP
 * servers'), and -y if this run has it.  With no -y, what would ask in
 * it is refused: it has no terminal; a rule can ALLOW it.  Its session
 * is a file of its own beside this run's, its header naming this run's
 * as its parent, and the result's details name it.  Its answer is the
 * result; its usage is added to this run's.  The key goes to it over a
 * pipe, never in its environment or argv.  Ctrl-C stops every task.
 */
static const Taskconf taskconf = {
	NULL,		/* provider: NULL, this run's; another is given
			 * its own key variable's value, never this run's
			 * key (AGENT_API_KEY is this run's) */
	NULL,		/* model: NULL, this run's, or another provider's
			 * own model */
	"readonly",	/* profile; one wider than this run's is not taken:
			 * then it runs under this run's */
	1,		/* depth: levels of tasks below the user's run; 1: a
			 * task starts none */
	4,		/* tasks at once; more in one answer wait their turn */
	600,		/* seconds a task may run, 0 for no limit: then it is
			 * stopped (TERM, killgrace, KILL) and says so */
};

/*
 * MCP servers (the Model Context Protocol): tools that programs of their
 * own offer, without C.  A server is started when its tools are first
 * offered, before the first request (not at all with -t), and each of
 * its tools offered as server__tool; like bash, they ask before each
 * call (a rule such as { "memory__*", "*", ALLOW } lets them run), and
 * hooks see them.
 *   name     the server's name: letters, digits, _ and -
 *   where    a command line, run with /bin/sh -c in the working
 *            directory, speaking on its stdin and stdout; it runs
 *            OUTSIDE the sandbox with bash's environment (no API keys),
 *            as hooks do, till agent exits; its stderr is thrown away.
 *            Or an http:// or https:// URL: streamable HTTP.
 *   header   with a URL: a header sent with each request, to which the
 *   env      value of this variable is added (read at start; never in
 *            argv, never logged, kept from tools); or NULL
 *   readonly 1: its tools only read.  The sandbox does not hold a
 *            server, so under a profile that cannot write (readonly,
 *            plan) a server's tools are offered only if its row says 1
 *            or a rule ALLOWs the tool by name ({ "docs__*", "*",
 *            ALLOW }); the others are said once on stderr.  Under
 *            workspace and full every server's are offered.
 * The row with a NULL name ends the table.
 */
static const Mcpserver mcpservers[] = {
	/* name       where                                               header                    env                 readonly */
	/* { "memory", "npx -y @modelcontextprotocol/server-memory",      NULL,                     NULL,               0 }, */
	/* { "everything", "npx -y @modelcontextprotocol/server-everything", NULL,                  NULL,               0 }, */
	/* { "remote", "https://mcp.example.com/mcp",                     "Authorization: Bearer ", "REMOTE_MCP_TOKEN", 0 }, */
	{ NULL,       NULL,                                               NULL,                     NULL,               0 }
};
static const int mcptimeout = 120;	/* seconds a tools/call may take */
static const int mcpstarttimeout = 60;	/* seconds to start a server, say
					 * hello and list its tools (npx
					 * may download it first) */

/* Project instructions: in the working directory and each one above it,
 * the first of these that exists joins the system prompt, outermost first. */
static const char *const contextfiles[] = { "AGENTS.md", "CLAUDE.md", NULL };
static const size_t maxcontext = 64 * 1024;	/* bytes of one such file */

/* Skills: each DIR/NAME/SKILL.md whose front matter has a name and a
 * description is listed in the system prompt (when read is offered) for
 * the model to read when the task needs it; the first of a name wins.
 * Prompt templates: /NAME args expands DIR/NAME.md, the first found.
 * "~/" is $HOME; other directories are the working directory's, and with
 * up 1 (skills) those of each directory above it too, up to the git
 * root, as pi looks for .agents/skills.  Only files of the user or root
 * are read, as AGENTS.md. */
static const Promptdir skilldirs[] = {
	/* directory            up */
	{ ".pi/skills",          0 },
	{ ".agents/skills",      1 },
	{ ".claude/skills",      0 },
	{ "~/.pi/agent/skills",  0 },
	{ "~/.agents/skills",    0 },
	{ "~/.claude/skills",    0 },
	{ NULL,                  0 },
};
static const Promptdir promptdirs[] = {
	/* directory            up */
	{ ".pi/prompts",         0 },
	{ ".agents/prompts",     0 },
	{ "~/.pi/agent/prompts", 0 },
	{ "~/.agents/prompts",   0 },
	{ NULL,                  0 },
};
static const size_t maxskill = 64 * 1024;	/* bytes of a SKILL.md or a
						 * template read; a skill's
						 * front matter must end
						 * within them */
static const size_t maxattach = 1 << 20;	/* bytes of an @file's text */

/* The system prompt; the offered tools, the project instructions, the
 * date and the working directory are added after it. */
static const char sysprompt[] =
	"You are agent, a coding assistant at work in the user's terminal. "
	"You help by reading files, searching code, running commands, "
	"editing and writing files, through the tools you are given.\n"
	"\n"
	"Guidelines:\n"
	"- Look before you change: read a file before you edit it; use grep, "
	"find and ls to find your way (they honour .gitignore).\n"
	"- Use edit for precise changes: each oldText must match the file "
	"exactly, once. Use write for new files or whole rewrites.\n"
	"- Use bash to build, test and run things. It has no terminal and "
	"no stdin, so avoid interactive programs; give long commands a "
	"timeout.\n"
	"- When you are done, say briefly what you did in plain text, with "
	"file paths; do not print files with cat to show your work.\n"
	"- Be concise.";

/*
 * The guard: what a tool call may do when it runs on its own, as in CI:
 *   git diff | agent -y 'fix the failing test'
 *
 * Profiles (-g or AGENT_PROFILE; the first row is the default).
 *   ask     tools that ask on the terminal before each call (refused with
 *           no terminal, unless -y; "a" stops the asking for that tool,
 *           but never an ASK rule's); the others run unasked.  NULL: the
 *           tools whose approve column above is 1, as in the rows below,
 *           so that a tool added later asks as its own row says.  Rules
 *           come first.
 *   off     tools not offered to the model at all (-t cannot add them).
 *   write   where tool processes (bash and what it runs) and the write
 *           and edit tools may write, held by the kernel (Landlock) where
 *           it can, by write's and edit's own path checks everywhere:
 *           WTREE  the working directory's tree;
 *           WPLAN  the plan file alone;
 *           WNONE  nothing;
 *           WALL   anywhere: no sandbox at all, what -y alone once meant.
 *           Besides WALL, a private temporary directory made for the run
 *           (given to tools as TMPDIR, removed at exit) and /dev/null are
 *           always writable.  Under WNONE and WPLAN a seccomp filter
 *           also refuses tool processes every change of a file's mode,
 *           owner, times or extended attributes, in TMPDIR too (touch
 *           of a new file works: it sets no time of its own); WTREE
 *           cannot refuse them (chmod +x in the project is normal), so
 *           they stay open on any file the user may change.
 *   net     1: tool processes may use the network.  0: no TCP (Landlock
 *           ABI 4), and the seccomp filter refuses socket(2) for every
 *           family but AF_UNIX, and for AF_UNIX too unless Landlock
 *           (ABI 9) keeps named Unix sockets to the writable places;
 *           socketpair(2) stays.  Where there is a filter, io_uring is
 *           refused: its operations would go around it.
 *   plan    WPLAN: the file, from the working directory (no ".", ".."
 *           or empty part).  It must be absent or a regular file with
 *           one link, reached with no symbolic link on its way, or the
 *           profile does not start: a repository's PLAN.md linked to
 *           ~/.bashrc would have it written.
 *   prompt  a paragraph added to the system prompt, or NULL
 *   gitwrite  1: tools may change git's configuration and hooks.  0:
 *           when the working directory has a .git at start, its config,
 *           config.worktree, commondir, hooks/ and info/ (or the .git
 *           file of a work tree) are copied, checked before and after
 *           every tool call, before every hook and at exit, and put
 *           back as they were if a tool changed them, with a warning
 *           and a line to the model; write and edit refuse them.  Git
 *           runs what they name (core.fsmonitor, a hook, an alias) at
 *           the user's next git command, outside any sandbox, and the
 *           kernel cannot keep them read-only within a writable tree.
 *           So too for each submodule's .git directory in
 *           .git/modules (not its objects and refs), and a submodule
 *           added there is removed.  Not covered: a project with no
 *           .git at start, what a .git that is a link or a file leads
 *           to, a repository a tool makes in the working tree (the
 *           user's git obeys its config when the index names it as a
 *           submodule, or when run in it).
 *   stay    1: processes a bash call leaves running in the background
 *           (cmd &, nohup, setsid, a double fork: a server, a watcher)
 *           may go on until agent exits.  0: they are killed when the
 *           call ends (TERM, killgrace, KILL).  Either way, agent kills
 *           all its tools and hooks left (it is their subreaper on
 *           Linux) when it exits, on SIGTERM and SIGHUP too.  Where
 *           there is a seccomp filter, setsid(2) and setpgid(2) do
 *           nothing for tool processes: all a call starts stays in its
 *           process group, killed whole; elsewhere a process that forks
 *           on faster than agent can find it may escape.
 * The agent itself is never held: it reaches the provider and writes the
 * session file under any profile.  -y only stops the asking.
 */
static const char planprompt[] =
	"You are planning, not changing: you can read and search the "
	"project and run commands that change nothing, but you can write "
	"only the plan file named below. Write there a plan another run "
	"can carry out: numbered steps, the files each step touches, and "
	"acceptance checks (the commands to run and what they must show).";

static const Profile profiles[] = {
	/* name       ask   off           write  net  plan       prompt      gitwrite stay */
	/* the default: change the project, nothing else, no network */
	{ "workspace", NULL, NULL,         WTREE, 0,   NULL,      NULL,       0, 0 },
	/* look, run, change nothing */
	{ "readonly",  NULL, "write,edit", WNONE, 0,   NULL,      NULL,       0, 0 },
	/* look, run, write a plan for a workspace run to carry out */
	{ "plan",      NULL, NULL,         WPLAN, 0,   "PLAN.md", planprompt, 0, 0 },
	/* no sandbox */
	{ "full",      NULL, NULL,         WALL,  1,   NULL,      NULL,       1, 1 },
};

/* gitwrite 0: what of .git is copied at start, at most; a .git whose
 * config, hooks and info hold more does not start such a profile. */
static const size_t maxgitbytes = 4 << 20;	/* bytes of content */
static const int maxgitfiles = 4000;	/* files, links and directories:
					 * a submodule's hooks are ~20 */

/*
 * Rules, before the profile.  A row names a tool, a glob and what to do:
 * ALLOW (run without asking, even with no terminal), ASK (ask on the
 * terminal, every time: "a" answers only this call; with no terminal
 * refused, unless -y, which approves these too) or DENY (not run: the
 * model is told which rule refused it).  Of the rows whose tool and glob
 * match a subject, the first counts.  The glob is fnmatch(3)'s without
 * FNM_PATHNAME ("*" matches "/" too).
 *
 * bash: the command line is split into its simple commands, at ; && ||
 * | |& & and line ends, quotes respected.  Each is matched as written,
 * its words unquoted and one space apart, its redirections after them,
 * with command, builtin, exec, nohup, time and a bare env in front
 * dropped ("git status > out"); and normalised: VAR=x in front, the
 * wrappers env, command, builtin, exec, nohup, time, nice, timeout,
 * setsid, stdbuf and xargs with their options, git's options before its
 * subcommand (-C dir, -c k=v, --git-dir=...) and the command's directory
 * dropped ("git push" for env "git" -C . push).  What sh -c, bash -c,
 * eval, env -S, $( ), ` `, <( ) and ( ) run are commands of the line
 * too, as far as they can be read (in a here-document's text as well,
 * unless its end word is quoted: the text itself is no command).
 *   DENY   if any command, in either form, matches one first, or the
 *          line whole matches any ("*| sh*");
 *   ASK    else the same for ASK rules;
 *   ALLOW  only if every command as written matches one first, and the
 *          line has no substitution ($( ), ` `, <( ), ${...} but
 *          ${NAME}), no ( ) or { } group, shell keyword (if, for,
 *          case...) or here-document, no quote left open, no command
 *          name the shell expands ($X, *, ~), and no redirection writing
 *          outside the working directory and the run's TMPDIR (but to
 *          /dev/null, /dev/stdout, /dev/stderr), after a cd, or where a
 *          write rule would ask or refuse;
 *   else   the profile says.
 * Other tools: the path argument ("" if the call has none) is matched as
 * written, with "." and ".." taken out by letters, and where it lands
 * (links followed: g/hooks is .git/hooks when g links to .git): each
 * absolute and, beneath the working directory, from it.  DENY or ASK if
 * any form matches such a rule first; ALLOW only if where it lands does.
 * A read rule holds every reader: a read DENY or ASK rule that matches
 * grep's, find's or ls's path denies or asks for that call too; in their
 * walks each file such a rule matches (in any of the forms, so a link to
 * .env as well) is left out, unread and unlisted, the model told how
 * many; and an @file a read DENY rule matches is not attached.
 *
 * DENY rules are a convenience, not a boundary: a command can run what no
 * rule sees (a script, make, find -exec, a variable, an alias in a git
 * config), and an ALLOW rule trusts the program it names with all that
 * program can do.  The boundary is the profile's sandbox: an allowed
 * command still runs inside it, and no rule widens it.
 * The row with a NULL tool ends the table.
 */
static const Rule rules[] = {
	/* tool    glob              action */
	/* { "bash",  "git status*",  ALLOW }, */
	/* { "bash",  "make*",        ALLOW }, */
	/* { "bash",  "git push*",    DENY }, */
	/* { "write", "*.git/?*",     ASK }, */
	/* { "edit",  "*.git/?*",     ASK }, */
	{ NULL,    NULL,             0 }
};

/*
 * Hooks: a command run with /bin/sh -c, PRE before a call of the tool
 * ("*": any tool), POST after it, with the call on stdin as one line of
 * JSON: {"tool":"bash","args":{...}}, after the call with
 * "result":{"text":...,"isError":...} too.  The arguments are written
 * anew, not as the model sent them: no white space, strings with only the
 * escapes JSON needs (\" \\ and control characters), so that grep reads
 * "rm -rf" however the model spelt it.  Arguments that give a key twice
 * are refused before rules and hooks see them.  A PRE hook that exits
 * non-zero blocks the call, its stderr (the first 2000 bytes) being the
 * reason the model is told; so does one still running after timeout
 * milliseconds, which is killed.  A POST hook's failure is only
 * reported.  Hooks run unsandboxed, in the working directory, with bash's
 * environment (no API keys); their stdout is ignored.  The row with when
 * 0 ends the table.
 */
static const Hook hooks[] = {
	/* when  tool    command                                   timeout ms */
	/* { PRE,  "bash", "if grep -q 'rm -rf'; then "
	                   "echo 'rm -rf is not allowed' >&2; exit 1; fi", 5000 }, */
	/* { POST, "*",    "cat >> $HOME/agent-calls.jsonl",          5000 }, */
	{ 0,     NULL,   NULL,                                     0 }
};

#else /* TLSCONFIG */

/*
 * TLS 1.2 cipher suites offered to https servers, best first (the server
 * picks), each with the function that installs its cipher: only the
 * ciphers named here are linked in.  tlschapol and tlsaesgcm are tls.c's;
 * BearSSL's br_ssl_engine_set_default_aes_cbc would serve CBC suites.
 * The key exchange is ECDHE on the curves below; ECDSA or RSA names the
 * key of the server's certificate.  RSA key exchange and static ECDH
 * suites need code that is not there.
 */
static const Tlssuite tlssuites[] = {
	/* suite                                           cipher */
#ifndef SMALL
	/* ChaCha20-Poly1305, ECDSA key: fast and constant-time without AES
	 * hardware, as on most small ARM and RISC-V boards; the static
	 * build leaves it out (2 KB): BearSSL's AES is constant-time too,
	 * and a model's answer is a few KB a second, which it keeps up with
	 * on any board */
	{ BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tlschapol },
	/* ChaCha20-Poly1305, RSA key */
	{ BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,   tlschapol },
#endif
	/* AES-128-GCM, ECDSA key: offered by every provider's servers */
	{ BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,       tlsaesgcm },
	/* AES-128-GCM, RSA key */
	{ BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,         tlsaesgcm },
	/* AES-256-GCM with SHA-384, ECDSA key: for servers that want it */
	{ BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,       tlsaesgcm },
	/* AES-256-GCM with SHA-384, RSA key */
	{ BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,         tlsaesgcm },
};

/*
 * Elliptic curves of the key exchange (ECDHE) and of the servers' ECDSA
 * keys, each with the BearSSL code that computes on it: only the curves
 * here are offered, and only their code is linked in.  BearSSL offers
 * them by number, P-256 first; a server that goes by its own preference,
 * as the providers' do, picks X25519.  The m31 code is two to four times
 * faster than i31, and bigger: 9 KB more for P-256, 2 KB for X25519.  A
 * shared libbearssl holds it all anyway; the static build (make static
 * defines SMALL) counts each KB: it offers P-256 alone for the key
 * exchange, which every provider takes, and saves X25519's 2 KB.
 */
static const Tlscurve tlscurves[] = {
	/* curve            code */
#ifdef SMALL
	{ BR_EC_secp256r1,  &br_ec_prime_i31 },
#else
	{ BR_EC_secp256r1,  &br_ec_p256_m31 },
	{ BR_EC_curve25519, &br_ec_c25519_m31 },
#endif
	{ BR_EC_secp384r1,  &br_ec_prime_i31 },
	{ BR_EC_secp521r1,  &br_ec_prime_i31 },
};

#endif /* TLSCONFIG */
