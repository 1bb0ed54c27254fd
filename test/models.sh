#!/bin/sh
# models.sh: images (read's and -i's) reaching the model on both wires as
# pi sends them, costs from known prices (usage line, usage.cost in the
# session and in -j events, /session's total), and /model saved and used.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"

if ! command -v python3 >/dev/null 2>&1; then
	skip "models" "no python3"
	exit 0
fi

# runat args...: the agent in $W, stdin from $IN (default /dev/null).
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" "$@") \
	    <"${IN:-/dev/null}" >"$T/out" 2>"$T/err"
	RC=$?
}

# event TYPE JSON: an SSE event as the fake's script lines.
event() {
	printf 'line event: %s\nline data: %s\nline\n' "$1" "$2"
}

# A 2x2 red PNG (pi's own read sent these very bytes), and a 1 MB file of
# binary that is no image, named as one.
python3 - "$W" <<'X'
import base64, sys
png = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElE"
                       "QVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==")
open(sys.argv[1] + "/red.png", "wb").write(png)
open(sys.argv[1] + "/blob.png", "wb").write(b"\0\1\2\3" * (1 << 18))
X
B64=iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==
URI="data:image/png;base64,$B64"

# OpenAI: read on a PNG; its image follows the results in a user message.
printf 'tool c1 read {"path": "red.png"}\nfinish tool_calls\n' | script r1
printf 'text red\nfinish stop\n' | script done
startfake -x "$T/r1" "$T/done"
runat 'what colour is red.png?'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = red ] && ok "openai read png: answered" ||
    fail "openai read png: answered" "rc $RC: $(cat "$T/err")"
jsontest "openai read png: the result's text, its image after it as pi sends it" "$REQ/2.json" \
    'd["messages"][3] == {"role": "tool", "tool_call_id": "c1",
     "content": "Read image file [image/png]"} and
     d["messages"][4] == {"role": "user", "content": [{"type": "text",
     "text": "Attached image(s) from tool result:"},
     {"type": "image_url", "image_url": {"url": "'"$URI"'"}}]} and
     len(d["messages"]) == 5'
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
python3 - "$F" "$B64" <<'X' && ok "openai read png: stored as pi stores an image result" || fail "openai read png: stored as pi stores an image result" "$(grep toolResult "$F" | head -c 600)"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
r = [l["message"] for l in lines if l.get("message", {}).get("role") == "toolResult"]
assert r[0]["content"] == [{"type": "text", "text": "Read image file [image/png]"},
    {"type": "image", "data": sys.argv[2], "mimeType": "image/png"}], r
X

# -j: the image in the tool's end, as pi's json mode has it.
startfake -x "$T/r1" "$T/done"
runat -n -j 'what colour is red.png?'
python3 - "$T/out" "$B64" <<'X' && ok "-j: the image in tool_execution_end" || fail "-j: the image in tool_execution_end" "$(grep tool_execution_end "$T/out" | head -c 400)"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
e = [e for e in ev if e["type"] == "tool_execution_end"][0]
assert e["result"] == {"content": [{"type": "text", "text": "Read image file [image/png]"},
    {"type": "image", "data": sys.argv[2], "mimeType": "image/png"}]}, e
X

# A 1 MB binary that is no image, named .png: still refused, no image sent.
printf 'tool c1 read {"path": "blob.png"}\nfinish tool_calls\n' | script r2
startfake -x "$T/r2" "$T/done"
runat -n 'read blob.png'
jsontest "1 MB binary, no image: refused, nothing attached" "$REQ/2.json" \
    '"binary" in d["messages"][3]["content"] and len(d["messages"]) == 4 and
     "image_url" not in json.dumps(d)'

# A provider whose row says its models take no images: a note instead.
startfake -x "$T/r1" "$T/done"
runat -n -P llamacpp 'what colour?'
jsontest "no images for this provider: a note in the result, no image" "$REQ/2.json" \
    'd["messages"][3]["content"] == "Read image file [image/png]\n(tool image omitted: model does not support images)" and
     len(d["messages"]) == 4 and "base64" not in json.dumps(d)'

