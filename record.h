/* See LICENSE file for copyright and license details. */
/* record.h: the exchanges with the model written to a file
 * (AGENT_RECORD), or served back from one with no network
 * (AGENT_REPLAY) */

typedef struct Rec {
	int out;		/* recording: the file, O_APPEND; or -1 */
	int in;			/* replaying: the file; or -1 */
	char *file;		/* its name, for messages */
	const char *key;	/* the API key, never written; or NULL */
	Buf line;		/* recording: the exchange's line as it
				 * grows; replaying: the file read ahead */
	size_t at;		/* replaying: where the next line starts */
	long lineno;		/* replaying: that line's number, from 1 */
	int eof;		/* replaying: the file is all read */
	char carry[4];		/* recording: a UTF-8 sequence the last */
	size_t ncarry;		/* piece of the answer cut, kept for the
				 * next */
	Httpfn fn;		/* recording: the callback wrapped */
	void *arg;
	char *broken;		/* replaying: why it stopped; each exchange
				 * after fails with it */
} Rec;

int recopen(Rec *r, const char *record, const char *replay, const char *key);
int recdo(Rec *r, Httpclient *c, Http *h);
void recclose(Rec *r);
