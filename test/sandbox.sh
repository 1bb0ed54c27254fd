#!/bin/sh
# sandbox.sh: what tool processes cannot do beyond writing files: change
# a file's mode, owner, times or attributes under readonly and plan,
# reach the network without net (UDP, other sockets, named Unix
# sockets), read agent's memory (a seccomp filter beside Landlock).
. test/lib.sh
ROOT=$PWD
W=$T/work
O=$T/outside
# a chattr +i that got through must not keep the directory from going
trap 'chattr -i "$O/f" 2>/dev/null; stopfake; rm -rf "$T"' EXIT

# runat args...: the agent in $W, no terminal to ask on.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "${AGENT:-$ROOT/agent}" \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

fresh() {
	[ -e "$O/f" ] && chattr -i "$O/f" 2>/dev/null
	rm -rf "$W" "$O" "$T/sessions"
	mkdir -p "$W" "$O"
	echo keep >"$O/f"
	chmod 644 "$O/f"
	touch -d '2020-02-02 02:02' "$O/f"
}

# result N: the content of the last message of request N (a tool result).
result() {
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["messages"][-1]["content"])' "$REQ/$1.json"
}

# bash1 SCRIPT PROFILE: run sh SCRIPT as the one bash call of a run under
# PROFILE (with -y); its output is then $T/res.
bash1() {
	printf 'tool c1 bash {"command": "sh %s"}\nfinish tool_calls\n' \
	    "$1" >"$T/call"
	startfake -x "$T/call" "$T/done"
	runat -y -g "$2" 'go'
	result 2 >"$T/res" 2>&1
}

# said NAME WORD: ok when the call's output has the line WORD.
said() {
	grep -qx "$2" "$T/res" && ok "$1" || fail "$1" "$(cat "$T/res")"
}

# notsaid NAME WORD: ok when it has not.
notsaid() {
	grep -qx "$2" "$T/res" && fail "$1" "$(cat "$T/res")" || ok "$1"
}

stamp() {
	stat -c '%a %u %g %Y' "$1"
}

printf 'text done\nfinish stop\n' | script done
if ! command -v python3 >/dev/null 2>&1; then
	skip "sandbox" "no python3 to probe with"
	exit 0
fi

# Landlock and the filter: this machine's, and whether the sandbox holds
# at all (a kernel with neither holds nothing; test/guard.sh says so).
fresh
echo 'echo probe' >"$T/probe.sh"
bash1 "$T/probe.sh" workspace
if grep -q 'not sandboxed' "$T/err"; then
	skip "sandbox" "no Landlock: $(cat "$T/err")"
	exit 0
