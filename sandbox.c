/* See LICENSE file for copyright and license details. */
/* sandbox.c: what tool processes may do: Landlock rulesets from the
 * profile (write only where it says, no network unless it says), the
 * path checks write and edit make themselves, the run's private TMPDIR,
 * and file work done in a confined child. */
#define _XOPEN_SOURCE 700	/* realpath(3) */
#ifdef __linux__
#define _DEFAULT_SOURCE	/* syscall(2), for Landlock */
#endif
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
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

#include "agent.h"

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

/* Let the ruleset rs write beneath path (or to it, a file); a path
 * that does not exist is left out. */
static int
llallow(int rs, const char *path, unsigned long long handled)
{
	Llpath pb;
	struct stat st;
	int fd, rc, err;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
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

/* The ruleset a tool process of this run lives under: reading anywhere,
 * writing where the profile says, no TCP without net.  Its descriptor,
 * or -1 with errno. */
int
sandboxruleset(const Toolenv *e)
{
	Llattr a = { 0 };
	int rs, err;

	a.fs = LLWRITE;
	if (e->abi < 2)
		a.fs &= ~LANDLOCK_ACCESS_FS_REFER;
	if (e->abi < 3)
		a.fs &= ~LANDLOCK_ACCESS_FS_TRUNCATE;
	if (e->abi >= 4 && !e->net)
		a.net = LANDLOCK_ACCESS_NET_BIND_TCP |
		        LANDLOCK_ACCESS_NET_CONNECT_TCP;
	/* no way out through a server's abstract Unix socket either; a
	 * signal scope would keep one call from ending what another began */
	if (e->abi >= 6 && !e->net)
		a.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET;
	rs = syscall(SYS_landlock_create_ruleset, &a, e->abi >= 6 ? sizeof(a) :
	             e->abi >= 4 ? 2 * sizeof(a.fs) : sizeof(a.fs), 0);
	if (rs < 0)
		return -1;
	if (llallow(rs, "/dev/null", a.fs) < 0 ||
	    llallow(rs, e->tmpdir, a.fs) < 0 ||
	    (e->write == WTREE && llallow(rs, e->root, a.fs) < 0) ||
	    (e->write == WPLAN && llallow(rs, e->planpath, a.fs) < 0)) {
		err = errno;
		close(rs);
		errno = err;
		return -1;
	}
	return rs;
}

/* In a child: under the ruleset for good; no set-id program lifts it. */
int
sandboxenter(int rs)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_landlock_restrict_self, rs, 0) < 0 ? -1 : 0;
}
#else
static int landlockabi(void) { return 0; }
int sandboxruleset(const Toolenv *e) { (void)e; errno = ENOSYS; return -1; }
int sandboxenter(int rs) { (void)rs; errno = ENOSYS; return -1; }
#endif

/* Whether the kernel holds tool processes of this run. */
int
sandboxheld(const Toolenv *e)
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
beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (!dir[1])
		return 1;	/* the root */
	return !strncmp(path, dir, n) && (!path[n] || path[n] == '/');
}

/* Whether write and edit may write to path, by the profile: checked
 * before anything is done, held by the kernel as well where it can. */
int
sandboxwritable(const Toolenv *e, const char *tool, const char *path, Buf *out)
{
	char *to;
	int ok;

	if (e->write == WALL)
		return 0;
	if (!(to = sandboxlanding(path))) {
		bufaddf(out, "%s: cannot tell where %s leads: %s", tool, path,
		        errno == EINVAL ? "a \"..\" after a directory that "
		        "does not exist" : strerror(errno));
		return -1;
	}
	ok = beneath(to, e->tmpdir) || !strcmp(to, "/dev/null") ||
	     (e->write == WTREE && beneath(to, e->root)) ||
	     (e->write == WPLAN && !strcmp(to, e->planpath));
	if (!ok) {
		bufaddf(out, "Not allowed: %s", path);
		if (strcmp(to, path))
			bufaddf(out, " leads to %s, which", to);
		bufadds(out, " is outside what this run may write: ");
		if (e->write == WTREE)
			bufaddf(out, "the working directory %s", e->root);
		else if (e->write == WPLAN)
			bufaddf(out, "the plan file %s", e->planpath);
		else
			bufadds(out, "nothing (a read-only profile)");
		bufaddf(out, " and the temporary directory %s", e->tmpdir);
	}
	free(to);
	return ok ? 0 : -1;
}


/* The run's sandbox: the working directory, a private temporary
 * directory, the plan file, and what the kernel can hold.  What it
 * cannot is said once. */
int
sandboxinit(Toolenv *e)
{
	const char *tmp = getenv("TMPDIR"), *no = getenv("AGENT_NO_LANDLOCK");
	Buf b = { 0 }, miss = { 0 };
	int off = no && *no && strcmp(no, "0");

	if (e->write == WALL)
		return 0;
	if (!(e->root = realpath(".", NULL)))
		return -1;
	bufaddf(&b, "%s/agent-tmp-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.p)) {
		buffree(&b);
		return -1;
	}
	e->tmpdir = realpath(b.p, NULL);
	buffree(&b);
	if (!e->tmpdir)
		return -1;
	if (e->write == WPLAN && !(e->planpath = sandboxlanding(e->plan)))
		return -1;
	if (!(e->abi = off ? 0 : landlockabi())) {
		bufaddf(&miss, "%s: tool processes are not sandboxed; write "
		        "and edit still check their paths",
		        off ? "AGENT_NO_LANDLOCK is set" : "no Landlock here");
		e->unheld = bufdetach(&miss);
		return 0;
	}
	if (e->abi < 3)
		bufadds(&miss, ", file truncation");
	if (e->abi < 4 && !e->net)
		bufadds(&miss, ", TCP");
	if (e->abi < 6 && !e->net)
		bufadds(&miss, ", abstract Unix sockets");
	if (miss.len)
		bufaddf(&b, "Landlock ABI %d here does not sandbox: %s",
		        e->abi, miss.p + 2);
	e->unheld = b.len ? bufdetach(&b) : NULL;
	buffree(&miss);
	return 0;
}

/* Say, once, what the kernel does not hold: when a tool it would hold
 * first runs, not at every start, where a run that calls none would be
 * told of it for nothing. */
void
sandboxsay(Toolenv *e)
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
sandboxrun(const Toolenv *e, Jobfn fn, void *arg, Buf *out)
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
		if (sandboxenter(rs) < 0)
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
