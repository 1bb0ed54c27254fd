#!/bin/sh
# anthropic.sh: the Anthropic messages wire end to end against the fake:
# the request as the API wants it, the stream's blocks, tool rounds with
# results merged into one user message, thinking sent back signed, errors.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
DATA=$ROOT/test/data

# runat args...: the agent with -P anthropic in $W, no terminal.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -P anthropic \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# event TYPE JSON: an SSE event as the fake's script lines.
event() {
	printf 'line event: %s\nline data: %s\nline\n' "$1" "$2"
}

text() {
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "'"$1"'"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "'"${2:-end_turn}"'"}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
}

# tooluse INDEX ID NAME JSON
tooluse() {
	event content_block_start '{"type": "content_block_start", "index": '"$1"', "content_block": {"type": "tool_use", "id": "'"$2"'", "name": "'"$3"'", "input": {}}}'
	event content_block_delta '{"type": "content_block_delta", "index": '"$1"', "delta": {"type": "input_json_delta", "partial_json": '"$4"'}}'
	event content_block_stop '{"type": "content_block_stop", "index": '"$1"'}'
}

echo 'stand-up moves to 9:30' >"$W/notes.txt"
printf 'raw %s\n' "$DATA/anthropic-toolcall.sse" >"$T/r1"
printf 'raw %s\n' "$DATA/anthropic-text.sse" >"$T/r2"
startfake -x "$T/r1" "$T/r2"
runat 'what does my note say?'
[ "$RC" -eq 0 ] && ok "wire: exit 0" || fail "wire: exit 0" "rc $RC: $(cat "$T/err")"
printf 'The note says: "stand-up moves to 9:30", caf\303\251 on the 3rd floor \342\230\225 \360\237\232\200\n' |
    cmp -s - "$T/out" && grep -q "^I'll read the note.$" "$T/err" &&
    ok "wire: text blocks on stdout" || fail "wire: text blocks on stdout" "$(od -c "$T/out" | head)"
grep -q 'The user asks what the note says; read it before answering.' "$T/err" &&
    ok "wire: thinking on stderr" || fail "wire: thinking on stderr" "$(cat "$T/err")"
grep -qi '^POST /v1/messages ' "$REQ/1.head" && grep -qi '^x-api-key: test-key' "$REQ/1.head" &&
    grep -qi '^anthropic-version: 2023-06-01' "$REQ/1.head" && ! grep -qi '^authorization' "$REQ/1.head" &&
    ok "request: endpoint and headers" || fail "request: endpoint and headers" "$(cat "$REQ/1.head")"
jsontest "request: model, limits, system cached, tools with input_schema" "$REQ/1.json" \
    'd["model"] == "fake-model" and d["stream"] is True and d["max_tokens"] > 0 and
     d["system"][0]["type"] == "text" and d["system"][0]["cache_control"] == {"type": "ephemeral"} and
     "read" in [t["name"] for t in d["tools"]] and
     all(t["input_schema"]["type"] == "object" for t in d["tools"]) and
     d["messages"] == [{"role": "user", "content": [{"type": "text",
     "text": "what does my note say?", "cache_control": {"type": "ephemeral"}}]}]'
jsontest "request: the last tool cached, as pi marks it; no sampling parameters" "$REQ/1.json" \
    'd["tools"][-1]["cache_control"] == {"type": "ephemeral"} and
     all("cache_control" not in t for t in d["tools"][:-1]) and
     not set(d) & {"temperature", "top_p", "top_k"}'
grep -qi '^anthropic-beta' "$REQ/1.head" && fail "request: no beta header when not thinking on a budget" "$(cat "$REQ/1.head")" ||
    ok "request: no beta header when not thinking on a budget"
