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
#include <sys/prctl.h>
#include <sys/syscall.h>

/* the same number on every architecture since Linux 5.13 */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif

/* Of <linux/filter.h> and <linux/seccomp.h>, which a cross build's C
 * library may not carry. */
#ifndef PR_SET_SECCOMP
#define PR_SET_SECCOMP 22
#endif
#define OKMODE 2		/* SECCOMP_MODE_FILTER */
#define OKERRNO 0x00050000U	/* SECCOMP_RET_ERRNO */
#define OKALLOW 0x7fff0000U	/* SECCOMP_RET_ALLOW */
#define OKLD 0x20		/* BPF_LD | BPF_W | BPF_ABS */
#define OKJEQ 0x15		/* BPF_JMP | BPF_JEQ | BPF_K */
#define OKRET 0x06		/* BPF_RET | BPF_K */
/* struct seccomp_data: int nr, then arch, ip, args[6] of 8 bytes; an
 * argument's low half is at its start on a little-endian machine */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define OKARG0 20
#else
#define OKARG0 16
#endif

typedef struct {
	unsigned short code;
	unsigned char jt, jf;
	unsigned int k;
} Okbpf;
typedef struct {
	unsigned short len;
	Okbpf *filter;
} Okprog;

#define OKNR(nr, err) \
	{ OKJEQ, 0, 1, (nr) }, { OKRET, 0, 0, OKERRNO | (err) }

static int
oldfilter(void)
{
	Okbpf f[] = {
		{ OKLD, 0, 0, 0 },	/* nr */
		OKNR(SYS_landlock_create_ruleset, ENOSYS),
		OKNR(SYS_landlock_add_rule, ENOSYS),
		OKNR(SYS_landlock_restrict_self, ENOSYS),
#ifdef SYS_seccomp
		OKNR(SYS_seccomp, ENOSYS),
#endif
		/* prctl(PR_SET_SECCOMP, ...): EINVAL */
		{ OKJEQ, 0, 3, SYS_prctl },
		{ OKLD, 0, 0, OKARG0 },
		{ OKJEQ, 0, 1, PR_SET_SECCOMP },
		{ OKRET, 0, 0, OKERRNO | EINVAL },
		{ OKRET, 0, 0, OKALLOW },
	};
	Okprog prog;

	prog.len = sizeof(f) / sizeof(f[0]);
	prog.filter = f;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return prctl(PR_SET_SECCOMP, OKMODE, &prog, 0, 0);
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
