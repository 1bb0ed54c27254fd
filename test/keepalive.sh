#!/bin/sh
# keepalive.sh: a run's requests share one kept connection, on http, on
# https and through a CONNECT proxy; a connection the server closed while
# tools ran is replaced without a word and nothing is sent twice; servers
# that close (Connection: close, HTTP/1.0) get a new connection each time.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"

# task N [directive]: scripts k1..kN, N-1 rounds of a tool call, then
# the answer; each script gets the directive too.  Sets $KS.
task() {
	KS=
	_i=1
	while [ "$_i" -le "$1" ]; do
		if [ "$_i" -lt "$1" ]; then
			printf 'tool c%d %s\nfinish tool_calls\n' "$_i" \
			    "${TOOL:-ls {\}}" >"$T/k$_i"
		else
			printf 'text done\nfinish stop\n' >"$T/k$_i"
		fi
		[ -n "$2" ] && echo "$2" >>"$T/k$_i"
		KS="$KS $T/k$_i"
		_i=$((_i + 1))
	done
}

# conns: connections the fake saw; reqs: requests it recorded
conns() {
	cat "$REQ"/*.conn | sort -u | wc -l | tr -d ' '
}
reqs() {
	ls "$REQ" | grep -c '\.head$'
}

runat() {
	(cd "$W" && agentexec setsid -w timeout 60 "$ROOT/agent" -y -n "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

task 10
startfake -K -x $KS
runat go
[ "$RC" -eq 0 ] && [ "$(reqs)" -eq 10 ] && [ "$(conns)" -eq 1 ] &&
    ok "http: a 10-call task on one connection" ||
    fail "http: a 10-call task on one connection" "rc $RC, $(reqs) requests, $(conns) connections: $(cat "$T/err")"

# the server closes a connection idle for 200 ms; the tools take 600
TOOL='bash {"command":"sleep 0.6"}' task 4
startfake -K -i 200 -x $KS
runat -q -g full go	# the network is the point here, not the sandbox
[ "$RC" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(reqs)" -eq 4 ] &&
    ok "idle close: no error, no word, each request sent once" ||
    fail "idle close: no error, no word, each request sent once" "rc $RC, $(reqs) requests: $(cat "$T/err")"
[ "$(conns)" -eq 4 ] &&
    ok "idle close: a new connection for each call after the close" ||
    fail "idle close: a new connection for each call" "$(conns) connections"

# the server drops the kept connection just as the next request comes
task 3
echo forget >>"$T/k1"
startfake -K -x $KS
runat -q -g full go
[ "$RC" -eq 0 ] && [ ! -s "$T/err" ] && [ "$(reqs)" -eq 3 ] &&
    [ "$(conns)" -eq 2 ] &&
    ok "closed as the request went: sent again on a new one, once, silently" ||
    fail "closed as the request went: sent again on a new one" "rc $RC, $(reqs) requests, $(conns) connections: $(cat "$T/err")"

# the server takes the request on the kept connection and is slow to
# answer: the read times out, and the request is not sent again (the
# server may be at work on it, and would be paid twice)
task 2
echo 'wait 3000' >>"$T/k2"
startfake -K $KS
(cd "$W" && AGENT_TIMEOUT=1 agentexec setsid -w timeout 60 "$ROOT/agent" \
    -y -n -q -g full go) </dev/null >"$T/out" 2>"$T/err"
RC=$?
sleep 3	# what a second sending would leave, recorded
[ "$RC" -eq 1 ] && [ "$(reqs)" -eq 2 ] && grep -q 'timed out' "$T/err" &&
    ok "timed out on a kept connection: said, not sent again" ||
    fail "timed out on a kept connection: said, not sent again" \
    "rc $RC, $(reqs) requests: $(cat "$T/err")"
stopfake

# the kept connection is not handed to the tools' processes
TOOL='bash {"command":"ls -l /proc/$$/fd/ | grep -c socket: || true"}' task 2
startfake -K -x $KS
runat -g full go
jsontest "the kept connection: not open in a tool's process" "$REQ/2.json" \
    'd["messages"][-1]["content"].strip() == "0"'

for d in close http10; do
	task 4 $d
	startfake -K -x $KS
	runat go
	[ "$RC" -eq 0 ] && [ "$(conns)" -eq 4 ] &&
	    ok "$d: a new connection for each call" ||
	    fail "$d: a new connection for each call" "rc $RC, $(conns) connections: $(cat "$T/err")"
done

# https: socat ends TLS in front of the fake, one backend connection per
# TLS connection, so the fake's count is the handshakes'
if ! command -v socat >/dev/null 2>&1; then
	skip "https keep-alive" "no socat (apt-get install socat)"
	exit 0
fi
(cd "$T" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -keyout key.pem -out cert.pem -subj /CN=localhost -days 2 \
    -addext subjectAltName=DNS:localhost) >/dev/null 2>&1
freeport() {
	python3 -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
SPID=
stopsocat() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
	SPID=
}
trap 'stopsocat; stopfake; rm -rf "$T"' EXIT

# tlsrun NAME [env]: the 10-call task over https through socat
tlsrun() {
	_name=$1
	shift
	task 10
	startfake -K -x $KS
	SPORT=$(freeport)
	socat "OPENSSL-LISTEN:$SPORT,bind=127.0.0.1,reuseaddr,fork,cert=$T/cert.pem,key=$T/key.pem,verify=0" \
	    "TCP:127.0.0.1:$PORT" 2>"$T/socat.err" &
	SPID=$!
	python3 -c 'import socket, sys, time
for i in range(100):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()
        break
    except OSError:
        time.sleep(0.05)' "$SPORT"
	URL=https://localhost:$SPORT/v1
	(cd "$W" && agentexec env SSL_CERT_FILE="$T/cert.pem" "$@" \
	    setsid -w timeout 60 "$ROOT/agent" -y -n go) </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
	stopsocat
}

tlsrun https
[ "$RC" -eq 0 ] && [ "$(reqs)" -eq 10 ] && [ "$(conns)" -eq 1 ] &&
    ok "https: a 10-call task on one connection, one handshake" ||
    fail "https: one connection, one handshake" "rc $RC, $(reqs) requests, $(conns) handshakes: $(cat "$T/err" "$T/socat.err")"

./test/relay -P -p "$T/rport" -c "$T/rcount" &
RPID=$!
_i=0
while [ ! -s "$T/rport" ] && [ "$_i" -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
tlsrun proxy HTTPS_PROXY="http://127.0.0.1:$(cat "$T/rport")"
kill "$RPID" 2>/dev/null
[ "$RC" -eq 0 ] && [ "$(reqs)" -eq 10 ] && [ "$(conns)" -eq 1 ] &&
    [ "$(cat "$T/rcount")" -eq 1 ] &&
    ok "https through a CONNECT proxy: one tunnel, one handshake" ||
    fail "https through a CONNECT proxy: one tunnel, one handshake" "rc $RC, $(reqs) requests, $(conns) handshakes, $(cat "$T/rcount") tunnels: $(cat "$T/err")"

# A proxy given as host:port, as curl, pip and npm take it: http://.
rm -f "$T/rport" "$T/rcount"
./test/relay -P -p "$T/rport" -c "$T/rcount" &
RPID=$!
_i=0
while [ ! -s "$T/rport" ] && [ "$_i" -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
tlsrun proxyhp HTTPS_PROXY="127.0.0.1:$(cat "$T/rport")"
kill "$RPID" 2>/dev/null
[ "$RC" -eq 0 ] && [ "$(reqs)" -eq 10 ] && [ "$(cat "$T/rcount")" -eq 1 ] &&
    ok "https through a proxy given as host:port" ||
    fail "https through a proxy given as host:port" "rc $RC, $(reqs) requests, $(cat "$T/rcount" 2>/dev/null) tunnels: $(cat "$T/err")"
