#!/bin/sh
# run.sh: run the unit test programs named (the Makefile's TESTS, the one
# list of them) and every test script; count their "skip - ", "FAIL - "
# and "ok - " lines and end with "N passed, N failed, N skipped".  A skip
# is a check that could not run here: never a pass.
#
# JOBS of them run at once (default: the cores and one more, as most
# scripts wait on processes): each writes its output to a file of its
# own, printed once it is done and in the order of the list, so that the
# report is the same whatever the timing.  Each script has its own
# scratch directory and ports (lib.sh).
cd "$(dirname "$0")/.." || exit 1
if [ $# -eq 0 ]; then
	echo "usage: sh test/run.sh test-program... (make test gives the list)" >&2
	exit 2
fi
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

# run.sh --one DIR N TEST: (xargs calls it) run TEST, its output in
# DIR/N.out, then its exit status in DIR/N.rc.
if [ "$1" = --one ]; then
	o=$2/$3.out
	case $4 in
	*.sh) sh "$4" >"$o" 2>&1 ;;
	nobody)
		if [ -n "$paired" ]; then
			$nobody $paired ./test/tools >"$o" 2>&1
		else
			echo "skip - test/tools (nobody): $why" >"$o"
		fi
		;;
	test/tools) $paired ./test/tools >"$o" 2>&1 ;;
	*) "./$4" >"$o" 2>&1 ;;
	esac
	echo $? >"$2/$3.rc"
	exit 0
fi

J=${JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
D=$(mktemp -d "${TMPDIR:-/tmp}/agent-run.XXXXXX") || exit 1
PRINTER=
trap '[ -z "$PRINTER" ] || kill "$PRINTER" 2>/dev/null; rm -rf "$D"' EXIT
trap 'exit 1' INT TERM
n=0
for t in "$@" test/*.sh nobody; do
	case $t in
	test/run.sh|test/lib.sh|test/demo.sh|test/static.sh) continue ;;
	nobody) [ "$(id -u)" -eq 0 ] || continue ;;
	esac
	n=$((n + 1))
	echo "$n $t"
done >"$D/list"

# report: wait for each test in the list's order, print its line and,
# when it failed or skipped, what it said; then the totals.
report() {
	pass=0 fail=0 skip=0
	while read -r i t; do
		o=$D/$i.out
		while [ ! -e "$D/$i.rc" ] && [ ! -e "$D/done" ]; do
			sleep 0.1
		done
		[ "$t" = nobody ] && t="test/tools (nobody)"
		if [ -e "$D/$i.rc" ]; then
			rc=$(cat "$D/$i.rc")
		else
			rc=-1
			echo "FAIL - $t did not run" >>"$o"
		fi
		p=$(grep -c '^ok - ' "$o")
		f=$(grep -c '^FAIL - ' "$o")
		s=$(grep -c '^skip - ' "$o")
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL - $t exited with status $rc" >>"$o"
			f=1
		fi
		printf '%-24s %4d passed, %d failed, %d skipped\n' \
		    "$t" "$p" "$f" "$s"
		if [ "$f" -ne 0 ]; then
			grep -v '^ok - ' "$o" | sed 's/^/    /' | head -60
		elif [ "$s" -ne 0 ]; then
			grep '^skip - ' "$o" | sed 's/^/    /' | head -20
		fi
		pass=$((pass + p))
		fail=$((fail + f))
		skip=$((skip + s))
	done <"$D/list"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" -eq 0 ]
}

# The longest scripts start first, the programs last, lest one started
# late end the run alone (mcp.sh takes two minutes): first those that
# build an agent of their own (half a minute a build), then by size.
{
	grep '\.sh$' "$D/list" | while read -r i t; do
		b=0
		! grep -q 'make agent' "$t" || b=1
		echo "$b $(wc -c <"$t") $i $t"
	done | sort -rn -k1,1 -k2,2 | cut -d' ' -f3-
	grep -v '\.sh$' "$D/list"
} >"$D/order"

# The report goes in the background, xargs in the foreground: a job
# started with & ignores SIGINT, and so would every test under it.
report &
PRINTER=$!
xargs -n 2 -P "$J" sh test/run.sh --one "$D" <"$D/order"
touch "$D/done"
wait "$PRINTER"
rc=$?
PRINTER=
exit $rc
