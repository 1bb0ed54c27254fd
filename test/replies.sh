#!/bin/sh
# replies.sh: answers that are not what was asked for, each said for what
# it is: an error sent before the request was read, a 200 that is no event
# stream (JSON, a portal's HTML, gzip), a redirect.
. test/lib.sh

# A server that answers 413 as soon as it has the head of a large request
# and closes without reading the body: the status is seen, not the broken
# pipe, and it is not retried.
cat >"$T/r413" <<'X'
early
status 413
error Request Entity Too Large: the body is over the limit
X
head -c 8000000 /dev/zero | tr '\0' 'a' >"$T/big"
startfake "$T/r413"
runin "$T/big" -n 'summarise'
[ "$RC" -eq 1 ] && ok "413 before the body: exit 1" ||
    fail "413 before the body: exit 1" "rc $RC: $(cat "$T/err")"
grep -q 'HTTP 413: Request Entity Too Large' "$T/err" &&
    ok "413 before the body: the status and message are said" ||
    fail "413 before the body: the status and message are said" \
        "$(cat "$T/err")"
grep -q 'Broken pipe\|reset by peer\|retrying' "$T/err" &&
    fail "413 before the body: no write error, no retry" "$(cat "$T/err")" ||
    ok "413 before the body: no write error, no retry"
[ ! -e "$REQ/2.head" ] && ok "413 before the body: one request" ||
    fail "413 before the body: one request" "$(ls "$REQ")"

# reply NAME: the fake answers with the script $T/NAME; the agent asks
# once, its stderr in $T/err.
reply() {
	startfake -x "$T/$1"
	runagent -n 'hi'
}

printf '%s\n' 'type application/json' \
    'line {"id":"x","choices":[{"message":{"content":"hi"}}]}' nodone >"$T/json"
reply json
[ "$RC" -eq 1 ] && grep -q 'HTTP 200 sent application/json, not an event stream: .*"choices"' "$T/err" &&
    ok "a JSON 200: its type and start are said" ||
    fail "a JSON 200: its type and start are said" "rc $RC: $(cat "$T/err")"

printf '%s\n' 'type text/html; charset=utf-8' \
    'line <html><title>Log in to the Wi-Fi</title>\x1b]0;x\x07</html>' \
    nodone >"$T/html"
reply html
grep -q 'sent text/html; charset=utf-8, not an event stream: <html><title>Log in to the Wi-Fi</title>\\x1b\]0;x\\x07</html>' "$T/err" &&
    ok "a portal's HTML: its type and start are said, escaped" ||
    fail "a portal's HTML: its type and start are said, escaped" \
        "$(cat "$T/err")"

printf '%s\n' 'header Content-Encoding: gzip' \
    'line \x1f\x8b\x08\x00\x00\x00\x00\x00' nodone >"$T/gzip"
reply gzip
[ "$RC" -eq 1 ] && grep -q 'the answer came gzip-encoded, which agent does not decode' "$T/err" &&
    ok "a gzip body: the encoding is named" ||
    fail "a gzip body: the encoding is named" "rc $RC: $(cat "$T/err")"
grep -q '^Accept-Encoding: identity' "$REQ/1.head" &&
    ok "the request asks for no encoding" ||
    fail "the request asks for no encoding" "$(cat "$REQ/1.head")"

printf '%s\n' 'status 301' 'header Location: https://api.example.com/v2/chat' >"$T/moved"
reply moved
[ "$RC" -eq 1 ] && grep -q 'HTTP 301, moved to https://api.example.com/v2/chat: check the base URL' "$T/err" &&
    ok "a 301: the status and Location are said" ||
    fail "a 301: the status and Location are said" "rc $RC: $(cat "$T/err")"

printf '%s\n' 'status 307' >"$T/moved2"
reply moved2
grep -q 'HTTP 307, moved to (nowhere)' "$T/err" &&
    ok "a 307 without Location: said so" ||
    fail "a 307 without Location: said so" "$(cat "$T/err")"

# An event stream still streams when it names its charset.
printf '%s\n' 'type text/event-stream; charset=utf-8' 'text fine' \
    'finish stop' >"$T/charset"
reply charset
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = fine ] &&
    ok "text/event-stream with a charset streams" ||
    fail "text/event-stream with a charset streams" "rc $RC: $(cat "$T/err")"

# A status line, then a reset: the status is what is said, and acted on.
printf '%s\n' 'status 503' 'reset 0' >"$T/s503"
printf '%s\n' 'text back' 'finish stop' >"$T/back"
startfake -x "$T/s503" "$T/back"
runagent -n 'hi'
[ "$RC" -eq 0 ] && grep -q 'HTTP 503, retrying' "$T/err" &&
    [ "$(cat "$T/out")" = back ] &&
    ok "503 then a reset: said as the 503, and tried again" ||
    fail "503 then a reset: said as the 503, and tried again" "rc $RC: $(cat "$T/err")"
printf '%s\n' 'status 401' 'reset 0' >"$T/s401"
startfake -x "$T/s401"
runagent -n 'hi'
[ "$RC" -eq 1 ] && grep -q 'HTTP 401' "$T/err" &&
    ! grep -q retrying "$T/err" &&
    ok "401 then a reset: said as the 401, not tried again" ||
    fail "401 then a reset: said as the 401, not tried again" "rc $RC: $(cat "$T/err")"
