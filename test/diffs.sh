#!/bin/sh
# diffs.sh: what a write or an edit changed, said after it runs: the
# trace line ("edit x.txt +1 -1", "write n.txt (new, 2 lines)"), bash's
# first line, and the diff an edit's result keeps in pi's details.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
printf 'one\ntwo\nthree\n' >"$W/x.txt"
printf 'old\nkept\n' >"$W/r.txt"
script d1 <<'X'
tool c1 edit {"path": "x.txt", "edits": [{"oldText": "two", "newText": "2"}]}
tool c2 write {"path": "n.txt", "content": "a\nb\n"}
tool c3 write {"path": "r.txt", "content": "new\nkept\nmore\n"}
tool c4 bash {"command": "echo first\necho second"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script d2
startfake "$T/d1" "$T/d2"
(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -y 'go') \
    </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ $RC -eq 0 ] && ok "diffs: exit 0" || fail "diffs: exit 0" "rc $RC"
for l in 'edit x.txt +1 -1' 'write n.txt (new, 2 lines)' \
    'write r.txt +2 -1' 'bash echo first … -> 2 lines'; do
	grep -qxF "$l" "$T/err" && ok "diffs: trace says $l" ||
	    fail "diffs: trace says $l" "$(cat "$T/err")"
done
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
python3 - "$F" >"$T/edit.json" <<'P'
import json, sys
for l in open(sys.argv[1]):
	e = json.loads(l)
	m = e.get("message", {})
	if m.get("role") == "toolResult" and m.get("toolName") == "edit":
		print(json.dumps(m))
P
jsontest "diffs: edit's result carries details.diff" "$T/edit.json" \
    'd["details"]["diff"] == "@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n"
     and d["details"]["firstChangedLine"] == 2'
