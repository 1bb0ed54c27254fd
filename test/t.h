/* See LICENSE file for copyright and license details. */
/* t.h: the unit tests' checking macros; test/run.sh counts their lines. */
#include <stdio.h>

static int tfail;

/* One line per check: "ok - what" or "FAIL - file:line: what". */
#define T(cond, ...) do { \
	if (cond) { \
		printf("ok - "); \
	} else { \
		printf("FAIL - %s:%d: ", __FILE__, __LINE__); \
		tfail++; \
	} \
	printf(__VA_ARGS__); \
	putchar('\n'); \
	fflush(stdout); \
} while (0)

/* A check that cannot run here: "skip - what: why".  test/run.sh counts it
 * apart; it is never a pass. */
#define SKIP(...) do { \
	printf("skip - "); \
	printf(__VA_ARGS__); \
	putchar('\n'); \
	fflush(stdout); \
} while (0)