fi
sc=$(python3 -c 'import ctypes, errno
l = ctypes.CDLL(None, use_errno=True)
l.prctl(22, 2, None, 0, 0)
print(ctypes.get_errno() == errno.EFAULT and 1 or 0)')
if [ "$sc" != 1 ] || [ -n "$EMULATOR" ]; then
	skip "sandbox: the seccomp filter" "none here (qemu-user or kernel)"
	exit 0
fi

# A file outside the project: its mode (set-id bits too), owner, times
# and attributes stay as they were under readonly and plan; touch(1) of
# a new file in TMPDIR works (a NULL times), touch -d does not.
cat >"$T/meta.sh" <<X
chmod 4755 $O/f; echo chmod=\$?
chown 65534:65534 $O/f; echo chown=\$?
touch -d 2000-01-01 $O/f; echo touchd=\$?
python3 -c 'import os; os.setxattr("$O/f", "user.agent", b"x")'; echo xattr=\$?
chattr +i $O/f 2>/dev/null; echo chattr=\$?
touch "\$TMPDIR/new"; echo touchnew=\$?
X
xattrok=0 chattrok=0
touch "$T/x"
python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.agent", b"x")' \
    "$T/x" 2>/dev/null && xattrok=1
chattr +i "$T/x" 2>/dev/null && chattr -i "$T/x" && chattrok=1
for prof in readonly plan; do
	fresh
	before=$(stamp "$O/f")
	bash1 "$T/meta.sh" $prof
	[ "$(stamp "$O/f")" = "$before" ] &&
	    ok "$prof: mode, owner and times of an outside file kept" ||
	    fail "$prof: mode, owner and times of an outside file kept" \
	    "$before -> $(stamp "$O/f"): $(cat "$T/res")"
	notsaid "$prof: chmod refused" chmod=0
	notsaid "$prof: chown refused" chown=0
	notsaid "$prof: touch -d refused" touchd=0
	if [ $xattrok = 1 ]; then
		python3 -c 'import os, sys
sys.exit("user.agent" in os.listxattr(sys.argv[1]))' "$O/f" &&
		    ok "$prof: no extended attribute set" ||
		    fail "$prof: no extended attribute set" "$(cat "$T/res")"
	else
		skip "$prof: no extended attribute set" "no user xattrs in $T"
	fi
	if [ $chattrok = 1 ]; then
		lsattr "$O/f" | cut -d' ' -f1 | grep -q i &&
		    fail "$prof: chattr +i refused" "$(lsattr "$O/f")" ||
		    ok "$prof: chattr +i refused"
	else
		skip "$prof: chattr +i refused" "chattr +i fails here"
	fi
	said "$prof: touch makes a file in TMPDIR" touchnew=0
	[ "$(cat "$O/f")" = keep ] && ok "$prof: the file's content kept" ||
	    fail "$prof: the file's content kept" "$(cat "$O/f")"
done

# Each call that changes metadata, on a file in TMPDIR (where Landlock
# lets it be written): refused under readonly, with EPERM, but for times
# set to now (a NULL times); under workspace none is.
cat >"$T/calls.py" <<'X'
import ctypes, errno, os, sys
l = ctypes.CDLL(None, use_errno=True)
x86 = os.uname().machine == "x86_64"
d = os.environ.get("TMPDIR", "/tmp")
f = os.path.join(d, "probe")
open(f, "w").close()
fb = f.encode()
fd = os.open(f, os.O_RDONLY)
AT = -100
tv = (ctypes.c_long * 4)(1, 0, 1, 0)
calls = [
    ("chmod", 90 if x86 else None, (fb, 0o755)),
    ("fchmod", 91 if x86 else 52, (fd, 0o755)),
    ("fchmodat", 268 if x86 else 53, (AT, fb, 0o755)),
    ("fchmodat2", 452, (AT, fb, 0o755, 0)),
    ("chown", 92 if x86 else None, (fb, 0, 0)),
    ("fchown", 93 if x86 else 55, (fd, 0, 0)),
    ("lchown", 94 if x86 else None, (fb, 0, 0)),
    ("fchownat", 260 if x86 else 54, (AT, fb, 0, 0, 0)),
    ("setxattr", 188 if x86 else 5, (fb, b"user.a", b"x", 1, 0)),
    ("lsetxattr", 189 if x86 else 6, (fb, b"user.a", b"x", 1, 0)),
    ("fsetxattr", 190 if x86 else 7, (fd, b"user.a", b"x", 1, 0)),
    ("removexattr", 197 if x86 else 14, (fb, b"user.a")),
    ("lremovexattr", 198 if x86 else 15, (fb, b"user.a")),
    ("fremovexattr", 199 if x86 else 16, (fd, b"user.a")),
    ("setxattrat", 463, (AT, fb, 0, b"user.a", None, 0)),
    ("removexattrat", 466, (AT, fb, 0, b"user.a")),
    ("file_setattr", 469, (AT, fb, None, 0, 0)),
    ("utime", 132 if x86 else None, (fb, tv)),
    ("utimes", 235 if x86 else None, (fb, tv)),
    ("futimesat", 261 if x86 else None, (AT, fb, tv)),
    ("utimensat", 280 if x86 else 88, (AT, fb, tv, 0)),
]
for name, nr, args in calls:
    if nr is None:
        continue
    r = l.syscall(nr, *args)
    e = ctypes.get_errno()
    print(name, "EPERM" if r < 0 and e == errno.EPERM else "not-EPERM:%d:%s" % (r, errno.errorcode.get(e, e)))
for name, nr, args in [("utime-null", 132 if x86 else None, (fb, None)),
                       ("utimes-null", 235 if x86 else None, (fb, None)),
                       ("futimesat-null", 261 if x86 else None, (AT, fb, None)),
                       ("utimensat-null", 280 if x86 else 88, (AT, fb, None, 0))]:
    if nr is None:
        continue
    r = l.syscall(nr, *args)
    print(name, "ok" if r == 0 else "fails:%s" % errno.errorcode.get(ctypes.get_errno()))
X
for prof in readonly workspace; do
	fresh
	echo "python3 $T/calls.py" >"$T/calls.sh"
	bash1 "$T/calls.sh" $prof
	n=$(grep -c ' EPERM$' "$T/res")
	m=$(grep -c ' not-EPERM' "$T/res")
	if [ $prof = readonly ]; then
		[ "$n" -ge 12 ] && [ "$m" -eq 0 ] &&
		    ok "readonly: all $n metadata calls refused, EPERM" ||
		    fail "readonly: every metadata call refused, EPERM" \
		    "$(cat "$T/res")"
	else
		[ "$n" -eq 0 ] && [ "$m" -ge 12 ] &&
		    ok "workspace: no metadata call refused" ||
		    fail "workspace: no metadata call refused" "$(cat "$T/res")"
	fi
	[ "$(grep -c -- '-null ok$' "$T/res")" -ge 1 ] &&
	    ! grep -q -- '-null fails' "$T/res" &&
	    ok "$prof: times set to now (NULL) allowed" ||
	    fail "$prof: times set to now (NULL) allowed" "$(cat "$T/res")"
done

# x32's numbers (bit 30 on x86_64) would name the same calls again:
# refused whole, ENOSYS, where the kernel has them.
cat >"$T/x32.sh" <<'X'
python3 -c 'import ctypes, os
l = ctypes.CDLL(None, use_errno=True)
print("x32-" + str(l.syscall(0x40000000 | 39) == os.getpid()))'
X
if [ "$(uname -m)" != x86_64 ]; then
	skip "workspace: no x32 calls" "not x86_64"
elif [ "$(sh "$T/x32.sh")" != x32-True ]; then
	skip "workspace: no x32 calls" "this kernel has none"
else
	fresh
	bash1 "$T/x32.sh" workspace
	said "workspace: no x32 calls" x32-False
fi

# workspace: chmod +x in the project is normal and works.
fresh
cat >"$T/chmod.sh" <<'X'
echo 'echo hi' >s.sh && chmod +x s.sh && ./s.sh && echo chmod=$?
touch -d 2000-01-01 s.sh; echo touchd=$?
X
bash1 "$T/chmod.sh" workspace
said "workspace: chmod +x in the project works" chmod=0
said "workspace: touch -d in the project works" touchd=0

# The network without net: UDP, TCP, netlink, io_uring and a named Unix
# socket outside the project are refused; under full they work.
python3 -c 'import socket, sys, os
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
t = socket.socket()
t.bind(("127.0.0.1", 0))
t.listen(5)
x = socket.socket(socket.AF_UNIX)
x.bind(sys.argv[1])
x.listen(5)
open(sys.argv[2] + ".tmp", "w").write("%d %d\n" % (u.getsockname()[1],
    t.getsockname()[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
log = open(sys.argv[3], "a")
import select
while True:
    r = select.select([u, t, x], [], [])[0]
    for s in r:
        if s is u:
            log.write("udp %s\n" % u.recv(100).decode()); log.flush()
        else:
            c = s.accept()[0]
            log.write("%s\n" % (s is t and "tcp" or "unix")); log.flush()
            c.close()' "$T/sock" "$T/ports" "$T/got" 2>"$T/server.err" &
SRV=$!
i=0
while [ ! -s "$T/ports" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
read -r UP TP <"$T/ports"
cat >"$T/net.sh" <<X
python3 -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(b"\$1", ("127.0.0.1", $UP))
print("udp-sent")'
python3 -c 'import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
print("udp6-socket")'
python3 -c 'import socket
socket.create_connection(("127.0.0.1", $TP))
print("tcp-connected")'
python3 -c 'import socket
socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
print("netlink-socket")'
python3 -c 'import socket
s = socket.socket(socket.AF_UNIX)
s.connect("$T/sock")
print("unix-connected")'
python3 -c 'import socket
a, b = socket.socketpair()
a.send(b"x")
print("socketpair-" + b.recv(1).decode())'
python3 -c 'import ctypes
l = ctypes.CDLL(None)
print("uring-" + str(l.syscall(425, 1, ctypes.create_string_buffer(120)) >= 0))'
X
uring=$(python3 -c 'import ctypes
l = ctypes.CDLL(None)
print(l.syscall(425, 1, ctypes.create_string_buffer(120)) >= 0)')
for prof in workspace readonly plan; do
	fresh
	sed "s/\\\$1/$prof/" "$T/net.sh" >"$T/net-$prof.sh"
	bash1 "$T/net-$prof.sh" $prof
	notsaid "$prof: no UDP socket" udp-sent
	grep -q "udp $prof" "$T/got" && fail "$prof: no datagram arrives" \
	    "$(cat "$T/got")" || ok "$prof: no datagram arrives"
	notsaid "$prof: no UDP over IPv6 either" udp6-socket
	notsaid "$prof: no TCP" tcp-connected
	notsaid "$prof: no netlink socket" netlink-socket
	notsaid "$prof: no named Unix socket outside the project" unix-connected
	said "$prof: socketpair works" socketpair-x
	if [ "$uring" = True ]; then
		said "$prof: no io_uring" uring-False
	else
		skip "$prof: no io_uring" "io_uring_setup fails here"
	fi
done
: >"$T/got"
fresh
sed "s/\\\$1/full/" "$T/net.sh" >"$T/net-full.sh"
bash1 "$T/net-full.sh" full
said "full: UDP is sent" udp-sent
i=0
while ! grep -q 'udp full' "$T/got" && [ $i -lt 40 ]; do
	sleep 0.05
	i=$((i + 1))
done
grep -q 'udp full' "$T/got" && ok "full: the datagram arrives" ||
    fail "full: the datagram arrives" "$(cat "$T/got")"
said "full: TCP connects" tcp-connected
said "full: a named Unix socket connects" unix-connected
kill $SRV 2>/dev/null
wait $SRV 2>/dev/null

# agent's memory from a tool: Landlock denies ptrace and /proc/PID/mem
# of a less sandboxed process to any sandboxed one, root's too (root's
# may still read environ, where the key is blanked).  Under full nothing
# holds root: it finds the key in agent's memory.
cat >"$T/mem.sh" <<'X'
tr '\0' '\n' </proc/$PPID/environ 2>/dev/null | grep -q test-key &&
    echo environ-key
(exec 3</proc/$PPID/mem) 2>/dev/null && echo mem-open
python3 - $PPID <<'P'
import sys
def has(m, a, b):
    tail = b""
    while a < b:
        try:
            m.seek(a)
            c = tail + m.read(min(b - a, 1 << 20))
        except (OSError, ValueError, OverflowError):
            return False
        if b"test-key" in c:
            return True
        tail = c[-8:]
        a += 1 << 20
    return False
pid = sys.argv[1]
try:
    m = open("/proc/%s/mem" % pid, "rb")
    for l in open("/proc/%s/maps" % pid):
        f = l.split()
        a, b = [int(x, 16) for x in f[0].split("-")]
        # the heap is small; a sanitizer's shadow is not
        if "rw" in f[1] and b - a < 1 << 28 and has(m, a, b):
            print("key-read")
            break
except OSError:
    pass
P
X
for prof in workspace readonly plan; do
	fresh
	bash1 "$T/mem.sh" $prof
	notsaid "$prof: no key in agent's environ" environ-key
	notsaid "$prof: agent's memory not opened" mem-open
	notsaid "$prof: the key not read" key-read
done
fresh
bash1 "$T/mem.sh" full
if [ "$(id -u)" -eq 0 ]; then
	said "full: root's tool reads the key in agent's memory (the control)" \
	    key-read
else
	notsaid "full: agent's memory unread (not dumpable)" key-read
fi

# AGENT_NO_SECCOMP: no filter, and what that leaves said once.
fresh
before=$(stamp "$O/f")
(export AGENT_NO_SECCOMP=1; bash1 "$T/meta.sh" readonly)
grep -q '^agent: Landlock ABI [0-9]* with no seccomp filter here does not sandbox: .*file modes, owners, times and attributes, .*UDP and other sockets' "$T/err" &&
    [ "$(grep -c '^agent: ' "$T/err")" -eq 1 ] &&
    ok "AGENT_NO_SECCOMP: what is not held is said once" ||
    fail "AGENT_NO_SECCOMP: what is not held is said once" "$(cat "$T/err")"
said "AGENT_NO_SECCOMP: chmod works again" chmod=0
abi=$(python3 -c 'import ctypes
print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null)
fresh
bash1 "$T/meta.sh" readonly
if [ "${abi:-0}" -ge 3 ]; then
	grep -q '^agent: ' "$T/err" && fail "readonly: nothing left to say" \
	    "$(cat "$T/err")" || ok "readonly: nothing left to say"
else
	skip "readonly: nothing left to say" "Landlock ABI ${abi:-?} < 3"
fi

# Root (as in CI) changes nothing of the machine from a sandboxed tool:
# reboot(2) with no magic (EINVAL where allowed, nothing done),
# finit_module(2) of no file (EBADF), bpf(2) with no attributes, and
# TIOCSTI into a terminal not its own (a pty held here, opened for
# reading: Landlock does not stop that) are all refused, with EPERM.
python3 -c 'import os, sys, time
m, s = os.openpty()
open(sys.argv[1] + ".tmp", "w").write(os.ttyname(s) + "\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(60)' "$T/pts" 2>/dev/null &
PTY=$!
i=0
while [ ! -s "$T/pts" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
cat >"$T/root.sh" <<X
python3 -c 'import ctypes, errno, fcntl, os, termios
l = ctypes.CDLL(None, use_errno=True)
NR = os.uname().machine == "x86_64" and (169, 313, 321) or (142, 273, 280)
def eperm(r):
    return r < 0 and ctypes.get_errno() == errno.EPERM
print("reboot-" + str(eperm(l.syscall(NR[0], 0, 0, 0, 0))))
print("module-" + str(eperm(l.syscall(NR[1], -1, b"", 0))))
print("bpf-" + str(eperm(l.syscall(NR[2], 0, None, 0))))
t = os.open("$(cat "$T/pts")", os.O_RDONLY | os.O_NOCTTY)
try:
    fcntl.ioctl(t, termios.TIOCSTI, b"x")
    print("tiocsti-False")
except OSError as e:
    print("tiocsti-" + str(e.errno == errno.EPERM))'
X
sh "$T/root.sh" >"$T/res" 2>&1
if [ "$(id -u)" -ne 0 ]; then
	skip "root's calls refused" "not root"
elif ! grep -qx reboot-False "$T/res" || ! grep -qx module-False "$T/res"
then
	skip "root's calls refused" "refused here already: $(cat "$T/res")"
else
	cp "$T/res" "$T/unsandboxed"
	for prof in workspace readonly; do
		fresh
		bash1 "$T/root.sh" $prof
		said "$prof: no reboot(2)" reboot-True
		said "$prof: no kernel module" module-True
		said "$prof: no bpf(2)" bpf-True
		if grep -qx tiocsti-False "$T/unsandboxed"; then
			said "$prof: no TIOCSTI into another terminal" \
			    tiocsti-True
		else
			skip "$prof: no TIOCSTI into another terminal" \
			    "refused here already: $(cat "$T/unsandboxed")"
		fi
	done
fi
kill $PTY 2>/dev/null
wait $PTY 2>/dev/null

# A socket agent was given open by its caller (fd 7, a UDP one here) is
# not passed on to a sandboxed tool: it would send past the filter.
python3 -c 'import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write("%d\n" % u.getsockname()[1])
import os
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
log = open(sys.argv[2], "a")
while True:
    log.write(u.recv(100).decode() + "\n")
    log.flush()' "$T/uport" "$T/ugot" 2>/dev/null &
SRV=$!
i=0
while [ ! -s "$T/uport" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
read -r UP <"$T/uport"
cat >"$T/fd7.sh" <<'X'
python3 -c 'import socket, sys
socket.socket(fileno=7).send(sys.argv[1].encode())
print("fd7-sent")' "$1"
X
for prof in workspace full; do
	fresh
	printf 'tool c1 bash {"command": "sh %s %s"}\nfinish tool_calls\n' \
	    "$T/fd7.sh" "$prof" >"$T/call"
	startfake -x "$T/call" "$T/done"
	(cd "$W" && agentexec setsid -w timeout 30 python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.connect(("127.0.0.1", int(sys.argv[1])))
os.dup2(s.fileno(), 7)
os.execv(sys.argv[2], sys.argv[2:])' "$UP" "${AGENT:-$ROOT/agent}" -y -g $prof go) \
	    </dev/null >"$T/out" 2>"$T/err"
	result 2 >"$T/res" 2>&1
done
i=0
while ! grep -qx full "$T/ugot" && [ $i -lt 40 ]; do sleep 0.05; i=$((i + 1)); done
grep -qx workspace "$T/ugot" &&
    fail "workspace: an inherited socket is not the tools'" "$(cat "$T/ugot")" ||
    ok "workspace: an inherited socket is not the tools'"
grep -qx full "$T/ugot" && ok "full: the inherited socket sends (the control)" ||
    fail "full: the inherited socket sends (the control)" "$(cat "$T/res")"
kill $SRV 2>/dev/null
wait $SRV 2>/dev/null || :	# its TERM is not the script's status
