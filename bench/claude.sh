#!/bin/sh
# bench/claude.sh: agent measured against Claude Code in the same run, both
# on Anthropic's messages wire (agent with -P anthropic) against the same
# scripted replies of test/fake on loopback: startup, a streamed answer,
# scripted tasks with tool calls, and a tool round over https.  Figures are
# medians; ratios are Claude Code's / agent's.  Not a test.
#
# Claude Code is looked for as $CLAUDE, on PATH as claude, or in
# bench/claude/node_modules/.bin/claude
# (npm install --prefix bench/claude @anthropic-ai/claude-code).
#
# It runs headless (-p) with a temporary HOME, no session written, its
# nonessential traffic and telemetry off, and its Read, Edit and Bash tools
# allowed (--dangerously-skip-permissions is refused to root).  Run so, it
# still opens with a HEAD / (a preconnect), which the fake's -P answers
# apart from the scripted messages calls.  Each of its runs has PEERTIME
# seconds (120): a row it does not finish says so and the bench ends
# with status 1, where it used to hang.  Left out, as
# they cannot be made fair: resuming big sessions (its session format is
# its own), line mode (it has none) and the 1M deltas (minutes).
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
CLAUDE=${CLAUDE:-$(command -v claude ||
    echo "$ROOT/bench/claude/node_modules/.bin/claude")}
if [ ! -x "$CLAUDE" ]; then
	echo "Claude Code not installed: no figures for it" \
	    "(npm install --prefix bench/claude @anthropic-ai/claude-code)"
	exit 0
fi
make -s agent test/fake || exit 1
B=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench-claude.XXXXXX") || exit 1
${CC:-cc} -O2 -o "$B/peak" bench/peak.c || exit 1
trap 'kill $FAKE $SOCAT $RELAY 2>/dev/null; rm -rf "$B"' EXIT INT TERM
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
mkdir -p "$B/home" "$B/proj"

. bench/lib.sh

# fake N script...: startfake; URL is agent's base URL, CURL Claude
# Code's.
fake() {
	startfake "$@"
	CURL=$BASE
	URL=$CURL/v1
}

# agent, claude [VAR=VALUE ...]: the commands, to be word-split (paths
# here have no blanks).  Claude Code gets a clean environment, so that no
# key or setting of the caller's reaches it.
agent() {
	echo "env AGENT_BASE_URL=$URL AGENT_API_KEY=bench $ROOT/agent" \
	    "-P anthropic -y -n -q"
}
PEERTIME=${PEERTIME:-120}
claude() {
	echo "timeout $PEERTIME env -i PATH=$PATH HOME=$B/home" \
	    "ANTHROPIC_BASE_URL=$CURL" \
	    "ANTHROPIC_API_KEY=bench DISABLE_TELEMETRY=1" \
	    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1" \
	    "$* $CLAUDE --no-session-persistence --allowedTools Read Edit Bash"
}

# crow NAME AGENT-RESULT CLAUDE-RESULT: row, or, when Claude Code failed
# or ran out of time (peak has said "failed"), that said in the row.
FAILED=0
crow() {
	if [ -z "$3" ]; then
		printf '%-26s %9s ms   Claude Code failed or took over %s s\n' \
		    "$1" "${2%% *}" "$PEERTIME"
		FAILED=1
	else
		row "$@"
	fi
}

# event TYPE JSON: one SSE event.
event() {
	printf 'event: %s\ndata: %s\n\n' "$1" "$2"
}

# reply NAME: the events on stdin become the script $B/NAME, sent as they
# are (the fake's raw), a message's start before them and its end after.
# STOP is its stop_reason (end_turn).
reply() {
	{
		event message_start '{"type": "message_start", "message": {"id": "msg_fake", "type": "message", "role": "assistant", "model": "fake-model", "content": [], "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}'
		cat
		event message_delta '{"type": "message_delta", "delta": {"stop_reason": "'"${STOP:-end_turn}"'"}, "usage": {"output_tokens": 1000}}'
		event message_stop '{"type": "message_stop"}'
	} >"$B/$1.sse"
	echo "raw $B/$1.sse" >"$B/$1"
}

