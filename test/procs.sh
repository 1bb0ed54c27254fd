#!/bin/sh
# procs.sh: what the tools leave running: killed when a call ends under a
# profile without stay, and always when agent exits, on SIGTERM and
# SIGHUP too (agent is their subreaper: nohup, setsid and a double fork
# do not escape); the run's TMPDIR removed then, through no link a job
# swaps in; no signal from a tool to agent (Landlock ABI 6).
. test/lib.sh
ROOT=$PWD
W=$T/work

# runat args...: the agent in $W, no terminal to ask on, $TO seconds.
runat() {
	(cd "$W" && agentexec setsid -w timeout -k 2 "${TO:-30}" \
	    "${AGENT:-$ROOT/agent}" "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# bashcall CMD: a fake provider whose model calls bash with CMD, then
# is done.
bashcall() {
	printf 'tool c1 bash {"command": "%s"}\nfinish tool_calls\n' "$1" \
	    >"$T/call"
	startfake -x "$T/call" "$T/done"
}

# bashrun CMD PROFILE: CMD as the one bash call of a run under PROFILE.
bashrun() {
	bashcall "$1"
	runat -y -g "$2" go
}

# waitfor FILE...: until each exists, 10 s at most.
waitfor() {
	for _f; do
		_i=0
		while [ ! -s "$_f" ] && [ "$_i" -lt 200 ]; do
			sleep 0.05
			_i=$((_i + 1))
		done
	done
}

# dead NAME DIR: ok when no job of jobs.sh in DIR is alive, nor touched
# its file (it would, a second after it began).
dead() {
	_alive=
	for _j in amp nohup setsid dfork; do
		_p=$(cat "$2/$_j.pid" 2>/dev/null)
		if [ -z "$_p" ]; then
			_alive="$_alive $_j:no-pid"
		elif kill -0 "$_p" 2>/dev/null || [ -e "$2/$_j.t" ]; then
			_alive="$_alive $_j"
			kill -9 "$_p" 2>/dev/null
		fi
	done
	if [ -n "$EMULATOR" ] && [ "$_alive" = " setsid" ]; then
		skip "$1" "qemu-user takes no PR_SET_CHILD_SUBREAPER"
		return
	fi
	[ -z "$_alive" ] && ok "$1" || fail "$1" "left:$_alive $(cat "$T/err")"
}

printf 'text done\nfinish stop\n' | script done

# jobs.sh DIR: four jobs that would touch DIR/JOB.t a second on, each
# with its pid in DIR/JOB.pid: cmd &, nohup, setsid and a double fork.
cat >"$T/jobs.sh" <<'X'
D=$1
j='echo $$ >"$0.pid"; sleep 1; touch "$0.t"'
sh -c "$j" "$D/amp" >/dev/null 2>&1 &
nohup sh -c "$j" "$D/nohup" >/dev/null 2>&1 &
setsid sh -c "$j" "$D/setsid" >/dev/null 2>&1 &
(sh -c "$j" "$D/dfork" >/dev/null 2>&1 &)
i=0
while [ "$i" -lt 200 ]; do
	[ -s "$D/amp.pid" ] && [ -s "$D/nohup.pid" ] &&
	    [ -s "$D/setsid.pid" ] && [ -s "$D/dfork.pid" ] && break
	sleep 0.05
	i=$((i + 1))
done
X

# A normal end under full, which lets a call's jobs stay: killed at exit.
rm -rf "$W" && mkdir -p "$W/s"
bashrun "sh $T/jobs.sh $W/s" full
[ "$RC" = 0 ] || fail "procs: full: the run" "rc $RC: $(cat "$T/err")"
dead "procs: full: nothing left running after the run" "$W/s"

# SIGTERM and SIGHUP while a call sleeps: its jobs killed, TMPDIR gone.
for sig in TERM HUP; do
	rm -rf "$W" && mkdir -p "$W/s"
	bashcall "sh $T/jobs.sh $W/s; echo \$PPID >$W/s/agent; \
echo \$TMPDIR >$W/s/tmp; touch \$TMPDIR/x; sleep 30"
	runat -y go &
	waitfor "$W/s/agent" "$W/s/tmp"
	kill -"$sig" "$(cat "$W/s/agent")"
	wait $!
	dead "procs: SIG$sig: nothing left running" "$W/s"
	tmp=$(cat "$W/s/tmp")
	[ -n "$tmp" ] && [ ! -e "$tmp" ] && ok "procs: SIG$sig: TMPDIR gone" ||
	    fail "procs: SIG$sig: TMPDIR gone" "$tmp: $(ls -A "$tmp")"
done

# Under workspace a job ends with its call; under full it lives on.
for prof in workspace full; do
	rm -rf "$W" && mkdir -p "$W"
	script j1 <<X
tool c1 bash {"command": "sleep 30 >/dev/null 2>&1 & echo \$! >$W/bg"}
finish tool_calls
X
	script j2 <<X
tool c2 bash {"command": "test -d /proc/\$(cat $W/bg); echo there=\$?"}
finish tool_calls
X
	startfake -x "$T/j1" "$T/j2" "$T/done"
	runat -y -g "$prof" go
	want=1	# test -d fails: gone
	[ "$prof" = full ] && want=0
	if grep -q "there=$want" "$REQ/3.json" 2>/dev/null; then
		ok "procs: $prof: the next call sees the job there=$want"
	else
		fail "procs: $prof: the next call sees the job there=$want" \
		    "$(cat "$REQ/3.json" "$T/err")"
	fi
	dead=$(cat "$W/bg")
	kill -0 "$dead" 2>/dev/null && kill -9 "$dead" &&
	    fail "procs: $prof: the job gone at exit" "pid $dead" ||
	    ok "procs: $prof: the job gone at exit"
done

# A job that swaps $TMPDIR/a between a directory of many files and a
# link to a victim outside with files of the same names, while agent
# exits: the victim keeps its files.
V=$T/victim
cat >"$T/swap.py" <<X
import os, time
def step(f, *args):
	try:
		f(*args)
	except OSError:
		pass
os.chdir(os.environ["TMPDIR"])
os.mkdir("a")
for i in range(2000):
	open("a/f%d" % i, "w").close()
open("$W/swap", "w").write(str(os.getpid()))
end = time.time() + 10
while time.time() < end:
	step(os.symlink, "$V", "l")
	step(os.rename, "a", "b")
	step(os.rename, "l", "a")
	time.sleep(0.001)
	step(os.rename, "a", "l")
	step(os.rename, "b", "a")
	time.sleep(0.001)
X
cat >"$T/swap.sh" <<X
python3 "$T/swap.py" >/dev/null 2>&1 &
i=0
while [ ! -s "$W/swap" ] && [ \$i -lt 200 ]; do
	sleep 0.05
	i=\$((i + 1))
done
sleep 0.1
X
lost=
for n in 1 2 3; do
	rm -rf "$W" "$V" && mkdir -p "$W" "$V"
	(cd "$V" && seq 0 1999 | sed 's/^/f/' | xargs touch)
	bashrun "sh $T/swap.sh" workspace
	kill "$(cat "$W/swap" 2>/dev/null)" 2>/dev/null
	[ "$(ls "$V" | wc -l)" -eq 2000 ] || lost="$lost $n"
done
[ -z "$lost" ] && ok "procs: TMPDIR's removal follows no link swapped in" ||
    fail "procs: TMPDIR's removal follows no link swapped in" \
    "victim files lost in runs$lost"

# A tool cannot stop or end agent: Landlock's signal scope (ABI 6).
abi=$(python3 -c 'import ctypes
print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null)
if [ -n "$EMULATOR" ]; then
	skip "procs: kill -STOP \$PPID" "qemu-user has no Landlock"
elif [ -z "$abi" ] || [ "$abi" -lt 6 ]; then
	skip "procs: kill -STOP \$PPID" "Landlock ABI ${abi:-unknown} < 6"
else
	rm -rf "$W" && mkdir -p "$W"
	TO=8 bashrun 'kill -STOP $PPID; kill -TERM $PPID; kill -HUP $PPID' \
	    workspace
	[ "$RC" = 0 ] && grep -q done "$T/out" &&
	    ok "procs: kill -STOP, -TERM, -HUP \$PPID do not reach agent" ||
	    fail "procs: kill -STOP, -TERM, -HUP \$PPID do not reach agent" \
	    "rc $RC: $(cat "$T/out" "$T/err")"
fi

# A job that forks on and on, each parent gone at once, ignoring TERM
# (and trying setsid): no one pid lives long enough for a scan of /proc
# to reach it.  Under workspace the seccomp filter keeps it in its
# call's process group, which one kill(2) ends whole.  It would make
# its file a moment after agent exits.
cat >"$T/hop.c" <<'X'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
int
main(int argc, char **argv)
{
	char path[64];
	unsigned long i;
	pid_t c, agent = atoi(argv[1]);
	int fd;

	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	if (fork())
		return 0;
	setsid();
	snprintf(path, sizeof(path), "/proc/%d", (int)agent);
	for (i = 0;; i++) {
		if ((c = fork()) > 0)
			_exit(0);
		if (c < 0)
			continue;
		if (i % 64 == 0 && access(path, F_OK) < 0)
			break;
	}
	sleep(1);
	if ((fd = open(argv[2], O_WRONLY | O_CREAT, 0644)) >= 0)
		close(fd);
	return 0;
}
X
if ! cc -o "$T/hop" "$T/hop.c" 2>"$T/cc"; then
	skip "procs: a job that forks on ends with agent" "no cc"
elif [ "$(uname -s)" != Linux ]; then
	skip "procs: a job that forks on ends with agent" "not Linux"
elif [ -n "$EMULATOR" ]; then
	skip "procs: a job that forks on ends with agent" \
	    "qemu-user installs no seccomp filter"
else
	rm -rf "$W" && mkdir -p "$W"
	bashrun "$T/hop \$PPID $W/escaped >/dev/null 2>&1; sleep 0.2" \
	    workspace
	sleep 1.5
	if [ -e "$W/escaped" ] || pgrep -f "^$T/hop" >/dev/null 2>&1; then
		pkill -9 -f "^$T/hop"
		fail "procs: a job that forks on ends with agent" \
		    "$(ls "$W"; cat "$T/err")"
	else
		ok "procs: a job that forks on ends with agent"
	fi
	grep -q 'were killed' "$REQ/2.json" &&
	    ok "procs: the model told of the jobs it left" ||
	    fail "procs: the model told of the jobs it left" \
	    "$(cat "$REQ/2.json")"
fi

# Under full what ended in the background is reaped at each call's end,
# not at exit: the next call sees no child of agent but its own shell.
rm -rf "$W" && mkdir -p "$W"
script z1 <<'X'
tool c1 bash {"command": "for i in $(seq 100); do (true &); done; sleep 0.5"}
finish tool_calls
X
script z2 <<'X'
tool c2 bash {"command": "echo n=$(cat /proc/$PPID/task/*/children|wc -w)"}
finish tool_calls
X
startfake -x "$T/z1" "$T/z2" "$T/done"
runat -y -g full go
grep -q 'n=1[^0-9]' "$REQ/3.json" 2>/dev/null &&
    ok "procs: full: no zombies left between calls" ||
    fail "procs: full: no zombies left between calls" \
    "$(grep -o 'n=[0-9]*' "$REQ/3.json"; cat "$T/err")"