# Anthropic: the image blocks in the tool result.
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"red.png\"}"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
} >"$T/a1"
# usage as pi was given it, to cost 8.85 at the test's prices
{
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 1000000, "cache_read_input_tokens": 2000000, "cache_creation_input_tokens": 1000000, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "red"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 100000}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
} >"$T/a2"
startfake -x "$T/a1" "$T/a2"
runat -n -P anthropic 'what colour is red.png?'
jsontest "anthropic read png: an image block in the tool_result, as pi sends it" "$REQ/2.json" \
    'd["messages"][2] == {"role": "user", "content": [{"type": "tool_result",
     "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "Read image file [image/png]"},
     {"type": "image", "source": {"type": "base64", "media_type": "image/png",
     "data": "'"$B64"'"}}], "cache_control": {"type": "ephemeral"}}]}'

# -i attaches images to the prompt, on both wires.
startfake -x "$T/done"
runat -n -i red.png -i red.png 'what is this?'
jsontest "-i: the prompt's text and two images as data URIs" "$REQ/1.json" \
    'd["messages"][1] == {"role": "user", "content": [{"type": "text", "text": "what is this?"},
     {"type": "image_url", "image_url": {"url": "'"$URI"'"}},
     {"type": "image_url", "image_url": {"url": "'"$URI"'"}}]}'
startfake -x "$T/a2"
runat -n -P anthropic -i red.png 'what is this?'
jsontest "-i: anthropic's image block, the last one cached" "$REQ/1.json" \
    'd["messages"][0]["content"] == [{"type": "text", "text": "what is this?"},
     {"type": "image", "source": {"type": "base64", "media_type": "image/png",
     "data": "'"$B64"'"}, "cache_control": {"type": "ephemeral"}}]'
startfake -x "$T/done"
runat -n -i blob.png 'what is this?'
[ "$RC" -eq 2 ] && grep -q 'agent: -i: blob.png is not a png, jpeg, gif or webp image' "$T/err" &&
    [ ! -e "$REQ/1.json" ] && ok "-i: no image: said, exit 2 (bad usage), nothing sent" ||
    fail "-i: no image: said, exit 2 (bad usage), nothing sent" "rc $RC: $(cat "$T/err")"

# A session pi wrote, with an image attached to the prompt (pi puts
# mimeType before data) and a priced answer: continued on both wires, the
# image goes; /session adds up pi's costs.
cp "$ROOT/test/data/pi-image.jsonl" "$T/pi.jsonl"
startfake -x "$T/a2" "$T/done"
runat -P anthropic -s "$T/pi.jsonl" 'and now?'
jsontest "pi's session: its image goes to anthropic" "$REQ/1.json" \
    'd["messages"][0]["content"][1] == {"type": "image", "source":
     {"type": "base64", "media_type": "image/png", "data": "'"$B64"'"}} and
     d["messages"][1] == {"role": "assistant", "content": [{"type": "text", "text": "a red square"}]}'
printf '/session\nmore\n' >"$T/in"
cp "$ROOT/test/data/pi-image.jsonl" "$T/pi.jsonl"
IN=$T/in runat -s "$T/pi.jsonl"
jsontest "pi's session: its image goes to openai" "$REQ/2.json" \
    'd["messages"][1]["content"][1] == {"type": "image_url", "image_url": {"url": "'"$URI"'"}}'
grep -q 'tokens: 120 in, 8 out, 0 cache read, 0 cache write, 128 in all; cost \$0.0005' "$T/err" &&
    ok "pi's session: /session adds up pi's usage and cost" ||
    fail "pi's session: /session adds up pi's usage and cost" "$(cat "$T/err")"

# /model switches the model for the next request, saved as pi's
# model_change; a resumed session uses it, unless -m says otherwise.
printf 'text one\nfinish stop\n' | script m1
startfake -x "$T/m1" "$T/m1" "$T/m1" "$T/m1"
printf 'hi\n/model\n/model other-model\nhi\n' >"$T/in"
IN=$T/in runat
jsontest "/model: the next request uses it" "$REQ/2.json" \
    'd["model"] == "other-model" and d["messages"][2]["content"] == "one"'