# text TEXT: a text block (TEXT as JSON string content).
text() {
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "'"$1"'"}}'
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
}

# tool NAME ID TOOL JSON: the script NAME, one tool_use block; JSON is its
# input, sent as one input_json_delta.
tool() {
	esc=$(printf '%s' "$4" | sed 's/["\\]/\\&/g')
	{
		event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "'"$2"'", "name": "'"$3"'", "input": {}}}'
		event content_block_delta '{"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "'"$esc"'"}}'
		event content_block_stop '{"type": "content_block_stop", "index": 0}'
	} | STOP=tool_use reply "$1"
}

echo
echo "                               agent                     Claude Code" \
    "$("$CLAUDE" --version | cut -d' ' -f1)"

a=$(measure 50 "$ROOT/agent" -v)
c=$(measure 5 timeout "$PEERTIME" "$CLAUDE" -v)
crow "startup (-v)" "$a" "$c"

# 5 MB of text in deltas of 1000 bytes ("a".."z" and a blank, repeated),
# as the fake's `big` makes them for the OpenAI wire.
awk 'BEGIN {
	for (i = 0; i < 1000; i++)
		s = s sprintf("%c", i % 27 == 26 ? 32 : 97 + i % 27)
	for (i = 0; i < 5000; i++)
		printf "event: content_block_delta\ndata: {\"type\": " \
		    "\"content_block_delta\", \"index\": 0, \"delta\": " \
		    "{\"type\": \"text_delta\", \"text\": \"%s\"}}\n\n", s
}' >"$B/big"
{
	event content_block_start '{"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}'
	cat "$B/big"
	event content_block_stop '{"type": "content_block_stop", "index": 0}'
} | reply stream
fake 12 "$B/stream"
a=$(measure 5 $(agent) go)
c=$(measure 5 $(claude) -p go)
crow "5 MB streamed answer" "$a" "$c"

# The same task as bench/run.sh's, in each one's tools: Claude Code's take
# absolute paths, and its Edit wants the file read first (it is).
H=$B/proj/hello.c
tool t1 c1 read '{"path": "hello.c"}'
tool t2 c2 edit '{"path": "hello.c", "edits": [{"oldText": "wrold", "newText": "world"}]}'
tool t3 c3 bash '{"command": "grep -c world hello.c"}'
tool k1 toolu_1 Read '{"file_path": "'"$H"'"}'
tool k2 toolu_2 Edit '{"file_path": "'"$H"'", "old_string": "wrold", "new_string": "world"}'
tool k3 toolu_3 Bash '{"command": "grep -c world hello.c"}'
text Fixed. | reply t4
init="printf 'int main(void) { puts(\"hello, wrold\"); }\n' > hello.c"
fake 6 "$B/t1" "$B/t2" "$B/t3" "$B/t4"
a=$(cd "$B/proj" && measure 5 sh -c "$init && exec $(agent) fix")
fake 6 "$B/k1" "$B/k2" "$B/k3" "$B/t4"
c=$(cd "$B/proj" && measure 5 sh -c "$init && exec $(claude) -p fix")
grep -q world "$H" || echo "    (the fix was not made)"
crow "task: read, edit, bash" "$a" "$c"

# Ten rounds of a bash call, then the answer.
i=1
sa=
sc=
while [ $i -le 10 ]; do
	tool a$i c$i bash '{"command": "echo '$i'"}'
	tool b$i toolu_b$i Bash '{"command": "echo '$i'"}'
	sa="$sa $B/a$i"
	sc="$sc $B/b$i"
	i=$((i + 1))
done
fake 6 $sa "$B/t4"
a=$(cd "$B/proj" && measure 5 $(agent) go)
fake 6 $sc "$B/t4"
c=$(cd "$B/proj" && measure 5 $(claude) -p go)
crow "task: 10 bash rounds" "$a" "$c"

# Over TLS: socat ends it in front of the fake (-K: a connection may carry
# more than one request).  First a 10-call task through a relay that holds
# each chunk 25 ms each way (a 50 ms round trip) and counts the TCP
# connections, each one a TLS handshake; then one tool round (a call, its
# result, the answer) straight to socat, against the same over http: the
# CPU, the handshake's cost.  Claude Code is given the certificate with
# NODE_EXTRA_CA_CERTS, agent with SSL_CERT_FILE.
command -v socat >/dev/null 2>&1 && command -v openssl >/dev/null 2>&1 ||
    exit $FAILED
