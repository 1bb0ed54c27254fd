#!/bin/sh
# tls.sh: tls.c through http.c and test/httpget against openssl s_server, with
# a CA and certificates made here: good chain, wrong host, unknown CA,
# expired. Prints "ok - name" or "FAIL - name: details" per check.
cd "$(dirname "$0")/.." || exit 1
get=$PWD/test/httpget
agent=$PWD/agent
if ! command -v openssl >/dev/null 2>&1; then
	echo "FAIL - openssl not installed"
	exit 1
fi
if [ ! -x "$get" ]; then
	echo "FAIL - test/httpget not built (make test/httpget)"
	exit 1
fi
unset HTTPS_PROXY https_proxy
dir=$(mktemp -d) || exit 1
pid=
stop() {
	if [ -n "$pid" ]; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		pid=
	fi
}
trap 'stop; rm -rf "$dir"' EXIT
trap 'exit 1' HUP INT TERM
cd "$dir" || exit 1

cat >ca.cnf <<'EOF'
[req]
distinguished_name = dn
prompt = no
[dn]
CN = agent test
[ca]
default_ca = testca
[testca]
database = index.txt
serial = serial
new_certs_dir = .
default_md = sha256
policy = anything
unique_subject = no
[anything]
commonName = supplied
[ca_ext]
basicConstraints = critical,CA:true
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[localhost_ext]
basicConstraints = CA:false
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
[other_ext]
basicConstraints = CA:false
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = DNS:other.example
EOF

# mkca name: a self-signed RSA CA, name.pem and name.key
mkca() {
	openssl req -x509 -config ca.cnf -extensions ca_ext -newkey rsa:2048 \
	    -nodes -keyout "$1.key" -out "$1.pem" -days 2 \
	    -subj "/CN=agent test $1" 2>>log
}

# mkcert name ca ext [startdate enddate]: a server certificate with the
# key that $newkey makes, EC P-256 unless changed
newkey="-newkey ec -pkeyopt ec_paramgen_curve:prime256v1"
mkcert() {
	: >index.txt
	echo 01 >serial
	if [ $# -eq 5 ]; then
		set -- "$1" "$2" "$3" -startdate "$4" -enddate "$5"
	else
		set -- "$1" "$2" "$3" -days 2
	fi
	openssl req -new -config ca.cnf $newkey -nodes -keyout "$1.key" \
	    -out "$1.csr" -subj "/CN=$1" 2>>log &&
	openssl ca -batch -config ca.cnf -cert "$2.pem" -keyfile "$2.key" \
	    -extensions "$3" -notext -in "$1.csr" -out "$1.pem" "$4" "$5" \
	    ${6:+"$6"} ${7:+"$7"} >>log 2>&1
}

# mkself name ext [startdate enddate]: a self-signed P-256 certificate
mkself() {
	: >index.txt
	echo 01 >serial
	if [ $# -eq 4 ]; then
		set -- "$1" "$2" -startdate "$3" -enddate "$4"
	else
		set -- "$1" "$2" -days 2
	fi
	openssl req -new -config ca.cnf -newkey ec -pkeyopt \
	    ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" \
	    -out "$1.csr" -subj "/CN=$1" 2>>log &&
	openssl ca -batch -config ca.cnf -selfsign -keyfile "$1.key" \
	    -extensions "$2" -notext -in "$1.csr" -out "$1.pem" "$3" "$4" \
	    ${5:+"$5"} ${6:+"$6"} >>log 2>&1
}

# serve name [option...]: s_server with name.pem on a free port of
# 127.0.0.1, through $wrap if set
wrap=
serve() {
	: >srv.log
	_name=$1
	shift
	$wrap openssl s_server -accept 127.0.0.1:0 -WWW -cert "$_name.pem" \
	    -key "$_name.key" "$@" >srv.log 2>&1 &
	pid=$!
	i=0
	while ! grep -q '^ACCEPT' srv.log && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	port=$(sed -n 's/^ACCEPT .*:\([0-9][0-9]*\)$/\1/p' srv.log)
	[ -n "$port" ]
}

# refused name cert want: httpget must fail, naming the problem
refused() {
	if ! serve "$2"; then
		echo "FAIL - $1: s_server did not start: $(cat srv.log)"
		stop
		return
	fi
	SSL_CERT_FILE=ca.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 1 ] && grep -q "^httpget: localhost: $3" err &&
	    [ ! -s got ]; then
		echo "ok - $1 refused: $(cat err)"
	else
		echo "FAIL - $1: exit $rc, stderr: $(cat err)"
	fi
	# the agent: refused at once, one clear line, nothing tried again
	env SSL_CERT_FILE=ca.pem HOME="$dir" AGENT_PROVIDER=openai \
	    AGENT_BASE_URL="https://localhost:$port/v1" AGENT_API_KEY=k \
	    timeout 30 "$agent" -n hi </dev/null >got 2>err
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <err)" -eq 1 ] &&
	    grep -q "^agent: openai: localhost: $3" err && [ ! -s got ]; then
		echo "ok - $1 refused by the agent: $(cat err)"
	else
		echo "FAIL - $1 by the agent: exit $rc, stderr: $(cat err)"
	fi
	stop
}

