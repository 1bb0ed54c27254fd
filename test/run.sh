#!/bin/sh
# run.sh: run every unit test program and test script; count their
# "ok - " and "FAIL - " lines and end with "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
pass=0 fail=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT INT TERM
# root skips the permission tests: as root, run test/tools as nobody too
nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env"
for t in test/json test/sse test/http test/tools test/session test/*.sh nobody; do
	case $t in
	test/run.sh|test/lib.sh|test/demo.sh) continue ;;
	nobody)
		[ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null ||
			continue
		t="test/tools (nobody)"
		if ! $nobody test -x test/tools; then
			echo "$t: skipped, nobody cannot run test/tools here"
			continue
		fi
		;;
	esac
	case $t in
	*.sh) sh "$t" >"$out" 2>&1 ;;
	*"(nobody)") $nobody ./test/tools >"$out" 2>&1 ;;
	*) "./$t" >"$out" 2>&1 ;;
	esac
	rc=$?
	p=$(grep -c '^ok - ' "$out")
	f=$(grep -c '^FAIL - ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL - $t exited with status $rc" >>"$out"
		f=1
	fi
	printf '%-24s %4d passed, %d failed\n' "$t" "$p" "$f"
	if [ "$f" -ne 0 ]; then
		grep -v '^ok - ' "$out" | sed 's/^/    /' | head -60
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
