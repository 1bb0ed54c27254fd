#!/bin/sh
# thinking.sh: thinking levels end to end (-T, AGENT_THINKING, /thinking,
# the session), Anthropic's blocks kept whole and sent back (to pi too),
# pi's compound tool-call ids on the OpenAI wire, and a surrogate pair
# split between two deltas.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
DATA=$ROOT/test/data
PI=${PI:-$(command -v pi || echo "$ROOT/bench/pi/node_modules/.bin/pi")}
if ! command -v python3 >/dev/null 2>&1; then
	skip "thinking" "no python3"
	exit 0
fi

# run args...: the agent in $W, stdin from /dev/null or $IN.
run() {
	(cd "$W" && agentexec timeout 30 "$ROOT/agent" "$@") \
	    <"${IN:-/dev/null}" >"$T/out" 2>"$T/err"
	RC=$?
}

script o <<'X'
text ok
finish stop
X
printf 'raw %s\n' "$DATA/anthropic-text.sse" >"$T/a"
LEVELS="off minimal low medium high xhigh max"

# levels KIND SCRIPT args...: one request a level; then the bodies and
# heads are checked against what KIND of provider wants.
levels() {
	_kind=$1 _s=$2
	shift 2
	startfake -x "$T/$_s" "$T/$_s" "$T/$_s" "$T/$_s" "$T/$_s" "$T/$_s" \
	    "$T/$_s"
	: >"$T/errs"
	for l in $LEVELS; do
		run -n -T "$l" "$@" hi
		cat "$T/err" >>"$T/errs"
	done
	python3 - "$_kind" "$REQ" <<'X' >"$T/py.err" 2>&1 &&
import json, sys
kind, req = sys.argv[1], sys.argv[2]
levels = ["off", "minimal", "low", "medium", "high", "xhigh", "max"]
budget = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384,
          "xhigh": 16384, "max": 16384}
effort = {"minimal": "low", "low": "low", "medium": "medium",
          "high": "high", "xhigh": "high", "max": "high"}
# Opus 4.7 and later, Sonnet 5, Fable 5 take xhigh and max as they are
effortmax = dict(effort, xhigh="xhigh", max="max")
high = lambda l: "high" if l in ("xhigh", "max") else l
for n, l in enumerate(levels, 1):
    d = json.load(open("%s/%d.json" % (req, n)))
    head = open("%s/%d.head" % (req, n)).read().lower()
    extra = {k: d[k] for k in d if k not in ("model", "messages", "stream",
             "stream_options", "max_tokens", "max_completion_tokens",
             "tools", "system")}
    on = l != "off"
    if kind == "openai":
        want = {"reasoning_effort": high(l)}
    elif kind == "openrouter":
        want = {"reasoning": {"effort": high(l)}}
    elif kind == "budget":
        want = {"thinking": {"type": "enabled", "budget_tokens": budget.get(l)}}
        assert d["max_tokens"] == 32000 + budget.get(l, 0), d["max_tokens"]
        assert ("anthropic-beta: interleaved-thinking-2025-05-14" in
                head) == on, head
    elif kind in ("adaptive", "adaptivemax", "sonnet5", "fable5"):
        want = {"thinking": {"type": "adaptive", "display": "summarized"},
                "output_config": {"effort": (effort if kind == "adaptive"
                                             else effortmax).get(l)}}
        # the models' output limit, 128K (models-now.md)
        assert d["max_tokens"] == 128000 and "anthropic-beta" not in head
    else:
        want = {}
    off = {"thinking": {"type": "disabled"}} if kind == "sonnet5" else {}
    assert extra == (want if on else off), (l, extra)
X
	ok "levels: $_kind: each level's fields, off none" ||
	    fail "levels: $_kind: each level's fields, off none" "$(cat "$T/py.err")"
}
levels openai o
levels openrouter o -P openrouter
levels budget a -P anthropic -m claude-sonnet-4-5
levels adaptive a -P anthropic -m claude-opus-4-6
levels adaptivemax a -P anthropic -m claude-opus-4-8
# Sonnet 5 thinks when the field is left out: off says disabled; Fable 5
# always thinks and refuses disabled: off sends no field
levels sonnet5 a -P anthropic -m claude-sonnet-5
levels fable5 a -P anthropic -m claude-fable-5
levels none o -P deepseek
[ "$(grep -c 'deepseek takes no thinking level' "$T/errs")" -eq 6 ] &&
    ok "levels: a provider that takes none says so once a run" ||
    fail "levels: a provider that takes none says so once a run" "$(cat "$T/errs")"

# AGENT_THINKING, -T over it, and a level that is none
startfake -x "$T/o" "$T/o" "$T/o"
run -n hi
AGENT_THINKING=low run -n hi
jsontest "AGENT_THINKING: its level sent" "$REQ/2.json" 'd["reasoning_effort"] == "low"'
AGENT_THINKING=low run -n -T high hi
jsontest "-T: over AGENT_THINKING" "$REQ/3.json" 'd["reasoning_effort"] == "high"'
run -n -T huge hi
[ "$RC" -eq 2 ] && grep -q 'no thinking level huge' "$T/err" && [ ! -e "$REQ/4.json" ] &&
    ok "-T: a level that is none: exit 2, nothing sent" ||
    fail "-T: a level that is none: exit 2, nothing sent" "rc $RC: $(cat "$T/err")"

