#!/bin/sh
# bashlog.sh: the bash tool saves a cut output in one directory per run
# under $TMPDIR, removed at exit unless the model was told of a file in it.
. test/lib.sh
ROOT=$PWD
W=$T/work
TMPDIR=$T/tmp
export TMPDIR
mkdir -p "$W" "$TMPDIR"

runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# bashrun NAME COMMAND: the model runs COMMAND with bash, then stops.
bashrun() {
	script b1 <<X
tool call_1 bash {"command": "$2"}
finish tool_calls
X
	script b2 <<'X'
text Done.
finish stop
X
	startfake -x "$T/b1" "$T/b2"
	runat -y -n 'run it'
	[ "$RC" -eq 0 ] && ok "$1: exit 0" || fail "$1: exit 0" \
	    "rc $RC: $(cat "$T/err")"
}

bashrun "small output" "echo small"
[ -z "$(ls -A "$TMPDIR")" ] && ok "small output: nothing left in TMPDIR" ||
    fail "small output: nothing left in TMPDIR" "$(ls -lA "$TMPDIR")"
grep -q 'kept' "$T/err" && fail "small output: no word of a log" \
    "$(cat "$T/err")" || ok "small output: no word of a log"

# 51200 bytes and a newline: saved once past 50KB, then shown whole
bashrun "saved, then fits" "head -c 51200 /dev/zero | tr -c x a; echo"
jsontest "saved, then fits: shown whole" "$REQ/2.json" \
    'd["messages"][-1]["content"] == "a" * 51200'
[ -z "$(ls -A "$TMPDIR")" ] && ok "saved, then fits: nothing left" ||
    fail "saved, then fits: nothing left" "$(ls -lAR "$TMPDIR")"

bashrun "big output" "seq 1 100000"
dir=$(ls -d "$TMPDIR"/agent-* 2>/dev/null)
[ -n "$dir" ] && [ -f "$dir/bash-1.log" ] &&
    [ "$(wc -l <"$dir/bash-1.log")" -eq 100000 ] &&
    ok "big output: the whole of it kept" ||
    fail "big output: the whole of it kept" "$(ls -lAR "$TMPDIR")"
jsontest "big output: the model is told where" "$REQ/2.json" \
    '"Full output: '"$dir"'/bash-1.log]" in d["messages"][-1]["content"]'
[ "$(grep -c 'agent: bash output kept in' "$T/err")" -eq 1 ] &&
    grep -qx "agent: bash output kept in $dir" "$T/err" &&
    ok "big output: stderr names the directory once" ||
    fail "big output: stderr names the directory once" "$(cat "$T/err")"
ls -ld "$dir" | grep -q '^drwx------' && ok "big output: directory 0700" ||
    fail "big output: directory 0700" "$(ls -ld "$dir")"
