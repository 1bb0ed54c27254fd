#!/bin/sh
# responses.sh: OpenAI's Responses wire end to end against the fake: a
# tool round with reasoning, the reasoning items sent back byte for byte
# in their place, usage with cached and reasoning tokens, -j events as on
# chat completions, every failure shape (exit status, message, a session
# still valid and continued), and pi's Responses session continued.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
DATA=$ROOT/test/data

# runat args...: the agent with -P openai in $W, no terminal.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -P openai \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# sessionok NAME: every line of the session file is JSON.
sessionok() {
	_f=$(ls "$T"/sessions/*/*.jsonl 2>/dev/null | tail -1)
	if [ -z "$_f" ]; then
		fail "$1" "no session file"
		return
	fi
	if python3 -c 'import json, sys
for l in open(sys.argv[1]): json.loads(l)' "$_f" 2>"$T/pyerr"; then
		ok "$1"
	else
		fail "$1" "$(cat "$T/pyerr")"
	fi
}

# lastsession: the newest session file.
lastsession() {
	ls -t "$T"/sessions/*/*.jsonl | head -1
}

echo alpha >"$W/a.txt"
script r1 <<'EOF'
responses
think **Reading**\n\nOpen a.txt.
think **Plan**\n\nThen answer.
text Let me read it.
tool call_r1 read {"path":"a.txt"}
usage 120 30 100 18
EOF
script r2 <<'EOF'
responses
text It says alpha.
usage 200 5 150 0
EOF

# A tool round
startfake -x "$T/r1" "$T/r2"
runat -T medium 'what is in a.txt?'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "It says alpha." ] &&
    ok "round: exit 0, the answer on stdout" ||
    fail "round: exit 0, the answer on stdout" "rc $RC: $(cat "$T/out" "$T/err")"
grep -q '^\*\*Plan\*\*$' "$T/err" && grep -q '^Open a.txt.$' "$T/err" &&
    ok "round: the summaries shown as thinking on stderr" ||
    fail "round: the summaries shown as thinking on stderr" "$(cat "$T/err")"
grep -q 'tokens: 320 in (250 cached), 35 out' "$T/err" &&
    ok "round: usage with the cached tokens on stderr" ||
    fail "round: usage with the cached tokens on stderr" "$(cat "$T/err")"
grep -qi '^POST /v1/responses ' "$REQ/1.head" &&
    grep -qi '^authorization: bearer test-key' "$REQ/1.head" &&
    ok "request: POST /responses with the key as a bearer" ||
    fail "request: POST /responses with the key as a bearer" "$(cat "$REQ/1.head")"
