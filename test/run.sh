#!/bin/sh
# run.sh: run the unit test programs named (the Makefile's TESTS, the one
# list of them) and every test script; count their "skip - ", "FAIL - "
# and "ok - " lines and end with "N passed, N failed, N skipped".  A skip
# is a check that could not run here: never a pass.
cd "$(dirname "$0")/.." || exit 1
if [ $# -eq 0 ]; then
	echo "usage: sh test/run.sh test-program... (make test gives the list)" >&2
	exit 2
fi
pass=0 fail=0 skip=0
out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT INT TERM
# As root test/tools cannot check permission errors, and only root may
# chown: as root it runs again as nobody, and with AGENT_TOOLS_PAIRED set
# each run leaves to the other the checks it cannot make.
unset AGENT_TOOLS_PAIRED
nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups --reset-env"
paired= why=
if [ "$(id -u)" -eq 0 ]; then
	if ! command -v setpriv >/dev/null; then
		why="no setpriv to run test/tools as nobody"
	elif ! $nobody test -x test/tools; then
		why="nobody cannot run test/tools here"
	else
		paired="env AGENT_TOOLS_PAIRED=1"
	fi
fi
for t in "$@" test/*.sh nobody; do
	case $t in
	test/run.sh|test/lib.sh|test/demo.sh|test/static.sh) continue ;;
	nobody)
		[ "$(id -u)" -eq 0 ] || continue
		t="test/tools (nobody)"
		;;
	esac
	case $t in
	*.sh) sh "$t" >"$out" 2>&1 ;;
	*"(nobody)")
		if [ -n "$paired" ]; then
			$nobody $paired ./test/tools >"$out" 2>&1
		else
			echo "skip - $t: $why" >"$out"
		fi
		;;
	test/tools) $paired ./test/tools >"$out" 2>&1 ;;
	*) "./$t" >"$out" 2>&1 ;;
	esac
	rc=$?
	p=$(grep -c '^ok - ' "$out")
	f=$(grep -c '^FAIL - ' "$out")
	s=$(grep -c '^skip - ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL - $t exited with status $rc" >>"$out"
		f=1
	fi
	printf '%-24s %4d passed, %d failed, %d skipped\n' "$t" "$p" "$f" "$s"
	if [ "$f" -ne 0 ]; then
		grep -v '^ok - ' "$out" | sed 's/^/    /' | head -60
	elif [ "$s" -ne 0 ]; then
		grep '^skip - ' "$out" | sed 's/^/    /' | head -20
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
