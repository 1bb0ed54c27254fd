/* See LICENSE file for copyright and license details. */
/* relay.c: a TCP relay for the tests and the benchmarks: it counts the
 * connections it is given, may hold each chunk back a while (a network
 * farther away than loopback), and may be an HTTP CONNECT proxy. */
/*
 * usage: relay [-P] [-p portfile] [-c countfile] [-d ms] [host port]
 *
 * Listens on 127.0.0.1 at a port the kernel picks, written to portfile
 * (temp file + rename) or stdout.  Each connection is relayed to host and
 * port, or with -P to where its CONNECT request says (the answer is 200,
 * and the tunnel follows).  -c rewrites countfile with the number of
 * connections accepted so far; -d holds every chunk ms milliseconds
 * before passing it on, each way.  Runs until SIGTERM.
 */
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void
die(const char *s)
{
	fprintf(stderr, "relay: %s: %s\n", s, strerror(errno));
	exit(1);
}

static void
putnum(const char *path, long n)
{
	char tmp[4096];
	FILE *f;

	if (!path) {
		printf("%ld\n", n);
		fflush(stdout);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w")))
		die(tmp);
	fprintf(f, "%ld\n", n);
	if (fclose(f) != 0 || rename(tmp, path) < 0)
		die(path);
}

static int
dialto(const char *host, const char *port)
{
	struct addrinfo hints, *res, *ai;
	int fd = -1, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &res))
		return -1;
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		if ((fd = socket(ai->ai_family, SOCK_STREAM, 0)) < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Read a CONNECT request's head a byte at a time, answer it, and return
 * a connection to where it asks, or -1. */
static int
connect_(int fd)
{
	char head[4096], *p, *colon;
	size_t n = 0;
	int to;

	while (n + 1 < sizeof(head) && read(fd, head + n, 1) == 1) {
		head[++n] = '\0';
		if (n >= 4 && !strcmp(head + n - 4, "\r\n\r\n"))
			break;
	}
	if (strncmp(head, "CONNECT ", 8) || !(p = strchr(head + 8, ' ')))
		return -1;
	*p = '\0';
	if (!(colon = strrchr(head + 8, ':')))
		return -1;
	*colon = '\0';
	if ((to = dialto(head + 8, colon + 1)) < 0) {
		dprintf(fd, "HTTP/1.1 502 Bad Gateway\r\n\r\n");
		return -1;
	}
	dprintf(fd, "HTTP/1.1 200 Connection established\r\n\r\n");
	return to;
}

/* Pass bytes both ways until either side ends. */
static void
pass(int a, int b, int delay)
{
	struct pollfd p[2];
	struct timespec ts;
	char buf[65536];
	ssize_t n;
	int i;

	p[0].fd = a;
	p[1].fd = b;
	p[0].events = p[1].events = POLLIN;
	ts.tv_sec = delay / 1000;
	ts.tv_nsec = delay % 1000 * 1000000L;
	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return;
		for (i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			if ((n = read(p[i].fd, buf, sizeof(buf))) <= 0)
				return;
			if (delay)
				nanosleep(&ts, NULL);
			if (write(p[!i].fd, buf, n) != n)
				return;
		}
	}
}

int
main(int argc, char *argv[])
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	const char *portfile = NULL, *countfile = NULL;
	int lfd, fd, to, c, one = 1, proxy = 0, delay = 0;
	long count = 0;

	while ((c = getopt(argc, argv, "Pp:c:d:")) != -1) {
		switch (c) {
		case 'P': proxy = 1; break;
		case 'p': portfile = optarg; break;
		case 'c': countfile = optarg; break;
		case 'd': delay = atoi(optarg); break;
		default:
			fputs("usage: relay [-P] [-p portfile] [-c countfile] "
			      "[-d ms] [host port]\n", stderr);
			return 2;
		}
	}
	if (!proxy && argc - optind != 2)
		return 2;
	signal(SIGCHLD, SIG_IGN);	/* no zombies */
	signal(SIGPIPE, SIG_IGN);
	if ((lfd = socket(AF_INET, SOCK_STREAM, 0)) < 0)
		die("socket");
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    listen(lfd, 16) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &len) < 0)
		die("listen");
	if (countfile)
		putnum(countfile, 0);
	putnum(portfile, ntohs(a.sin_port));
	for (;;) {
		if ((fd = accept(lfd, NULL, NULL)) < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		if (countfile)
			putnum(countfile, ++count);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (fork() == 0) {
			close(lfd);
			to = proxy ? connect_(fd) :
			     dialto(argv[optind], argv[optind + 1]);
			if (to >= 0)
				pass(fd, to, delay);
			_exit(0);
		}
		close(fd);
	}
}
