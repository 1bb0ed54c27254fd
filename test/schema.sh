#!/bin/sh
# schema.sh: -o and AGENT_SCHEMA end to end against the fake: the schema
# asked for in each wire's own way (or in the system prompt), the answer
# checked, compacted to one line, a fence stripped; asked once more on a
# mismatch, exit 4 on a second; a bad schema refused before any request.
. test/lib.sh
ROOT=$PWD

cat >"$T/verdict.json" <<'EOS'
{
  "type": "object",
  "properties": {
    "verdict": {"type": "string", "enum": ["yes", "no"]},
    "why": {"type": "string"}
  },
  "required": ["verdict", "why"],
  "additionalProperties": false
}
EOS
COMPACT='{"type":"object","properties":{"verdict":{"type":"string","enum":["yes","no"]},"why":{"type":"string"}},"required":["verdict","why"],"additionalProperties":false}'
GOOD='{"verdict":"no","why":"it adds a function"}'

# a good answer, pretty-printed: one compact line on stdout
script good <<'EOS'
text {\n  "verdict": "no",\n  "why": "it adds a function"\n}\n
EOS
startfake -x "$T/good"
runagent -o "$T/verdict.json" 'does this diff break the API?'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "$GOOD" ] &&
    [ "$(wc -l <"$T/out")" -eq 1 ] && ok "a good answer: one compact line" ||
    fail "a good answer: one compact line" "rc $RC: $(cat "$T/out" "$T/err")"
jsontest "chat completions: response_format, strict, the schema compact" \
    "$REQ/1.json" 'd["response_format"] == {"type": "json_schema",
     "json_schema": {"name": "answer", "strict": True, "schema":
     json.loads(open("'"$T/verdict.json"'").read())}} and
     "JSON Schema" not in d["messages"][0]["content"]'
grep -qF "\"schema\":$COMPACT," "$REQ/1.json" &&
    ok "the schema sent compact, as read" ||
    fail "the schema sent compact, as read" "$(head -c 2000 "$REQ/1.json")"

# a fenced answer, as local models write them
script fenced <<'EOS'
text ```json\n{"verdict": "yes", "why": "x"}\n```\n
EOS
startfake -x "$T/fenced"
runagent -o "$T/verdict.json" 'check'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = '{"verdict":"yes","why":"x"}' ] &&
    ok "an answer in a code fence is taken" ||
    fail "an answer in a code fence is taken" "rc $RC: $(cat "$T/out" "$T/err")"

# missed twice: exit 4, the words on stderr, the second request has them
script miss1 <<'EOS'
text {"verdict": "maybe", "why": "unsure"}
EOS
script miss2 <<'EOS'
text {"verdict": "no"}
EOS
startfake -x "$T/miss1" "$T/miss2"
runagent -o "$T/verdict.json" 'check'
[ "$RC" -eq 4 ] && [ ! -s "$T/out" ] &&
    grep -q 'agent: the answer does not match the schema: /: the required property "why" is missing$' "$T/err" &&
    ok "missed twice: exit 4, the validator's words on stderr" ||
    fail "missed twice: exit 4, the validator's words on stderr" "rc $RC: $(cat "$T/out" "$T/err")"
jsontest "the second request says what did not match" "$REQ/2.json" \
    'd["messages"][-1]["role"] == "user" and
     d["messages"][-2]["role"] == "assistant" and
     "Your answer does not match the schema: /verdict: expected one of [\"yes\",\"no\"], got \"maybe\"; answer again with only the JSON document" in json.dumps(d["messages"][-1], ensure_ascii=False).replace("\\\"", "\"")'
[ ! -e "$REQ/3.json" ] && ok "asked once more, not twice" ||
    fail "asked once more, not twice" "$(ls "$REQ")"

# missed once (no JSON at all), then right
script prose <<'EOS'
text I think it does not break anything.
EOS
startfake -x "$T/prose" "$T/good"
runagent -o "$T/verdict.json" 'check'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "$GOOD" ] &&
    grep -q 'the answer is not a JSON document: asking once more' "$T/err" &&
    ok "missed once, then right: exit 0, the document alone" ||
    fail "missed once, then right: exit 0, the document alone" "rc $RC: $(cat "$T/out" "$T/err")"

# the narration of a tool round goes to stderr, not stdout
script tool <<'EOS'
text Let me look first.
tool call_1 ls {}
EOS
startfake -x "$T/tool" "$T/good"
runagent -o "$T/verdict.json" 'check'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "$GOOD" ] &&
    grep -q 'Let me look first.' "$T/err" &&
    ok "a tool round first: its narration on stderr" ||
    fail "a tool round first: its narration on stderr" "rc $RC: $(cat "$T/out" "$T/err")"

# AGENT_SCHEMA, and -o over it
startfake -x "$T/good"
(AGENT_SCHEMA=$T/verdict.json; export AGENT_SCHEMA; runagent 'check')
[ "$(cat "$T/out")" = "$GOOD" ] && [ -s "$REQ/1.json" ] &&
    grep -q '"response_format"' "$REQ/1.json" && ok "AGENT_SCHEMA" ||
    fail "AGENT_SCHEMA" "$(cat "$T/out" "$T/err")"
echo '{"type":"array"}' >"$T/array.json"
startfake -x "$T/good"
(AGENT_SCHEMA=$T/array.json; export AGENT_SCHEMA
    runagent -o "$T/verdict.json" 'check')
