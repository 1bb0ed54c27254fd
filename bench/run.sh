#!/bin/sh
# bench/run.sh: agent measured against itself and, when it is installed,
# against pi in the same run: startup, a streamed answer (time and peak
# memory), scripted tasks with tool calls, big sessions resumed, TLS, all
# against test/fake on loopback; and SSE+JSON throughput.  Figures are
# medians; ratios are pi / agent.  Not a test.
#
# pi is looked for as $PI, on PATH, or in bench/pi/node_modules/.bin/pi
# (npm install --prefix bench/pi @mariozechner/pi-coding-agent).  SLOW=1
# runs pi on the 1M deltas too (minutes).
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
make -s agent test/fake test/relay || exit 1
B=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench.XXXXXX") || exit 1
${CC:-cc} -O2 -o "$B/peak" bench/peak.c || exit 1
# built as agent is (config.mk's flags)
${CC:-cc} -std=c99 -Os -D_POSIX_C_SOURCE=200809L -o "$B/sse" bench/sse.c \
    sse.c wire.c openai.c anthropic.c responses.c gemini.c json.c util.c || exit 1
trap 'kill $FAKE $SOCAT $RELAY 2>/dev/null; rm -rf "$B"' EXIT INT TERM
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
# the fake's scripts here are chat completions (bench/responses.sh has
# the Responses wire)
export AGENT_PROVIDER=openai-chat

PI=${PI:-$(command -v pi || echo "$ROOT/bench/pi/node_modules/.bin/pi")}
[ -x "$PI" ] || PI=

. bench/lib.sh

# fake N script...: startfake, and pi told of it.
fake() {
	startfake "$@"
	URL=$BASE/v1
	mkdir -p "$B/home/.pi/agent"
	cat >"$B/home/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "$URL", "api": "openai-completions",
  "apiKey": "bench", "models": [{"id": "fake-model"}]}}}
X
}

echo "                               agent                     pi"

a=$(measure 50 "$ROOT/agent" -v)
p=
[ -n "$PI" ] && p=$(measure 5 "$PI" --version)
row "startup (-v)" "$a" "$p"

cat >"$B/stream" <<X
big 5000000
finish stop
usage 10 1000
X
fake 12 "$B/stream"
a=$(measure 5 env AGENT_BASE_URL="$URL" AGENT_API_KEY=bench "$ROOT/agent" -n -q go)
p=
[ -n "$PI" ] && p=$(measure 5 env HOME="$B/home" "$PI" --provider fake \
    --model fake-model --no-session -p go)
row "5 MB streamed answer" "$a" "$p"

