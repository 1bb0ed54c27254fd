#!/bin/sh
# readonly.sh: a read-only root, as on a board.  With HOME read-only (a
# read-only bind mount in a mount namespace of the run's own) a run works,
# says once that its session is not saved and saves nothing; -c and -s
# exit 1 before any request, saying why.  With TMPDIR read-only, bash's
# long output keeps its tail and says the whole was not saved.
. test/lib.sh
ROOT=$PWD
W=$T/work
H=$T/home
mkdir -p "$W" "$H"

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1 ||
    ! unshare -m sh -c "mount --bind -o ro '$H' '$H'" 2>/dev/null; then
	skip "read-only roots" "not root, or no mount namespace"
	exit 0
fi

# rorun DIR args...: the agent in $W with HOME $H and DIR read-only
cat >"$T/in.sh" <<'EOF'
d=$1
shift
mount --bind -o ro "$d" "$d" || exit 9
exec "$@"
EOF
rorun() {
	_d=$1
	shift
	(cd "$W" && agentexec env -u AGENT_SESSION_DIR -u XDG_DATA_HOME \
	    HOME="$H" unshare -m sh "$T/in.sh" "$_d" setsid -w timeout 30 \
	    "$ROOT/agent" "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}
reqs() {
	ls "$REQ" | grep -c '\.json$'
}

printf 'text Unsaved.\nfinish stop\n' >"$T/s1"
startfake -x "$T/s1"
rorun "$H" hi
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = Unsaved. ] &&
    ok "read-only HOME: the run works" ||
    fail "read-only HOME: the run works" "rc $RC: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] &&
    grep -q "^agent: $H/.local/share/agent/sessions/[^:]*: cannot write (Read-only file system): this run's session is not saved" "$T/err" &&
    ok "read-only HOME: said once, nothing saved" ||
    fail "read-only HOME: said once" "$(cat "$T/err")"
[ -z "$(ls -A "$H")" ] && ok "read-only HOME: no file left" ||
    fail "read-only HOME: no file left" "$(ls -AR "$H")"

for m in -c "-s $H/x.jsonl"; do
	startfake "$T/s1"
	rorun "$H" $m hi
	[ "$RC" -eq 1 ] && [ "$(reqs)" -eq 0 ] && [ ! -s "$T/out" ] &&
	    grep -q "^agent: ${m%% *}: .*: cannot write (Read-only file system): the session would not be saved" "$T/err" &&
	    ok "read-only HOME, ${m%% *}: exit 1 before any request, saying why" ||
	    fail "read-only HOME, ${m%% *}" "rc $RC, $(reqs) requests: $(cat "$T/err")"
done

# TMPDIR read-only: the log of a long output cannot be made
mkdir -p "$T/tmp"
printf 'tool c1 bash {"command": "seq 1 100000"}\nfinish tool_calls\n' \
    >"$T/b1"
printf 'text done\nfinish stop\n' >"$T/b2"
for p in workspace full; do
	startfake -x "$T/b1" "$T/b2"
	(cd "$W" && agentexec env TMPDIR="$T/tmp" unshare -m sh "$T/in.sh" \
	    "$T/tmp" setsid -w timeout 30 "$ROOT/agent" -y -g $p go) \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["messages"][-1]["content"])' \
	    "$REQ/2.json" >"$T/res" 2>&1
	[ "$RC" -eq 0 ] && grep -qx 100000 "$T/res" &&
	    grep -q "Full output not saved in $T/tmp: Read-only file system]" \
	    "$T/res" &&
	    ok "read-only TMPDIR, $p: the tail kept, the rest said not saved" ||
	    fail "read-only TMPDIR, $p" "rc $RC: $(cat "$T/err"; tail -c 300 "$T/res")"
	# the sandbox's temporary directory: none, said once; full has none
	n=1
	[ $p = full ] && n=0
	[ "$(grep -c "^agent: $T/tmp: cannot write (Read-only file system): tools have no temporary directory" "$T/err")" -eq $n ] &&
	    ok "read-only TMPDIR, $p: the tools' temporary directory: $n word" ||
	    fail "read-only TMPDIR, $p: $n word of it" "$(cat "$T/err")"
done
