#!/bin/sh
# dualstack.sh: test/tls.sh again where localhost is ::1 and 127.0.0.1,
# ::1 first, as /etc/hosts has it on a standard Debian machine, while
# its servers listen on 127.0.0.1 alone: the refused connection to ::1
# must not make a certificate's refusal worth trying again.  A private
# mount namespace (unshare -m, as root) holds the hosts file.
cd "$(dirname "$0")/.." || exit 1
name="dual-stack localhost"
if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1; then
	echo "skip - $name: needs root and unshare(1) for a hosts file"
	exit 0
fi
hosts=$(mktemp) || exit 1
trap 'rm -f "$hosts"' EXIT
trap 'exit 1' HUP INT TERM
printf '::1 localhost\n127.0.0.1 localhost\n' >"$hosts"
if ! unshare -m sh -c 'mount --bind "$1" /etc/hosts &&
    getent ahosts localhost | head -1 | grep -q "^::1 "' sh "$hosts" \
    2>/dev/null; then
	echo "skip - $name: unshare -m with /etc/hosts bound over failed here"
	exit 0
fi
unshare -m sh -c 'mount --bind "$1" /etc/hosts && sh test/tls.sh' sh \
    "$hosts" 2>&1 | sed 's/^\(ok\|FAIL\|skip\) - /\1 - dual-stack: /'
