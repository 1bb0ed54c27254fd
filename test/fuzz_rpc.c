/* See LICENSE file for copyright and license details. */
/* fuzz_rpc.c: libFuzzer target for rpc.c's line framing and command
 * parsing: stdin's bytes in any pieces, idle or while a turn runs. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util.h"
#include "../json.h"
#include "../entry.h"
#include "../session.h"
#include "../tools.h"
#include "../sandbox.h"
#include "../proc.h"
#include "../rpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int null = -1;
	static volatile sig_atomic_t intr, quit;
	static char msg0[] = "{\"role\":\"assistant\",\"content\":"
	                     "[{\"type\":\"text\",\"text\":\"hi\"}]}";
	static char *msgv[] = { msg0 };
	static char **msgs = msgv;
	static size_t nmsgs = 1;
	static const Toollimits lim;
	static const Proclimits plim;	/* all 0: no shell, bash says so */
	static Sandbox box;
	Procs p = { 0 };
	static const long window = 200000, maxout = 32000;
	Session s;
	Toolenv e = { 0 };
	Rpc r = { 0 };
	size_t k, step;
	static char model[] = "m", *modelp = model;
	char *m;

	if (null < 0 && (null = open("/dev/null", O_WRONLY)) < 0)
		abort();
	if (size < 2)
		return 0;
	sessnew(&s, NULL, "/");
	r.provider = "p";
	r.model = &modelp;
	r.sess = &s;
	r.context = &window;
	r.maxout = &maxout;
	r.msgs = &msgs;
	r.nmsgs = &nmsgs;
	e.lim = &lim;
	p.lim = &plim;
	e.procs = &p;
	e.box = &box;
	r.tenv = &e;
	r.intr = &intr;
	r.quit = &quit;
	r.out = null;
	r.busy = data[0] % 3;
	step = data[1] % 16 + 1;	/* bytes come in pieces of step */
	for (k = 2; k < size; k += step)
		rpcfeed(&r, (const char *)data + k, MIN(step, size - k));
	while (rpcpending(&r, 1)) {
		if (!(m = rpctake(&r, 1)))
			abort();
		free(m);
	}
	rpcfree(&r);
	sessfree(&s);
	return 0;
}
