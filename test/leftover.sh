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

# kidsaid: a task's child has named itself in its TMPDIR.
kidsaid() {
	[ -s "$(ls "$T"/tmp/agent-tmp-*/kid 2>/dev/null | head -1)" ]
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
# own TMPDIR; only the killed parent's is left.  The child's command
# names the child (its $PPID) in the child's own TMPDIR, and the child's
# parent is the agent to kill: no guess at which process is whose.
if [ -n "$EMULATOR" ]; then
	skip "KILL: a task's child dies with agent" \
	    "an emulated program cannot run another (no binfmt_misc)"
elif [ "$(uname -s)" = Linux ]; then
	rm -rf "$T/tmp" "$W/tmpdir"
	mkdir -p "$T/tmp"
	script t1 <<'X'
tool c1 task {"description": "wait", "prompt": "wait a while"}
finish tool_calls
X
	script t2 <<'X'
tool c2 bash {"command": "echo $PPID > $TMPDIR/kid; sleep 30"}
finish tool_calls
X
	startfake "$T/t1" "$T/t2"
	(cd "$W" && agentexec env TMPDIR="$T/tmp" "$ROOT/agent" -y -n go) \
	    </dev/null >"$T/out" 2>"$T/err" &
	APID=$!
	waitfor 20 kidsaid
	KID=$(cat "$T"/tmp/agent-tmp-*/kid 2>/dev/null)
	PARENT=$(awk '{ print $4 }' "/proc/$KID/stat" 2>/dev/null)
	# the agent this test started, and no other process
	[ "$(readlink "/proc/$PARENT/exe" 2>/dev/null)" = "$ROOT/agent" ] ||
	    PARENT=
	N=$(tmpdirs)
	[ -n "$PARENT" ] && kill -KILL "$PARENT"
	wait "$APID" 2>/dev/null
	if [ -z "$KID" ] || [ -z "$PARENT" ] || [ "$N" -ne 2 ]; then
		fail "KILL: a task's child dies with agent" \
		    "no child ($KID, parent $PARENT) or no two TMPDIRs ($N): $(cat "$T/err")"
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
if [ -n "$EMULATOR" ]; then
	# agent is a script that runs the emulator: it needs the very
	# shell and /dev/null these checks take away
	skip "no /dev/null: bash runs" "agent runs through $EMULATOR's script"
	skip "no shell: the tool says which were tried" \
	    "agent runs through $EMULATOR's script"
elif [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
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

# A reader of stdout that goes away (| head): agent leaves quietly with
# status 0, its session whole, its TMPDIR removed.
script big1 <<'X'
tool b1 bash {"command": "echo $TMPDIR > tmpdir"}
finish tool_calls
X
script big2 <<'X'
big 20000000
finish stop
X
rm -rf "$T/tmp" "$W/tmpdir" "$T/sessions"
mkdir -p "$T/tmp"
startfake "$T/big1" "$T/big2"
( (cd "$W" && agentexec env TMPDIR="$T/tmp" "$ROOT/agent" -y 'talk') \
    </dev/null 2>"$T/err"; echo $? >"$T/rc") | head -c 100 >/dev/null
RC=$(cat "$T/rc")
D=$(cat "$W/tmpdir" 2>/dev/null)
S=$(ls "$T"/sessions/*/*.jsonl 2>/dev/null | head -1)
# (the trace of the call, and where there is no Landlock, its warning)
[ "$RC" -eq 0 ] &&
    [ -z "$(grep -v '^bash \|^agent: no Landlock here' "$T/err")" ] &&
    ok "a reader gone: exit 0, nothing said" ||
    fail "a reader gone: exit 0, nothing said" "rc $RC: $(cat "$T/err")"
[ -n "$D" ] && [ ! -e "$D" ] && [ "$(tmpdirs)" -eq 0 ] &&
    ok "a reader gone: the run's TMPDIR removed" ||
    fail "a reader gone: the run's TMPDIR removed" "$D: $(ls "$T/tmp")"
[ -n "$S" ] && python3 -c 'import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[-1]["message"]["role"] == "assistant", lines[-1]
assert lines[-1]["message"]["stopReason"] == "aborted", lines[-1]
' "$S" 2>"$T/py.err" &&
    ok "a reader gone: the session whole, the answer kept as aborted" ||
    fail "a reader gone: the session whole, the answer kept as aborted" \
    "$(cat "$T/py.err")"
