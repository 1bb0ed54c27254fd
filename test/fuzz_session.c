/* See LICENSE file for copyright and license details. */
/* fuzz_session.c: libFuzzer target for session.c's parser and branch. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../agent.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Warnings are expected by the thousand: -close_fd_mask=2 sends stderr
 * to /dev/null, yet keeps libFuzzer's and the sanitizers' reports. */
int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char *v[64], quiet[] = "-close_fd_mask=2";
	int i;

	if (*argc < 1 || *argc >= (int)LEN(v) - 1)
		return 0;
	v[0] = (*argv)[0];
	v[1] = quiet;
	for (i = 1; i < *argc; i++)
		v[i + 1] = (*argv)[i];
	v[++*argc] = NULL;
	*argv = v;
	return 0;
}

/* Whether e is one of s's entries. */
static int
isentry(const Session *s, const Entry *e)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (e == &s->e[i])
			return 1;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Session s;
	const Entry **path;
	size_t n, i, from;

	if (sessparse(&s, (const char *)data, size, "fuzz") < 0) {
		if (s.n || s.e || s.head || s.fd != -1)
			abort();
		return 0;
	}
	if (!s.head || !s.cwd || strchr(s.head, '\n'))
		abort();
	if (s.n && (!s.leaf || s.leaf != s.e[s.n - 1].id))
		abort();
	for (i = 0; i < s.n; i++)
		if (!s.e[i].id || !s.e[i].type || (s.e[i].line &&
		    (strchr(s.e[i].line, '\n') ||
		     memcmp(s.e[i].line, data + s.e[i].off, s.e[i].len))))
			abort();
	n = sessbranch(&s, &path);
	if (n > s.n || (n && !path))
		abort();
	for (i = 0; i < n; i++)
		if (!isentry(&s, path[i]))
			abort();
	if (n && strcmp(path[n - 1]->id, s.leaf))
		abort();
	/* the lines the context uses are loaded */
	sesscompaction(path, n, &from, NULL);
	for (i = from; i < n; i++)
		if (!path[i]->line)
			abort();
	free(path);
	sessfree(&s);
	return 0;
}
