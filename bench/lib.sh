# bench/lib.sh: what bench/run.sh and bench/claude.sh share, sourced from
# the top of the tree with B (the temporary directory, peak built in it)
# and ROOT set.

# measure N cmd...: run cmd N times; print "median-ms peak-rss-kb".
measure() {
	"$B/peak" "$@" | cut -d' ' -f1,2
}

# cpu N cmd...: run cmd N times; print its median CPU time in ms.
cpu() {
	"$B/peak" "$@" | cut -d' ' -f3
}

# startfake N script...: a fake that serves the scripts N times over,
# with $FAKEFLAGS; BASE is its http://host:port.  -P: a peer's own HEAD or
# GET (Claude Code's preconnect) is answered apart, spending no script.
startfake() {
	n=$1
	shift
	kill $FAKE 2>/dev/null
	rm -f "$B/port"
	set -- $(i=0; while [ $i -lt "$n" ]; do echo "$@"; i=$((i + 1)); done)
	"$ROOT/test/fake" -P $FAKEFLAGS -p "$B/port" "$@" &
	FAKE=$!
	while [ ! -s "$B/port" ]; do sleep 0.02; done
	BASE=http://127.0.0.1:$(cat "$B/port")
}

# row NAME AGENT-RESULT PEER-RESULT: the figures side by side, the
# ratios the peer's over agent's; without the peer's, agent's alone.
row() {
	set -- "$1" $2 $3
	if [ -n "$4" ]; then
		printf '%-26s %9s ms %7s KB   %9s ms %7s KB   %5.1fx time %5.1fx memory\n' \
		    "$1" "$2" "$3" "$4" "$5" \
		    "$(echo "$4 $2" | awk '{ print $1 / $2 }')" \
		    "$(echo "$5 $3" | awk '{ print $1 / $2 }')"
	else
		printf '%-26s %9s ms %7s KB   (pi not run)\n' "$1" "$2" "$3"
	fi
}
