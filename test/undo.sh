#!/bin/sh
# undo.sh: /undo in line mode puts back what write and edit changed in
# the last turn, tells the model in a custom_message (pi's), and leaves
# alone a file changed since, a link planted since, and what bash did.
. test/lib.sh
ROOT=$PWD
W=$T/work

# feed LINE...: the lines for the agent's stdin, one at a time; a line
# "=PATTERN" waits (10 s at most) until the session holds PATTERN, one
# "!CMD" runs CMD in $W: the test's hand between two lines.
feed() {
	for _l in "$@"; do
		case $_l in
		=*)
			_i=0
			until grep -rqF -- "${_l#=}" "$T/sessions" 2>/dev/null ||
			    [ "$_i" -gt 200 ]; do
				_i=$((_i + 1))
				sleep 0.05
			done
			;;
		!*) (cd "$W" && eval "${_l#!}") ;;
		*) printf '%s\n' "$_l" ;;
		esac
	done
}

# runlines LINE...: the agent in line mode in $W, -y, fed those lines.
runlines() {
	rm -rf "$T/sessions"
	feed "$@" | (cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" \
	    -y) >"$T/out" 2>"$T/err"
	RC=$?
	S=$(ls "$T"/sessions/*/*.jsonl 2>/dev/null | head -1)
}

fresh() {
	rm -rf "$W"
	mkdir -p "$W"
}

# note NAME EXPR: a check of the undo note, n, the session's one
# custom_message entry (None if it has none).
note() {
	jsontest "$1" "$T/note.json" "$2"
}
takenote() {
	python3 -c 'import json, sys
n = [e for e in map(json.loads, open(sys.argv[1])) if e["type"] == "custom_message"]
json.dump(n[0] if n else None, sys.stdout)' "$S" >"$T/note.json" 2>/dev/null ||
	    echo null >"$T/note.json"
}

# A new file and an edited one, in one turn; /undo; then a turn that
# shows the model the note; a second /undo finds nothing.
fresh
printf 'hello\r\nworld\n\000bin' >"$W/old.txt"
chmod 640 "$W/old.txt"
cp "$W/old.txt" "$T/old.orig"
mkdir "$W/sub"
script a1 <<'X'
tool c1 write {"path": "new.txt", "content": "brand new\n"}
tool c2 edit {"path": "old.txt", "edits": [{"oldText": "world", "newText": "there"}]}
tool c3 write {"path": "sub/deep/n2.txt", "content": "x"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script a2
printf 'text fine\nfinish stop\n' | script a3
startfake -x "$T/a1" "$T/a2" "$T/a3"
runlines 'change things' ='"text":"done"' '!cp old.txt "$T/old.after"' /undo /undo \
    'what now?'
[ "$RC" -eq 0 ] && ok "undo: exit 0" || fail "undo: exit 0" "rc $RC: $(cat "$T/err")"
grep -q there "$T/old.after" && ok "undo: the turn edited the file" ||
    fail "undo: the turn edited the file" "$(od -c "$T/old.after" | head -3)"
cmp -s "$T/old.orig" "$W/old.txt" &&
    ok "undo: the edited file back byte for byte" ||
    fail "undo: the edited file back byte for byte" "$(od -c "$W/old.txt" | head -3)"
[ "$(stat -c %a "$W/old.txt")" = 640 ] && ok "undo: its mode back" ||
    fail "undo: its mode back" "$(stat -c %a "$W/old.txt")"
[ ! -e "$W/new.txt" ] && [ ! -e "$W/sub/deep/n2.txt" ] &&
    ok "undo: the new files removed" ||
    fail "undo: the new files removed" "$(ls -R "$W")"
ls -a "$W" "$W/sub/deep" | grep -q '[.]agent' &&
    fail "undo: no temporary file left" "$(ls -a "$W")" ||
    ok "undo: no temporary file left"
grep -qx 'agent: undo: removed new.txt: it did not exist before the turn' \
    "$T/err" && grep -qx 'agent: undo: restored old.txt' "$T/err" &&
    grep -qx 'agent: undo: removed sub/deep/n2.txt: it did not exist before the turn' \
    "$T/err" && ok "undo: a line on stderr for each file" ||
    fail "undo: a line on stderr for each file" "$(cat "$T/err")"
[ "$(grep -c '^agent: undo: ' "$T/err")" -eq 4 ] &&
    grep -qx 'agent: undo: nothing to undo' "$T/err" &&
    ok "undo: a second /undo finds nothing" ||
    fail "undo: a second /undo finds nothing" "$(cat "$T/err")"
takenote
note "undo: the session holds a custom_message of pi's shape" \
    'set(d) == {"type", "id", "parentId", "timestamp", "customType",
     "content", "display"} and d["customType"] == "undo" and
     d["display"] is True and isinstance(d["content"], str)'
note "undo: the note names the files" \
    'd["content"] == "/undo: the user put back the files that write and "
     "edit changed in the last turn, as they were before it:\n"
     "removed new.txt: it did not exist before the turn\n"
     "restored old.txt\n"
     "removed sub/deep/n2.txt: it did not exist before the turn"'
jsontest "undo: the next request tells the model, before the next message" \
    "$REQ/3.json" '[m["role"] for m in d["messages"]][-3:] ==
     ["assistant", "user", "user"] and
     d["messages"][-2]["content"].startswith("/undo: the user put back") and
     "restored old.txt" in d["messages"][-2]["content"] and
     d["messages"][-1]["content"] == "what now?"'
[ ! -f "$REQ/4.json" ] && ok "undo: /undo asks the model nothing" ||
    fail "undo: /undo asks the model nothing" "$(ls "$REQ")"

# pi opens the session after /undo, and tells its model the same.
PI=${PI:-$ROOT/bench/pi/node_modules/.bin/pi}
if [ ! -x "$PI" ] || ! command -v node >/dev/null 2>&1; then
	skip "undo: pi opens the session and sends the note" "pi is not installed (set PI, or npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
else
	cp "$S" "$T/pi.jsonl"
	printf 'text from pi\nfinish stop\n' | script p1
	startfake -x "$T/p1"
	mkdir -p "$T/pihome/.pi/agent"
	cat >"$T/pihome/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "$URL", "api": "openai-completions",
  "apiKey": "test", "models": [{"id": "fake-model"}]}}}
X
	(cd "$W" && HOME="$T/pihome" timeout 60 "$PI" --offline --provider fake \
	    --model fake-model --session "$T/pi.jsonl" -p 'and then?') \
	    </dev/null >"$T/piout" 2>&1
	jsontest "undo: pi opens the session and sends the note (pi $("$PI" --version 2>&1 | tail -1))" \
	    "$REQ/1.json" 'any(m["role"] == "user" and "restored old.txt" in
	     json.dumps(m["content"]) for m in d["messages"]) and
	     "and then?" in json.dumps(d["messages"][-1])'
fi

# Nothing to undo: said, and nothing noted.
fresh
stopfake
runlines /undo
grep -qx 'agent: undo: nothing to undo' "$T/err" &&
    ok "undo: nothing to undo is said" ||
    fail "undo: nothing to undo is said" "$(cat "$T/err")"
[ -z "$S" ] || ! grep -q custom_message "$S" &&
    ok "undo: nothing to undo notes nothing" ||
    fail "undo: nothing to undo notes nothing" "$(cat "$S")"

# A turn that changed nothing after one that did: only the last turn is
# undone.
fresh
script b1 <<'X'
tool c1 write {"path": "a.txt", "content": "a"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script b2
printf 'text nothing\nfinish stop\n' | script b3
startfake -x "$T/b1" "$T/b2" "$T/b3"
runlines 'write' 'talk' ='"text":"nothing"' /undo
[ -f "$W/a.txt" ] && grep -qx 'agent: undo: nothing to undo' "$T/err" &&
    ok "undo: only the last turn" ||
    fail "undo: only the last turn" "$(cat "$T/err")"

# bash in the turn: its changes stay, and the note says so.
fresh
script c1 <<'X'
tool c1 write {"path": "a.txt", "content": "a"}
tool c2 bash {"command": "echo b > b.txt"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script c2
startfake -x "$T/c1" "$T/c2"
runlines 'write and run' ='"text":"done"' /undo
[ ! -e "$W/a.txt" ] && [ -f "$W/b.txt" ] &&
    ok "undo with bash: write undone, bash's file stays" ||
    fail "undo with bash: write undone, bash's file stays" "$(ls "$W")"
grep -qx "agent: undo: bash ran in that turn: its changes are not undone" \
    "$T/err" && ok "undo with bash: said on stderr" ||
    fail "undo with bash: said on stderr" "$(cat "$T/err")"
takenote
note "undo with bash: the note says bash's changes are not undone" \
    'd["content"].endswith("\nbash ran in that turn: its changes are not undone")'

# A file changed since the turn by someone else, a file replaced by a
# link, a directory on the way replaced by a link: each left alone and
# named, and what the links lead to (outside, holding what the turn
# left, so that only not following them protects it) unchanged.
fresh
mkdir -p "$W/d" "$T/outside/d"
printf 'one\n' >"$W/mine.txt"
printf 'one\n' >"$W/link.txt"
printf 'one\n' >"$W/d/f.txt"
printf 'one\n' >"$W/kept.txt"
script d1 <<'X'
tool c1 edit {"path": "mine.txt", "oldText": "one", "newText": "two"}
tool c2 edit {"path": "link.txt", "oldText": "one", "newText": "two"}
tool c3 edit {"path": "d/f.txt", "oldText": "one", "newText": "two"}
tool c4 edit {"path": "kept.txt", "oldText": "one", "newText": "two"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script d2
startfake -x "$T/d1" "$T/d2"
printf 'two\n' >"$T/outside/t.txt"
printf 'two\n' >"$T/outside/d/f.txt"
runlines 'edit' ='"text":"done"' '!echo mine >>mine.txt' \
    '!rm link.txt && ln -s "$T/outside/t.txt" link.txt' \
    '!mv d d.old && ln -s "$T/outside/d" d' /undo
printf 'two\nmine\n' | cmp -s - "$W/mine.txt" &&
    grep -qx 'agent: undo: left mine.txt: it changed since the turn' "$T/err" &&
    ok "undo: a file changed since is left, and named" ||
    fail "undo: a file changed since is left, and named" "$(cat "$T/err" "$W/mine.txt")"
[ -L "$W/link.txt" ] && printf 'two\n' | cmp -s - "$T/outside/t.txt" &&
    grep -q 'undo: left link.txt' "$T/err" &&
    ok "undo: a link planted in its place is not followed" ||
    fail "undo: a link planted in its place is not followed" "$(cat "$T/err" "$T/outside/t.txt")"
[ -L "$W/d" ] && printf 'two\n' | cmp -s - "$T/outside/d/f.txt" &&
    grep -q 'undo: left d/f.txt' "$T/err" &&
    ok "undo: a link planted on the way is not followed" ||
    fail "undo: a link planted on the way is not followed" "$(cat "$T/err" "$T/outside/d/f.txt")"
printf 'one\n' | cmp -s - "$W/kept.txt" &&
    ok "undo: the others put back all the same" ||
    fail "undo: the others put back all the same" "$(cat "$T/err")"
takenote
note "undo: the note names what was left" \
    '"left mine.txt: it changed since the turn" in d["content"] and
     "restored kept.txt" in d["content"]'

# A file over the bound (config.h's maxundo, 8 MB) is not kept: said.
fresh
head -c 9000000 /dev/zero | tr '\0' a >"$W/big.txt"
printf '\nend\n' >>"$W/big.txt"
printf 'small\n' >"$W/small.txt"
script e1 <<'X'
tool c1 edit {"path": "big.txt", "oldText": "end", "newText": "END"}
tool c2 edit {"path": "small.txt", "oldText": "small", "newText": "SMALL"}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script e2
startfake -x "$T/e1" "$T/e2"
runlines 'edit' ='"text":"done"' /undo
tail -c 4 "$W/big.txt" | grep -q END && printf 'small\n' | cmp -s - "$W/small.txt" &&
    grep -qx 'agent: undo: left big.txt: its content before the turn was not kept: over the undo bound (maxundo)' "$T/err" &&
    ok "undo: a file over the bound is said, the others put back" ||
    fail "undo: a file over the bound is said, the others put back" "$(cat "$T/err")"