grep -q '^openai-chat/fake-model$' "$T/err" && grep -q '^openai-chat/other-model$' "$T/err" &&
    ok "/model: says the model" || fail "/model: says the model" "$(cat "$T/err")"
F=$(find "$T/sessions" -name '*.jsonl' -newer "$T/in" | head -1)
python3 - "$F" <<'X' && ok "/model: saved as pi's model_change" || fail "/model: saved as pi's model_change" "$(cat "$F")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])][1:]
mc = [(l["provider"], l["modelId"]) for l in lines if l["type"] == "model_change"]
assert mc == [("openai-chat", "fake-model"), ("openai-chat", "other-model")], mc
assert lines[-1]["message"]["model"] == "other-model"
X
IN= runat -s "$F" 'again'
jsontest "/model: a resumed session uses it" "$REQ/3.json" 'd["model"] == "other-model"'
runat -s "$F" -m third-model 'and again'
jsontest "/model: -m still says otherwise" "$REQ/4.json" 'd["model"] == "third-model"'

# Costs, from a build whose config.h knows the fake's model's prices.
if [ -n "$EMULATOR" ]; then
	skip "costs" "no sources under emulation to build with known prices; make test runs it"
	exit 0
fi
mkdir -p "$T/priced"
cp "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk "$T/priced"/
sed 's|^static const Price prices\[\] = {|&\n\t{ "fake-model", 3, 15, 0.3, 3.75 },|' \
    "$ROOT/config.def.h" >"$T/priced/config.h"
if ! (cd "$T/priced" && make agent) >"$T/priced.log" 2>&1; then
	fail "costs: a build with known prices" "$(tail -5 "$T/priced.log")"
	exit 0
fi
ROOT=$T/priced
printf 'text one\nfinish stop\nusage 1000000 200000\n' | script c1
printf 'text two\nfinish stop\nusage 2000000 100000\n' | script c2
startfake -x "$T/c1" "$T/c2"
printf 'first\nsecond\n/session\n' >"$T/in"
IN=$T/in runat
grep -q 'tokens: 1000000 in (0 cached), 200000 out, \$6.0000' "$T/err" &&
    grep -q 'tokens: 2000000 in (0 cached), 100000 out, \$7.5000' "$T/err" &&
    ok "costs: each turn's on the usage line" || fail "costs: each turn's on the usage line" "$(cat "$T/err")"
grep -q 'tokens: 3000000 in, 300000 out, 0 cache read, 0 cache write, 3300000 in all; cost \$13.5000' "$T/err" &&
    ok "costs: /session adds up the session" || fail "costs: /session adds up the session" "$(cat "$T/err")"
F=$(find "$T/sessions" -name '*.jsonl' -newer "$T/in" | head -1)
python3 - "$F" <<'X' && ok "costs: usage.cost in the session as pi fills it" || fail "costs: usage.cost in the session as pi fills it" "$(grep -o '"usage":{[^}]*}[^}]*}' "$F")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
c = [l["message"]["usage"]["cost"] for l in lines
     if l.get("message", {}).get("role") == "assistant"]
assert c == [{"input": 3, "output": 3, "cacheRead": 0, "cacheWrite": 0, "total": 6},
             {"input": 6, "output": 1.5, "cacheRead": 0, "cacheWrite": 0, "total": 7.5}], c
X
startfake -x "$T/a1" "$T/a2"
IN= runat -n -j -y -P anthropic 'what colour is red.png?'
python3 - "$T/out" <<'X' && ok "costs: -j's usage.cost with the cache, as pi gave it" || fail "costs: -j's usage.cost with the cache, as pi gave it" "$(grep -o '"usage":{[^}]*}[^}]*}' "$T/out")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
u = [e["message"]["usage"] for e in ev if e["type"] == "message_end" and
     e["message"]["role"] == "assistant"][-1]
assert u == {"input": 1000000, "output": 100000, "cacheRead": 2000000,
             "cacheWrite": 1000000, "totalTokens": 4100000,
             "cost": {"input": 3, "output": 1.5, "cacheRead": 0.6,
                      "cacheWrite": 3.75, "total": 8.85}}, u
X
