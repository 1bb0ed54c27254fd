#!/bin/sh
# events.sh: -j writes one JSON event a line on stdout, as pi's json mode
# does: the session header, then agent, turn, message and tool events.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
echo aaa >"$W/a.txt"
if ! command -v python3 >/dev/null 2>&1; then
	skip "events" "no python3"
	exit 0
fi

script j1 <<'X'
think hmm
text Reading
text  it.
tool c1 read {"path": "a.txt"}
finish tool_calls
X
script j2 <<'X'
text Done.
finish stop
X
startfake -x "$T/j1" "$T/j2"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -j -q go) </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && ok "-j: exit 0" || fail "-j: exit 0" "rc $RC: $(cat "$T/err")"
python3 - "$T/out" <<'X' && ok "-j: every line an event, in pi's order" || fail "-j: every line an event, in pi's order" "$(head -c 600 "$T/out")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
assert ev[0]["type"] == "session" and ev[0]["version"] == 3
kinds = [e["type"] for e in ev[1:]]
want = ["agent_start", "turn_start", "message_start", "message_end",
        "message_start"] + ["message_update"] * 3 + ["message_end",
        "tool_execution_start", "tool_execution_end", "message_start",
        "message_end", "turn_end", "turn_start", "message_start",
        "message_update", "message_end", "turn_end", "agent_end"]
assert kinds == want, kinds
X
python3 - "$T/out" <<'X' && ok "-j: deltas, messages and tool events carry what they should" || fail "-j: deltas, messages and tool events carry what they should" "$(cat "$T/out")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")][1:]
up = [e["assistantMessageEvent"] for e in ev if e["type"] == "message_update"]
assert [(u["type"], u["delta"]) for u in up] == [("thinking_delta", "hmm"),
    ("text_delta", "Reading"), ("text_delta", " it."), ("text_delta", "Done.")]
ends = [e["message"] for e in ev if e["type"] == "message_end"]
assert [m["role"] for m in ends] == ["user", "assistant", "toolResult", "assistant"]
assert ends[1]["content"][-1] == {"type": "toolCall", "id": "c1", "name": "read",
                                   "arguments": {"path": "a.txt"}}
st = [e for e in ev if e["type"] == "tool_execution_start"][0]
assert st["toolCallId"] == "c1" and st["args"] == {"path": "a.txt"}
en = [e for e in ev if e["type"] == "tool_execution_end"][0]
assert en["result"]["content"][0]["text"] == "aaa\n" and en["isError"] is False
X
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
[ "$(head -1 "$T/out")" = "$(head -1 "$F")" ] && ok "-j: the header is the session's" ||
    fail "-j: the header is the session's" "$(head -1 "$T/out")"

# A failure still closes what it opened.
script bad <<'X'
status 401
error Incorrect API key provided
X
startfake -x "$T/bad"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -j -n hi) </dev/null >"$T/out" 2>"$T/err"
RC=$?
python3 - "$T/out" <<'X' && ok "-j: a failure closes the message and the turn it opened" || fail "-j: a failure closes the message and the turn it opened" "$(cat "$T/out")"
import json, sys
k = [json.loads(l)["type"] for l in open(sys.argv[1])][1:]
assert k == ["agent_start", "turn_start", "message_start", "message_end",
             "message_start", "message_end", "turn_end", "agent_end"], k
X
[ "$RC" -eq 1 ] && [ "$(tail -1 "$T/out")" = '{"type":"agent_end"}' ] &&
    grep -q 'Incorrect API key' "$T/err" && ok "-j: a failure ends with agent_end, the error on stderr" ||
    fail "-j: a failure ends with agent_end, the error on stderr" "rc $RC: $(cat "$T/out") $(cat "$T/err")"

# -h: the usage on stdout, exit 0; an unknown flag: on stderr, exit 2.
./agent -h >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && grep -q '^usage: agent' "$T/out" && [ ! -s "$T/err" ] &&
    ok "-h: the usage on stdout, exit 0" ||
    fail "-h: the usage on stdout, exit 0" "rc $RC"
./agent -Z >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 2 ] && grep -q '^usage: agent' "$T/err" && [ ! -s "$T/out" ] &&
    ok "an unknown flag: the usage on stderr, exit 2" ||
    fail "an unknown flag: the usage on stderr, exit 2" "rc $RC"