mkdir -p "$B/proj"
cat >"$B/t1" <<'X'
tool c1 read {"path": "hello.c"}
finish tool_calls
X
cat >"$B/t2" <<'X'
tool c2 edit {"path": "hello.c", "edits": [{"oldText": "wrold", "newText": "world"}]}
finish tool_calls
X
cat >"$B/t3" <<'X'
tool c3 bash {"command": "grep -c world hello.c"}
finish tool_calls
X
cat >"$B/t4" <<'X'
text Fixed.
finish stop
X
fake 12 "$B/t1" "$B/t2" "$B/t3" "$B/t4"
a=$(cd "$B/proj" && measure 5 sh -c "printf 'int main(void) { puts(\"hello, wrold\"); }\n' > hello.c &&
    exec env AGENT_BASE_URL=$URL AGENT_API_KEY=bench $ROOT/agent -y -n -q fix")
p=
[ -n "$PI" ] && p=$(cd "$B/proj" && measure 5 sh -c "printf 'int main(void) { puts(\"hello, wrold\"); }\n' > hello.c &&
    exec env HOME=$B/home $PI --provider fake --model fake-model --no-session -p fix")
row "task: read, edit, bash" "$a" "$p"

# Ten rounds of a bash call, then the answer: each round waits on the
# tool's process, not on a timer.
i=1
set --
while [ $i -le 10 ]; do
	printf 'tool b%d bash {"command": "echo %d"}\nfinish tool_calls\n' \
	    $i $i >"$B/b$i"
	set -- "$@" "$B/b$i"
	i=$((i + 1))
done
fake 6 "$@" "$B/t4"
a=$(cd "$B/proj" && measure 5 env AGENT_BASE_URL=$URL AGENT_API_KEY=bench \
    "$ROOT/agent" -y -n -q go)
p=
[ -n "$PI" ] && p=$(cd "$B/proj" && measure 1 env HOME="$B/home" "$PI" \
    --provider fake --model fake-model --no-session -p go)
row "task: 10 bash rounds" "$a" "$p"

# 5 MB of text in 1M deltas of 5 bytes, the answer written to a pipe:
# the deltas of one network read go out in one write.
awk 'BEGIN { while (i++ < 1000000) print "text abcde"; print "finish stop" }' \
    >"$B/deltas"
fake 4 "$B/deltas"
set -- $("$B/peak" 3 sh -c "env AGENT_BASE_URL=$URL AGENT_API_KEY=bench \
    $ROOT/agent -n -q go | cat >/dev/null")
a="$1 $2"
c=$3
# pi takes about two minutes over it: only with SLOW=1
p=
[ -n "$PI" ] && [ -n "$SLOW" ] && p=$(measure 1 sh -c "env HOME=$B/home \
    $PI --provider fake --model fake-model --no-session -p go | cat >/dev/null")
row "1M deltas to a pipe" "$a" "$p"
echo "    agent's CPU (and cat's): $c ms; the fake writes an event a write"

# Big sessions, made here (bench/session.awk): 20 and 60 MB resumed with
# one prompt, all of it sent; 100 MB with a compaction near its end, of
# which about 20 KB is sent.  The lines that the context uses are mapped
# from the file, a few MB of them held at a time, and the big texts of
# the request are sent from there.  Per MB: CPU over the file's size,
# and the marginal cost, 20 to 60 MB, start-up left out; the request is
# the body the fake received, and the agent's peak is set beside it.
awk -v mb=20 -f bench/session.awk >"$B/s20.jsonl"
awk -v mb=60 -f bench/session.awk >"$B/s60.jsonl"
awk -v mb=100 -v compact=1 -f bench/session.awk >"$B/c100.jsonl"
for s in s20 s60 c100; do
	cp "$B/$s.jsonl" "$B/a$s.jsonl"
	cp "$B/$s.jsonl" "$B/p$s.jsonl"
	rm -rf "$B/req"
	mkdir "$B/req"
	FAKEFLAGS="-r $B/req" fake 6 "$B/t4"
	set -- $("$B/peak" 3 env AGENT_BASE_URL=$URL AGENT_API_KEY=bench \
	    "$ROOT/agent" -q -s "$B/a$s.jsonl" go)
	a="$1 $2"
	eval "acpu$s=$3 akb$s=$2"
	p=
	eval "pcpu$s="
	# pi's CPU here varies by half from one run to the next: the
	# median of three, as agent's
	if [ -n "$PI" ]; then
		set -- $("$B/peak" 3 env HOME="$B/home" "$PI" --provider fake \
		    --model fake-model --session "$B/p$s.jsonl" -p go)
		p="$1 $2"
		eval "pcpu$s=$3"
	fi
	case $s in
	s20) n="resume 20 MB + prompt" ;;
	s60) n="resume 60 MB + prompt" ;;
	*) n="resume 100 MB compacted" ;;
	esac
	row "$n" "$a" "$p"
	eval "mb$s=$(wc -c <"$B/$s.jsonl")"
	eval "req$s=$(wc -c <"$B/req/1.json")"
	eval "echo \$mb$s \$req$s \$akb$s \$acpu$s \$pcpu$s" | awk '{
	    d = $3 * 1024 / 1e6 - $2 / 1e6
	    printf "    request %.1f MB, agent'"'"'s peak %.1f MB: %.1f MB %s the request\n", $2 / 1e6, $3 * 1024 / 1e6, d < 0 ? -d : d, d < 0 ? "under" : "over"
	    printf "    CPU per MB: agent %.2f ms", $4 / ($1 / 1e6)
	    if ($5 != "")
		printf ", pi %.1f ms: %.0fx", $5 / ($1 / 1e6), $5 / $4
	    print "" }'