make -s test/relay || exit 1
(cd "$B" && openssl req -x509 -newkey ec -pkeyopt \
    ec_paramgen_curve:P-256 -nodes -keyout key.pem -out cert.pem \
    -subj /CN=localhost -days 2 \
    -addext subjectAltName=DNS:localhost) >/dev/null 2>&1
sport=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# socat_ PORT [OPTIONS]: TLS on $sport in front of the fake's PORT.
socat_() {
	kill $SOCAT 2>/dev/null
	socat "OPENSSL-LISTEN:$sport,bind=127.0.0.1,reuseaddr,fork$2,cert=$B/cert.pem,key=$B/key.pem,verify=0" \
	    "TCP:127.0.0.1:$1$2" 2>/dev/null &
	SOCAT=$!
	sleep 0.5
}
tls="SSL_CERT_FILE=$B/cert.pem"
ctls="NODE_EXTRA_CA_CERTS=$B/cert.pem"
i=1
sa=
sc=
while [ $i -lt 10 ]; do
	tool n$i c$i bash '{"command": "ls"}'
	tool m$i toolu_m$i Bash '{"command": "ls"}'
	sa="$sa $B/n$i"
	sc="$sc $B/m$i"
	i=$((i + 1))
done
text Done. | reply n10
FAKEFLAGS=-K fake 3 $sa "$B/n10"
socat_ "$(cat "$B/port")"
"$ROOT/test/relay" -d 25 -p "$B/rport" -c "$B/conns" localhost "$sport" &
RELAY=$!
while [ ! -s "$B/rport" ]; do sleep 0.02; done
relay=https://localhost:$(cat "$B/rport")
a=$(cd "$B/proj" && measure 3 env $tls $(URL=$relay/v1 agent) go)
ac=$(($(cat "$B/conns") / 3))
FAKEFLAGS=-K fake 3 $sc "$B/n10"
socat_ "$(cat "$B/port")"
n0=$(cat "$B/conns")
c=$(cd "$B/proj" && measure 3 $(CURL=$relay claude $ctls) -p go)
kc=$((($(cat "$B/conns") - n0) / 3))
crow "10 calls, TLS, 50 ms RTT" "$a" "$c"
echo "    connections (= TLS handshakes) per task: agent $ac, Claude Code $kc"
kill $RELAY
RELAY=

# A tool round, its CPU over https and over http: nodelay, else Nagle
# holds socat's second small write for the client's delayed ACK, 40 ms of
# waiting that is no one's CPU.
tool r1 c1 bash '{"command": "ls"}'
tool r2 toolu_r1 Bash '{"command": "ls"}'
https=https://localhost:$sport
FAKEFLAGS=-K fake 20 "$B/r1" "$B/t4"
socat_ "$(cat "$B/port")" ,nodelay
ah=$(cd "$B/proj" && cpu 9 $(agent) go)
as=$(cd "$B/proj" && cpu 9 env $tls $(URL=$https/v1 agent) go)
FAKEFLAGS=-K fake 12 "$B/r2" "$B/t4"
socat_ "$(cat "$B/port")" ,nodelay
ch=$(cd "$B/proj" && cpu 5 $(claude) -p go)
cs=$(cd "$B/proj" && cpu 5 $(CURL=$https claude $ctls) -p go)
printf '%-26s %9s ms https, %s ms http: %sx' "tool round CPU, TLS" \
    "$as" "$ah" "$(echo "$as $ah" | awk '{ printf "%.2f", $1 / $2 }')"
if [ -z "$ch" ] || [ -z "$cs" ]; then
	echo "   Claude Code failed or took over $PEERTIME s"
	exit 1
fi
printf '   Claude Code %s ms https, %s ms http: %sx\n' \
    "$cs" "$ch" "$(echo "$cs $ch" | awk '{ printf "%.2f", $1 / $2 }')"
exit $FAILED