SID=$(head -1 "$(lastsession)" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
jsontest "request: store false, stream, cache key the session id, limit, reasoning, tools" \
    "$REQ/1.json" 'd["store"] is False and d["stream"] is True and
     d["prompt_cache_key"] == "'"$SID"'" and d["max_output_tokens"] > 0 and
     d["reasoning"] == {"effort": "medium", "summary": "auto"} and
     d["include"] == ["reasoning.encrypted_content"] and
     d["input"][0]["role"] == "developer" and
     d["input"][1:] == [{"role": "user", "content": [{"type": "input_text",
         "text": "what is in a.txt?"}]}] and
     all(t["type"] == "function" and t["strict"] is False and
         t["parameters"]["type"] == "object" and "function" not in t
         for t in d["tools"])'
# the reasoning item as output_item.done had it, byte for byte, in place
python3 - "$REQ/2.json" "$T/fakeitem" <<'EOF'
import base64, sys
body = open(sys.argv[1]).read()
enc = "gAAAAB" + base64.b64encode(b"final:rs_fake1_0:**Reading**\n\nOpen a.txt.\n\n**Plan**\n\nThen answer.").decode()
item = ('{"id":"rs_fake1_0","type":"reasoning","summary":[{"type":"summary_text",'
        '"text":"**Reading**\\n\\nOpen a.txt."},{"type":"summary_text","text":'
        '"**Plan**\\n\\nThen answer."}],"encrypted_content":"' + enc + '"}')
want = (item + ',{"type":"message","role":"assistant","content":[{"type":"output_text",'
        '"text":"Let me read it.","annotations":[]}],"status":"completed","id":"msg_fake1_1"},'
        '{"type":"function_call","id":"fc_fake1_2","call_id":"call_r1","name":"read",'
        '"arguments":"{\\"path\\":\\"a.txt\\"}"},{"type":"function_call_output",'
        '"call_id":"call_r1","output":"alpha\\n"}]')
sys.exit(0 if want in body else 1)
EOF
[ $? -eq 0 ] && ok "round trip: the reasoning item sent back byte-equal, before the text and call it preceded" ||
    fail "round trip: the reasoning item sent back byte-equal, before the text and call it preceded" "$(cat "$REQ/2.json" | cut -c1-3000)"
python3 - "$(lastsession)" >"$T/py" 2>&1 <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
a = [l["message"] for l in lines if l.get("type") == "message" and l["message"]["role"] == "assistant"]
m = a[0]
assert m["api"] == "openai-responses" and m["provider"] == "openai", m
th, tx, tc = m["content"]
sig = json.loads(th["thinkingSignature"])
assert th["thinking"] == "**Reading**\n\nOpen a.txt.\n\n**Plan**\n\nThen answer.", th
assert sig["id"] == "rs_fake1_0" and sig["type"] == "reasoning" and "final:" in __import__("base64").b64decode(sig["encrypted_content"][6:]).decode(), sig
assert json.loads(tx["textSignature"]) == {"v": 1, "id": "msg_fake1_1"}, tx
assert tc["id"] == "call_r1|fc_fake1_2" and tc["arguments"] == {"path": "a.txt"}, tc
assert m["stopReason"] == "toolUse"
u = m["usage"]
assert (u["input"], u["cacheRead"], u["output"], u["reasoning"], u["totalTokens"]) == (20, 100, 30, 18, 150), u
r = [l["message"] for l in lines if l.get("type") == "message" and l["message"]["role"] == "toolResult"][0]
assert r["toolCallId"] == "call_r1|fc_fake1_2", r
assert a[1]["stopReason"] == "stop" and a[1]["usage"]["cacheRead"] == 150
EOF
[ $? -eq 0 ] && ok "session: stored as pi stores a Responses answer (signatures, call_id|item id, usage)" ||
    fail "session: stored as pi stores a Responses answer (signatures, call_id|item id, usage)" "$(cat "$T/py")"

# continued: the same items again from the session file, the same key
cp "$REQ/2.json" "$T/round2.json"
script r3 <<'EOF'
responses
text Still alpha.
EOF
startfake -x "$T/r3"
runat -c 'and now?'
python3 - "$T/round2.json" "$REQ/1.json" "$SID" >"$T/py" 2>&1 <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["input"][:len(a["input"])] == a["input"], "prefix differs"
assert b["input"][len(a["input"])]["type"] == "message"
assert b["input"][-1] == {"role": "user", "content": [{"type": "input_text", "text": "and now?"}]}
assert b["prompt_cache_key"] == sys.argv[3] == a["prompt_cache_key"]
raw = open(sys.argv[2]).read()
assert open(sys.argv[1]).read().split('"input":[', 1)[1].split(']},{"role":"user"')[0][:2000] in raw
EOF
[ "$RC" -eq 0 ] && [ $? -eq 0 ] &&
    ok "continue: the stored items go back as they were, under the same cache key" ||
    fail "continue: the stored items go back as they were, under the same cache key" "rc $RC $(cat "$T/py" "$T/err")"

# -T off: the model may reason unasked, its items without
# encrypted_content; with store false the server keeps nothing to find
# them by (404 "Item with id 'rs_...' not found"): they do not go back,
# nor the item id of the call they came with
script u1 <<'EOF'
responses
unencrypted
think Unasked.
tool call_u1 read {"path":"a.txt"}
EOF
startfake -x "$T/u1" "$T/r2"
runat -T off 'what is in a.txt?'
jsontest "thinking off: no reasoning asked, none included" "$REQ/1.json" \
    '"reasoning" not in d and "include" not in d'
jsontest "thinking off: a reasoning item without encrypted_content does not go back, nor its call's item id" \
    "$REQ/2.json" '[i for i in d["input"] if i.get("type") == "reasoning"] == [] and
     [i for i in d["input"] if i.get("type") == "function_call"] ==
     [{"type": "function_call", "call_id": "call_u1", "name": "read",
       "arguments": "{\"path\":\"a.txt\"}"}]'

# the openai row's GPT-6: xhigh as it is, minimal as low (Astra and 6.1
# Sol refuse none and minimal: models-now.md); openai-chat's default
# model one that takes tools on chat completions
startfake -x "$T/r2" "$T/r2" "$T/r2" "$T/r2"
runat -n -T xhigh 'hi'
runat -n -T minimal 'hi'
(cd "$W" && agentexec env -u AGENT_MODEL "$ROOT/agent" -P openai -n 'hi') </dev/null >/dev/null 2>&1
(cd "$W" && agentexec env -u AGENT_MODEL "$ROOT/agent" -P openai-chat -n 'hi') </dev/null >/dev/null 2>&1
jsontest "GPT-6: xhigh sent as xhigh" "$REQ/1.json" 'd["reasoning"]["effort"] == "xhigh"'
jsontest "GPT-6: minimal sent as low" "$REQ/2.json" 'd["reasoning"]["effort"] == "low"'
jsontest "the openai row: a GPT-6 model" "$REQ/3.json" 'd["model"].startswith("gpt-6")'
jsontest "the openai-chat row: a model that takes tools on chat completions" "$REQ/4.json" \
    'd["model"] == "gpt-5" and "tools" in d'

# -j: the same events as chat completions for the same answer
script c1 <<'EOF'
think **Reading**\n\nOpen a.txt.
text Let me read it.
tool call_r1 read {"path":"a.txt"}
EOF
script c2 <<'EOF'
text It says alpha.
EOF
script j1 <<'EOF'
responses
think **Reading**\n\nOpen a.txt.
text Let me read it.
tool call_r1 read {"path":"a.txt"}
EOF
script j2 <<'EOF'
responses
text It says alpha.
EOF
startfake -x "$T/c1" "$T/c2"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -n -j -T medium 'what is in a.txt?') </dev/null >"$T/chat.jsonl" 2>"$T/err"
startfake -x "$T/j1" "$T/j2"
runat -n -j -T medium 'what is in a.txt?'
python3 - "$T/chat.jsonl" "$T/out" >"$T/py" 2>&1 <<'EOF'
import json, sys
# the events in order, a run of deltas as one: the fake cuts them apart
# differently on each wire
def shape(path):
    out = []
    for l in open(path):
        e = json.loads(l)
        ame = e.get("assistantMessageEvent", {})
        k = (e["type"], ame.get("type"))
        d = ame.get("delta") if k[1] in ("thinking_delta", "text_delta") else ""
        if out and k[1] and k[1].endswith("_delta") and out[-1][0] == k:
            out[-1][1] += d
        else:
            out.append([k, d])
    return out
