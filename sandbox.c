/* See LICENSE file for copyright and license details. */
/* sandbox.c: what tool processes may do: Landlock rulesets from the
 * profile (write only where it says, no network unless it says), the
 * path checks write and edit make themselves (the plan file's, .git's
 * config and hooks'), the run's private TMPDIR, and file work done in
 * a confined child. */
#define _XOPEN_SOURCE 700	/* realpath(3) */
#ifdef __linux__
#define _DEFAULT_SOURCE	/* syscall(2), for Landlock */
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "util.h"
#include "sandbox.h"

#ifdef __linux__
/* The kernel's Landlock ABI, as <linux/landlock.h> has it, written out:
 * Debian 12's header knows ABI 1 and 2 only, and musl builds have no
 * kernel headers at all.  The syscalls' numbers are the same on every
 * architecture but alpha. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range	/* close_range(2), numbered alike */
#define SYS_close_range 436
#endif
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define LANDLOCK_RULE_PATH_BENEATH 1
#define LANDLOCK_ACCESS_FS_WRITE_FILE (1ULL << 1)
#define LANDLOCK_ACCESS_FS_REMOVE_DIR (1ULL << 4)
#define LANDLOCK_ACCESS_FS_REMOVE_FILE (1ULL << 5)
#define LANDLOCK_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LANDLOCK_ACCESS_FS_MAKE_DIR (1ULL << 7)
#define LANDLOCK_ACCESS_FS_MAKE_REG (1ULL << 8)
#define LANDLOCK_ACCESS_FS_MAKE_SOCK (1ULL << 9)
#define LANDLOCK_ACCESS_FS_MAKE_FIFO (1ULL << 10)
#define LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LANDLOCK_ACCESS_FS_MAKE_SYM (1ULL << 12)
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)		/* ABI 2 */
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)	/* ABI 3 */
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)	/* ABI 4 */
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)	/* ABI 6 */
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#define LANDLOCK_ACCESS_FS_RESOLVE_UNIX (1ULL << 16)	/* ABI 9 */

/* struct landlock_ruleset_attr as ABI 6 has it; older kernels are given
 * the fields they know. */
typedef struct {
	unsigned long long fs;	/* handled_access_fs */
	unsigned long long net;	/* handled_access_net, ABI 4 */
	unsigned long long scoped;	/* ABI 6 */
} Llattr;

/* struct landlock_path_beneath_attr: the kernel's is packed, 12 bytes,
 * and reads no more; ours has the same fields at the same places. */
typedef struct {
	unsigned long long allowed;
	int fd;
} Llpath;

/* The rights that change the file system.  Reading and running are not
 * handled, so they stay allowed everywhere; nor are ioctls on devices
 * (ABI 5): they are no writes. */
#define LLFILE (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE)
#define LLWRITE (LLFILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | \
	LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR | \
	LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | \
	LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO | \
	LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM | \
	LANDLOCK_ACCESS_FS_REFER)

/* The Landlock ABI the kernel offers, 0 for none. */
static int
landlockabi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	                 LANDLOCK_CREATE_RULESET_VERSION);

	return v < 0 ? 0 : (int)v;
}

/* Let the ruleset rs write beneath the file open at fd (to it, if not a
 * directory), and close fd; a file that does not exist (fd -1, ENOENT)
 * is left out. */
static int
llallowfd(int rs, int fd, unsigned long long handled)
{
	Llpath pb;
	struct stat st;
	int rc, err;

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	memset(&pb, 0, sizeof(pb));
	pb.fd = fd;
	pb.allowed = handled;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		pb.allowed &= LLFILE;
	rc = syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
	             &pb, 0);
	err = errno;
	close(fd);
	errno = err;
	return rc < 0 ? -1 : 0;
}

/* The same for path, its last link not followed. */
static int
llallow(int rs, const char *path, unsigned long long handled)
{
	return llallowfd(rs, open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
	                 O_NONBLOCK), handled);
}

/* -w's directories, writable under WTREE as the tree is. */
static int
allowwdirs(int rs, const Sandbox *e, unsigned long long handled)
{
	int i;

	for (i = 0; e->wdirs && e->wdirs[i]; i++)
		if (llallow(rs, e->wdirs[i], handled) < 0)
			return -1;
	return 0;
}