# The session keeps the level as pi notes it; -c keeps it, -T changes it.
startfake -x "$T/o" "$T/o" "$T/o" "$T/o"
run -T high first
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
python3 - "$F" <<'X' && ok "session: thinking_level_change after model_change, as pi writes" ||
import json, sys
e = [json.loads(l) for l in open(sys.argv[1])][1:]
assert [x["type"] for x in e[:2]] == ["model_change", "thinking_level_change"], e
assert e[1]["thinkingLevel"] == "high" and e[1]["parentId"] == e[0]["id"]
X
    fail "session: thinking_level_change after model_change, as pi writes" "$(cat "$F")"
run -c second
jsontest "session: -c keeps the level" "$REQ/2.json" 'd["reasoning_effort"] == "high"'
[ "$(grep -c thinking_level_change "$F")" -eq 1 ] && ok "session: no entry when the level stays" ||
    fail "session: no entry when the level stays" "$(cat "$F")"
run -c -T off third
jsontest "session: -T off on resume sends none" "$REQ/3.json" '"reasoning_effort" not in d'
run -c fourth
jsontest "session: off is kept too" "$REQ/4.json" '"reasoning_effort" not in d'
[ "$(grep -c '"thinkingLevel":"off"' "$F")" -eq 1 ] && ok "session: the change noted" ||
    fail "session: the change noted" "$(grep thinking_level "$F")"

# /thinking in line mode
startfake -x "$T/o"
printf '/thinking\n/thinking huge\n/thinking medium\n/thinking\nhello\n' >"$T/in"
IN=$T/in run -n -T low
IN=
jsontest "/thinking: the level set goes with the next request" "$REQ/1.json" \
    'd["reasoning_effort"] == "medium"'
grep -q '^low$' "$T/err" && grep -q '^medium$' "$T/err" &&
    grep -q 'no thinking level huge' "$T/err" &&
    ok "/thinking: says the level; a bad one refused" ||
    fail "/thinking: says the level; a bad one refused" "$(cat "$T/err")"

# Anthropic: thinking, redacted_thinking, text, thinking, tool_use kept
# whole, in order, and sent back so; a split surrogate pair is one
# character.
echo 'stand-up moves to 9:30' >"$W/notes.txt"
printf 'raw %s\n' "$DATA/anthropic-blocks.sse" >"$T/b1"
startfake -x "$T/b1" "$T/a"
rm -rf "$T/sessions"
run -P anthropic -m claude-sonnet-4-5 -T high 'what does my note say?'
[ "$RC" -eq 0 ] && ok "blocks: exit 0" || fail "blocks: exit 0" "rc $RC: $(cat "$T/err")"
# The text came with a tool call: narration, on stderr.
grep -q "Party $(printf '\360\237\216\211') time" "$T/err" &&
    ! grep -q "$(printf '\357\277\275')" "$T/err" &&
    ok "surrogates: a pair split between deltas prints as one character" ||
    fail "surrogates: a pair split between deltas prints as one character" "$(od -c "$T/err" | head)"
grep -q "note. $(printf '\360\237\216\211') Read" "$T/err" &&
    ok "surrogates: in thinking too" || fail "surrogates: in thinking too" "$(cat "$T/err")"