a, b = shape(sys.argv[1]), shape(sys.argv[2])
assert a == b, "\n%s\n%s" % (a, b)
ends = [json.loads(l) for l in open(sys.argv[2]) if '"message_end"' in l]
m = [e["message"] for e in ends if e["message"]["role"] == "assistant"][0]
assert m["api"] == "openai-responses" and m["content"][0]["thinkingSignature"].startswith('{"id":"rs_'), m
EOF
[ $? -eq 0 ] && ok "-j: the same events as on chat completions, the answer as stored" ||
    fail "-j: the same events as on chat completions, the answer as stored" "$(cat "$T/py")"

# -r: the same events too, and get_state names the API
printf '%s\n' '{"id":"1","type":"prompt","message":"what is in a.txt?"}' >"$T/rpcin"
startfake -x "$T/c1" "$T/c2"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -n -r -T medium) <"$T/rpcin" >"$T/chat.rpc" 2>"$T/err"
startfake -x "$T/j1" "$T/j2"
printf '%s\n' '{"id":"2","type":"get_state"}' >>"$T/rpcin"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -P openai -n -r -T medium) <"$T/rpcin" >"$T/resp.rpc" 2>"$T/err"
python3 - "$T/chat.rpc" "$T/resp.rpc" >"$T/py" 2>&1 <<'EOF'
import json, sys
def shape(path):
    out = []
    for l in open(path):
        e = json.loads(l)
        if e["type"] == "response":
            continue
        k = (e["type"], e.get("assistantMessageEvent", {}).get("type"))
        if out and k[1] and k[1].endswith("_delta") and out[-1] == k:
            continue
        out.append(k)
    return out
