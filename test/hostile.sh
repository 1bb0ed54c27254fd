#!/bin/sh
# hostile.sh: a hostile model or server against the agent: a flood of
# tool calls in one event, control characters meant for the terminal,
# and SIGINT, SIGTERM and SIGHUP while it works.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"

# runat args...: the agent in $W, no terminal to ask on.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# flood FILE N: one event whose tool_calls array holds N calls of ls.
flood() {
	python3 - "$1" "$2" <<'X'
import json, sys
calls = [{"index": k, "id": "c%d" % k, "type": "function",
          "function": {"name": "ls", "arguments": "{}"}}
         for k in range(int(sys.argv[2]))]
ev = {"choices": [{"index": 0, "delta": {"tool_calls": calls}}]}
fin = {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
with open(sys.argv[1], "w") as f:
    f.write("data: %s\n\ndata: %s\n\ndata: [DONE]\n\n" %
            (json.dumps(ev), json.dumps(fin)))
X
}

if ! command -v python3 >/dev/null 2>&1; then
	fail "hostile input" "python3 is needed to make the inputs"
	exit 1
fi

# 20000 calls in one event (1.4 MB): walked once, not once per call, and
# no more than maxcalls (128) of them kept.
flood "$T/flood.txt" 20000
echo "raw $T/flood.txt" | script f1
printf 'text done\nfinish stop\n' | script f2
startfake -x "$T/f1" "$T/f2"
runat -y -n 'list'
[ "$RC" -eq 0 ] && ok "a flood of tool calls: the turn ends" ||
    fail "a flood of tool calls: the turn ends" "rc $RC: $(tail -3 "$T/err")"
grep -q 'more than 128 tool calls' "$T/err" &&
    ok "a flood of tool calls: the cut is said" ||
    fail "a flood of tool calls: the cut is said" "$(tail -3 "$T/err")"
jsontest "a flood of tool calls: 128 kept, each with its result" "$REQ/2.json" \
    'len(d["messages"][-129]["tool_calls"]) == 128 and
     [m["tool_call_id"] for m in d["messages"][-128:]] ==
     ["c%d" % k for k in range(128)]'

# Ctrl-C while a big event is taken apart stops the agent at once.
flood "$T/flood2.txt" 200000
echo "raw $T/flood2.txt" | script g1
startfake -x "$T/g1"
(cd "$W" && agentexec timeout 60 "$ROOT/agent" -y -n 'list') \
    </dev/null >"$T/out" 2>"$T/err" &
pid=$!
i=0
until [ -s "$REQ/1.json" ] || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
sleep 0.3
kill -INT "$pid"
start=$(date +%s)
wait "$pid"
RC=$?
took=$(($(date +%s) - start))
[ "$RC" -eq 130 ] && [ "$took" -le 3 ] &&
    ok "SIGINT amid a big event: exit 130 at once" ||
    fail "SIGINT amid a big event: exit 130 at once" "rc $RC after $took s: $(tail -3 "$T/err")"

# A tool error's last line names a path the model chose: its escape
# sequences reach the terminal as text, never as commands.
cat >"$T/e1" <<'X'
tool call_1 read {"path": "\u001b]0;owned\u0007\u001b[2Jx.txt"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script e2
startfake -x "$T/e1" "$T/e2"
runat -n 'read it'
if grep -q "$(printf '\033')" "$T/err"; then
	fail "a tool error's escape sequence is not sent to the terminal" "$(od -c "$T/err" | head -5)"
else
	ok "a tool error's escape sequence is not sent to the terminal"
fi
grep -q 'File not found.*\\x1b\]0;owned\\x07\\x1b\[2Jx.txt' "$T/err" &&
    ok "a tool error's escape sequence is shown escaped" ||
    fail "a tool error's escape sequence is shown escaped" "$(cat "$T/err")"

# The answer's control characters: shown on a terminal, passed on as they
# came to a pipe or a file.
cat >"$T/a1" <<'X'
text tab\there\x1b]52;c;cHduZWQ=\x07 and \x1b[8mhidden\x1b[0m\nnext line
finish stop
X
startfake "$T/a1" "$T/a1"
runat -n 'hi'
printf 'tab\there\033]52;c;cHduZWQ=\007 and \033[8mhidden\033[0m\nnext line\n' |
    cmp -s - "$T/out" && ok "answer to a file: the bytes as they came" ||
    fail "answer to a file: the bytes as they came" "$(od -c "$T/out" | head)"
(cd "$W" && agentexec script -qec "timeout 30 $ROOT/agent -n hi 2>/dev/null" \
    /dev/null) </dev/null >"$T/tty" 2>&1
if grep -q "$(printf '\033')" "$T/tty"; then
	fail "answer to a terminal: no escape sequence obeyed" "$(od -c "$T/tty" | head)"
else
	ok "answer to a terminal: no escape sequence obeyed"
fi
grep -q 'tab	here\\x1b\]52;c;cHduZWQ=\\x07 and \\x1b\[8mhidden\\x1b\[0m' "$T/tty" &&
    grep -q 'next line' "$T/tty" &&
    ok "answer to a terminal: control characters shown, tab and newline kept" ||
    fail "answer to a terminal: control characters shown, tab and newline kept" "$(od -c "$T/tty" | head)"
stopfake

# SIGTERM or SIGHUP while bash runs: the command's whole group is ended
# (TERM, then KILL for one that ignores it), the session synced, and the
# exit status says which signal.  The command writes its pids in the
# working directory: the default sandbox lets it write nowhere else.
for sig in TERM:143 HUP:129; do
	want=${sig#*:}
	sig=${sig%:*}
	rm -f "$W/pids"
	cat >"$T/b1" <<X
tool call_1 bash {"command": "trap '' TERM; (trap '' TERM; sleep 30) & echo \$\$ \$! > $W/pids; wait"}
finish tool_calls
X
	startfake -x "$T/b1"
	rm -rf "$T/sessions"
	(cd "$W" && agentexec timeout 60 "$ROOT/agent" -y 'run it') \
	    </dev/null >"$T/out" 2>"$T/err" &
	pid=$!
	i=0
	until [ -s "$W/pids" ] || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -$sig "$pid"
	wait "$pid"
	RC=$?
	[ "$RC" -eq "$want" ] && ok "SIG$sig amid bash: exit $want" ||
	    fail "SIG$sig amid bash: exit $want" "rc $RC: $(tail -3 "$T/err")"
	alive=
	for p in $(cat "$W/pids" 2>/dev/null); do
		# a zombie is gone, only not yet reaped
		[ -e "/proc/$p" ] && ! grep -q '^[0-9]* (.*) Z' "/proc/$p/stat" &&
		    alive="$alive $p"
	done
	[ -s "$W/pids" ] && [ -z "$alive" ] &&
	    ok "SIG$sig amid bash: the command's group is gone" ||
	    fail "SIG$sig amid bash: the command's group is gone" "alive:$alive"
	for p in $alive; do kill -9 "$p"; done
	F=$(find "$T/sessions" -name '*.jsonl' | head -1)
	[ -n "$F" ] && grep -q '"toolResult"' "$F" &&
	    grep -q 'Command aborted' "$F" &&
	    ok "SIG$sig amid bash: the session holds the aborted call" ||
	    fail "SIG$sig amid bash: the session holds the aborted call" "$(tail -c 300 "$F")"
done