jsontest "round 2: thinking sent back with its signature" "$REQ/2.json" \
    'd["messages"][1]["role"] == "assistant" and d["messages"][1]["content"][0] ==
     {"type": "thinking", "thinking": "The user asks what the note says; read it before answering.",
      "signature": "ErUBCkYIBxgCKkB3m9Qx1pLr7vTz0sWc4nYh8kJd2fGa6eMb5oXu9iHq3tVyR1wNz7cKp0sLg4dFa8jEm6bUx2hOv5rQyEgxT2Vk9Pq4Lm7Zs3JcGgwN8bXr1yWd6tFh0QoiMHp4Kc9vRs2Lz7nMg5jTa3eYw1uDx8bHk6fNq0cVi4oGs2Wl9tPr7mZy5dAhKh0qBg=="}'
jsontest "round 2: text and tool_use blocks" "$REQ/2.json" \
    'd["messages"][1]["content"][1:] == [{"type": "text", "text": "I\x27ll read the note."},
     {"type": "tool_use", "id": "toolu_01D7xKq4Wm9bRf3sTn6YcHvE", "name": "read",
      "input": {"path": "notes.txt", "limit": 20}}]'
jsontest "round 2: the result as a tool_result block, cached" "$REQ/2.json" \
    'd["messages"][2] == {"role": "user", "content": [{"type": "tool_result",
     "tool_use_id": "toolu_01D7xKq4Wm9bRf3sTn6YcHvE", "content": "stand-up moves to 9:30\n",
     "cache_control": {"type": "ephemeral"}}]}'
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
grep -q '"thinkingSignature":"ErUBCkYIBxgCKkB3m9Qx' "$F" && grep -q '"api":"anthropic-messages"' "$F" &&
    ok "session: signature and api stored" || fail "session: signature and api stored" "$(grep assistant "$F" | head -c 400)"
grep -q '"usage":{"input":312,"output":27,"cacheRead":1540,"cacheWrite":0,"totalTokens":1879' "$F" &&
    ok "session: the answer's usage, cache read apart" ||
    fail "session: the answer's usage, cache read apart" "$(grep -o '"usage":{[^}]*' "$F")"

# Two calls in one message: both results in one user message, in order.
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	tooluse 0 tu_a read '"{\"path\": \"a.txt\"}"'
	tooluse 1 tu_b read '"{\"path\": \"b.txt\"}"'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
} >"$T/two"
text "Both read." >"$T/done"
echo aaa >"$W/a.txt"
echo bbb >"$W/b.txt"
startfake -x "$T/two" "$T/done"
runat -n 'read both'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "Both read." ] && ok "two calls: answered" ||
    fail "two calls: answered" "rc $RC: $(cat "$T/err")"
jsontest "two calls: one user message with both results" "$REQ/2.json" \
    '[(b["tool_use_id"], b["content"]) for b in d["messages"][-1]["content"]] ==
     [("tu_a", "aaa\n"), ("tu_b", "bbb\n")] and len(d["messages"]) == 3'

# Errors: an error event mid-stream, an overloaded server, a cut answer.
printf 'raw %s\n' "$DATA/anthropic-error.sse" >"$T/err1"
startfake -x "$T/err1"
runat -n 'hi'
[ "$RC" -eq 1 ] && grep -q 'anthropic: Overloaded' "$T/err" && ok "error event: its message, exit 1" ||
    fail "error event: its message, exit 1" "rc $RC: $(cat "$T/err")"
printf 'status 529\nretry-after 0\nerror Overloaded\n' >"$T/e529"
text "fine" >"$T/ok"
startfake -x "$T/e529" "$T/ok"
runat -n 'hi'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = fine ] && ok "529: retried" ||
    fail "529: retried" "rc $RC: $(cat "$T/err")"
