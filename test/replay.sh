#!/bin/sh
# replay.sh: AGENT_RECORD writes each exchange with the model as a line;
# AGENT_REPLAY serves them back with no network, and stops at a request
# that differs, a torn line or a file that runs out.
. test/lib.sh

if ! command -v python3 >/dev/null 2>&1; then
	skip "record and replay" "no python3"
	exit 0
fi

# alljson FILE N: FILE holds N lines, each a JSON object.
alljson() {
	python3 -c 'import json, sys
ls = open(sys.argv[1], "rb").read().decode("utf-8").split("\n")
assert ls[-1] == "" and len(ls) - 1 == int(sys.argv[2])
for l in ls[:-1]:
    assert isinstance(json.loads(l), dict)' "$1" "$2" 2>"$T/py.err"
}

# rec FILE args...: ./agent recording to FILE, as runagent.
rec() {
	_f=$1
	shift
	(agentexec env AGENT_RECORD="$_f" timeout 30 ./agent "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# play FILE args...: ./agent replaying FILE, the base URL a closed port,
# no key.
play() {
	_f=$1
	shift
	(agentexec env AGENT_REPLAY="$_f" AGENT_API_KEY= \
	    AGENT_BASE_URL="http://127.0.0.1:$PORT/v1" \
	    timeout 30 ./agent "$@") </dev/null >"$T/out2" 2>"$T/err2"
	RC=$?
}

script r1 <<'X'
text Looking.
tool call_1 ls {"path": "."}
finish tool_calls
X
script r2 <<'X'
text Done: caf\xc3\xa9 \xe2\x9c\x93.
finish stop
X
startfake -x -b 1 "$T/r1" "$T/r2"
rec "$T/rec" -n -t ls 'list it'
[ "$RC" -eq 0 ] && ok "record: exit 0" || fail "record: exit 0" "rc $RC: $(cat "$T/err")"
alljson "$T/rec" 2 && ok "record: two lines, each JSON" ||
    fail "record: two lines, each JSON" "$(cat "$T/py.err")"
grep -q test-key "$T/rec" && fail "record: no key in the file" "found" ||
    ok "record: no key in the file"
tail -n 1 "$T/rec" >"$T/last"
jsontest "record: the answer's bytes whole, split as they came" "$T/last" \
    '"caf\u00e9 \u2713" in d["response"] and d["status"] == 200 and
     d["headers"]["content-type"] == "text/event-stream" and
     d["path"] == "/v1/chat/completions" and d["method"] == "POST"'
cp "$T/out" "$T/out1"
stopfake

play "$T/rec" -n -t ls 'list it'
[ "$RC" -eq 0 ] && ok "replay: exit 0, no network, no key" ||
    fail "replay: exit 0, no network, no key" "rc $RC: $(cat "$T/err2")"
cmp -s "$T/out1" "$T/out2" && ok "replay: the same answer" ||
    fail "replay: the same answer" "$(cat "$T/out2")"
grep -q 'ls \. ->' "$T/err2" && ok "replay: the tool ran again" ||
    fail "replay: the tool ran again" "$(cat "$T/err2")"

play "$T/rec" -n -t ls 'list that'
[ "$RC" -eq 1 ] && grep -q 'rec:1: the request differs at messages\[1\]\.content: "[^"]*list it" recorded, "[^"]*list that" now' "$T/err2" &&
    ok "replay: another prompt stops it, the difference named" ||
    fail "replay: another prompt stops it, the difference named" "rc $RC: $(cat "$T/err2")"

head -c "$(($(wc -c <"$T/rec") - 40))" "$T/rec" >"$T/torn"
play "$T/torn" -n -t ls 'list it'
[ "$RC" -eq 1 ] && grep -q 'torn:2: not a whole exchange' "$T/err2" &&
    ok "replay: a torn line stops it, named" ||
    fail "replay: a torn line stops it, named" "rc $RC: $(cat "$T/err2")"

head -n 1 "$T/rec" >"$T/short"
play "$T/short" -n -t ls 'list it'
[ "$RC" -eq 1 ] && grep -q 'short:2: runs out' "$T/err2" &&
    ok "replay: a file that runs out stops it, the line named" ||
    fail "replay: a file that runs out stops it, the line named" "rc $RC: $(cat "$T/err2")"

sed 's/"response"/"answer"/' "$T/rec" >"$T/noresp"
play "$T/noresp" -n -t ls 'list it'
[ "$RC" -eq 1 ] && grep -q 'noresp:1: not a whole exchange: no "response"' "$T/err2" &&
    ok "replay: a line without its answer stops it" ||
    fail "replay: a line without its answer stops it" "rc $RC: $(cat "$T/err2")"

# The key, wherever it would be written, is not; a replay holding it
# still matches.
script ok <<'X'
text fine
finish stop
X
startfake -x "$T/ok"
rec "$T/keyrec" -n -t '' 'is test-key a good key?'
grep -q test-key "$T/keyrec" && fail "record: the key in a prompt overwritten" "found" ||
    ok "record: the key in a prompt overwritten"
stopfake
play "$T/keyrec" -n -t '' 'is test-key a good key?'
[ "$RC" -eq 1 ] && grep -q 'differs at messages\[1\]\.content' "$T/err2" &&
    ok "replay without the key: the redacted prompt differs" ||
    fail "replay without the key: the redacted prompt differs" "rc $RC: $(cat "$T/err2")"
(agentexec env AGENT_REPLAY="$T/keyrec" \
    AGENT_BASE_URL="http://127.0.0.1:$PORT/v1" timeout 30 ./agent -n -t '' \
    'is test-key a good key?') </dev/null >"$T/out2" 2>"$T/err2"
[ $? -eq 0 ] && [ "$(cat "$T/out2")" = fine ] &&
    ok "replay with the key: the prompt matches" ||
    fail "replay with the key: the prompt matches" "$(cat "$T/err2")"

# A recorded 429 is retried on replay, the Retry-After said, not waited.
script r429 <<'X'
status 429
retry-after 2
error Slow down
X
startfake -x "$T/r429" "$T/ok"
rec "$T/rec429" -n hi
[ "$RC" -eq 0 ] && alljson "$T/rec429" 2 && ok "record 429 then 200: two lines" ||
    fail "record 429 then 200: two lines" "rc $RC: $(cat "$T/err")"
stopfake
t0=$(date +%s%N)
play "$T/rec429" -n hi
t1=$(date +%s%N)
[ "$RC" -eq 0 ] && [ "$(cat "$T/out2")" = fine ] &&
    grep -q 'HTTP 429, retrying in 2.0 s' "$T/err2" &&
    ok "replay 429 then 200: retried, said as it was" ||
    fail "replay 429 then 200: retried, said as it was" "rc $RC: $(cat "$T/err2")"
[ $(((t1 - t0) / 1000000)) -lt 1500 ] && ok "replay 429: no wait" ||
    fail "replay 429: no wait" "$(((t1 - t0) / 1000000)) ms"

# Runs recording to one file at once: each line whole.
script big <<'X'
big 300000
finish stop
X
startfake -x "$T/big" "$T/big" "$T/big" "$T/big"
for i in 1 2 3 4; do
	(agentexec env AGENT_RECORD="$T/par" timeout 60 ./agent -n "run $i") \
	    </dev/null >/dev/null 2>"$T/err.$i" &
done
wait
alljson "$T/par" 4 && ok "parallel: four whole lines" ||
    fail "parallel: four whole lines" "$(cat "$T/py.err" "$T/err.1")"

# A task's child records to FILE.task-1, and replays from it.
if [ -n "$EMULATOR" ]; then
	skip "task: the child's exchanges in FILE.task-1" \
	    "an emulated program cannot run another (no binfmt_misc)"
else
	script t1 <<'X'
tool c1 task {"description":"one","prompt":"Say hi."}
finish tool_calls
X
	script t2 <<'X'
text hi from the child
finish stop
X
	script t3 <<'X'
text the child said hi
finish stop
X
	startfake -x "$T/t1" "$T/t2" "$T/t3"
	rec "$T/trec" -n -y 'ask a child'
	[ "$RC" -eq 0 ] && alljson "$T/trec" 2 && alljson "$T/trec.task-1" 1 &&
	    ok "task: the child's exchange in FILE.task-1" ||
	    fail "task: the child's exchange in FILE.task-1" "rc $RC: $(ls "$T") $(cat "$T/err")"
	grep -q 'Say hi' "$T/trec.task-1" && ok "task: the child's request there" ||
	    fail "task: the child's request there" "$(head -c 300 "$T/trec.task-1")"
	cp "$T/out" "$T/out1"
	stopfake
	play "$T/trec" -n -y 'ask a child'
	[ "$RC" -eq 0 ] && cmp -s "$T/out1" "$T/out2" &&
	    ok "task: replayed, the child from its own file" ||
	    fail "task: replayed, the child from its own file" "rc $RC: $(cat "$T/err2")"
fi
