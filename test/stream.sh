#!/bin/sh
# See LICENSE file for copyright and license details.
# stream.sh: ./agent streams an answer from the fake provider (issue 2).
cd "$(dirname "$0")/.." || exit 1
. test/lib.sh

# what a user message says: its content, a string or a list of text parts
UMSG='(lambda c: c if isinstance(c, str) else "".join(p.get("text", "") for p in c))([m for m in d["messages"] if m["role"] == "user"][-1]["content"])'

# same NAME WANT: ok when the agent succeeded and stdout is exactly WANT.
same() {
	if [ "$RC" -eq 0 ] && cmp -s "$T/out" "$2"; then
		ok "$1"
	else
		fail "$1" "exit $RC, stdout: $(od -c "$T/out" | head -4)," \
		    "stderr: $(head -c 300 "$T/err")"
	fi
}

# valid NAME FILE: FILE holds valid JSON.
valid() {
	jsonvalid "$2"
	case $? in
	0) ok "$1" ;;
	77) skip "$1" "no python3 nor jq" ;;
	*) fail "$1" "invalid JSON: $(head -c 300 "$2" | od -c | head -5)" ;;
	esac
}

# Text deltas with multi-byte characters, escapes and a thought.
script text <<'END'
think SECRET-THOUGHT never on stdout
text Hé
text llo, wörld 🎉
text \n"quotes" and \\ back\tslash\n
text 🎉é
finish stop
usage 1234 567
END
printf 'H\303\251llo, w\303\266rld \360\237\216\211\n"quotes" and \\ back' \
    >"$T/text.want"
# the final answer ends its line
printf '\tslash\n\360\237\216\211\303\251\n' >>"$T/text.want"

startfake "$T/text" "$T/text"
runagent -n hi
same "text deltas on stdout, nothing else" "$T/text.want"
check "reasoning not on stdout" sh -c '! grep -q SECRET "$1"' - "$T/out"
check "usage on stderr" grep -Eq '1234|567|1\.2k' "$T/err"
valid "request body is JSON" "$REQ/1.json"
check "request asks to stream" grep -Eq '"stream": *true' "$REQ/1.json"
check "request asks for usage" grep -Eq '"include_usage": *true' "$REQ/1.json"
check "request names the model" grep -q '"fake-model"' "$REQ/1.json"
check "request is POST /v1/chat/completions" \
    grep -q '^POST /v1/chat/completions HTTP/1.1' "$REQ/1.head"
check "request carries the key" grep -qi '^authorization: Bearer test-key' \
    "$REQ/1.head"
jsontest "stream and stream_options.include_usage" "$REQ/1.json" \
    'd["stream"] is True and d["stream_options"]["include_usage"] is True'
jsontest "empty stdin attaches nothing" "$REQ/1.json" "$UMSG == 'hi'"

runagent -n -q hi
same "-q: text alone on stdout" "$T/text.want"
check "-q: no usage on stderr" sh -c '! grep -Eq "1234|567|1\.2k" "$1"' \
    - "$T/err"

for knobs in "-f chunked" "-f length" "-f close" "-b 1" "-b 1 -C" "-b 1 -k" \
    "-b 1 -B" "-b 1 -f length -C -k -B" "-b 1 -f close -C -k -B" \
    "-b 3 -f chunked -C" "-b 1 -d 1"; do
	startfake $knobs "$T/text"
	runagent -n -q hi
	same "text deltas, fake $knobs" "$T/text.want"
done

# Replies as servers send them (test/data): every chunk with "usage":null
# but the last, split at any byte, and an error event after a few words.
echo "raw $PWD/test/data/openai-text.sse" | script wire
printf 'The note says: "stand-up moves to 9:30", caf\303\251 on the 3rd floor \342\230\225 \360\237\232\200\n' \
    >"$T/wire.want"
for knobs in "" "-b 1 -C" "-b 2 -d 1 -f length"; do
	startfake $knobs "$T/wire"
	runagent -n hi
	same "wire reply, fake $knobs" "$T/wire.want"
	check "wire reply, fake $knobs: usage with the cached part" \
	    grep -q '1841 in (1536 cached), 23 out' "$T/err"
