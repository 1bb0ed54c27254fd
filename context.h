/* See LICENSE file for copyright and license details. */
/* context.h: the context: messages built from the session, counted, and
 * compacted into a summary; the project's instructions */

/* What config.h says of the context, handed over at setup. */
typedef struct {
	long reservetokens;	/* tokens kept free for the answer, at least */
	long keeptokens;	/* tokens of recent conversation kept whole */
	size_t maxresult;	/* bytes of a tool result a summary is made
				 * of */
	const char *system;	/* the summariser's system prompt */
	const char *ask;	/* what it is asked, after the conversation */
	const char *branchask;	/* what it is asked of a branch left */
} Ctxconf;

/* The messages.  Their texts lie in blocks that the list owns and frees
 * together: a message made in this run is a block of its own; those
 * loaded from the session lie in place in its lines, mapped (session.c's
 * Sessmap): a long session's messages are neither copied nor read into
 * memory of the process's own, and only the pages at hand are held. */
typedef struct {
	char **v;		/* messages as pi stores them: JSON texts, */
	size_t *len;		/* of these lengths: those in map do not
				 * end in a NUL */
	unsigned char *plain;	/* 1: its strings are as jsonesc writes
				 * them, as its line's index found */
	Wireform *form;		/* each one's wire form, once made */
	size_t n, cap;
	char **block;		/* the blocks the texts lie in */
	size_t nblock, blockcap;
	Sessmap map;		/* and the session's lines */
} Ctxmsgs;

typedef struct {
	Ctxmsgs msgs;		/* the session's branch, as messages */
	size_t compactat;	/* msgs before this have pre-compaction
				 * usage */
	Session *sess;		/* the session it is built from */
	const Ctxconf *conf;
	long window;		/* the model's context window, tokens */
	long maxout;		/* the output tokens asked of it */
	double tokens;		/* its tokens for one estimated token of text
				 * (entrytokens') */
} Ctx;

/* A compaction planned: what the summariser is asked, and what the
 * compaction entry will say. */
typedef struct {
	const char *system;	/* the summariser's system prompt */
	char *ask;		/* its one message: a user message, JSON */
	long maxout;		/* the output tokens it may take */
	char *firstkept;	/* the id of the first entry kept whole */
	long tokensbefore;	/* the tokens of the context before */
} Ctxcut;

size_t ctxload(Ctx *c, const Entry **path, size_t n);
int ctxappend(Ctx *c, const char *json);
int ctxrecord(Ctx *c, char *json);
int ctxnote(Ctx *c, const char *type, char *text);
void ctxfree(Ctx *c);
/* Make the forms of request q, which is of c's messages, letting go as
 * it goes of the mapped lines it has made them of; and, once q is sent,
 * of those it sent. */
void ctxforms(Ctx *c, const Wirereq *q);
void ctxsentupto(void *c, const char *end);
void ctxsent(Ctx *c);
int ctxrewritten(Ctx *c);
/* Whether compaction is due: the context's tokens (the last answer's
 * count, plus an estimate of what came after) past the window less what
 * is kept for the answer (Ctxconf's reservetokens, or the model's output
 * tokens if more). */
int ctxfull(const Ctx *c);
/* The context's tokens: the last answer's count, plus an estimate of
 * what came after. */
long ctxtokens(const Ctx *c);
int ctxplan(Ctx *c, const char *focus, Ctxcut *k);
/* Plan the summary of the branch that a move of the leaf to entry to
 * leaves (tree.c's treeleaving), pi's branch_summary: what to ask, into
 * k.  0, or -1: nothing is left. */
int ctxbranchplan(Ctx *c, long to, Ctxcut *k);
int ctxcompact(Ctx *c, const Ctxcut *k, const Buf *summary);
void ctxcutfree(Ctxcut *k);
/* The system prompt's end: the project's instructions (the first of
 * names in each directory from the root down to the working one,
 * trusted files only, max bytes each), the skills (prompt.c's list, as
 * pi puts it there), the date and the working directory. */
void ctxsystem(Buf *b, const char *const *names, size_t max,
               const Buf *skills);
void ctxenv(Buf *out, const char *head);
