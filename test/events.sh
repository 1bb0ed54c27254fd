#!/bin/sh
# events.sh: -j is pi's json mode: the session header, then agent, turn,
# message, block and tool events, field for field as pi writes them.  The
# reference is pi's own output for the same scripts: test/data/
# pi-json.jsonl, recorded from pi 0.73.1 --mode json against test/fake
# serving k1, k2 and k3 below (message_update's copies of the whole
# message, "partial" and "message", taken out: agent sends none), and pi
# itself when it is installed ($PI, or bench/pi/node_modules/.bin/pi).
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
echo aaa >"$W/a.txt"
if ! command -v python3 >/dev/null 2>&1; then
	skip "events" "no python3"
	exit 0
fi

# A thinking, tool-calling turn: read, then bash, then the answer.
script k1 <<'X'
think hmm
text Reading
text  it.
tool c1 read {"path": "a.txt"}
finish tool_calls
usage 10 5
X
script k2 <<'X'
tool c2 bash {"command": "echo hi; sleep 0.3; echo there"}
finish tool_calls
usage 20 4
X
script k3 <<'X'
text Done.
finish stop
usage 30 3
X
startfake -x "$T/k1" "$T/k2" "$T/k3"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -j -y go) </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && ok "-j: exit 0" || fail "-j: exit 0" "rc $RC: $(cat "$T/err")"
# Under qemu-user, which has no Landlock, the one line that says so is
# the sandbox's notice, kept with -j: all else must be quiet.
[ -n "$EMULATOR" ] && sed -i '/^agent: no Landlock here/d' "$T/err"
[ ! -s "$T/err" ] && ok "-j: nothing on stderr when all is well" ||
    fail "-j: nothing on stderr when all is well" "$(cat "$T/err")"
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
[ "$(head -1 "$T/out")" = "$(head -1 "$F")" ] && ok "-j: the header is the session's" ||
    fail "-j: the header is the session's" "$(head -1 "$T/out")"

# what each check below is given: the events but the header
cat >"$T/ev.py" <<'X'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")][1:]
up = [e["assistantMessageEvent"] for e in ev if e["type"] == "message_update"]
ends = [e["message"] for e in ev if e["type"] == "message_end"]
X
pycheck() {
	_name=$1
	shift
	if { cat "$T/ev.py"; cat; } | python3 - "$@" 2>"$T/py.err"; then
		ok "$_name"
	else
		fail "$_name" "$(tail -3 "$T/py.err")"
	fi
}

pycheck "-j: every line an event, in pi's order" "$T/out" <<'X'
def run(kinds):
    # bash's updates come as its output does: one run of them
    out = []
    for k in kinds:
        if not (k == "tool_execution_update" and out and out[-1] == k):
            out.append(k)
    return out
kinds = [e["type"] if e["type"] != "message_update" else
         e["assistantMessageEvent"]["type"] for e in ev]
want = ["agent_start", "turn_start", "message_start", "message_end",
        "message_start", "thinking_start", "thinking_delta", "text_start",
        "text_delta", "text_delta", "toolcall_start"] + \
       ["toolcall_delta"] * 5 + ["thinking_end", "text_end", "toolcall_end",
        "message_end", "tool_execution_start", "tool_execution_end",
        "message_start", "message_end", "turn_end",
        "turn_start", "message_start", "toolcall_start"] + \
       ["toolcall_delta"] * 10 + ["toolcall_end", "message_end",
        "tool_execution_start", "tool_execution_update", "tool_execution_end",
        "message_start", "message_end", "turn_end",
        "turn_start", "message_start", "text_start", "text_delta", "text_end",
        "message_end", "turn_end", "agent_end"]
assert run(kinds) == want, run(kinds)
X

pycheck "-j: blocks: contentIndex, deltas, whole content on the ends, no copies of the message" "$T/out" <<'X'
for e in ev:
    if e["type"] == "message_update":
        assert set(e) == {"type", "assistantMessageEvent"}, e
        assert "partial" not in e["assistantMessageEvent"], e
assert [(u["type"], u["contentIndex"], u.get("delta")) for u in up[:5]] == [
    ("thinking_start", 0, None), ("thinking_delta", 0, "hmm"),
    ("text_start", 1, None), ("text_delta", 1, "Reading"),
    ("text_delta", 1, " it.")], up[:5]
assert up[5] == {"type": "toolcall_start", "contentIndex": 2, "id": "c1",
                 "toolName": "read"}, up[5]