/* The ruleset a tool process of this run lives under: reading anywhere,
 * writing where the profile says, no TCP without net.  Its descriptor,
 * or -1 with errno. */
int
sandboxruleset(const Sandbox *e)
{
	Llattr a = { 0 };
	int rs, err;

	a.fs = LLWRITE;
	if (e->abi < 2)
		a.fs &= ~LANDLOCK_ACCESS_FS_REFER;
	if (e->abi < 3)
		a.fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
	/* a named Unix socket is reached where a tool may write, and no
	 * other: a server's (docker's, D-Bus's) would act for it */
	if (e->abi >= 9 && !e->net)
		a.fs |= LANDLOCK_ACCESS_FS_RESOLVE_UNIX;
	if (e->abi >= 4 && !e->net)
		a.net = LANDLOCK_ACCESS_NET_BIND_TCP |
		        LANDLOCK_ACCESS_NET_CONNECT_TCP;
	/* no way out through a server's abstract Unix socket either */
	if (e->abi >= 6 && !e->net)
		a.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	/* no signal to agent (kill -STOP $PPID would freeze the run) nor
	 * to any process outside the call's own: not to one an earlier
	 * call started either, which a profile that lets them stay may
	 * want to end; it is the sandbox's price */
	if (e->abi >= 6)
		a.scoped |= LANDLOCK_SCOPE_SIGNAL;
	rs = syscall(SYS_landlock_create_ruleset, &a, e->abi >= 6 ? sizeof(a) :
	             e->abi >= 4 ? 2 * sizeof(a.fs) : sizeof(a.fs), 0);
	if (rs < 0)
		return -1;
	if (llallow(rs, "/dev/null", a.fs) < 0 ||
	    (e->tmpdir && llallow(rs, e->tmpdir, a.fs) < 0) ||
	    (e->write == WTREE && llallow(rs, e->root, a.fs) < 0) ||
	    (e->write == WTREE && allowwdirs(rs, e, a.fs) < 0) ||
	    (e->write == WPLAN && llallowfd(rs, sandboxplan(e, O_RDONLY |
	                                    O_NONBLOCK, 0), a.fs) < 0)) {
		err = errno;
		close(rs);
		errno = err;
		return -1;
	}
	return rs;
}

/*
 * A seccomp filter for what Landlock does not hold: a file's mode, owner,
 * times and extended attributes (no Landlock right covers them) under
 * WNONE and WPLAN, and without net every socket but a Unix one (Landlock
 * knows TCP alone), a Unix one too where Landlock cannot tell which
 * named socket it reaches (ABI 9's LANDLOCK_ACCESS_FS_RESOLVE_UNIX).
 * Under every profile it holds, io_uring is refused (its operations
 * open sockets and set attributes behind the filter's back), and what
 * root could do to the machine (scall below).  Classic BPF, as
 * <linux/seccomp.h> and <linux/filter.h> have it, written out as the
 * Landlock ABI is above.  The filter goes with every process the tool
 * starts: no_new_privs is set before it, as the kernel requires.
 */
#ifndef PR_SET_SECCOMP
#define PR_SET_SECCOMP 22
#endif
#define SECCOMP_MODE_FILTER 2
#define SCKILL 0x80000000U	/* SECCOMP_RET_KILL_PROCESS */
#define SCERRNO 0x00050000U	/* SECCOMP_RET_ERRNO, errno in the low bits */
#define SCALLOW 0x7fff0000U	/* SECCOMP_RET_ALLOW */
#define BPFLD 0x20		/* BPF_LD | BPF_W | BPF_ABS */
#define BPFJEQ 0x15		/* BPF_JMP | BPF_JEQ | BPF_K */
#define BPFJGE 0x35		/* BPF_JMP | BPF_JGE | BPF_K */
#define BPFRET 0x06		/* BPF_RET | BPF_K */
/* struct seccomp_data: int nr, __u32 arch, __u64 ip, __u64 args[6];
 * an argument's low 32 bits first, on the little-endian machines below */
#define SCNR 0
#define SCARCHOFF 4
#define SCARG(i) (16 + 8 * (i))

/* The syscalls' numbers: x86_64's, then the generic table's (aarch64);
 * -1 where the architecture has none.  An architecture not named here
 * gets no filter, and sandboxinit says what that leaves. */