done
echo "raw $PWD/test/data/openai-error.sse" | script wireerr
startfake -x "$T/wireerr"
runagent -n hi
check "error event: exit 1" [ "$RC" -eq 1 ]
check "error event: the words before it on stdout" \
    sh -c '[ "$(cat "$1")" = "Let me look at the" ]' - "$T/out"
check "error event: the server's message" \
    grep -q 'The server had an error while processing your request' "$T/err"

# What the agent sends is JSON whatever the prompt and stdin hold.
script short <<'END'
text ok
finish stop
END
startfake "$T/short"
runagent -n -q "$(printf 'bad \377\376 ctl \001\033\t "quoted" back\\slash end')"
valid "prompt with invalid UTF-8 and controls: JSON" "$REQ/1.json"
jsontest "prompt text kept" "$REQ/1.json" \
    '"\"quoted\" back\\slash end" in '"$UMSG"
printf 'piped \377\376 data \001\033 "q" \\ tail\n' >"$T/in"
runin "$T/in" -n -q summarise
valid "piped stdin with invalid UTF-8: JSON" "$REQ/2.json"
jsontest "piped stdin attached to the prompt" "$REQ/2.json" \
    '"summarise" in '"$UMSG"' and "\"q\" \\ tail" in '"$UMSG"

# Errors.
script e401 <<'END'
status 401
error Incorrect API key provided
END
startfake "$T/e401"
runagent -n -q hi
check "401: exit 1" [ "$RC" -eq 1 ]
check "401: nothing on stdout" [ ! -s "$T/out" ]
check "401: the provider's message" grep -q 'Incorrect API key provided' \
    "$T/err"
check "401: the status" grep -q 401 "$T/err"

script stall <<'END'
text partial
stall
END
startfake "$T/stall"
t0=$(date +%s)
export AGENT_TIMEOUT=2
runagent -n -q hi
unset AGENT_TIMEOUT
t1=$(date +%s)
check "stall: cut off within 10 s" [ $((t1 - t0)) -le 10 ]
check "stall: exit 1" [ "$RC" -eq 1 ]
check "stall: says it timed out" grep -qi 'timed out' "$T/err"

script drop <<'END'
text hello
text world
text more
drop 400
END
for knobs in "-f chunked" "-f length"; do
	startfake $knobs "$T/drop"
	runagent -n -q hi
	check "dropped connection, fake $knobs: exit 1" [ "$RC" -eq 1 ]
	check "dropped connection, fake $knobs: says the answer broke off" \
	    grep -q 'broke off\|ended before the answer was complete' "$T/err"
done

# Ctrl-C while piped stdin is still being read: 130, as for any interrupt.
sleep 5 | env HOME="$T" AGENT_BASE_URL="$URL" AGENT_API_KEY=k ./agent -n hi \
    >"$T/out" 2>"$T/err" &
pid=$!
sleep 0.5
kill -INT "$pid"
wait "$pid"
RC=$?
check "Ctrl-C while reading stdin: exit 130" [ "$RC" -eq 130 ]

# Flags.
runagent -v
check "-v: exit 0" [ "$RC" -eq 0 ]
check "-v: a version on stdout" [ -s "$T/out" ]
runagent -Z
check "bad flag: exit 2" [ "$RC" -eq 2 ]

# Line mode: each stdin line is a message, the conversation kept.
script l1 <<'END'
text first answer
finish stop
END
script l2 <<'END'
text second answer
finish stop
END
startfake "$T/l1" "$T/l2"
printf 'one\ntwo\n' >"$T/lines"
runin "$T/lines" -n -q
check "line mode: exit 0" [ "$RC" -eq 0 ]
check "line mode: both answers on stdout" sh -c \
    'grep -q "first answer" "$1" && grep -q "second answer" "$1"' - "$T/out"
printf 'first answer\nsecond answer\n' >"$T/lines.want"
same "line mode: each answer ends its line" "$T/lines.want"
check "line mode: second request carries the first answer" \
    grep -q 'first answer' "$REQ/2.json"
