/* See LICENSE file for copyright and license details. */
/* bench/sse.c: SSE and JSON throughput: an OpenAI stream of chunks, each
 * a delta of text as real servers send them, through sse.c into wire.c's
 * event path (or, with r, a Responses stream of output_text.delta events
 * of the same text into responses.c's); prints MB of stream and millions
 * of deltas per second of CPU, the best of some rounds (CPU time: a busy
 * machine weighs less on it).
 * usage: sse [megabytes [rounds [r]]] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../util.h"
#include "../json.h"
#include "../sse.h"
#include "../wire.h"

static int
piece(void *arg, int kind, const char *p, size_t n)
{
	(void)kind;
	(void)p;
	*(size_t *)arg += n;
	return 0;
}

int
main(int argc, char *argv[])
{
	Buf s = { 0 };
	Sse sse;
	Wire w;
	struct timespec t0, t1;
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 20, got = 0, i;
	int k, rounds = argc > 2 ? atoi(argv[2]) : 5;
	int resp = argc > 3 && argv[3][0] == 'r';
	double sec, best = 0;
	long n = 0;

	for (; s.len < mb * 1000000; n++)
		if (resp)	/* as OpenAI sends them, sequence number too */
			bufaddf(&s, "event: response.output_text.delta\n"
			        "data: {\"type\":"
			        "\"response.output_text.delta\",\"item_id\":"
			        "\"msg_0a1b2c3d4e5f60718293a4b5c6d7e8f9\","
			        "\"output_index\":0,"
			        "\"content_index\":0,"
			        "\"delta\":\" the quick brown fox\","
			        "\"logprobs\":[],"
			        "\"obfuscation\":\"a1b8bf7433\","
			        "\"sequence_number\":%ld}\n\n", n + 3);
		else
			bufadds(&s, "data: {\"id\":\"chatcmpl-9f2c\","
			        "\"object\":\"chat.completion.chunk\","
			        "\"created\":1761483740,"
			        "\"model\":\"fake-model\",\"choices\":"
			        "[{\"index\":0,\"delta\":{\"content\":"
			        "\" the quick brown fox\"},\"finish_reason\":"
			        "null}]}\n\n");
	bufadds(&s, resp ? "event: response.completed\ndata: {\"type\":"
	        "\"response.completed\",\"response\":{\"status\":"
	        "\"completed\"}}\n\n" : "data: [DONE]\n\n");
	for (k = 0; k < rounds; k++) {
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		wireinit(&w, resp ? RESPONSES : OPENAI, piece, &got);
		sseinit(&sse, wireevent, &w);
		/* as the network hands it over: 16 KB reads */
		for (i = 0; i < s.len; i += 16384)
			if (ssefeed(&sse, s.p + i, MIN(16384, s.len - i)))
				return 1;
		sseend(&sse);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		sec = (t1.tv_sec - t0.tv_sec) +
		      (t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (!w.done || got == 0)
			return 1;
		if (best == 0 || sec < best)
			best = sec;
		ssefree(&sse);
		wirefree(&w);
	}
	printf("%.0f MB/s, %.2f M deltas/s (%zu MB, the best of %d rounds: "
	       "%.3f s)\n", s.len / 1e6 / best, n / 1e6 / best,
	       s.len / 1000000, rounds, best);
	buffree(&s);
	return 0;
}