a, b = shape(sys.argv[1]), shape(sys.argv[2])
assert a == b, "\n%s\n%s" % (a, b)
st = [json.loads(l) for l in open(sys.argv[2]) if '"get_state"' in l][0]
assert st["data"]["model"]["api"] == "openai-responses", st
EOF
[ $? -eq 0 ] && ok "-r: the same events as on chat completions; get_state says openai-responses" ||
    fail "-r: the same events as on chat completions; get_state says openai-responses" "$(cat "$T/py" "$T/err")"

# Failures: each with its exit status and message; the session stays
# valid, and goes on.
script ok1 <<'EOF'
responses
text Back again.
EOF

# failcase NAME RC PATTERN: the failure script $T/f, then -c with ok1.
failcase() {
	rm -rf "$T/sessions"
	startfake -x "$T/f" "$T/ok1"
	runat 'hello'
	if [ "$RC" -eq "$2" ] && grep -q "$3" "$T/err"; then
		ok "$1: exit $2, the provider's message said"
	else
		fail "$1: exit $2, the provider's message said" "rc $RC: $(cat "$T/err")"
	fi
	sessionok "$1: the session is valid"
	runat -c 'again'
	jsontest "$1: the session goes on" "$REQ/2.json" \
	    'd["input"][-1]["content"][0]["text"] == "again" and
	     [i for i in d["input"] if i.get("type") == "function_call"] == []'
}

script f <<'EOF'
responses
text Partial ans
incomplete max_output_tokens
EOF
failcase incomplete 1 'cut short: the output token limit was reached'
grep -q '"stopReason":"length"' "$(lastsession)" && grep -q '"text":"Partial ans"' "$(lastsession)" &&
    ok "incomplete: the partial answer kept, cut short (length)" ||
    fail "incomplete: the partial answer kept, cut short (length)" "$(cat "$(lastsession)")"
jsontest "incomplete: the partial answer goes back" "$REQ/2.json" \
    'any(i.get("type") == "message" and i["content"][0]["text"] == "Partial ans" for i in d["input"])'

