#!/bin/sh
# anchors.sh: trust and time on a small machine.  A CAFILE with no
# certificate fails the build (cagen); test/agent-ca, built with
# test/data/anchor.pem compiled in, trusts it where no CA bundle is
# (/etc/ssl hidden in a mount namespace of its own); a clock at 1970
# (faketime) checks certificates at the build's date, says so once, and
# still refuses one expired before the build.  The server: socat ending
# TLS in front of the fake provider.
. test/lib.sh
ROOT=$PWD
unset SSL_CERT_FILE

# cagen, the generator make runs: no certificate, no build
if [ ! -x ./cagen ]; then
	skip "CAFILE with no certificate" "no ./cagen here (make cagen)"
else
	printf 'not a certificate\n' >"$T/empty.pem"
	./cagen "$T/empty.pem" >"$T/ca.h" 2>"$T/cagen.err"
	rc=$?
	[ "$rc" -ne 0 ] && grep -q 'no certificate' "$T/cagen.err" &&
	    ok "CAFILE with no certificate: the build fails, saying so" ||
	    fail "CAFILE with no certificate" "rc $rc: $(cat "$T/cagen.err")"
	./cagen test/data/anchor.pem >"$T/ca.h" 2>"$T/cagen.err" &&
	    grep -q 'tlsbuiltinlen = [1-9]' "$T/ca.h" &&
	    ok "CAFILE: its certificate in ca.h" ||
	    fail "CAFILE: its certificate in ca.h" "$(cat "$T/cagen.err")"
fi

if ! command -v socat >/dev/null 2>&1 || ! command -v openssl >/dev/null 2>&1
then
	skip "anchors and clock over TLS" "no socat or openssl"
	exit 0
fi
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

# serve CERT KEY: the fake (one answer) behind socat's TLS; sets URL
serve() {
	printf 'text Trusted.\nfinish stop\n' >"$T/s1"
	startfake -x "$T/s1"
	SPORT=$(freeport)
	stopsocat
	socat "OPENSSL-LISTEN:$SPORT,bind=127.0.0.1,reuseaddr,fork,cert=$1,key=$2,verify=0" \
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
}

# Compiled-in anchors, with no CA bundle on the machine: root may hide
# /etc/ssl under an empty tmpfs in a mount namespace of the run's own.
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1 ||
    ! unshare -m sh -c 'mount -t tmpfs none /etc/ssl' 2>/dev/null; then
	skip "compiled-in anchors" "not root, or no mount namespace"
elif [ ! -x test/agent-ca ]; then
	fail "compiled-in anchors" "no test/agent-ca (make test/agent-ca)"
else
	serve "$ROOT/test/data/anchor.pem" "$ROOT/test/data/anchor.key"
	(agentexec unshare -m sh -c 'mount -t tmpfs none /etc/ssl &&
	    exec timeout 30 "$@"' sh test/agent-ca -n hi) </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = Trusted. ] &&
	    ok "compiled-in anchors: trusted with no CA bundle" ||
	    fail "compiled-in anchors" "rc $RC: $(cat "$T/err")"
	serve "$ROOT/test/data/anchor.pem" "$ROOT/test/data/anchor.key"
	(agentexec unshare -m sh -c 'mount -t tmpfs none /etc/ssl &&
	    exec timeout 30 "$@"' sh ./agent -n hi) </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" -eq 1 ] && grep -q 'no CA certificates' "$T/err" &&
	    ok "no anchors compiled in, no CA bundle: refused, saying so" ||
	    fail "no anchors, no bundle" "rc $RC: $(cat "$T/err")"
fi

# No clock: faketime puts the clock at 1970, ticking; the monotonic
# clock, the timeouts', stays true.
if ! command -v faketime >/dev/null 2>&1; then
	skip "a clock at 1970" "no faketime (apt-get install faketime)"
	exit 0
fi
if [ -n "$EMULATOR" ]; then
	skip "a clock at 1970" "faketime's preload under qemu"
	exit 0
fi
# AddressSanitizer's runtime and faketime's preload do not mix: a hang
FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f '@1970-01-02 00:00:00' \
    timeout 10 ./agent -h >/dev/null 2>&1
if [ $? -eq 124 ]; then
	skip "a clock at 1970" "faketime's preload hangs this build (ASan?)"
	exit 0
fi
serve "$ROOT/test/data/anchor.pem" "$ROOT/test/data/anchor.key"
(agentexec env SSL_CERT_FILE="$ROOT/test/data/anchor.pem" \
    FAKETIME_DONT_FAKE_MONOTONIC=1 faketime -f '@1970-01-02 00:00:00' \
    timeout 30 ./agent -n hi) </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = Trusted. ] &&
    ok "a clock at 1970: the certificate checked at the build's date" ||
    fail "a clock at 1970" "rc $RC: $(cat "$T/err")"
[ "$(grep -c 'clock is behind' "$T/err")" -eq 1 ] &&
    ok "a clock at 1970: said once on stderr" ||
    fail "a clock at 1970: said once" "$(cat "$T/err")"

# Really expired, before the build: the build's date is a floor, not a
# pass.
(cd "$T" && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
    -nodes -keyout old.key -out old.csr -subj /CN=localhost -days 1 \
    -addext subjectAltName=DNS:localhost) >/dev/null 2>&1
cat >"$T/old.cnf" <<'EOF'
[ca]
default_ca = c
[c]
database = index.txt
serial = serial
new_certs_dir = .
default_md = sha256
policy = p
[p]
commonName = supplied
[e]
subjectAltName = DNS:localhost
EOF
(cd "$T" && : >index.txt && echo 01 >serial &&
    openssl req -new -key old.key -subj /CN=localhost -out old.req &&
    openssl ca -batch -config old.cnf -selfsign -keyfile old.key \
    -extensions e -notext -in old.req -out old.pem \
    -startdate 20190101000000Z -enddate 20210101000000Z) >/dev/null 2>&1
if [ ! -s "$T/old.pem" ]; then
	fail "a clock at 1970, an expired certificate" "openssl made none"
	exit 0
fi
serve "$T/old.pem" "$T/old.key"
(agentexec env SSL_CERT_FILE="$T/old.pem" FAKETIME_DONT_FAKE_MONOTONIC=1 \
    faketime -f '@1970-01-02 00:00:00' timeout 30 ./agent -n hi) </dev/null \
    >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 1 ] && grep -q 'expired' "$T/err" && [ ! -s "$T/out" ] &&
    ok "a clock at 1970: a certificate expired before the build refused" ||
    fail "a clock at 1970, expired" "rc $RC: $(cat "$T/err")"