done
echo "$mbs20 $mbs60 $acpus20 $acpus60 $pcpus20 $pcpus60" | awk '{
    mb = ($2 - $1) / 1e6
    printf "    20 to 60 MB, CPU per MB more: agent %.2f ms", ($4 - $3) / mb
    if ($6 != "")
	printf ", pi %.1f ms: %.0fx", ($6 - $5) / mb, ($6 - $5) / ($4 - $3)
    print "" }'

# Many messages after a big first one (300 KB, then 3,000 short ones):
# the first user message, which the environment note goes before, is
# found once a request, not once a message (314 ms of CPU when it was).
awk 'BEGIN {
	while (length(big) < 300000)
		big = big "abcdefghij"
	print "{\"type\":\"session\",\"version\":3,\"id\":\"many\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/tmp\"}"
	# answers carry their model and usage, as pi wants
	ans = ",\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{\"input\":100,\"output\":10,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":110,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\""
	for (k = 1; k < 3000; k++) {
		par = k > 1 ? sprintf("\"%08x\"", k - 1) : "null"
		printf "{\"type\":\"message\",\"id\":\"%08x\",\"parentId\":%s,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"%s\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]%s,\"timestamp\":1}}\n", k, par, k % 2 ? "user" : "assistant", k == 1 ? big : "hi " k, k % 2 ? "" : ans
	}
}' >"$B/many.jsonl"
cp "$B/many.jsonl" "$B/amany.jsonl"
cp "$B/many.jsonl" "$B/pmany.jsonl"
fake 6 "$B/t4"
a=$(measure 3 env AGENT_BASE_URL=$URL AGENT_API_KEY=bench "$ROOT/agent" \
    -q -s "$B/amany.jsonl" go)
p=
[ -z "$PI" ] || p=$(measure 3 env HOME="$B/home" "$PI" --provider fake \
    --model fake-model --session "$B/pmany.jsonl" -p go)
row "resume 300 KB + 3000 msgs" "$a" "$p"

# SSE+JSON: an OpenAI stream through sse.c and wire.c, MB per CPU second.
printf '%-26s %9s MB/s  (bench/sse.c; pi has no such part)\n' \
    "SSE+JSON throughput" "$("$B/sse" 20 5 | cut -d' ' -f1)"
# the same text in Responses events: per delta, no dearer than chat's
printf '%-26s %s, on chat completions %s\n' "Responses deltas" \
    "$("$B/sse" 20 5 r | cut -d' ' -f3-5)" \
    "$("$B/sse" 20 5 | cut -d' ' -f3-5)"

# Line mode with a long history: each request sends the messages' wire
# forms, made once, from where they are kept, so 4 times the messages
# should cost about 4 times the CPU, not 16 (pi has no line mode to
# compare).  A turn is two messages: a question and its answer.
printf 'text %s\nfinish stop\nusage 100 20\n' \
    "$(awk 'BEGIN { while (i++ < 300) printf "x" }')" >"$B/ans"
for msgs in 200 800; do
	lines=$((msgs / 2))
	yes 'a question of some length, to make the history bigger' |
	    head -n $lines >"$B/lines$lines"
	FAKEFLAGS=-K fake $((lines * 6)) "$B/ans"
	set -- $("$B/peak" 5 sh -c "exec env AGENT_BASE_URL=$URL \
	    AGENT_API_KEY=bench $ROOT/agent -n -q <$B/lines$lines")
	printf '%-26s %9s ms %7s KB   CPU %s ms (pi has no line mode)\n' \
	    "line mode, $msgs messages" "$1" "$2" "$3"
	eval "cpu$msgs=$3"
done
printf '    800 messages take %sx the CPU of 200 (linear: 4x)\n' \
    "$(echo "$cpu800 $cpu200" | awk '{ printf "%.2f", $1 / $2 }')"