jsontest "blocks: the next request holds them in order" "$REQ/2.json" '
d["messages"][1] == {"role": "assistant", "content": [
 {"type": "thinking", "thinking": "The user wants the note. \U0001f389 Read it first.",
  "signature": "EqQBCkgIBxABGAIqQOne+sig/with+slashes=="},
 {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabc=="},
 {"type": "text", "text": "Party \U0001f389 time: reading the note."},
 {"type": "thinking", "thinking": "Use read with a limit.",
  "signature": "ErUBSecondSignature0123456789abcdef=="},
 {"type": "tool_use", "id": "toolu_01Blocks4Read", "name": "read",
  "input": {"path": "notes.txt", "limit": 20}}]}'
grep -qF '"signature":"EqQBCkgIBxABGAIqQOne+sig/with+slashes=="' "$REQ/2.json" &&
    grep -qF '"data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pabc=="' "$REQ/2.json" &&
    grep -qF '"signature":"ErUBSecondSignature0123456789abcdef=="' "$REQ/2.json" &&
    ok "blocks: signatures and data byte-equal" ||
    fail "blocks: signatures and data byte-equal" "$(head -c 800 "$REQ/2.json")"
grep -qi '^anthropic-beta: interleaved-thinking-2025-05-14' "$REQ/2.head" &&
    jsontest "blocks: thinking asked for, on its budget" "$REQ/2.json" \
    'd["thinking"]["budget_tokens"] == 16384' ||
    fail "blocks: the interleaved-thinking beta" "$(cat "$REQ/2.head")"
cp "$REQ/2.json" "$T/req2.json"
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
python3 - "$F" <<'X' && ok "blocks: stored as pi stores them" ||
import json, sys
m = [json.loads(l) for l in open(sys.argv[1])][4]["message"]
c = m["content"]
assert [b["type"] for b in c] == ["thinking", "thinking", "text", "thinking", "toolCall"], c
assert c[1]["redacted"] is True and c[1]["thinking"] == "[Reasoning redacted]"
assert c[1]["thinkingSignature"].startswith("EmwKAhgB") and c[0]["thinkingSignature"].startswith("EqQB")
X
    fail "blocks: stored as pi stores them" "$(sed -n 5p "$F" | head -c 600)"

# pi continues that session and sends the same blocks.
if [ ! -x "$PI" ]; then
	skip "blocks: pi continues the session with the same blocks" "pi is not installed"
else
	startfake -x "$T/a"
	mkdir -p "$T/pihome/.pi/agent"
	printf '{"providers": {"anthropic": {"baseUrl": "%s"}}}\n' \
	    "http://127.0.0.1:$PORT" >"$T/pihome/.pi/agent/models.json"
	(cd "$W" && HOME=$T/pihome PI_OFFLINE=1 ANTHROPIC_API_KEY=test-key \
	    timeout 120 "$PI" --provider anthropic --model claude-sonnet-4-5 \
	    --session "$F" -p 'and now?') </dev/null >"$T/piout" 2>&1
	python3 - "$REQ/1.json" "$T/req2.json" <<'X' && ok "blocks: pi continues the session with the same blocks" ||
import json, sys
pi = json.load(open(sys.argv[1]))["messages"][1]
assert pi["role"] == "assistant", pi
ours = json.load(open(sys.argv[2]))["messages"][1]
assert pi == ours and len(pi["content"]) == 5, (pi, ours)
X
	    fail "blocks: pi continues the session with the same blocks" "$(cat "$T/piout" | head -c 400) $(head -c 600 "$REQ/1.json")"
fi

# A pi session from OpenAI's responses API: a 400-byte compound id goes
# on chat completions as its call, 40 bytes at most, call and result the
# same.
python3 - "$T/pi.jsonl" "$W" <<'X'
import json, sys
cid = "call_AbC123xyz|fc_" + ("Zm9v+YmFy/QmF6=" * 30)[:382]
assert len(cid) == 400
e = [{"type": "session", "version": 3, "id": "019a20b4-6d0a-7c61-8e35-2f9b1d47a0c9",
      "timestamp": "2025-10-26T13:02:11.482Z", "cwd": sys.argv[2]},
     {"type": "model_change", "id": "a0000001", "parentId": None,
      "timestamp": "2025-10-26T13:02:11.496Z", "provider": "openai", "modelId": "gpt-5"},
     {"type": "message", "id": "a0000002", "parentId": "a0000001",
      "timestamp": "2025-10-26T13:02:12.000Z", "message": {"role": "user",
      "content": [{"type": "text", "text": "list it"}], "timestamp": 1}},
     {"type": "message", "id": "a0000003", "parentId": "a0000002",
      "timestamp": "2025-10-26T13:02:13.000Z", "message": {"role": "assistant",
      "content": [{"type": "toolCall", "id": cid, "name": "ls", "arguments": {}}],
      "api": "openai-responses", "provider": "openai", "model": "gpt-5",
      "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0,
      "totalTokens": 2, "cost": {"input": 0, "output": 0, "cacheRead": 0,
      "cacheWrite": 0, "total": 0}}, "stopReason": "toolUse", "timestamp": 2}},
     {"type": "message", "id": "a0000004", "parentId": "a0000003",
      "timestamp": "2025-10-26T13:02:14.000Z", "message": {"role": "toolResult",
      "toolCallId": cid, "toolName": "ls", "content": [{"type": "text",
      "text": "notes.txt"}], "isError": False, "timestamp": 3}}]
with open(sys.argv[1], "w") as f:
    for x in e:
        f.write(json.dumps(x, separators=(",", ":")) + "\n")
X
startfake -x "$T/o"
run -s "$T/pi.jsonl" 'and now?'
jsontest "ids: a 400-byte compound id continues as its call, 40 bytes at most" "$REQ/1.json" '
d["messages"][2]["tool_calls"][0]["id"] == "call_AbC123xyz" and
d["messages"][3]["tool_call_id"] == "call_AbC123xyz" and
all(len(t["id"]) <= 40 for m in d["messages"] for t in m.get("tool_calls", [])) and
all(len(m.get("tool_call_id", "")) <= 40 for m in d["messages"])'

# The same on OpenAI's wire: a pair split between two deltas.
script s <<'X'
line data: {"choices":[{"index":0,"delta":{"content":"a \ud83c"}}]}
line
line data: {"choices":[{"index":0,"delta":{"content":"\udf89 b"}}]}
line
finish stop
X
startfake -x "$T/s"
run -n hi
printf 'a \360\237\216\211 b\n' | cmp -s - "$T/out" &&
    ok "surrogates: one character on the OpenAI wire" ||
    fail "surrogates: one character on the OpenAI wire" "$(od -c "$T/out" | head)"
