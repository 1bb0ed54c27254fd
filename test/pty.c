/* See LICENSE file for copyright and license details. */
/* pty.c: run a program on a pseudo-terminal and drive it by a script of
 * keys, for test/line.sh (no expect(1) needed). */
/*
 * usage: pty [-o file] [-l log] [-t secs] cmd [arg ...] <script
 *
 * cmd runs in a session of its own with the terminal (80 columns, 24
 * rows) as its controlling terminal, stdin, stdout and stderr; with -o
 * its stdout goes to file instead.  -l copies all it draws to log.
 * The script, one command a line (blank lines and # lines skipped):
 *
 *   send TEXT      write TEXT to the terminal, with the escapes \e \r \n
 *                  \t \\ and \xHH, then let 50 ms pass
 *   wait TEXT      read until TEXT (same escapes) appears in what cmd
 *                  draws after the last text waited for; fail after -t
 *                  seconds (default 10)
 *   sleep MS       read what comes for MS milliseconds
 *   expect-exit N  cmd must exit with status N within -t seconds
 *
 * At the script's end cmd, if it is still running, is killed.  Exit 0,
 * or 1 with the failing line and what cmd drew on stderr.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

static int master = -1, logfd = -1;
static pid_t child;
static char *out;		/* all cmd drew */
static size_t nout, seen;	/* its length; the end of the last wait */
static int timeout = 10;

static long long
msnow(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static void
bail(const char *what, const char *arg)
{
	fprintf(stderr, "pty: %s%s\n--- output ---\n", what, arg);
	fwrite(out ? out : "", 1, nout, stderr);
	fputs("\n--- end ---\n", stderr);
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

/* Read what cmd draws for up to ms milliseconds, or less when stop
 * says so: 1 then, 0 at the time's end, -1 when the terminal is
 * closed. */
static int
ptyread(long long ms, int (*stop)(const char *), const char *arg)
{
	long long end = msnow() + ms, left;
	struct pollfd p;
	char buf[4096];
	ssize_t n;

	while ((left = end - msnow()) > 0) {
		if (stop && stop(arg))
			return 1;
		p.fd = master;
		p.events = POLLIN;
		if (poll(&p, 1, left > 50 ? 50 : (int)left) <= 0)
			continue;
		if ((n = read(master, buf, sizeof(buf))) <= 0)
			return -1;	/* EIO: every slave is closed */
		if (!(out = realloc(out, nout + n + 1)))
			bail("out of memory", "");
		memcpy(out + nout, buf, n);
		out[nout += n] = '\0';
		if (logfd >= 0 && write(logfd, buf, n) < 0)
			bail("write log", "");
	}
	return 0;
}

/* TEXT's escapes undone in place: its length. */
static size_t
ptyunescape(char *s)
{
	char *d = s, *s0 = s, hex[3] = { 0 };

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			*d++ = *s;
			continue;
		}
		switch (*++s) {
		case 'e': *d++ = 033; break;
		case 'r': *d++ = '\r'; break;
		case 'n': *d++ = '\n'; break;
		case 't': *d++ = '\t'; break;
		case 'x':
			if (s[1] && s[2]) {
				hex[0] = s[1];
				hex[1] = s[2];
				*d++ = (char)strtol(hex, NULL, 16);
				s += 2;
			}
			break;
		default: *d++ = *s; break;
		}
	}
	*d = '\0';
	return d - s0;
}

static int
found(const char *text)
{
	char *p;

	if (!out || !(p = strstr(out + seen, text)))
		return 0;
	seen = p - out + strlen(text);
	return 1;
}

static int
exited(const char *arg)
{
	(void)arg;
	return waitpid(child, (int *)NULL, WNOHANG) != 0;
}

static void
expectexit(const char *arg)
{
	long long end = msnow() + timeout * 1000LL;
	int st;
	pid_t r;

	while ((r = waitpid(child, &st, WNOHANG)) == 0 && msnow() < end)
		if (ptyread(50, NULL, NULL) < 0)
			poll(NULL, 0, 20);
	if (r != child)
		bail("did not exit: expect-exit ", arg);
	child = 0;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != atoi(arg)) {
		fprintf(stderr, "pty: exit status %d, signal %d\n",
		        WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		        WIFSIGNALED(st) ? WTERMSIG(st) : 0);
		bail("expect-exit ", arg);
	}
}

static void
step(char *line)
{
	char *arg = strchr(line, ' ');
	size_t n;

	arg = arg ? arg + 1 : line + strlen(line);
	if (!strncmp(line, "send ", 5)) {
		n = ptyunescape(arg);
		if (write(master, arg, n) != (ssize_t)n)
			bail("send failed: ", arg);
		ptyread(50, NULL, NULL);
	} else if (!strncmp(line, "wait ", 5)) {
		ptyunescape(arg);
		if (ptyread(timeout * 1000LL, found, arg) != 1)
			bail("timed out: wait ", arg);
	} else if (!strncmp(line, "sleep ", 6)) {
		ptyread(atoi(arg), NULL, NULL);
	} else if (!strncmp(line, "expect-exit ", 12)) {
		expectexit(arg);
	} else {
		bail("unknown command: ", line);
	}
}

static void
ptystart(char **argv, const char *outfile)
{
	struct winsize ws = { 24, 80, 0, 0 };
	int fd;

	if ((master = posix_openpt(O_RDWR | O_NOCTTY)) < 0 ||
	    grantpt(master) < 0 || unlockpt(master) < 0 || !ptsname(master))
		bail("no pseudo-terminal", "");
	ioctl(master, TIOCSWINSZ, &ws);
	if ((child = fork()) < 0)
		bail("fork failed", "");
	if (child)
		return;
	setsid();
	if ((fd = open(ptsname(master), O_RDWR)) < 0) {
		perror("pty: open slave");
		_exit(127);
	}
	ioctl(fd, TIOCSCTTY, 0);
	close(master);
	dup2(fd, 0);
	dup2(fd, 2);
	if (outfile) {
		close(fd);
		fd = open(outfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			_exit(127);
	}
	dup2(fd, 1);
	if (fd > 2)
		close(fd);
	execvp(argv[0], argv);
	perror("pty: exec");
	_exit(127);
}

int
main(int argc, char *argv[])
{
	char *line = NULL, *outfile = NULL;
	size_t cap = 0;
	ssize_t n;
	int c;

	while ((c = getopt(argc, argv, "o:l:t:")) != -1) {
		if (c == 'o')
			outfile = optarg;
		else if (c == 'l')
			logfd = open(optarg, O_WRONLY | O_CREAT | O_TRUNC,
			    0644);
		else if (c == 't')
			timeout = atoi(optarg);
		else if (c == '?')
			return 2;
	}
	if (optind == argc) {
		fputs("usage: pty [-o file] [-l log] [-t secs] cmd ...\n",
		      stderr);
		return 2;
	}
	ptystart(argv + optind, outfile);
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n && line[0] != '#')
			step(line);
	}
	if (child > 0 && !exited(NULL)) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	free(line);
	free(out);
	return 0;
}