script f <<'EOF'
responses
text Part
tool call_x write {"path":"b.txt","content":"x
incomplete content_filter
EOF
failcase "incomplete (content filter), a call cut" 1 'cut short: content_filter'
[ ! -e "$W/b.txt" ] && ok "incomplete: a cut call is not run" || fail "incomplete: a cut call is not run" "b.txt written"

script f <<'EOF'
responses
failed invalid_prompt Your prompt was flagged.
EOF
failcase "response.failed" 1 'openai: invalid_prompt: Your prompt was flagged.'
startfake -x "$T/f"
runat -n -j 'hello'
grep '"type":"message_end"' "$T/out" | tail -1 >"$T/end.json"
jsontest "response.failed: -j ends the message as an error with its errorMessage" "$T/end.json" \
    'd["message"]["stopReason"] == "error" and
     d["message"]["errorMessage"] == "openai: invalid_prompt: Your prompt was flagged."'

script f <<'EOF'
responses
errevent insufficient_quota You exceeded your current quota.
failed insufficient_quota You exceeded your current quota.
EOF
failcase "error event (flat)" 1 'openai: insufficient_quota: You exceeded your current quota.'
[ "$(ls "$REQ" | grep -c json)" -eq 2 ] && ok "error event: a spent quota is not retried" ||
    fail "error event: a spent quota is not retried" "$(ls "$REQ")"

script f <<'EOF'
responses
errnested context_length_exceeded Your input exceeds the context window.
failed context_length_exceeded Your input exceeds the context window.
EOF
failcase "error event (nested)" 1 'openai: context_length_exceeded: Your input exceeds the context window.'

script f <<'EOF'
responses
text Half an ans
nodone
EOF
failcase "no response.completed" 1 'the stream ended before the answer was complete'
grep -q '"stopReason":"error"' "$(lastsession)" && ok "no response.completed: never a success, kept as an error" ||
    fail "no response.completed: never a success, kept as an error" "$(cat "$(lastsession)")"

script f <<'EOF'
status 400
error Invalid value for 'input': expected an array.
EOF
failcase "HTTP 400" 1 "openai: HTTP 400: Invalid value for 'input': expected an array."

# what may pass is tried again: a server error in the stream, a 429
script f <<'EOF'
responses
failed server_error The server had an error.
EOF
script g <<'EOF'
status 429
retry-after 1
error Rate limit reached. Please try again in 1s.
EOF
rm -rf "$T/sessions"
startfake -x "$T/f" "$T/g" "$T/ok1"
runat 'hello'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "Back again." ] &&
    grep -q 'openai: server_error: The server had an error., retrying in' "$T/err" &&
    grep -q 'openai: HTTP 429, retrying in 1.0 s' "$T/err" &&
    ok "retry: response.failed server_error and 429 with Retry-After tried again" ||
    fail "retry: response.failed server_error and 429 with Retry-After tried again" "rc $RC: $(cat "$T/err")"

# pi's Responses session (test/data/pi-responses.jsonl, written from the
# reference): agent continues it, sending the items pi sends
mkdir -p "$T/pi"
sed "s#@CWD@#$W#" "$DATA/pi-responses.jsonl" >"$T/pi/s.jsonl"
script p1 <<'EOF'
responses
text Done.
EOF
startfake -x "$T/p1"
runat -s "$T/pi/s.jsonl" 'thanks'
python3 - "$T/pi/s.jsonl" "$REQ/1.json" >"$T/py" 2>&1 <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
a = [l["message"] for l in lines if l.get("type") == "message" and l["message"]["role"] == "assistant"][0]
sig = a["content"][0]["thinkingSignature"]
raw = open(sys.argv[2]).read()
d = json.loads(raw)
assert sig in raw, "the reasoning item is not sent byte-equal"
items = d["input"]
assert items[0]["role"] == "developer"
assert items[1] == {"role": "user", "content": [{"type": "input_text", "text": "what is in a.txt?"}]}, items[1]
assert items[2] == json.loads(sig), items[2]
assert items[3] == {"type": "message", "role": "assistant", "content": [{"type": "output_text",
    "text": "Let me read it.", "annotations": []}], "status": "completed", "id": "msg_1c2e", "phase": "commentary"}, items[3]
assert items[4] == {"type": "function_call", "id": "fc_a8d1", "call_id": "call_r1", "name": "read",
    "arguments": "{\"path\":\"a.txt\"}"}, items[4]