#if defined(__x86_64__)
#define SCARCH 0xc000003eU	/* AUDIT_ARCH_X86_64 */
#define NR(x86, gen) (x86)
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#define SCARCH 0xc00000b7U	/* AUDIT_ARCH_AARCH64 */
#define NR(x86, gen) (gen)
#endif

typedef struct {
	unsigned short code;
	unsigned char jt, jf;	/* forward jumps, if true and if false */
	unsigned int k;
} Bpf;				/* struct sock_filter */

typedef struct {
	unsigned short len;
	Bpf *filter;
} Bpfprog;			/* struct sock_fprog */

enum {
	SCNO,		/* refused */
	SCNULL,		/* refused unless argument arg is 0 (NULL) */
	SCUNIX,		/* refused unless argument arg is AF_UNIX */
	SCIOCTL,	/* refused if argument arg is in scioctls */
	SCNOOP		/* does nothing, returns 0 */
};

typedef struct {
	int nr;
	int kind;
	int arg;
} Scrule;

#ifdef SCARCH
/* Under WNONE and WPLAN.  utime, utimes, futimesat and utimensat may set
 * a file's times to now (a NULL times), as touch(1) does to a file it
 * has made: in TMPDIR it must work, and on any other file that is all
 * they can do; the times themselves cannot be read here, only whether
 * the pointer is NULL. */
static const Scrule scmeta[] = {
	{ NR(90, -1), SCNO, 0 },		/* chmod */
	{ NR(91, 52), SCNO, 0 },		/* fchmod */
	{ NR(268, 53), SCNO, 0 },		/* fchmodat */
	{ NR(452, 452), SCNO, 0 },		/* fchmodat2 */
	{ NR(92, -1), SCNO, 0 },		/* chown */
	{ NR(93, 55), SCNO, 0 },		/* fchown */
	{ NR(94, -1), SCNO, 0 },		/* lchown */
	{ NR(260, 54), SCNO, 0 },		/* fchownat */
	{ NR(188, 5), SCNO, 0 },		/* setxattr */
	{ NR(189, 6), SCNO, 0 },		/* lsetxattr */
	{ NR(190, 7), SCNO, 0 },		/* fsetxattr */
	{ NR(197, 14), SCNO, 0 },		/* removexattr */
	{ NR(198, 15), SCNO, 0 },		/* lremovexattr */
	{ NR(199, 16), SCNO, 0 },		/* fremovexattr */
	{ NR(463, 463), SCNO, 0 },		/* setxattrat */
	{ NR(466, 466), SCNO, 0 },		/* removexattrat */
	{ NR(469, 469), SCNO, 0 },		/* file_setattr (chattr) */
	{ NR(132, -1), SCNULL, 1 },		/* utime */
	{ NR(235, -1), SCNULL, 1 },		/* utimes */
	{ NR(261, -1), SCNULL, 2 },		/* futimesat */
	{ NR(280, 88), SCNULL, 2 },		/* utimensat */
};

/* Without net.  socketpair(2) makes no way out: it stays. */
static const Scrule scnet[] = {
	{ NR(41, 198), SCUNIX, 0 },		/* socket */
	{ NR(53, 199), SCUNIX, 0 },		/* socketpair */
};

/* Under every filter: io_uring, and what root (as in CI) could do to
 * the machine or beyond the sandbox that Landlock does not hold: reboot
 * it, load kernel code, swap, push input into another terminal.  And
 * setsid and setpgid do nothing but return 0: every process a call
 * starts stays in the group agent made for it (childexec() in proc.c,
 * before the filter), so one kill(2) of the group reaches them all,
 * even one that forks on faster than /proc can be scanned; the kernel
 * restarts a fork that a fatal signal to the group interrupts.  setsid
 * cmd, nohup and daemon(3) still run, in that group.  Neither x86_64
 * nor aarch64 has a setpgrp call: the C library's goes to setpgid. */