text "trunc" max_tokens >"$T/cut"
startfake -x "$T/cut"
runat -n 'hi'
[ "$RC" -eq 1 ] && grep -q 'token limit' "$T/err" && ok "max_tokens: cut short, exit 1" ||
    fail "max_tokens: cut short, exit 1" "rc $RC: $(cat "$T/err")"
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "half"}}'
	echo nodone
} >"$T/early"
startfake -x "$T/early"
runat -n 'hi'
[ "$RC" -eq 1 ] && grep -q 'ended before the answer was complete' "$T/err" &&
    ok "no message_stop: the answer is incomplete, exit 1" ||
    fail "no message_stop: the answer is incomplete, exit 1" "rc $RC: $(cat "$T/err")"

# Anthropic reports overload inside a 200 stream: tried again when nothing
# came before it.
cp "$T/err1" "$T/over"
text "after all" >"$T/ok2"
startfake -x "$T/over" "$T/ok2"
runat -n 'hi'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "after all" ] && ok "overloaded event before any text: retried" ||
    fail "overloaded event before any text: retried" "rc $RC: $(cat "$T/err")"

# Refusal is a failure; usage is stored as pi stores it.
text "no" refusal >"$T/refuse"
startfake -x "$T/refuse"
runat -n 'hi'
[ "$RC" -eq 1 ] && grep -q 'refused' "$T/err" && ok "refusal: exit 1" ||
    fail "refusal: exit 1" "rc $RC: $(cat "$T/err")"

# stopped STOP DETAILS: an answer begun, then a stop that is a failure.
stopped() {
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "I will not"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "'"$1"'"'"$2"'}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
}
# A refusal (HTTP 200) says which, with its category; the session stays
# one the next run continues, the refused answer not sent back; -j ends
# the message with its errorMessage.
stopped refusal ', "stop_details": {"type": "refusal", "category": "cyber"}' >"$T/refuse2"
stopped model_context_window_exceeded >"$T/window"
text "fine" >"$T/fine"
startfake -x "$T/refuse2" "$T/fine" "$T/window" "$T/window"
rm -rf "$T/sessions"
runat 'first'
[ "$RC" -eq 1 ] && grep -q 'anthropic: the model refused to answer (cyber)' "$T/err" &&
    ok "refusal: stderr says so, its category, exit 1" ||
    fail "refusal: stderr says so, its category, exit 1" "rc $RC: $(cat "$T/err")"
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
grep -q '"stopReason":"error","timestamp":[0-9]*,"errorMessage":"anthropic: the model refused to answer (cyber)"' "$F" &&
    ok "refusal: stored as an error with its errorMessage, as pi stores one" ||
    fail "refusal: stored as an error with its errorMessage, as pi stores one" "$(tail -1 "$F")"
runat -c 'second'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = fine ] && ok "refusal: the session continues" ||
    fail "refusal: the session continues" "rc $RC: $(cat "$T/err")"
jsontest "refusal: the refused answer is not sent back" "$REQ/2.json" \
    'd["messages"] == [{"role": "user", "content": [{"type": "text", "text": "first"},
     {"type": "text", "text": "second", "cache_control": {"type": "ephemeral"}}]}]'
runat -c 'third'
[ "$RC" -eq 1 ] && grep -q "anthropic: the answer filled the model's context window (model_context_window_exceeded)" "$T/err" &&
    ok "context window exceeded: stderr says so, exit 1" ||
    fail "context window exceeded: stderr says so, exit 1" "rc $RC: $(cat "$T/err")"
runat -n -j 'fourth'
if ! command -v python3 >/dev/null 2>&1; then
	skip "context window exceeded: -j message_end has its errorMessage" "no python3"
