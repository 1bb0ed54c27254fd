#!/bin/sh
# retry.sh: what may succeed on a second try is tried again (429, 5xx, a
# connection lost before the answer began); what may not, is not.
. test/lib.sh

count() {
	ls "$REQ" | grep -c '\.json$'
}

script ok <<'X'
text fine
finish stop
X

script r429 <<'X'
status 429
retry-after 1
error Rate limit reached
X
startfake -x "$T/r429" "$T/ok"
t0=$(date +%s%N)
runagent -n hi
t1=$(date +%s%N)
[ $(((t1 - t0) / 1000000)) -ge 1000 ] && ok "429: waited the Retry-After second" ||
    fail "429: waited the Retry-After second" "$(((t1 - t0) / 1000000)) ms"
[ "$RC" -eq 0 ] && ok "429: exit 0 after a retry" || fail "429: exit 0 after a retry" "rc $RC: $(cat "$T/err")"
[ "$(cat "$T/out")" = fine ] && ok "429: the answer" || fail "429: the answer" "$(cat "$T/out")"
[ "$(count)" -eq 2 ] && ok "429: two requests" || fail "429: two requests" "$(count)"
grep -q 'HTTP 429, retrying in 1.0 s' "$T/err" && ok "429: Retry-After honoured, and said" ||
    fail "429: Retry-After honoured, and said" "$(cat "$T/err")"
cmp -s "$REQ/1.json" "$REQ/2.json" && ok "429: the same request again" ||
    fail "429: the same request again" "bodies differ"

script r503 <<'X'
status 503
retry-after 0
error Overloaded
X
startfake "$T/r503" "$T/r503" "$T/r503" "$T/r503" "$T/r503"
runagent -n hi
[ "$RC" -eq 1 ] && ok "503 for ever: exit 1" || fail "503 for ever: exit 1" "rc $RC"
[ "$(count)" -eq 4 ] && ok "503 for ever: four tries, then no more" || fail "503 for ever: four tries, then no more" "$(count)"
grep -q 'HTTP 503: Overloaded' "$T/err" && ok "503 for ever: the provider's message" ||
    fail "503 for ever: the provider's message" "$(cat "$T/err")"

script r500 <<'X'
status 500
retry-after 0
error boom
X
startfake -x "$T/r500" "$T/ok"
runagent -n hi
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = fine ] && ok "500 then 200: answered" ||
    fail "500 then 200: answered" "rc $RC: $(cat "$T/err")"

script hang <<'X'
hangup
X
startfake -x "$T/hang" "$T/ok"
runagent -n hi
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = fine ] && ok "reset before the answer: retried" ||
    fail "reset before the answer: retried" "rc $RC: $(cat "$T/err")"

script r400 <<'X'
status 400
error Invalid 'messages': bad role
X
startfake "$T/r400" "$T/ok"
runagent -n hi
[ "$RC" -eq 1 ] && [ "$(count)" -eq 1 ] && ok "400: no retry, exit 1" ||
    fail "400: no retry, exit 1" "rc $RC, $(count) requests"
grep -q "HTTP 400: Invalid 'messages': bad role" "$T/err" && ok "400: the message" ||
    fail "400: the message" "$(cat "$T/err")"

script long <<'X'
status 429
retry-after 3600
error Come back in an hour
X
startfake "$T/long" "$T/ok"
runagent -n hi
[ "$RC" -eq 1 ] && [ "$(count)" -eq 1 ] && ok "Retry-After of an hour: give up at once" ||
    fail "Retry-After of an hour: give up at once" "rc $RC, $(count) requests"

script mid <<'X'
text half an ans
drop 40
text wer
finish stop
X
startfake -f close "$T/mid" "$T/ok"
runagent -n hi
[ "$RC" -eq 1 ] && [ "$(count)" -eq 1 ] && ok "cut mid-answer (close framing): no retry, exit 1" ||
    fail "cut mid-answer (close framing): no retry, exit 1" "rc $RC, $(count) requests"
grep -q 'ended before the answer was complete\|broke off' "$T/err" &&
    ok "cut mid-answer: said" || fail "cut mid-answer: said" "$(cat "$T/err")"

script garbage <<'X'
line data: {"choices": [{"delta": {"content": "x"}}]
line
X
startfake "$T/garbage"
runagent -n hi
[ "$RC" -eq 1 ] && grep -q 'malformed JSON' "$T/err" && ok "malformed event: clear message, exit 1" ||
    fail "malformed event: clear message, exit 1" "rc $RC: $(cat "$T/err")"

script streamerr <<'X'
text partial
line data: {"error": {"message": "upstream overloaded", "type": "server_error"}}
line
X
startfake "$T/streamerr"
runagent -n hi
[ "$RC" -eq 1 ] && grep -q 'upstream overloaded' "$T/err" && ok "error event mid-stream: message, exit 1" ||
    fail "error event mid-stream: message, exit 1" "rc $RC: $(cat "$T/err")"

script cutshort <<'X'
text trunc
finish length
X
startfake "$T/cutshort"
runagent -n hi
[ "$RC" -eq 1 ] && grep -q 'token limit' "$T/err" && [ "$(cat "$T/out")" = trunc ] &&
    ok "finish length: answer kept, exit 1" || fail "finish length: answer kept, exit 1" "rc $RC: $(cat "$T/err")"

# What a second try cannot mend is not tried again.
runagent2() {
	(env HOME="$T" AGENT_BASE_URL="$1" AGENT_API_KEY=k AGENT_PROVIDER=openai \
	    timeout 30 ./agent -n hi) </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}
runagent2 'ftp://127.0.0.1/v1'
[ "$RC" -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && ok "bad base URL: one message, exit 2 (configuration)" ||
    fail "bad base URL: one message, exit 2 (configuration)" "rc $RC: $(cat "$T/err")"
runagent2 'http://nosuchhost.invalid/v1'
[ "$RC" -eq 1 ] && ! grep -q retrying "$T/err" && ok "unknown host: no retry" ||
    fail "unknown host: no retry" "rc $RC: $(cat "$T/err")"

# A failed answer is not sent again with the next message.
script stallpart <<'X'
text partial answ
stall
X
startfake -x "$T/stallpart" "$T/ok"
printf 'first\nsecond\n' >"$T/lines"
(export AGENT_TIMEOUT=1; runin "$T/lines" -n)
jsontest "a failed answer is not sent again" "$REQ/2.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user", "user"]'