# A 10-call task over TLS through a relay that holds each chunk 25 ms
# each way (a 50 ms round trip): socat ends TLS in front of the fake, the
# relay counts the TCP connections, each one a TLS handshake.
if command -v socat >/dev/null 2>&1; then
	(cd "$B" && openssl req -x509 -newkey ec -pkeyopt \
	    ec_paramgen_curve:P-256 -nodes -keyout key.pem -out cert.pem \
	    -subj /CN=localhost -days 2 \
	    -addext subjectAltName=DNS:localhost) >/dev/null 2>&1
	i=1
	set --
	while [ $i -le 10 ]; do
		if [ $i -lt 10 ]; then
			printf 'tool c%d ls {}\nfinish tool_calls\n' $i
		else
			printf 'text done\nfinish stop\n'
		fi >"$B/n$i"
		set -- "$@" "$B/n$i"
		i=$((i + 1))
	done
	FAKEFLAGS=-K fake 12 "$@"
	sport=$(python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	socat "OPENSSL-LISTEN:$sport,bind=127.0.0.1,reuseaddr,fork,cert=$B/cert.pem,key=$B/key.pem,verify=0" \
	    "TCP:127.0.0.1:$(cat "$B/port")" 2>/dev/null &
	SOCAT=$!
	# socat listens a moment after it starts: a connection before that
	# is refused, and the row failed now and then
	python3 -c 'import socket, sys, time
for i in range(250):
	try:
		socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()
		break
	except OSError:
		time.sleep(0.02)' "$sport"
	"$ROOT/test/relay" -d 25 -p "$B/rport" -c "$B/conns" localhost "$sport" &
	RELAY=$!
	while [ ! -s "$B/rport" ]; do sleep 0.02; done
	URL=https://localhost:$(cat "$B/rport")/v1
	a=$(cd "$B/proj" && measure 3 env SSL_CERT_FILE="$B/cert.pem" \
	    AGENT_BASE_URL=$URL AGENT_API_KEY=bench "$ROOT/agent" -y -n -q go)
	ac=$(($(cat "$B/conns") / 3))
	p=
	pc=
	if [ -n "$PI" ]; then
		cat >"$B/home/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "$URL", "api": "openai-completions",
  "apiKey": "bench", "models": [{"id": "fake-model"}]}}}
