#!/bin/sh
# leftover.sh: nothing left behind when agent is stopped (its TMPDIR,
# what a tool wrote there, a task's child even when agent is killed), and
# clear words where a tool cannot start (no /dev/null, no shell).
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W" "$T/tmp"

# waitfor SECS cmd...: until cmd succeeds, SECS seconds at most.
waitfor() {
	_n=$(($1 * 20))
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.05
		_n=$((_n - 1))
	done
	return 1
}

# agentkids PID: the pids of the children of PID (a task's child runs
# as /proc/self/exe: its name is exe).
agentkids() {
	# cat goes on past a process gone since the glob; awk would stop
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v p="$1" '$4 == p { print $1 }'
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

tmpdirs() {
	ls -d "$T/tmp"/agent-tmp-* 2>/dev/null | wc -l
}

# ntmpdirs N: whether there are N of them.
ntmpdirs() {
	[ "$(tmpdirs)" -eq "$1" ]
}

haskid() {
	[ -n "$(agentkids "$APID")" ]
}

# SIGTERM during a bash call: the call is stopped, and the run's TMPDIR
# with what the command wrote there is removed.
script r1 <<'X'
tool t1 bash {"command": "echo $TMPDIR > tmpdir; echo data > $TMPDIR/left; sleep 30"}
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X
startfake "$T/r1" "$T/r2"
(cd "$W" && agentexec env TMPDIR="$T/tmp" "$ROOT/agent" -y -n go) \
    </dev/null >"$T/out" 2>"$T/err" &
APID=$!
waitfor 10 test -s "$W/tmpdir"
D=$(cat "$W/tmpdir" 2>/dev/null)
[ -n "$D" ] && [ -f "$D/left" ] &&
    ok "TERM: the command wrote in the run's TMPDIR" ||
    fail "TERM: the command wrote in the run's TMPDIR" "$(cat "$T/err")"
kill -TERM "$APID"
waitfor 10 gone "$APID"
wait "$APID" 2>/dev/null
RC=$?
[ "$RC" -eq 143 ] && [ -n "$D" ] && [ ! -e "$D" ] && [ "$(tmpdirs)" -eq 0 ] &&
    ok "TERM during a bash call: the run's TMPDIR is removed" ||
    fail "TERM during a bash call: the run's TMPDIR is removed" \
    "rc $RC, $D: $(ls -la "$D" 2>&1) $(cat "$T/err")"

# agent killed (no handler runs) while a task's child works: the child
# gets TERM at once (PR_SET_PDEATHSIG), stops its command and removes its
# own TMPDIR; only the killed parent's is left.
if [ "$(uname -s)" = Linux ]; then
	rm -rf "$T/tmp" "$W/tmpdir"
	mkdir -p "$T/tmp"
	script t1 <<'X'
tool c1 task {"description": "wait", "prompt": "wait a while"}
finish tool_calls
X
	script t2 <<'X'
tool c2 bash {"command": "sleep 30"}
finish tool_calls
X
	startfake "$T/t1" "$T/t2"
	(cd "$W" && agentexec env TMPDIR="$T/tmp" "$ROOT/agent" -y -n go) \
	    </dev/null >"$T/out" 2>"$T/err" &
	APID=$!
	# the child's TMPDIR first: a child of agent seen before it may be
	# another, gone by the time it is named (seen under load)
	waitfor 10 ntmpdirs 2
	waitfor 10 haskid
	KID=$(agentkids "$APID")
	N=$(tmpdirs)
	kill -KILL "$APID"
	wait "$APID" 2>/dev/null
	if [ -z "$KID" ] || [ "$N" -ne 2 ]; then
		fail "KILL: a task's child dies with agent" \
		    "no child ($KID) or no two TMPDIRs ($N): $(cat "$T/err")"
	else
		waitfor 10 gone "$KID" &&
		    ok "KILL: a task's child dies with agent, not at its next write" ||
		    fail "KILL: a task's child dies with agent, not at its next write" \
		    "child $KID still runs"
		waitfor 10 ntmpdirs 1 &&
		    ok "KILL: the child removed its own TMPDIR" ||
		    fail "KILL: the child removed its own TMPDIR" \
		    "$(ls "$T/tmp")"
	fi
else
	skip "KILL: a task's child dies with agent" "not Linux"
fi

# With no /dev/null (a bare chroot or initramfs: here an empty /dev in a
# mount namespace of our own), bash still runs, stdin at its end at once.
script n1 <<'X'
tool t1 bash {"command": "echo hello; cat; echo there >&2"}
finish tool_calls
X
script n2 <<'X'
text ok
finish stop
X
# bare SCRIPT: sh -c SCRIPT as root in a mount namespace of its own, then
# the agent; 77 where no namespace can be had.
bare() {
	(cd "$W" && agentexec unshare -m sh -c "$1"' && exec "$0" -y -n go' \
	    "$ROOT/agent") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}
if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	skip "no /dev/null: bash runs" "no mount namespace here (root and unshare -m)"
	skip "no shell: the tool says which were tried" "no mount namespace here"
else
	startfake -x "$T/n1" "$T/n2"
	bare 'mount -t tmpfs none /dev'
	jsontest "no /dev/null: bash runs, with an empty stdin" "$REQ/2.json" \
	    'd["messages"][-1]["content"] == "hello\nthere"'
	startfake -x "$T/n1" "$T/n2"
	bare 'for s in /bin/bash /bin/sh; do mount --bind /dev/null "$s" || exit 1; done'
	jsontest "no shell: the tool says which were tried" "$REQ/2.json" \
	    '"no shell to run the command: /bin/bash, /bin/sh not found" in
	     d["messages"][-1]["content"]'
fi