d = [u for u in up[:12] if u["type"] == "toolcall_delta"]
assert [u["contentIndex"] for u in d] == [2] * 5
assert "".join(u["delta"] for u in d) == '{"path": "a.txt"}'
assert up[11] == {"type": "thinking_end", "contentIndex": 0, "content": "hmm"}
assert up[12] == {"type": "text_end", "contentIndex": 1, "content": "Reading it."}
assert up[13] == {"type": "toolcall_end", "contentIndex": 2, "toolCall": {
    "type": "toolCall", "id": "c1", "name": "read",
    "arguments": {"path": "a.txt"}}}, up[13]
assert ends[1]["content"][2] == up[13]["toolCall"]
assert up[-3:] == [{"type": "text_start", "contentIndex": 0},
    {"type": "text_delta", "contentIndex": 0, "delta": "Done."},
    {"type": "text_end", "contentIndex": 0, "content": "Done."}], up[-3:]
X

pycheck "-j: an answer's message_start has the fields of the message to come" "$T/out" <<'X'
st = [e["message"] for e in ev if e["type"] == "message_start" and
      e["message"]["role"] == "assistant"]
assert len(st) == 3
for m in st:
    assert m["content"] == [] and m["api"] == "openai-completions", m
    assert m["provider"] == "openai-chat" and m["model"] == "fake-model", m
    assert m["stopReason"] == "stop" and m["timestamp"] > 0, m
    assert m["usage"] == {"input": 0, "output": 0, "cacheRead": 0,
        "cacheWrite": 0, "totalTokens": 0, "cost": {"input": 0, "output": 0,
        "cacheRead": 0, "cacheWrite": 0, "total": 0}}, m
assert ends[1]["usage"]["input"] == 10 and ends[1]["usage"]["output"] == 5
X

pycheck "-j: tool events: start with args, bash's output as it comes, end with the result" "$T/out" <<'X'
st = [e for e in ev if e["type"] == "tool_execution_start"]
assert st[0] == {"type": "tool_execution_start", "toolCallId": "c1",
                 "toolName": "read", "args": {"path": "a.txt"}}, st[0]
en = [e for e in ev if e["type"] == "tool_execution_end"]
assert en[0]["result"] == {"content": [{"type": "text", "text": "aaa\n"}]}
assert en[0]["isError"] is False and en[0]["toolCallId"] == "c1"
u = [e for e in ev if e["type"] == "tool_execution_update"]
for e in u:
    assert e["toolCallId"] == "c2" and e["toolName"] == "bash", e
    assert e["args"] == {"command": "echo hi; sleep 0.3; echo there"}, e
assert u[0]["partialResult"] == {"content": []}, u[0]
assert u[-1]["partialResult"] == {"content": [{"type": "text",
    "text": "hi\nthere\n"}], "details": {}}, u[-1]
assert len(u) == 3 and u[1]["partialResult"]["content"][0]["text"] == "hi\n", u
X

pycheck "-j: turn_end carries the round's answer and results, agent_end the run's messages" "$T/out" <<'X'
te = [e for e in ev if e["type"] == "turn_end"]
assert [t["message"] for t in te] == [m for m in ends if m["role"] == "assistant"]
res = [m for m in ends if m["role"] == "toolResult"]
assert [t["toolResults"] for t in te] == [res[:1], res[1:], []], te
assert ev[-1]["type"] == "agent_end" and ev[-1]["messages"] == ends
assert [m["role"] for m in ends] == ["user", "assistant", "toolResult",
    "assistant", "toolResult", "assistant"]
X

# pi's own output for the same scripts: the same events in the same order,
# each with pi's fields, values alike where they do not depend on the run.
# Left out on purpose: message_update's "message" (a copy of the whole
# message, quadratic); pi's responseId and thinkingSignature, which agent
# does not keep; toolcall_start's id and toolName are pi 1.x's.
cat >"$T/pi.py" <<'X'
import json, sys
def load(p):
    ev = [json.loads(l) for l in open(p, encoding="utf-8")][1:]
    out = []
    for e in ev:
        if not (e["type"] == "tool_execution_update" and out and
                out[-1]["type"] == e["type"]):
            out.append(e)
        else:
            out[-1] = e	# a run of updates: its last
    return out
SKIP = {"partial", "responseId", "thinkingSignature"}
VARY = {"timestamp", "id", "toolCallId", "provider", "usage", "cwd"}
def alike(p, a, path, bad):
    if isinstance(p, dict):
        if not isinstance(a, dict):
            bad.append(path + ": not an object")
            return
        for k in p:
            if k in SKIP or (k == "message" and path.endswith("message_update")):
                continue
            if k not in a:
                bad.append(path + "." + k + ": missing")
            elif k not in VARY:
                alike(p[k], a[k], path + "." + k, bad)
    elif isinstance(p, list):
        if not isinstance(a, list) or len(p) != len(a):
            bad.append(path + ": not a list of %d" % len(p))
            return
        for i, (x, y) in enumerate(zip(p, a)):
            alike(x, y, "%s[%d]" % (path, i), bad)
    elif p != a and not path.endswith(".text"):
        # bash's result: proc.c drops the last newline, as pi 1.x
        bad.append("%s: %r, not %r" % (path, a, p))