X
		n0=$(cat "$B/conns")
		p=$(cd "$B/proj" && measure 3 env HOME="$B/home" \
		    NODE_EXTRA_CA_CERTS="$B/cert.pem" "$PI" --provider fake \
		    --model fake-model --no-session -p go)
		pc=$((($(cat "$B/conns") - n0) / 3))
	fi
	row "10 calls, TLS, 50 ms RTT" "$a" "$p"
	echo "    connections (= TLS handshakes) per task: agent $ac${pc:+, pi $pc}"
	# A tool round (a call, its result, the answer) over https straight
	# to socat, against the same over http to the same host name: CPU,
	# the handshake's cost.  As with a provider, the server's certificate
	# is signed by a CA found in the system's whole bundle.
	(cd "$B" && openssl req -x509 -newkey ec -pkeyopt \
	    ec_paramgen_curve:P-256 -nodes -keyout cakey.pem -out ca.pem \
	    -subj /CN=bench-ca -days 2 &&
	    openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout leafkey.pem -out leaf.csr -subj /CN=localhost &&
	    printf 'subjectAltName=DNS:localhost\n' >leaf.ext &&
	    openssl x509 -req -in leaf.csr -CA ca.pem -CAkey cakey.pem \
	    -CAcreateserial -days 2 -extfile leaf.ext -out leaf.pem) \
	    >/dev/null 2>&1
	cat /etc/ssl/certs/ca-certificates.crt "$B/ca.pem" >"$B/bundle.pem" \
	    2>/dev/null
	printf 'tool c1 ls {}\nfinish tool_calls\n' >"$B/r1"
	kill $SOCAT $RELAY 2>/dev/null
	FAKEFLAGS=-K fake 40 "$B/r1" "$B/t4"
	hport=$(cat "$B/port")
	# nodelay: else Nagle holds socat's second small write for the
	# client's delayed ACK, 40 ms of waiting that is no one's CPU
	socat "OPENSSL-LISTEN:$sport,bind=127.0.0.1,reuseaddr,fork,nodelay,cert=$B/leaf.pem,key=$B/leafkey.pem,verify=0" \
	    "TCP:127.0.0.1:$hport,nodelay" 2>/dev/null &
	SOCAT=$!
	sleep 0.5
	# taking turns, one run of each at a time, so that a machine busy
	# with something else weighs on both alike: medians of 11
	: >"$B/th"
	: >"$B/ts"
	: >"$B/tw"
	: >"$B/thw"
	i=0
	while [ $i -lt 11 ]; do
		set -- $(cd "$B/proj" && "$B/peak" 1 env \
		    AGENT_BASE_URL=http://localhost:$hport/v1 \
		    AGENT_API_KEY=bench "$ROOT/agent" -y -n -q go)
		echo "$3" >>"$B/th"
		echo "$1" >>"$B/thw"
		set -- $(cd "$B/proj" && "$B/peak" 1 env \
		    SSL_CERT_FILE="$B/bundle.pem" \
		    AGENT_BASE_URL=https://localhost:$sport/v1 \
		    AGENT_API_KEY=bench "$ROOT/agent" -y -n -q go)
		echo "$3" >>"$B/ts"
		echo "$1" >>"$B/tw"
		i=$((i + 1))
	done
	ah=$(sort -n "$B/th" | sed -n 6p)
	as=$(sort -n "$B/ts" | sed -n 6p)
	aw=$(sort -n "$B/tw" | sed -n 6p)
	ahw=$(sort -n "$B/thw" | sed -n 6p)
	printf '%-26s %9s ms https, %s ms http (%s certificates in the bundle)\n' \
	    "tool round, wall" "$aw" "$ahw" \
	    "$(grep -c 'BEGIN CERT' "$B/bundle.pem")"
	echo "    the https server is socat: a process forked per connection"
	printf '%-26s %9s ms https, %s ms http: %sx' "tool round CPU, TLS" \
	    "$as" "$ah" "$(echo "$as $ah" | awk '{ printf "%.2f", $1 / $2 }')"
	if [ -n "$PI" ]; then
		ph=$(cd "$B/proj" && cpu 3 env HOME="$B/home" "$PI" \
		    --provider fake --model fake-model --no-session -p go)
		cat >"$B/home/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "https://localhost:$sport/v1",
  "api": "openai-completions", "apiKey": "bench",
  "models": [{"id": "fake-model"}]}}}
X
		ps=$(cd "$B/proj" && cpu 3 env HOME="$B/home" \
		    NODE_EXTRA_CA_CERTS="$B/ca.pem" "$PI" --provider fake \
		    --model fake-model --no-session -p go)
		printf '   pi %s ms https, %s ms http' "$ps" "$ph"
	fi
	echo
fi

# The sandbox's cost: one run of 50 bash calls, under the default profile
# (a Landlock ruleset made and entered for each call, the run's temporary
# directory made and removed) and under -g full (none), taking turns so
# that a busy machine weighs on both alike; the difference of the medians,
# per call.
: >"$B/s1"
i=0
while [ $i -lt 50 ]; do
	echo "tool s$i bash {\"command\": \"true\"}" >>"$B/s1"
	i=$((i + 1))
done
echo 'finish tool_calls' >>"$B/s1"
fake 32 "$B/s1" "$B/t4"
: >"$B/workspace"
: >"$B/full"
for k in 1 2 3 4 5; do
	for g in full workspace; do
		(cd "$B/proj" && measure 3 env AGENT_BASE_URL=$URL \
		    AGENT_API_KEY=bench "$ROOT/agent" -y -g $g -n -q go) |
		    cut -d' ' -f1 >>"$B/$g"
	done
done
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
w=$(median "$B/workspace")
f=$(median "$B/full")
printf '%-26s %9s ms workspace, %s ms full: %s ms a call\n' \
    "50 bash calls, sandbox" "$w" "$f" \
    "$(echo "$w $f" | awk '{ printf "%.3f", ($1 - $2) / 50 }')"

echo
sh bench/read.sh | tail -2
echo
sh bench/prefix.sh
echo
sh bench/responses.sh
sh bench/claude.sh
