#!/bin/sh
# gemini.sh: Google's Gemini wire end to end against the fake: the
# request as the API wants it (the model in the URL, the key in
# x-goog-api-key), a tool round whose functionCall goes back with its
# thoughtSignature, thinking, usage, every way an answer is stopped, -i's
# images as inlineData, and pi's Gemini sessions continued both ways.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"

# runat args...: the agent with -P gemini in $W, no terminal.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -P gemini \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

echo 'stand-up moves to 9:30' >"$W/a.txt"
script r1 <<'EOF'
gemini
think The user asks about a.txt; read it.
signature c2lnMQ==
tool - read {"path":"a.txt"}
signature c2lnMg==
usage 100 20 10 5
finish STOP
EOF
script r2 <<'EOF'
gemini
text The note says
text  stand-up moves to 9:30.
signature c2lnMw==
usage 150 10
EOF
startfake -x "$T/r1" "$T/r2"
runat -m gemini-3.1-pro-preview -T high 'what is in a.txt?'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "The note says stand-up moves to 9:30." ] &&
    ok "wire: exit 0, the text on stdout" || fail "wire: exit 0, the text on stdout" "rc $RC: $(cat "$T/out" "$T/err")"
grep -q 'The user asks about a.txt; read it.' "$T/err" &&
    ok "wire: thinking on stderr" || fail "wire: thinking on stderr" "$(cat "$T/err")"
grep -q 'tokens: 250 in (10 cached), 35 out' "$T/err" &&
    ok "wire: usage counted (thoughts as output)" || fail "wire: usage counted (thoughts as output)" "$(cat "$T/err")"
grep -q '^POST /v1/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse HTTP/1.1' "$REQ/1.head" &&
    grep -qi '^x-goog-api-key: test-key' "$REQ/1.head" && ! grep -qi '^authorization' "$REQ/1.head" &&
    ok "request: the model in the URL, x-goog-api-key and no Authorization" ||
    fail "request: the model in the URL, x-goog-api-key and no Authorization" "$(cat "$REQ/1.head")"
jsontest "request: systemInstruction, functionDeclarations, thinking, the user's content" "$REQ/1.json" \
    'd["systemInstruction"]["parts"][0]["text"].startswith("You are agent") and
     "read" in [t["name"] for t in d["tools"][0]["functionDeclarations"]] and
     all(t["parametersJsonSchema"]["type"] == "object" for t in d["tools"][0]["functionDeclarations"]) and
     d["generationConfig"]["thinkingConfig"] == {"includeThoughts": True, "thinkingLevel": "HIGH"} and
     d["generationConfig"]["maxOutputTokens"] > 0 and "model" not in d and
     d["contents"] == [{"role": "user", "parts": [{"text": "what is in a.txt?"}]}]'
jsontest "tool round: the model's parts back with their signatures, the result as a functionResponse" "$REQ/2.json" \
    'd["contents"][1:] == [{"role": "model", "parts": [
      {"thought": True, "text": "The user asks about a.txt; read it.", "thoughtSignature": "c2lnMQ=="},
      {"functionCall": {"name": "read", "args": {"path": "a.txt"}}, "thoughtSignature": "c2lnMg=="}]},
     {"role": "user", "parts": [{"functionResponse": {"name": "read",
      "response": {"output": "stand-up moves to 9:30\n"}}}]}]'
