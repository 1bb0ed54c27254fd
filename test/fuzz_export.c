/* See LICENSE file for copyright and license details. */
/* fuzz_export.c: libFuzzer target for export.c: any bytes as a session
 * file, exported as HTML and as Markdown.  Besides crashes, an HTML page
 * that holds a script element is a fault: every byte of the session is
 * to be escaped.  (Markdown's fences show tools' text as it is, scripts
 * too: there a crash is the fault.) */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util.h"
#include "../json.h"
#include "../entry.h"
#include "../session.h"
#include "../export.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz_export.XXXXXX";
static char in[64], html[64], md[64];

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
	if (!mkdtemp(dir))
		abort();
	snprintf(in, sizeof(in), "%s/s.jsonl", dir);
	snprintf(html, sizeof(html), "%s/s.html", dir);
	snprintf(md, sizeof(md), "%s/s.md", dir);
	return 0;
}

/* The page at path, whole, or an empty Buf if there is none. */
static void
readpage(const char *path, Buf *b)
{
	int fd = open(path, O_RDONLY);

	bufreset(b);
	if (fd >= 0 && readall(fd, b, 64 << 20) < 0)
		abort();
	if (fd >= 0)
		close(fd);
	bufgrow(b, 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf page = { 0 };
	int fd;

	unlink(html);
	unlink(md);
	if ((fd = open(in, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 ||
	    writeall(fd, (const char *)data, size) < 0 || close(fd) < 0)
		abort();
	if (exportsession(in, NULL, html) == 0) {
		readpage(html, &page);
		if (strstr(page.p, "<script") || strstr(page.p, "<SCRIPT"))
			abort();
	}
	exportsession(in, NULL, md);
	buffree(&page);
	return 0;
}
