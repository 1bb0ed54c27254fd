/* See LICENSE file for copyright and license details. */
/* peak.c: run a command n times, its stdio on /dev/null; print the median
 * wall time in ms, the highest peak RSS in KB and the median CPU time
 * (user and system, its children's too) in ms.  A small process forks
 * it, so the figure is the command's own and not a big parent's. */
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int
bydouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char *argv[])
{
	struct timespec t0, t1;
	struct rusage ru;
	double *ms, *cpu;
	long rss = 0;
	int n, i, fd, status;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1) {
		fputs("usage: peak n command [arg ...]\n", stderr);
		return 2;
	}
	if (!(ms = calloc(n, sizeof(*ms))) || !(cpu = calloc(n, sizeof(*cpu))))
		return 1;
	for (i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if ((pid = fork()) < 0)
			return 1;
		if (pid == 0) {
			fd = open("/dev/null", O_RDWR);
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) < 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "peak: %s failed\n", argv[2]);
			return 1;
		}
		ms[i] = (t1.tv_sec - t0.tv_sec) * 1e3 +
		        (t1.tv_nsec - t0.tv_nsec) / 1e6;
		cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		if (ru.ru_maxrss > rss)
			rss = ru.ru_maxrss;
	}
	qsort(ms, n, sizeof(*ms), bydouble);
	qsort(cpu, n, sizeof(*cpu), bydouble);
	printf("%.1f %ld %.1f\n", ms[n / 2], rss, cpu[n / 2]);
	return 0;
}
