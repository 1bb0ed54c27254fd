/* See LICENSE file for copyright and license details. */
/* maxrss.c: run a command and print its peak resident memory in KB on
 * stderr (the kernel's count at its exit: nothing sampled, nothing
 * missed); exit with its status.
 * usage: maxrss command [arg ...] */
#define _DEFAULT_SOURCE	/* wait4(2) */
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: maxrss command [arg ...]\n", stderr);
		return 2;
	}
	if ((pid = fork()) < 0) {
		perror("maxrss: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("maxrss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("maxrss: wait4");
		return 1;
	}
	fprintf(stderr, "maxrss %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}