else
python3 - "$T/out" <<'X' >"$T/py.err" 2>&1 && ok "context window exceeded: -j message_end has its errorMessage" ||
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
m = [e["message"] for e in ev if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
assert m and m[-1]["stopReason"] == "error", m
assert "model_context_window_exceeded" in m[-1]["errorMessage"], m
X
    fail "context window exceeded: -j message_end has its errorMessage" "$(cat "$T/py.err")"
fi
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "cache_creation_input_tokens": 100, "cache_read_input_tokens": 50, "output_tokens": 1}}}'
	text "cached" | grep -v message_start
} >"$T/usage"
startfake -x "$T/usage"
rm -rf "$T/sessions"
runat 'hi'
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
grep -q '"usage":{"input":10,"output":5,"cacheRead":50,"cacheWrite":100,"totalTokens":165' "$F" &&
    ok "usage: input, cache read and cache write apart" ||
    fail "usage: input, cache read and cache write apart" "$(grep -o '"usage":{[^}]*' "$F")"

# What goes back: odd ids made safe (the same way in both places), blank
# text left out, thinking from another provider not sent as signed.
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "\\n\\n"}}'
	tooluse 1 'call|x:1' read '"{\"path\": \"a.txt\"}"'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
} >"$T/odd"
startfake -x "$T/odd" "$T/done"
runat -n 'go'
jsontest "odd ids: made safe, the same in tool_use and tool_result" "$REQ/2.json" \
    'd["messages"][1]["content"][-1]["id"] == "call_x_1" and
     d["messages"][2]["content"][0]["tool_use_id"] == "call_x_1"'
jsontest "blank text: not sent" "$REQ/2.json" \
    '[b["type"] for b in d["messages"][1]["content"]] == ["tool_use"]'
cp "$DATA/pi-session.jsonl" "$T/pi.jsonl" ||
    fail "pi's file: test/data has it" "no $DATA/pi-session.jsonl"
startfake -x "$T/ok2"
runat -s "$T/pi.jsonl" 'more'
jsontest "pi's OpenAI thinking is not sent as signed thinking" "$REQ/1.json" \
    'all(b["type"] != "thinking" for m in d["messages"] if m["role"] == "assistant"
         for b in m["content"]) and d["messages"][1]["content"][0]["type"] == "text"'

# display omitted (Fable 5 at off, say): a thinking block with no text
# but its signature is stored, and goes back unchanged to the model that
# signed it.
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "RW1wdHlCdXRTaWduZWQ="}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
	event content_block_start '{"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "ok"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 1}'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
} >"$T/omitted"
startfake -x "$T/omitted" "$T/fine"
rm -rf "$T/sessions"
runat -m claude-fable-5 'one'
runat -c -m claude-fable-5 'two'
jsontest "omitted thinking: Fable 5 at off: no thinking field" "$REQ/1.json" \
    '"thinking" not in d and "output_config" not in d'
jsontest "omitted thinking: the empty block goes back unchanged" "$REQ/2.json" \
    'd["messages"][1] == {"role": "assistant", "content": [{"type": "thinking",
     "thinking": "", "signature": "RW1wdHlCdXRTaWduZWQ="}, {"type": "text", "text": "ok"}]}'

# OpenRouter passes cache marks on to Claude (models-now.md): the system
# prompt, the last tool and the last user block carry them, as pi marks
# them; another model there gets none.
printf 'text ok\nfinish stop\n' >"$T/chat"
startfake -x "$T/chat" "$T/chat"
(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -P openrouter \
    -m anthropic/claude-sonnet-5 -n 'cache me') </dev/null >"$T/out" 2>"$T/err"
(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -P openrouter \
    -m openai/gpt-6.1-sol -n 'cache me') </dev/null >"$T/out" 2>"$T/err"
jsontest "openrouter: Claude's system prompt, last tool and last user block marked" "$REQ/1.json" \
    'd["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"} and
     d["tools"][-1]["cache_control"] == {"type": "ephemeral"} and
     all("cache_control" not in t for t in d["tools"][:-1]) and
     d["messages"][-1] == {"role": "user", "content": [{"type": "text",
     "text": "cache me", "cache_control": {"type": "ephemeral"}}]}'
jsontest "openrouter: other models get no cache marks" "$REQ/2.json" \
    '"cache_control" not in json.dumps(d)'
