/* See LICENSE file for copyright and license details. */
/* oldkernel.c: run a program as on a kernel built without Landlock and
 * seccomp filters (a board's vendor 4.x or 5.x): under a seccomp filter
 * of ours, landlock_create_ruleset, landlock_add_rule,
 * landlock_restrict_self and seccomp fail with ENOSYS, and
 * prctl(PR_SET_SECCOMP) with EINVAL, as such a kernel answers them.
 *
 * usage: oldkernel program [arg...]
 * Exits 77 where no filter can be installed (qemu-user, another OS). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

/* the same number on every architecture since Linux 5.13 */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

#define OKNR(nr, err) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err))

static int
oldfilter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, nr)),
		OKNR(SYS_landlock_create_ruleset, ENOSYS),
		OKNR(SYS_landlock_add_rule, ENOSYS),
		OKNR(SYS_landlock_restrict_self, ENOSYS),
#ifdef SYS_seccomp
		OKNR(SYS_seccomp, ENOSYS),
#endif
		/* prctl(PR_SET_SECCOMP, ...): EINVAL */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog;

	prog.len = sizeof(f) / sizeof(f[0]);
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
#else
static int
oldfilter(void)
{
	errno = ENOSYS;
	return -1;
}
#endif

int
main(int argc, char *argv[])
{
	if (argc < 2) {
		fprintf(stderr, "usage: oldkernel program [arg...]\n");
		return 2;
	}
	if (oldfilter() < 0) {
		fprintf(stderr, "oldkernel: no seccomp filter here: %s\n",
		        strerror(errno));
		return 77;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "oldkernel: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