jsontest "line mode: second request holds the conversation" "$REQ/2.json" \
    '[(m["role"], m["content"]) for m in d["messages"] if m["role"] != "system"] == [("user", "one"), ("assistant", "first answer"), ("user", "two")]'

# stdout no terminal: the final answer alone, the text of the messages
# that call tools on stderr; on a terminal, everything as it streams.
script n1 <<'END'
think pondering
text Let me look.
tool c1 ls {}
finish tool_calls
END
script n2 <<'END'
text The answer.
finish stop
END
startfake -x "$T/n1" "$T/n2"
runagent -n 'two rounds'
printf 'The answer.\n' >"$T/n.want"
same "a pipe: stdout holds the final answer alone, with a newline" "$T/n.want"
check "a pipe: the narration on stderr, on its line" grep -qx 'Let me look.' "$T/err"
startfake -x "$T/n1" "$T/n2"
runagent -n -q 'two rounds'
same "a pipe, -q: the final answer alone" "$T/n.want"
check "a pipe, -q: no narration" sh -c '! grep -q "Let me" "$1"' - "$T/err"
# past maxhold (64 KB) with no tool call yet, the text streams to stdout
script h1 <<'END'
big 100000
tool c1 ls {}
finish tool_calls
END
startfake -x "$T/h1" "$T/n2"
runagent -n 'big then a call'
check "a pipe: text past 64 KB streams to stdout, memory bounded" sh -c \
    '[ "$(head -c 26 "$1")" = abcdefghijklmnopqrstuvwxyz ] &&
     [ "$(wc -c <"$1")" -ge 100012 ] && [ "$(tail -c 12 "$1")" = "The answer." ]' \
    - "$T/out"
if command -v script >/dev/null 2>&1 && script -qc true /dev/null \
    </dev/null >/dev/null 2>&1; then
	startfake -x "$T/n1" "$T/n2"
	(agentexec script -qc "./agent -n 'two rounds' 2>$T/tty.err" \
	    "$T/typescript") </dev/null >"$T/tty.out" 2>&1
	check "a terminal: every message's text streams to stdout" sh -c \
	    'grep -q "Let me look." "$1" && grep -q "The answer." "$1" &&
	     ! grep -q "Let me look" "$2"' - "$T/tty.out" "$T/tty.err"
else
	skip "a terminal: every message's text streams to stdout" \
	    "no script(1) from util-linux"
fi

# Memory stays bounded whatever the length of the answer.
script big <<'END'
big 52428800
finish stop
END
if [ -n "$ASAN_OPTIONS" ] || grep -q __asan_init ./agent 2>/dev/null; then
	skip "50 MB answer in under 8 MB" "under a sanitizer"
elif [ ! -r /proc/self/status ]; then
	skip "50 MB answer in under 8 MB" "no /proc"
else
	startfake "$T/big"
	(agentexec ./agent -n -q hi) </dev/null >/dev/null 2>"$T/err" &
	pid=$!
	hwm=0 i=0
	while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 1500 ]; do
		v=$(sed -n 's/^VmHWM:[^0-9]*\([0-9]*\).*/\1/p' \
		    "/proc/$pid/status" 2>/dev/null)
		[ -n "$v" ] && hwm=$v
		i=$((i + 1))
		sleep 0.02
	done
	kill "$pid" 2>/dev/null
	wait "$pid"
	rc=$?
	check "50 MB answer: exit 0" [ "$rc" -eq 0 ]
	if [ -n "$EMULATOR" ]; then
		# the process is qemu's: its own memory and code count too
		echo "skip - 50 MB answer in under 8 MB: peak $hwm kB is" \
		    "$EMULATOR's with the agent's"
	elif [ "$hwm" -gt 0 ] && [ "$hwm" -lt 8192 ]; then
		ok "50 MB answer in under 8 MB (peak $hwm kB)"
	else
		fail "50 MB answer in under 8 MB" "peak $hwm kB"
	fi
fi