static const Scrule scall[] = {
	{ NR(425, 425), SCNO, 0 },		/* io_uring_setup */
	{ NR(169, 142), SCNO, 0 },		/* reboot */
	{ NR(246, 104), SCNO, 0 },		/* kexec_load */
	{ NR(320, 294), SCNO, 0 },		/* kexec_file_load */
	{ NR(175, 105), SCNO, 0 },		/* init_module */
	{ NR(313, 273), SCNO, 0 },		/* finit_module */
	{ NR(176, 106), SCNO, 0 },		/* delete_module */
	{ NR(321, 280), SCNO, 0 },		/* bpf */
	{ NR(167, 224), SCNO, 0 },		/* swapon */
	{ NR(168, 225), SCNO, 0 },		/* swapoff */
	{ NR(16, 29), SCIOCTL, 1 },		/* ioctl */
	{ NR(112, 157), SCNOOP, 0 },		/* setsid */
	{ NR(109, 154), SCNOOP, 0 },		/* setpgid (setpgrp) */
};

/* The ioctls refused: TIOCSTI always; under WNONE and WPLAN chattr's
 * too, FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS and FS_IOC_FSSETXATTR. */
static const unsigned int scioctls[] = {
	0x5412U, 0x40086602U, 0x40046602U, 0x401c5820U
};

/* One instruction at f[*n]. */
static void
bpfop(Bpf *f, int *n, unsigned short code, int jt, int jf, unsigned int k)
{
	f[*n].code = code;
	f[*n].jt = jt;
	f[*n].jf = jf;
	f[*n].k = k;
	(*n)++;
}

/* The instructions of rule r at f[*n], the syscall's number in the
 * accumulator: if it is r's, every path returns; if not, the next rule
 * finds the number where it was. */
static void
scrule(Bpf *f, int *n, const Scrule *r, int kind, int meta)
{
	const unsigned int no = SCERRNO | EPERM;
	size_t i, m = meta ? sizeof(scioctls) / sizeof(scioctls[0]) : 1;

	if (r->nr < 0)
		return;
	switch (kind) {
	case SCNO:
		bpfop(f, n, BPFJEQ, 0, 1, r->nr);
		bpfop(f, n, BPFRET, 0, 0, no);
		break;
	case SCNULL:		/* both halves of the pointer */
		bpfop(f, n, BPFJEQ, 0, 6, r->nr);
		bpfop(f, n, BPFLD, 0, 0, SCARG(r->arg));
		bpfop(f, n, BPFJEQ, 0, 3, 0);
		bpfop(f, n, BPFLD, 0, 0, SCARG(r->arg) + 4);
		bpfop(f, n, BPFJEQ, 0, 1, 0);
		bpfop(f, n, BPFRET, 0, 0, SCALLOW);
		bpfop(f, n, BPFRET, 0, 0, no);
		break;
	case SCUNIX:		/* an int: the low half alone counts */
		bpfop(f, n, BPFJEQ, 0, 4, r->nr);
		bpfop(f, n, BPFLD, 0, 0, SCARG(r->arg));
		bpfop(f, n, BPFJEQ, 0, 1, 1);	/* AF_UNIX */
		bpfop(f, n, BPFRET, 0, 0, SCALLOW);
		bpfop(f, n, BPFRET, 0, 0, no);
		break;
	case SCIOCTL:		/* the request is an unsigned int */
		bpfop(f, n, BPFJEQ, 0, m + 3, r->nr);
		bpfop(f, n, BPFLD, 0, 0, SCARG(r->arg));
		for (i = 0; i < m; i++)
			bpfop(f, n, BPFJEQ, m - i - 1, i + 1 < m ? 0 : 1,
			      scioctls[i]);
		bpfop(f, n, BPFRET, 0, 0, no);
		bpfop(f, n, BPFRET, 0, 0, SCALLOW);
		break;
	case SCNOOP:		/* SECCOMP_RET_ERRNO with 0: returns 0 */
		bpfop(f, n, BPFJEQ, 0, 1, r->nr);
		bpfop(f, n, BPFRET, 0, 0, SCERRNO);
		break;
	}
}

/* The filter for the run's profile into f, its length returned: a call
 * from another architecture (i386 on x86_64, arm on aarch64) ends the
 * process, as its numbers mean other calls; x32's are refused. */