pi, ag = load(sys.argv[1]), load(sys.argv[2])
bad = []
if len(pi) != len(ag):
    bad.append("%d events, pi %d" % (len(ag), len(pi)))
for i, (p, a) in enumerate(zip(pi, ag)):
    alike(p, a, "%d:%s" % (i, p["type"]), bad)
assert not bad, bad[:5]
X
python3 "$T/pi.py" test/data/pi-json.jsonl "$T/out" 2>"$T/py.err" &&
    ok "-j: the events and fields of pi's json mode (recorded)" ||
    fail "-j: the events and fields of pi's json mode (recorded)" "$(tail -2 "$T/py.err")"

PI=${PI:-$ROOT/bench/pi/node_modules/.bin/pi}
if [ -x "$PI" ] && command -v node >/dev/null 2>&1; then
	startfake -x "$T/k1" "$T/k2" "$T/k3"
	mkdir -p "$T/pihome/.pi/agent"
	cat >"$T/pihome/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "$URL", "api": "openai-completions",
  "apiKey": "test", "models": [{"id": "fake-model", "reasoning": true}]}}}
X
	(cd "$W" && HOME="$T/pihome" timeout 60 "$PI" --provider fake \
	    --model fake-model --no-session --mode json go) </dev/null \
	    >"$T/pi.out" 2>"$T/pi.err"
	python3 "$T/pi.py" "$T/pi.out" "$T/out" 2>"$T/py.err" &&
	    ok "-j: the events and fields of pi's json mode (pi $("$PI" --version 2>&1 | tail -1))" ||
	    fail "-j: the events and fields of pi's json mode (pi itself)" "$(tail -2 "$T/py.err") $(head -c 300 "$T/pi.err")"
else
	skip "-j: against pi itself" "pi is not installed (set PI, or npm install --prefix bench/pi)"
fi

# Anthropic's wire: blocks in the order they came, a call begun by its
# block's start, each end with its whole content.
echo 'stand-up moves to 9:30' >"$W/notes.txt"
printf 'raw %s\n' "$ROOT/test/data/anthropic-toolcall.sse" >"$T/a1"
printf 'raw %s\n' "$ROOT/test/data/anthropic-text.sse" >"$T/a2"
startfake -x "$T/a1" "$T/a2"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -P anthropic -j -n go) \
    </dev/null >"$T/out" 2>"$T/err"
pycheck "-j, anthropic: blocks by contentIndex, the call's start before its pieces" "$T/out" <<'X'
first = []	# the first answer's blocks
for e in ev[5:]:
    if e["type"] == "message_end":
        break
    if e["type"] == "message_update":
        first.append(e["assistantMessageEvent"])
k = [(u["type"], u["contentIndex"]) for u in first]
starts = [x for x in k if x[0].endswith("_start")]
assert starts == [("thinking_start", 0), ("text_start", 1),
                  ("toolcall_start", 2)], k
assert k.index(("toolcall_start", 2)) < k.index(("toolcall_delta", 2)), k
ends = {u["type"]: u for u in first if u["type"].endswith("_end")}
m = [e["message"] for e in ev if e["type"] == "message_end"][1]
assert ends["thinking_end"]["content"] == m["content"][0]["thinking"]
assert ends["text_end"]["content"] == m["content"][1]["text"]
assert ends["toolcall_end"]["toolCall"] == m["content"][2], ends
assert first[-1]["type"] == "toolcall_end" and m["content"][2]["name"] == "read"
X

# A failure still closes what it opened, and says why in the message.
script bad <<'X'
status 401
error Incorrect API key provided
X
startfake -x "$T/bad"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -j -n hi) </dev/null >"$T/out" 2>"$T/err"
RC=$?
pycheck "-j: a failure closes the message and the turn it opened, errorMessage saying why" "$T/out" <<'X'
k = [e["type"] for e in ev]
assert k == ["agent_start", "turn_start", "message_start", "message_end",
             "message_start", "message_end", "turn_end", "agent_end"], k
m = ends[1]
assert m["role"] == "assistant" and m["stopReason"] == "error", m
assert "Incorrect API key provided" in m["errorMessage"], m
assert ev[-2]["message"] == m and ev[-2]["toolResults"] == []
assert ev[-1]["messages"] == ends
X
[ "$RC" -eq 1 ] && grep -q 'Incorrect API key' "$T/err" &&
    ok "-j: a failure exits 1, the error on stderr" ||
    fail "-j: a failure exits 1, the error on stderr" "rc $RC: $(cat "$T/err")"

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