S=$(ls "$T"/sessions/*/*.jsonl | tail -1)
python3 - "$S" >"$T/py" 2>&1 <<'EOF'
import json, sys
ms = [json.loads(l)["message"] for l in open(sys.argv[1]) if '"message"' in l]
a = [m for m in ms if m["role"] == "assistant"]
assert a[0]["api"] == "google-generative-ai" and a[0]["provider"] == "gemini" and a[0]["model"] == "gemini-3.1-pro-preview", a[0]
c = a[0]["content"]
assert c[0] == {"type": "thinking", "thinking": "The user asks about a.txt; read it.", "thinkingSignature": "c2lnMQ=="}, c
assert c[1]["type"] == "toolCall" and c[1]["id"] and c[1]["thoughtSignature"] == "c2lnMg==", c
assert a[0]["usage"]["input"] == 90 and a[0]["usage"]["cacheRead"] == 10 and a[0]["usage"]["output"] == 25, a[0]
assert a[1]["content"] == [{"type": "text", "text": "The note says stand-up moves to 9:30.", "textSignature": "c2lnMw=="}], a[1]
EOF
[ $? -eq 0 ] && ok "session: stored as pi stores a Gemini answer (signatures, usage)" ||
    fail "session: stored as pi stores a Gemini answer (signatures, usage)" "$(cat "$T/py")"

# the ways an answer is stopped
printf 'gemini\ntext Once upon\nfinish MAX_TOKENS\n' | script cut
startfake -x "$T/cut"
runat 'tell a story'
[ "$RC" -eq 1 ] && grep -q 'cut short' "$T/err" &&
    ok "MAX_TOKENS: cut short, exit 1" || fail "MAX_TOKENS: cut short, exit 1" "rc $RC: $(cat "$T/err")"
printf 'gemini\ntext Well\nfinish SAFETY\n' | script safety
startfake -x "$T/safety"
runat 'something'
[ "$RC" -eq 1 ] && grep -q 'stopped by the safety filters (SAFETY)' "$T/err" &&
    ok "SAFETY: said plainly, exit 1" || fail "SAFETY: said plainly, exit 1" "rc $RC: $(cat "$T/err")"
printf 'gemini\nblock PROHIBITED_CONTENT\n' | script block
startfake -x "$T/block"
runat 'something'
[ "$RC" -eq 1 ] && grep -q 'the prompt was blocked (PROHIBITED_CONTENT)' "$T/err" &&
    ok "promptFeedback: the block said, exit 1" || fail "promptFeedback: the block said, exit 1" "rc $RC: $(cat "$T/err")"

# -i: the image as inlineData
printf 'gemini\ntext red\n' | script red
python3 - "$W" <<'EOF'
import base64, sys
open(sys.argv[1] + "/red.png", "wb").write(base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg=="))
EOF
startfake -x "$T/red"
runat -n -i red.png 'what is this?'
jsontest "-i: the image as an inlineData part" "$REQ/1.json" \
    'd["contents"][0]["parts"] == [{"text": "what is this?"}, {"inlineData": {"mimeType": "image/png",
     "data": "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg=="}}]'

# pi itself, where installed: pi continues agent's Gemini session
# sending the contents agent sends, and agent continues pi's sending the
# contents pi sends (pi's provider named gemini, as agent's row is, so
# that each takes the other's signatures as its own)
PI=${PI:-$ROOT/bench/pi/node_modules/.bin/pi}
printf 'gemini\ntext all done\nsignature c2lnNA==\n' | script ok1
pimodels() {
	mkdir -p "$T/pihome/.pi/agent"
	cat >"$T/pihome/.pi/agent/models.json" <<EOF
{"providers": {"gemini": {"baseUrl": "$URL", "api": "google-generative-ai",
 "apiKey": "test-key", "models": [{"id": "fake-model", "name": "fake-model",
 "reasoning": true, "input": ["text", "image"], "contextWindow": 200000, "maxTokens": 32000}]}}}
EOF
}
pirun() {
	(cd "$W" && HOME="$T/pihome" timeout 60 "$PI" --offline --provider gemini \
	    --model fake-model --thinking medium --session "$1" -p "$2") \
	    </dev/null >"$T/piout" 2>&1
}
# samecontents NAME A B: the contents of request bodies A and B, but
# agent's paragraph of the date and directory, are the same
samecontents() {
	python3 - "$2" "$3" >"$T/py" 2>&1 <<'EOF'
import json, os, sys
exec(os.environ["UNENV"])
a = unenv(json.load(open(sys.argv[1])))
b = unenv(json.load(open(sys.argv[2])))
assert a["contents"] == b["contents"], "\n%s\n%s" % (a["contents"], b["contents"])
EOF
	[ $? -eq 0 ] && ok "$1" || fail "$1" "$(cat "$T/py" "$T/piout" | cut -c1-3000)"
}
if [ ! -x "$PI" ] || ! command -v node >/dev/null 2>&1; then
	skip "pi continues agent's Gemini session" "pi is not installed (set PI, or npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
	skip "agent continues pi's Gemini session" "pi is not installed"
else
	rm -rf "$T/sessions"
	startfake -x "$T/r1" "$T/r2" "$T/ok1"
	runat -T medium 'what is in a.txt?'
	runat -T medium -c 'and now?'
	cp "$REQ/3.json" "$T/agent3.json"
	S=$(ls "$T"/sessions/*/*.jsonl | tail -1)
	head -n "$(grep -n '"text":"and now?"' "$S" | cut -d: -f1)" "$S" |
	    sed '$d' >"$T/forpi.jsonl"
	startfake -x "$T/ok1"
	pimodels
	pirun "$T/forpi.jsonl" 'and now?'
	samecontents "pi continues agent's Gemini session, sending the contents agent sends" \
	    "$T/agent3.json" "$REQ/1.json"
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
	samecontents "agent continues pi's Gemini session, sending the contents pi sends" \
	    "$T/pi3.json" "$REQ/1.json"
fi