static int
scbuild(const Sandbox *e, Bpf *f)
{
	size_t i;
	int n = 0, kind, meta = e->write == WNONE || e->write == WPLAN;

	bpfop(f, &n, BPFLD, 0, 0, SCARCHOFF);
	bpfop(f, &n, BPFJEQ, 1, 0, SCARCH);
	bpfop(f, &n, BPFRET, 0, 0, SCKILL);
	bpfop(f, &n, BPFLD, 0, 0, SCNR);
#ifdef __x86_64__
	bpfop(f, &n, BPFJGE, 0, 1, 0x40000000U);	/* __X32_SYSCALL_BIT */
	bpfop(f, &n, BPFRET, 0, 0, SCERRNO | ENOSYS);
#endif
	for (i = 0; meta && i < sizeof(scmeta) / sizeof(scmeta[0]); i++)
		scrule(f, &n, &scmeta[i], scmeta[i].kind, meta);
	for (i = 0; !e->net && i < sizeof(scnet) / sizeof(scnet[0]); i++) {
		/* socket(AF_UNIX) only where Landlock holds named ones */
		kind = scnet[i].nr == NR(41, 198) && e->abi < 9 ? SCNO :
		       scnet[i].kind;
		scrule(f, &n, &scnet[i], kind, meta);
	}
	for (i = 0; i < sizeof(scall) / sizeof(scall[0]); i++)
		scrule(f, &n, &scall[i], scall[i].kind, meta);
	bpfop(f, &n, BPFRET, 0, 0, SCALLOW);
	return n;
}

/* Whether a filter can be installed: the kernel copies the program
 * before anything else, so a NULL one fails with EFAULT where filters
 * exist and EINVAL where they do not (or under qemu-user). */
static int
scavail(void)
{
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, NULL, 0, 0) < 0 &&
	       errno == EFAULT;
}

