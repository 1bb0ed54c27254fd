/* See LICENSE file for copyright and license details. */
/* fuzz_export.c: libFuzzer target for export.c: any bytes as a session
 * file, exported as HTML and as Markdown, and as Markdown text given to
 * md.c.  Besides crashes, an HTML page that holds a script element is a
 * fault: every byte of the session is to be escaped; and md.c's HTML
 * may hold only its own tags and links to http(s).  (Markdown's fences
 * show tools' text as it is, scripts too: there a crash is the
 * fault.) */
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
#include "../md.h"
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

/* md.c's tags, and the attributes they may have. */
static const char *const tags[] = {
	"p", "blockquote", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5",
	"h6", "hr", "table", "thead", "tbody", "tr", "th", "td", "pre", "code",
	"em", "strong", "a"
};
static const char *const attrs[] = {
	" class=\"", " start=\"", " href=\"http://", " href=\"https://"
};

/* Abort unless each tag in h is one of md.c's. */
static void
mdcheck(const char *h)
{
	size_t i, k, n;

	for (; (h = strchr(h, '<')); h++) {
		h += h[1] == '/';
		for (n = 0; h[1 + n] >= 'a' && h[1 + n] <= 'z'; n++)
			;
		n += h[1] == 'h' && h[2] >= '1' && h[2] <= '6';
		for (i = 0; i < LEN(tags) && (strlen(tags[i]) != n ||
		     strncmp(h + 1, tags[i], n)); i++)
			;
		if (i == LEN(tags))
			abort();
		if (h[1 + n] == '>')
			continue;
		for (k = 0; k < LEN(attrs) && strncmp(h + 1 + n, attrs[k],
		     strlen(attrs[k])); k++)
			;
		if (k == LEN(attrs))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Buf page = { 0 };
	int fd;

	mdhtml(&page, (const char *)data, size);
	bufgrow(&page, 0);
	mdcheck(page.p);

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