if ! { mkca ca && mkca other && mkcert good ca localhost_ext &&
    mkcert wrongname ca other_ext && mkcert unknown other localhost_ext &&
    mkcert expired ca localhost_ext 20200101000000Z 20200201000000Z; }; then
	echo "FAIL - making certificates: $(tail -5 log)"
	exit 1
fi
awk 'BEGIN { for (i = 0; i < 2000; i++) printf "line %d of the page\n", i }' \
    >page.txt

if serve good; then
	SSL_CERT_FILE=ca.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 0 ] && cmp -s got page.txt; then
		echo "ok - good chain: the page arrives intact"
	else
		echo "FAIL - good chain: exit $rc, $(wc -c <got) bytes," \
		    "stderr: $(cat err)"
	fi
	# a bundle of many anchors, one broken, ours among them: only
	# those the chain names are decoded, and they are found
	{ cat other.pem; printf -- '-----BEGIN CERTIFICATE-----\n%s\n' \
	    'not base64!'; echo '-----END CERTIFICATE-----'
	  cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null; cat ca.pem
	} >bundle.pem
	SSL_CERT_FILE=bundle.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 0 ] && cmp -s got page.txt; then
		echo "ok - good chain, its CA deep in a bundle after a broken one"
	else
		echo "FAIL - good chain in a bundle: exit $rc, stderr: $(cat err)"
	fi
	SSL_CERT_FILE=other.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'unknown CA' err; then
		echo "ok - good chain, its CA not in the bundle: refused"
	else
		echo "FAIL - good chain, CA not in the bundle: exit $rc, $(cat err)"
	fi
	SSL_CERT_FILE=$dir/none.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'SSL_CERT_FILE .*none.pem: No such' err
	then
		echo "ok - missing SSL_CERT_FILE: $(cat err)"
	else
		echo "FAIL - missing SSL_CERT_FILE: exit $rc, $(cat err)"
	fi
else
	echo "FAIL - good chain: s_server did not start: $(cat srv.log)"
fi
stop

# s_server -WWW answers HTTP/1.0 and closes: three requests, three
# connections, and the second and third resume the first's session
if serve good -state; then
	u="https://localhost:$port/page.txt"
	SSL_CERT_FILE=ca.pem "$get" "$u" "$u" "$u" >got 2>err
	rc=$?
	n=$(grep -c 'write certificate' srv.log)
	if [ $rc -eq 0 ] && [ "$(grep -c '^line 1999 of the page' got)" -eq 3 ] &&
	    [ "$n" -eq 1 ]; then
		echo "ok - three connections, one full handshake: resumed"
	else
		echo "FAIL - TLS resumption: exit $rc, $n full handshakes, $(cat err)"
	fi
else
	echo "FAIL - TLS resumption: s_server did not start: $(cat srv.log)"
fi
stop

# an address in the URL: no SNI (a server that wants another name
# would end the handshake), the certificate's iPAddress is checked
if serve good -servername localhost -servername_fatal -cert2 good.pem \
    -key2 good.key; then
	SSL_CERT_FILE=ca.pem "$get" "https://127.0.0.1:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 0 ] && cmp -s got page.txt; then
		echo "ok - an address, in the certificate's iPAddress"
	else
		echo "FAIL - an address in the iPAddress: exit $rc, $(cat err)"
	fi
else
	echo "FAIL - an address: s_server did not start: $(cat srv.log)"
fi
stop
if serve wrongname; then
	SSL_CERT_FILE=ca.pem "$get" "https://127.0.0.1:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ $rc -eq 1 ] && grep -q 'does not match the host name' err; then
		echo "ok - an address not in the certificate: refused"
	else
		echo "FAIL - an address not in the certificate: exit $rc, $(cat err)"
	fi
else
	echo "FAIL - an address not in it: s_server did not start: $(cat srv.log)"
fi
stop

refused "wrong host" wrongname "certificate does not match the host name"
refused "unknown CA" unknown "certificate is not trusted (unknown CA): the server sent no issuer with it, and its intermediate certificate may be missing"
refused "expired" expired "certificate has expired"