/* In a child, no_new_privs set: under the filter for good. */
static int
scenter(const Sandbox *e)
{
	Bpf f[128];	/* 111 at most: 6 + 62 (meta) + 10 (net) + 33 */
	Bpfprog prog;

	prog.len = scbuild(e, f);
	prog.filter = f;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
#else
static int scavail(void) { return 0; }
static int scenter(const Sandbox *e) { (void)e; errno = ENOSYS; return -1; }
#endif

/* What agent was given open past stderr by its own caller (a CI
 * runner's socket, say) closes when the tool runs a program: a socket
 * would let it send where the filter and Landlock do not look.  Every
 * kernel with Landlock has close_range's CLOSE_RANGE_CLOEXEC (5.11);
 * a container's policy may still refuse it: then /proc/self/fd. */
static int
sandboxfds(void)
{
	DIR *d;
	struct dirent *de;
	int fd, rc = 0;

	if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
		return 0;
	if (!(d = opendir("/proc/self/fd")))
		return -1;
	while ((de = readdir(d)))
		if ((fd = (int)strtol(de->d_name, NULL, 10)) > 2 &&
		    fd != dirfd(d) && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			rc = -1;
	closedir(d);
	return rc;
}

/* In a child: under the ruleset and the filter for good; no set-id
 * program lifts them. */
int
sandboxenter(const Sandbox *e, int rs)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	if (syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		return -1;
	if (sandboxfds() < 0)
		return -1;
	return e->filter ? scenter(e) : 0;
}
#else
static int landlockabi(void) { return 0; }
static int scavail(void) { return 0; }
int sandboxruleset(const Sandbox *e) { (void)e; errno = ENOSYS; return -1; }
int
sandboxenter(const Sandbox *e, int rs)
{
	(void)e;
	(void)rs;
	errno = ENOSYS;
	return -1;
}
#endif

/* Whether the kernel holds tool processes of this run. */
int
sandboxheld(const Sandbox *e)
{
	return e->write != WALL && e->abi > 0;
}

/* Where a write to path lands: the links it names followed, the
 * directories above resolved, the part that does not exist yet added as
 * it is.  NULL with errno if that cannot be told, as for a ".." in that
 * part (EINVAL): mkdir would make a directory it then leaves. */
char *
sandboxlanding(const char *path)
{
	char *target, *abs, *head, *real = NULL;
	char cwd[PATH_MAX];
	struct stat st;
	size_t n, k;
	Buf b = { 0 };

	if (linktarget(path, &target) < 0)
		return NULL;
	if (!target)
		target = xstrdup(path);
	if (*target != '/' && getcwd(cwd, sizeof(cwd)))
		bufaddf(&b, "%s/", cwd);
	bufadds(&b, target);
	free(target);
	abs = bufdetach(&b);
	for (n = strlen(abs);; n = k ? k - 1 : 0) {
		head = xstrndup(abs, n ? n : 1);
		if (lstat(head, &st) == 0 || errno != ENOENT || !n)
			break;
		free(head);
		head = NULL;
		for (k = n; k > 0 && abs[k - 1] != '/'; k--)
			;
		if (n - k == 2 && !strncmp(abs + k, "..", 2)) {
			errno = EINVAL;
			break;
		}
	}
	if (head && (real = realpath(head, NULL))) {
		bufadds(&b, strcmp(real, "/") ? real : "");
		bufadds(&b, abs + n);
		free(real);
		real = bufdetach(&b);
	}
	free(head);
	free(abs);
	return real;
}

/* Whether path is dir or beneath it. */
static int
pathbeneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!dir[1])
		return 1;	/* the root */
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* Whether path is beneath one of -w's directories. */
static int
inwdirs(const Sandbox *e, const char *path)
{
	int i;

	for (i = 0; e->wdirs && e->wdirs[i]; i++)
		if (pathbeneath(path, e->wdirs[i]))
			return 1;
	return 0;
}

/*
 * The plan file.  A repository may ship PLAN.md as a link to ~/.bashrc,
 * or to a file not there yet, or as a hard link to a file outside, or
 * put a link on the way to it: the plan profile would then write there.
 * So it is reached from the working directory one component at a time,
 * no link followed, and it must be absent or a regular file with one
 * link; the config check has made sure its path is relative, with no
 * ".", ".." or empty component.
 */

/* The directory path is in, reached from the directory from one name
 * at a time with no link followed, open; the last name in *last; -1 with
 * errno (ENOTDIR or ELOOP for a link on the way).  path is relative,
 * with no ".", ".." or empty name: the plan file's, or a path that
 * realpath gave (undo.c's). */
int
sandboxwalk(const char *from, const char *path, const char **last)
{
	const char *p = path;
	char name[NAME_MAX + 1];
	size_t k;
	int dir, fd;

	if ((dir = open(from, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	while (p[k = strcspn(p, "/")]) {
		if (k > NAME_MAX) {
			close(dir);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, p, k);
		name[k] = '\0';
		fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		            O_CLOEXEC);
		close(dir);
		if ((dir = fd) < 0)
			return -1;
		p += k + 1;
	}
	*last = p;
	return dir;
}

/* The plan file opened with flags, its last link not followed either:
 * a descriptor, or -1 with errno. */
int
sandboxplan(const Sandbox *e, int flags, int mode)
{
	const char *last;
	int dir, fd, err;

	if ((dir = sandboxwalk(e->root, e->plan, &last)) < 0)
		return -1;
	fd = openat(dir, last, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	err = errno;
	close(dir);
	errno = err;
	return fd;
}

/* Whether the plan file may be written: absent, or a regular file with
 * one link, no link on its way; if not, why. */
static int
plancheck(const Sandbox *e, Buf *why)
{
	struct stat st;
	const char *last;
	int dir, rc;

	if ((dir = sandboxwalk(e->root, e->plan, &last)) < 0) {
		if (errno == ENOENT)
			return 0;	/* the write will say */
		bufaddf(why, "the plan file %s: %s", e->plan,
		        errno == ENOTDIR || errno == ELOOP ? "a directory on "
		        "its way is a symbolic link, or no directory" :
		        strerror(errno));
		return -1;
	}
	rc = fstatat(dir, last, &st, AT_SYMLINK_NOFOLLOW);
	close(dir);
	if (rc < 0 && errno == ENOENT)
		return 0;
	if (rc < 0)
		bufaddf(why, "the plan file %s: %s", e->plan, strerror(errno));
	else if (S_ISLNK(st.st_mode))
		bufaddf(why, "the plan file %s is a symbolic link: the plan "
		        "profile writes through none", e->plan);
	else if (!S_ISREG(st.st_mode))
		bufaddf(why, "the plan file %s is not a regular file",
		        e->plan);
	else if (st.st_nlink > 1)
		bufaddf(why, "the plan file %s has %lu hard links: another "
		        "may be outside the working directory", e->plan,
		        (unsigned long)st.st_nlink);
	return why->len ? -1 : 0;
}

/* What of .git git obeys, run by none of our sandboxes: gitguard.c
 * puts back what tools change of it, and write and edit refuse it. */
static const char *const gitsurface[] = {
	".git/config", ".git/config.worktree", ".git/commondir", ".git/hooks",
	".git/info", ".git/modules", NULL
};

/* Whether the landing to is .git (a work tree's .git file says where
 * the repository is), or in gitsurface, in the working directory. */
static int
ingit(const Sandbox *e, const char *to)
{
	Buf b = { 0 };
	int k, in = 0;

	for (k = -1; !in && (k < 0 || gitsurface[k]); k++) {
		bufreset(&b);
		bufaddf(&b, "%s/%s", strcmp(e->root, "/") ? e->root : "",
		        k < 0 ? ".git" : gitsurface[k]);
		in = k < 0 ? !strcmp(to, b.p) : pathbeneath(to, b.p);
	}
	buffree(&b);
	return in;
}

/* Whether write and edit may write to path, by the profile: checked
 * before anything is done, held by the kernel as well where it can. */
int
sandboxwritable(const Sandbox *e, const char *tool, const char *path, Buf *out)
{
	char *to;
	int ok;

	if (e->write == WALL && (e->gitwrite || !e->root))
		return 0;
	if (!(to = sandboxlanding(path))) {
		bufaddf(out, "%s: cannot tell where %s leads: %s", tool, path,
		        errno == EINVAL ? "a \"..\" after a directory that "
		        "does not exist" : strerror(errno));
		return -1;
	}
	if (!e->gitwrite && e->root && ingit(e, to)) {
		bufaddf(out, "Not allowed: %s", path);
		if (strcmp(to, path))
			bufaddf(out, " leads to %s, which", to);
		bufadds(out, " is git's configuration or hooks, read-only for "
		        "tools in this run: git would run what they name "
		        "outside the sandbox");
		free(to);
		return -1;
	}
	if (e->write == WALL) {
		free(to);
		return 0;
	}
	ok = (e->tmpdir && pathbeneath(to, e->tmpdir)) ||
	     !strcmp(to, "/dev/null") ||
	     (e->write == WTREE && (pathbeneath(to, e->root) ||
	                            inwdirs(e, to))) ||
	     (e->write == WPLAN && !strcmp(to, e->planpath));
	if (!ok) {
		bufaddf(out, "Not allowed: %s", path);
		if (strcmp(to, path))
			bufaddf(out, " leads to %s, which", to);
		bufadds(out, " is outside what this run may write: ");
		if (e->write == WTREE)
			bufaddf(out, "the working directory %s%s", e->root,
			        e->wdirs && e->wdirs[0] ? ", the directories "
			        "of -w" : "");
		else if (e->write == WPLAN)
			bufaddf(out, "the plan file %s", e->planpath);
		else
			bufadds(out, "nothing (a read-only profile)");
		if (e->tmpdir)
			bufaddf(out, " and the temporary directory %s",
			        e->tmpdir);
	}
	free(to);
	return ok ? 0 : -1;
}


/* Whether the variable name is set to other than "" or "0". */
static int
envset(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0");
}

/* What the kernel does not hold under the run's profile, each after a
 * ", " in miss: Landlock's gaps and, with no filter, what it holds. */
static void
sandboxgaps(const Sandbox *e, Buf *miss)
{
	int meta = e->write == WNONE || e->write == WPLAN;

	if (e->abi < 3)
		bufadds(miss, ", file truncation");
	if (meta && !e->filter)
		bufadds(miss, ", file modes, owners, times and attributes");
	if (e->abi < 6)
		bufadds(miss, ", signals to agent");
	if (e->net)
		return;
	if (e->abi < 4 && !e->filter)
		bufadds(miss, ", TCP");
	if (!e->filter)
		bufadds(miss, ", UDP and other sockets");
	if (e->abi < 9 && !e->filter)
		bufadds(miss, ", named Unix sockets");
	if (e->abi < 6 && !e->filter)
		bufadds(miss, ", abstract Unix sockets");
}

/* The run's sandbox: the working directory, a private temporary
 * directory, the plan file, and what the kernel can hold.  What it
 * cannot is said once.  -1 with errno, or with why a plan file that
 * may not be written (a config error: the run does not start). */
int
sandboxinit(Sandbox *e, Buf *why)
{
	const char *tmp = getenv("TMPDIR");
	Buf b = { 0 }, miss = { 0 };
	int off = envset("AGENT_NO_LANDLOCK"), made, bad = 0;

	e->root = realpath(".", NULL);	/* under WALL for gitwrite 0 */
	if (e->write == WALL)
		return 0;
	if (!e->root)
		return -1;
	if (e->write == WPLAN) {
		if (plancheck(e, why) < 0)
			return -1;
		bufaddf(&b, "%s/%s", strcmp(e->root, "/") ? e->root : "",
		        e->plan);
		e->planpath = bufdetach(&b);
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	bufaddf(&b, "%s/agent-tmp-XXXXXX", tmp);
	made = mkdtemp(b.p) != NULL;
	/* a read-only root: the tools go without one, and are told so */
	if (!made && (errno == EROFS || errno == EACCES))
		warn("%s: cannot write (%s): tools have no temporary "
		     "directory", tmp, strerror(errno));
	else if (!made || !(e->tmpdir = realpath(b.p, NULL)))
		bad = 1;
	buffree(&b);
	if (bad)
		return -1;
	if (!(e->abi = off ? 0 : landlockabi())) {
		bufaddf(&miss, "%s: tool processes are not sandboxed; write "
		        "and edit still check their paths",
		        off ? "AGENT_NO_LANDLOCK is set" : "no Landlock here");
		e->unheld = bufdetach(&miss);
		return 0;
	}
	e->filter = !envset("AGENT_NO_SECCOMP") && scavail();
	sandboxgaps(e, &miss);
	if (miss.len)
		bufaddf(&b, "Landlock ABI %d%s here does not sandbox: %s",
		        e->abi, e->filter ? "" : " with no seccomp filter",
		        miss.p + 2);
	e->unheld = b.len ? bufdetach(&b) : NULL;
	buffree(&miss);
	return 0;
}

/* At the end of the run: the run's temporary directory goes with what
 * tools left in it. */
void
sandboxfree(Sandbox *e)
{
	if (e->tmpdir && rmtree(e->tmpdir) < 0)
		warn("cannot remove %s:", e->tmpdir);
	free(e->tmpdir);
	free(e->root);
	free(e->planpath);
	free(e->unheld);
	e->tmpdir = e->root = e->planpath = e->unheld = NULL;
}

/* Say, once, what the kernel does not hold: when a tool it would hold
 * first runs, not at every start, where a run that calls none would be
 * told of it for nothing. */
void
sandboxsay(Sandbox *e)
{
	if (!e->unheld)
		return;
	warn("%s", e->unheld);
	free(e->unheld);
	e->unheld = NULL;
}


/* Run fn in a child under the run's ruleset, so the kernel holds the
 * file tools to the profile as it holds commands; here without one. */
int
sandboxrun(const Sandbox *e, Jobfn fn, void *arg, Buf *out)
{
	Buf got = { 0 };
	int fds[2], rs, st, rc = 1;
	pid_t pid;

	if (!sandboxheld(e))
		return fn(arg, out);
	if ((rs = sandboxruleset(e)) < 0) {
		bufaddf(out, "Cannot make the sandbox: %s", strerror(errno));
		return 1;
	}
	if (pipe(fds) < 0) {
		bufaddf(out, "Cannot make a pipe: %s", strerror(errno));
		close(rs);
		return 1;
	}
	if ((pid = fork()) < 0) {
		bufaddf(out, "Cannot start the writer: %s", strerror(errno));
		close(rs);
		close(fds[0]);
		close(fds[1]);
		return 1;
	}
	if (pid == 0) {
		close(fds[0]);
		bufaddc(&got, '1');
		if (sandboxenter(e, rs) < 0)
			bufadds(&got, "Cannot enter the sandbox");
		else
			got.p[0] = '0' + (fn(arg, &got) != 0);
		_exit(writeall(fds[1], got.p, got.len) < 0);
	}
	close(rs);
	close(fds[1]);
	readall(fds[0], &got, 1 << 20);
	close(fds[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got.len && WIFEXITED(st) && !WEXITSTATUS(st)) {
		rc = got.p[0] != '0';
		bufadd(out, got.p + 1, got.len - 1);
	} else {
		bufadds(out, "The writer failed");
	}
	buffree(&got);
	return rc;
}
