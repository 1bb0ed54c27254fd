#!/bin/sh
# fsize.sh: a session's append past ulimit -f (a quota, a board's small
# partition): the write fails (EFBIG, SIGXFSZ being ignored) instead of
# killing agent in mid-line; the part written is taken back, the file
# holds whole lines only, and the run says so and ends 1.  A tool run
# meanwhile still gets the signal's default.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
if ! command -v python3 >/dev/null 2>&1; then
	skip "ulimit -f" "no python3 to read the session with"
	exit 0
fi

script small <<'X'
text short answer
finish stop
X
script big <<'X'
big 30000
finish stop
X
startfake -x "$T/small" "$T/big"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -s "$T/s.jsonl" first) \
    </dev/null >"$T/out" 2>"$T/err"
[ $? -eq 0 ] && ok "setup: a short session" ||
    fail "setup: a short session" "$(cat "$T/err")"
before=$(wc -l <"$T/s.jsonl")
# 20 blocks of 512 bytes: the long answer's line does not fit
(ulimit -f 20 && cd "$W" &&
    agentexec timeout 30 "$ROOT/agent" -s "$T/s.jsonl" second) \
    </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 1 ] && ok "past ulimit -f: exit 1, not a signal" ||
    fail "past ulimit -f: exit 1, not a signal" "rc $RC: $(cat "$T/err")"
grep -q 'File too large' "$T/err" && ok "past ulimit -f: said" ||
    fail "past ulimit -f: said" "$(cat "$T/err")"
[ -z "$(tail -c 1 "$T/s.jsonl" | tr -d '\n')" ] &&
    python3 -c 'import json, sys
[json.loads(l) for l in open(sys.argv[1])]' "$T/s.jsonl" 2>/dev/null &&
    ok "past ulimit -f: whole lines only" ||
    fail "past ulimit -f: whole lines only" "$(tail -c 200 "$T/s.jsonl")"
[ "$(wc -l <"$T/s.jsonl")" -ge "$before" ] &&
    ok "past ulimit -f: nothing before lost" ||
    fail "past ulimit -f: nothing before lost" "$(wc -l <"$T/s.jsonl")"

# A tool's process gets SIGXFSZ's default back: dd past the limit dies
# of it, as it would in a shell.
script r1 <<'X'
tool b1 bash {"command": "dd if=/dev/zero of=f bs=1024 count=64 2>/dev/null; echo rc=$?"}
finish tool_calls
X
script r2 <<'X'
text done
finish stop
X
startfake -x "$T/r1" "$T/r2"
(ulimit -f 20 && cd "$W" &&
    agentexec timeout 30 "$ROOT/agent" -n -y go) </dev/null >"$T/out" \
    2>"$T/err"
jsontest "a tool past ulimit -f: killed by SIGXFSZ, as in a shell" \
    "$REQ/2.json" '"rc=153" in d["messages"][-1]["content"]'