grep -q '"enum"' "$REQ/1.json" && ok "-o wins over AGENT_SCHEMA" ||
    fail "-o wins over AGENT_SCHEMA" "$(cat "$T/err")"

# a bad schema: exit 2 before any request
for bad in '{"type":' '[]' '{"type":"strin"}' '{"required":"why"}'; do
	printf '%s\n' "$bad" >"$T/bad.json"
	startfake -x "$T/good"
	runagent -o "$T/bad.json" 'check'
	[ "$RC" -eq 2 ] && [ -z "$(ls "$REQ")" ] &&
	    grep -q "^agent: -o: $T/bad.json: " "$T/err" &&
	    ok "a bad schema ($bad): exit 2, no request" ||
	    fail "a bad schema ($bad): exit 2, no request" "rc $RC: $(ls "$REQ") $(cat "$T/err")"
done
runagent -o "$T/none.json" 'check'
[ "$RC" -eq 2 ] && grep -q "none.json: No such file" "$T/err" &&
    ok "no schema file: exit 2" || fail "no schema file: exit 2" "rc $RC: $(cat "$T/err")"
# line mode and -r answer in text
printf 'check\n' >"$T/lines"
runin "$T/lines" -o "$T/verdict.json"
[ "$RC" -eq 2 ] && [ -z "$(ls "$REQ")" ] && ok "-o in line mode: exit 2" ||
    fail "-o in line mode: exit 2" "rc $RC: $(cat "$T/err")"

# a schema strict mode would refuse goes with strict false
echo '{"type":"object","properties":{"n":{"type":"integer"}}}' >"$T/open.json"
script n <<'EOS'
text {"n": 3}
EOS
startfake -x "$T/n"
runagent -o "$T/open.json" 'count'
jsontest "not strict-compatible: strict false" "$REQ/1.json" \
    'd["response_format"]["json_schema"]["strict"] is False'

# Responses: text.format
script resp <<'EOS'
responses
text {"verdict": "yes", "why": "a removed field"}
EOS
startfake -x "$T/resp"
runagent -P openai -o "$T/verdict.json" 'check'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = '{"verdict":"yes","why":"a removed field"}' ] &&
    ok "responses: the answer checked" || fail "responses: the answer checked" "rc $RC: $(cat "$T/out" "$T/err")"
jsontest "responses: text.format" "$REQ/1.json" \
    'd["text"] == {"format": {"type": "json_schema", "name": "answer",
     "strict": True, "schema": json.loads(open("'"$T/verdict.json"'").read())}}'

# Anthropic: output_config.format; a schema it would refuse in the prompt
event() {
	printf 'line event: %s\nline data: %s\nline\n' "$1" "$2"
}
# anthreply TEXT: an answer of TEXT (JSON-escaped) as Anthropic streams
anthreply() {
	event message_start '{"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}'
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "'"$1"'"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
	event message_delta '{"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}}'
	event message_stop '{"type": "message_stop"}'
	echo nodone
}
anthreply '{\"n\": 3, \"verdict\": \"no\", \"why\": \"-\"}' >"$T/anth"
anthreply '{\"n\": 3}' >"$T/anth3"
startfake -x "$T/anth" "$T/anth"
runagent -P anthropic -T high -o "$T/verdict.json" 'check'
[ "$RC" -eq 4 ] && grep -q 'property "n" is not allowed' "$T/err" &&
    ok "anthropic: the answer checked" || fail "anthropic: the answer checked" "rc $RC: $(cat "$T/out" "$T/err")"
jsontest "anthropic: output_config.format beside the effort" "$REQ/1.json" \
    'd["output_config"] == {"effort": "high", "format": {"type": "json_schema",
     "schema": json.loads(open("'"$T/verdict.json"'").read())}} and
     "JSON Schema" not in d["system"][0]["text"]'
[ -s "$REQ/1.head" ] && ! grep -qi '^anthropic-beta' "$REQ/1.head" &&
    ok "anthropic: no beta header" ||
    fail "anthropic: no beta header" "$(cat "$REQ/1.head")"
echo '{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}' >"$T/bounded.json"
startfake -x "$T/anth3"
runagent -P anthropic -o "$T/bounded.json" 'count'
[ "$RC" -eq 0 ] && ok "anthropic: a bounded schema checked here" ||
    fail "anthropic: a bounded schema checked here" "rc $RC: $(cat "$T/err")"
jsontest "anthropic: a schema it would refuse goes in the system prompt" \
    "$REQ/1.json" '"output_config" not in d and
     d["system"][0]["text"].endswith("Your final answer must be a single JSON document matching this JSON Schema: " +
     open("'"$T/bounded.json"'").read().strip())'

# a provider whose row takes no schema: the system prompt says it
startfake -x "$T/good"
runagent -P deepseek -o "$T/verdict.json" 'check'
[ "$(cat "$T/out")" = "$GOOD" ] && ok "a provider without: checked all the same" ||
    fail "a provider without: checked all the same" "$(cat "$T/err")"
printf '%s' "$COMPACT" >"$T/compact"
jsontest "a provider without: no response_format, the prompt says it" \
    "$REQ/1.json" '"response_format" not in d and
     d["messages"][0]["content"].endswith("matching this JSON Schema: " +
     open("'"$T/compact"'").read())'