# Each suite and curve of config.def.h against a server that takes
# nothing else, with the keys providers' servers have: ECDSA P-256
# (good.pem), RSA (rsa.pem), ECDSA P-384 (p384.pem).
newkey="-newkey rsa:2048"
mkcert rsa ca localhost_ext
newkey="-newkey ec -pkeyopt ec_paramgen_curve:secp384r1"
mkcert p384 ca localhost_ext
for s in good:ECDHE-ECDSA-CHACHA20-POLY1305 rsa:ECDHE-RSA-CHACHA20-POLY1305 \
    good:ECDHE-ECDSA-AES128-GCM-SHA256 rsa:ECDHE-RSA-AES128-GCM-SHA256 \
    good:ECDHE-ECDSA-AES256-GCM-SHA384 rsa:ECDHE-RSA-AES256-GCM-SHA384 \
    good:ECDHE-ECDSA-AES128-GCM-SHA256:P-384 \
    good:ECDHE-ECDSA-AES128-GCM-SHA256:P-521 \
    good:ECDHE-ECDSA-AES128-GCM-SHA256:X25519 \
    rsa:ECDHE-RSA-CHACHA20-POLY1305:X25519 \
    p384:ECDHE-ECDSA-AES128-GCM-SHA256; do
	IFS=:
	set -- $s
	unset IFS
	what="$2, $1.pem, curve ${3:-P-256}"
	if ! serve "$1" -cipher "$2" -curves "${3:-P-256}"; then
		echo "FAIL - $what: s_server did not start: $(cat srv.log)"
		stop
		continue
	fi
	SSL_CERT_FILE=ca.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	# the static build (SMALL, as make cross sets) offers neither
	# ChaCha20 nor X25519: such a server is refused
	case $SMALL:$2:$3 in
	1:*CHACHA*|1:*:X25519)
		if [ $rc -ne 0 ] && grep -q 'alert 40' err; then
			echo "ok - $what: not offered by the static build"
		else
			echo "FAIL - $what: the static build offers it: exit $rc"
		fi ;;
	*)
		if [ $rc -eq 0 ] && cmp -s got page.txt; then
			echo "ok - $what"
		else
			echo "FAIL - $what: exit $rc, stderr: $(cat err)"
		fi ;;
	esac
	stop
done

# The key exchange a server picks by its own preference, X25519 first as
# the providers' servers do: X25519, a fraction of P-256's CPU.  (By the
# client's order it is P-256: BearSSL offers the curves by number.)
# s_server's trace, unbuffered, names the curve of its ServerKeyExchange.
if ! command -v stdbuf >/dev/null 2>&1; then
	echo "skip - X25519 by the server's preference: no stdbuf (coreutils)"
elif wrap="stdbuf -o0" serve good -serverpref -curves X25519:P-256 -trace
then
	SSL_CERT_FILE=ca.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	c=$(sed -n 's/^ *named_curve: //p' srv.log)
	want="ecdh_x25519 (29)"
	[ "$SMALL" = 1 ] && want="secp256r1 (P-256) (23)"
	if [ $rc -eq 0 ] && cmp -s got page.txt && [ "$c" = "$want" ]; then
		echo "ok - a server that prefers X25519 gets $want"
	else
		echo "FAIL - X25519 by the server's preference: exit $rc," \
		    "curve $c, $(cat err)"
	fi
else
	echo "FAIL - X25519 preferred: s_server did not start: $(cat srv.log)"
fi
stop

# A server whose own certificate is in the bundle, self-signed: trusted
# as it is (no signature checked, BearSSL's direct trust), its name and
# dates still checked.  selfca is as openssl req -x509 makes one, a CA's.
if ! { mkself self localhost_ext && mkself selfother other_ext &&
    mkself selfold localhost_ext 20200101000000Z 20200201000000Z &&
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout selfca.key -out selfca.pem -subj /CN=localhost -days 2 \
    -addext subjectAltName=DNS:localhost 2>>log; }; then
	echo "FAIL - making self-signed certificates: $(tail -5 log)"
	exit 1
fi
# name:bundle:what stderr says ("" for the page)
for s in self:self: selfca:selfca: \
    selfother:selfother:"certificate does not match the host name" \
    selfold:selfold:"certificate has expired" \
    self:other:"certificate is not trusted"; do
	IFS=:
	set -- $s
	unset IFS
	what="self-signed $1.pem, bundle $2.pem"
	if ! serve "$1"; then
		echo "FAIL - $what: s_server did not start: $(cat srv.log)"
		stop
		continue
	fi
	SSL_CERT_FILE=$2.pem "$get" "https://localhost:$port/page.txt" \
	    >got 2>err
	rc=$?
	if [ -z "$3" ] && [ $rc -eq 0 ] && cmp -s got page.txt; then
		echo "ok - $what: the page arrives"
	elif [ -n "$3" ] && [ $rc -eq 1 ] && grep -q "$3" err; then
		echo "ok - $what: refused: $(cat err)"
	else
		echo "FAIL - $what: exit $rc, stderr: $(cat err)"
	fi
	stop
done