assert items[5] == {"type": "function_call_output", "call_id": "call_r1", "output": "alpha\n"}, items[5]
assert items[6] == {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "It says alpha.", "annotations": []}], "status": "completed", "id": "msg_77f0", "phase": "final_answer"}, items[6]
assert items[7] == {"role": "user", "content": [{"type": "input_text", "text": "thanks"}]}, items[7]
assert len(items) == 8
EOF
[ "$RC" -eq 0 ] && [ $? -eq 0 ] && ok "pi: agent continues pi's Responses session with the items pi sends" ||
    fail "pi: agent continues pi's Responses session with the items pi sends" "rc $RC $(cat "$T/py" "$T/err")"

# pi itself, where installed: pi continues agent's Responses session
# sending the items agent sends, and agent continues pi's sending the
# items pi sends
PI=${PI:-$ROOT/bench/pi/node_modules/.bin/pi}
# pimodels: pi's models.json for the fake as the openai provider
pimodels() {
	mkdir -p "$T/pihome/.pi/agent"
	cat >"$T/pihome/.pi/agent/models.json" <<EOF
{"providers": {"openai": {"baseUrl": "$URL", "api": "openai-responses",
 "apiKey": "test-key", "models": [{"id": "fake-model", "name": "fake-model",
 "reasoning": true, "input": ["text"], "contextWindow": 200000, "maxTokens": 32000}]}}}
EOF
}
# pirun SESSION PROMPT: pi -p on that session in $W
pirun() {
	(cd "$W" && HOME="$T/pihome" timeout 60 "$PI" --offline --provider openai \
	    --model fake-model --thinking medium --session "$1" -p "$2") \
	    </dev/null >"$T/piout" 2>&1
}
# sameitems NAME A B: the input items of request bodies A and B, but the
# system prompt and agent's paragraph of the date and directory (pi has
# them in its system prompt), are the same
sameitems() {
	python3 - "$2" "$3" >"$T/py" 2>&1 <<'EOF'
import json, os, sys
exec(os.environ["UNENV"])
a = unenv(json.load(open(sys.argv[1])))
b = unenv(json.load(open(sys.argv[2])))
assert a["input"][1:] == b["input"][1:], "\n%s\n%s" % (a["input"][1:], b["input"][1:])
EOF
	[ $? -eq 0 ] && ok "$1" || fail "$1" "$(cat "$T/py" "$T/piout" | cut -c1-3000)"
}
if [ ! -x "$PI" ] || ! command -v node >/dev/null 2>&1; then
	skip "pi continues agent's Responses session" "pi is not installed (set PI, or npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
	skip "agent continues pi's Responses session" "pi is not installed"
else
	rm -rf "$T/sessions"
	startfake -x "$T/r1" "$T/r2" "$T/ok1"
	runat -T medium 'what is in a.txt?'
	runat -c 'and now?'
	cp "$REQ/3.json" "$T/agent3.json"
	S=$(lastsession)
	# pi goes on from the same two turns: the file as it was after one
	head -n "$(grep -n '"text":"and now?"' "$S" | cut -d: -f1)" "$S" |
	    sed '$d' >"$T/forpi.jsonl"
	startfake -x "$T/ok1"
	pimodels
	pirun "$T/forpi.jsonl" 'and now?'
	sameitems "pi continues agent's Responses session, sending the items agent sends (pi $("$PI" --version 2>&1 | tail -1))" \
	    "$T/agent3.json" "$REQ/1.json"
	# and pi's own session, continued by each
	rm -f "$T/pi.jsonl"
	startfake -x "$T/r1" "$T/r2" "$T/ok1"
	pimodels
	pirun "$T/pi.jsonl" 'what is in a.txt?'
	pirun "$T/pi.jsonl" 'and now?'
	cp "$REQ/3.json" "$T/pi3.json"
	head -n "$(grep -n '"text":"and now?"' "$T/pi.jsonl" | cut -d: -f1)" \
	    "$T/pi.jsonl" | sed '$d' >"$T/foragent.jsonl"
	startfake -x "$T/ok1"
	runat -T medium -s "$T/foragent.jsonl" 'and now?'
	sameitems "agent continues pi's Responses session, sending the items pi sends" \
	    "$T/pi3.json" "$REQ/1.json"
fi
