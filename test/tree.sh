#!/bin/sh
# tree.sh: walking a session: -l lists this directory's sessions, -s takes
# the start of an id, /tree draws the tree, /branch moves the leaf (and
# with summarize stores pi's branch_summary), /fork makes a new session of
# a path; pi opens what agent wrote and sees the same branches.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
S=$T/sessions

# runat args...: the agent in $W, stdin from $T/in, writing sessions
# under $S.
runat() {
	(cd "$W" && agentexec timeout 30 "$ROOT/agent" "$@") \
	    <"$T/in" >"$T/out" 2>"$T/err"
	RC=$?
}

files() {
	find "$S" -name '*.jsonl' 2>/dev/null | sort
}

if ! command -v python3 >/dev/null 2>&1; then
	skip "session tree" "no python3"
	exit 0
fi

# answer NAME TEXT: a script that answers TEXT.
answer() {
	printf 'text %s\nfinish stop\n' "$2" >"$T/$1"
}

answer a1 'one'
answer a2 'two'
answer a3 'three'
answer a4 'four'
answer a5 'five'
startfake -x "$T/a1" "$T/a2" "$T/a3" "$T/a4"
: >"$T/in"
runat 'first question'
F=$(files)
printf 'second question\n/tree\n' >"$T/in"
runat -c
[ "$RC" -eq 0 ] && ok "/tree: runs" || fail "/tree: runs" "rc $RC $(cat "$T/err")"
# the ids of the four messages, in file order
python3 - "$F" >"$T/ids" <<'X'
import json, sys
for l in open(sys.argv[1]).read().split("\n")[1:-1]:
    e = json.loads(l)
    if e["type"] == "message":
        print(e["id"], e["message"]["role"])
X
U1=$(sed -n 1p "$T/ids" | cut -d' ' -f1)
A1=$(sed -n 2p "$T/ids" | cut -d' ' -f1)
U2=$(sed -n 3p "$T/ids" | cut -d' ' -f1)
A2=$(sed -n 4p "$T/ids" | cut -d' ' -f1)
grep -q "^  $U1 user: first question$" "$T/err" &&
    grep -q "^  $A1 assistant: one$" "$T/err" &&
    grep -q "^\* $A2 assistant: two$" "$T/err" &&
    ok "/tree: a line a message, the leaf marked *" ||
    fail "/tree: a line a message, the leaf marked *" "$(cat "$T/err")"

# /branch to the first answer: the next prompt continues from there.
cp "$F" "$T/before"
printf '/branch %s\nother question\n/tree\n' "$A1" >"$T/in"
runat -c
jsontest "/branch: the context is the path to the entry" "$REQ/3.json" \
    '[m["content"] for m in d["messages"][1:]] ==
     ["first question", "one", "other question"]'
head -c "$(wc -c <"$T/before")" "$F" | cmp -s - "$T/before" &&
    ok "/branch: nothing in the file is rewritten" ||
    fail "/branch: nothing in the file is rewritten" "changed"
grep -q "^  + $U2 user: second question$" "$T/err" &&
    grep -q "^  + [0-9a-f]\{8\} user: other question$" "$T/err" &&
    grep -q "^\*   [0-9a-f]\{8\} assistant: three$" "$T/err" &&
    ok "/tree: two branches, each a step in" ||
    fail "/tree: two branches, each a step in" "$(cat "$T/err")"

# bad input
printf '/branch ffffffffff\n/branch\n' >"$T/in"
runat -c
grep -q "no entry has that id" "$T/err" && grep -q "usage: /branch" "$T/err" &&
    ok "/branch: an unknown id or none is said" ||
    fail "/branch: an unknown id or none is said" "$(cat "$T/err")"
MC=$(python3 -c 'import json,sys
for l in open(sys.argv[1]).read().split("\n")[1:-1]:
    e = json.loads(l)
    if e["type"] == "model_change": print(e["id"]); break' "$F")
printf '/branch %s\n' "$MC" >"$T/in"
runat -c
grep -q "not a message" "$T/err" && ok "/branch: to an entry not a message, said" ||
    fail "/branch: to an entry not a message, said" "$(cat "$T/err")"
# a prefix that two ids share: the candidates
python3 - "$F" "$T/amb.jsonl" <<'X'
import json, sys
out = []
for i, l in enumerate(open(sys.argv[1]).read().split("\n")[:-1]):
    e = json.loads(l)
    if i and e["type"] == "message" and e["message"]["role"] == "user":
        e["id"] = "abcd%04d" % i
    out.append(json.dumps(e))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
X
printf '/branch abcd\n' >"$T/in"
runat -s "$T/amb.jsonl"
grep -q "more than one entry's id begins so: abcd" "$T/err" &&
    ok "/branch: an ambiguous prefix names the candidates" ||
    fail "/branch: an ambiguous prefix names the candidates" "$(cat "$T/err")"

# /branch ID summarize: the branch left is summarised into pi's
# branch_summary, which the next request carries; to a user's message,
# the new branch starts at its parent.
script sum <<'X'
text The other branch asked another question.
finish stop
X
startfake -x "$T/sum" "$T/a5"
printf '/branch %s summarize\nlast question\n' "$U2" >"$T/in"
runat -c
python3 - "$F" "$A1" <<'X' && ok "/branch summarize: a branch_summary on the new branch" || fail "/branch summarize: a branch_summary on the new branch" "$(tail -3 "$F")"
import json, sys
es = [json.loads(l) for l in open(sys.argv[1]).read().split("\n")[1:-1]]
b = [e for e in es if e["type"] == "branch_summary"]
assert len(b) == 1, b
b = b[0]
assert b["parentId"] == sys.argv[2], b
assert b["summary"] == "The other branch asked another question.", b
last = es[-2]
assert last["parentId"] == b["id"] and last["message"]["content"][0]["text"] == "last question", last
X
jsontest "/branch summarize: the summariser saw the branch left" "$REQ/1.json" \
    '"other question" in d["messages"][-1]["content"] and
     "three" in d["messages"][-1]["content"] and
     "second question" not in d["messages"][-1]["content"]'
jsontest "/branch summarize: the next request carries the summary" "$REQ/2.json" \
    '"The other branch asked another question." in
     d["messages"][-2]["content"] and
     d["messages"][-1]["content"] == "last question"'

# /branch to a user's message goes on from its parent, as pi's tree does:
# its text is said (stdin no terminal), the next line in its place; to
# the first message, from before it.
answer a9 'nine'
answer a10 'ten'
startfake -x "$T/a9" "$T/a10"
printf '/branch %s\nsecond, edited\n/branch %s\nfirst, edited\n' "$U2" "$U1" \
    >"$T/in"
cp "$F" "$T/br.jsonl"
runat -s "$T/br.jsonl"
[ "$RC" -eq 0 ] && grep -q "^on the branch before $U2: its message" "$T/err" &&
    grep -A1 -q "^its text, which the next line takes the place of:$" "$T/err" &&
    grep -A1 "^its text" "$T/err" | grep -qx "second question" &&
    grep -A1 "^its text" "$T/err" | grep -qx "first question" &&
    ok "/branch to a user's message: its text is said" ||
    fail "/branch to a user's message: its text is said" "rc $RC $(cat "$T/err")"
jsontest "/branch to a user's message: the new one in its place" "$REQ/1.json" \
    '[m["content"] for m in d["messages"][1:]] ==
     ["first question", "one", "second, edited"]'
jsontest "/branch to the first message: a conversation anew" "$REQ/2.json" \
    '[m["content"] for m in d["messages"][1:]] == ["first, edited"]'
python3 - "$T/br.jsonl" "$A1" "$U1" <<'X' && ok "/branch to a user's message: the file's parents" || fail "/branch to a user's message: the file's parents" "$(tail -4 "$F")"
import json, sys
es = [json.loads(l) for l in open(sys.argv[1]).read().split("\n")[1:-1]]
us = [e for e in es if e["type"] == "message" and e["message"]["role"] == "user"]
t = lambda e: e["message"]["content"][0]["text"]
assert t(us[-2]) == "second, edited" and us[-2]["parentId"] == sys.argv[2], us[-2]
u1 = [e for e in es if e["id"] == sys.argv[3]][0]
assert t(us[-1]) == "first, edited" and us[-1]["parentId"] == u1["parentId"], us[-1]
X
# a user's message at the root: the next one is a root too
printf '{"type":"session","version":3,"id":"5678","timestamp":"2026-01-01T00:00:00Z","cwd":"%s"}\n{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi"}}\n{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"yes"}],"stopReason":"stop"}}\n' "$W" >"$T/root.jsonl"
startfake -x "$T/a9"
printf '/branch e1\nhi again\n' >"$T/in"
runat -n -s "$T/root.jsonl"
jsontest "/branch to a root user's message: nothing before the new one" "$REQ/1.json" \
    '[m["content"] for m in d["messages"][1:]] == ["hi again"]'

# /fork: a new file holding the path to the entry; the old one untouched.
cp "$F" "$T/before"
answer a6 'six'
startfake -x "$T/a6"
printf '/fork %s\nforked question\n' "$A1" >"$T/in"
runat -c
cmp -s "$F" "$T/before" && ok "/fork: the file forked from is left byte for byte" ||
    fail "/fork: the file forked from is left byte for byte" "changed"
G=$(files | grep -v "^$F$")
[ "$(echo "$G" | wc -l)" -eq 1 ] && [ -n "$G" ] &&
    ok "/fork: a new session file" || fail "/fork: a new session file" "$(files)"
python3 - "$G" "$F" <<'X' && ok "/fork: the header names its parent, the path is copied" || fail "/fork: the header names its parent, the path is copied" "$(cat "$G")"
import json, sys
ls = [json.loads(l) for l in open(sys.argv[1]).read().split("\n")[:-1]]
assert ls[0]["parentSession"] == sys.argv[2], ls[0]
msgs = [e["message"]["content"][0]["text"] for e in ls[1:] if e["type"] == "message"]
assert msgs == ["first question", "one", "forked question", "six"], msgs
X
grep -q "forked: $G" "$T/err" && ok "/fork: says where" || fail "/fork: says where" "$(cat "$T/err")"
printf '/fork nosuch\n' >"$T/in"
runat -c
grep -q "no entry has that id" "$T/err" && ok "/fork: an unknown id is said" ||
    fail "/fork: an unknown id is said" "$(cat "$T/err")"

# -n: a session read into memory alone; /branch to another branch finds
# that branch's lines there, and /tree shows their text.
mkmsg() {
	printf '{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"%s","content":[{"type":"text","text":"%s"}],"timestamp":1}}\n' "$@"
}
{
	printf '{"type":"session","version":3,"id":"h","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}\n'
	mkmsg u1 null user 'root q'
	mkmsg a1 '"u1"' assistant 'root a'
	mkmsg u2 '"a1"' user 'A q'
	mkmsg a2 '"u2"' assistant 'A a'
	mkmsg u3 '"a1"' user 'B q'
	mkmsg a3 '"u3"' assistant 'B a'
} >"$T/two.jsonl"
cp "$T/two.jsonl" "$T/two.before"
startfake -x "$T/a5"
printf '/tree\n/branch a2\nnext\n' >"$T/in"
runat -n -s "$T/two.jsonl"
[ "$RC" -eq 0 ] && ok "-n: /branch to another branch: ends well" ||
    fail "-n: /branch to another branch: ends well" "rc $RC: $(cat "$T/err")"
jsontest "-n: /branch to another branch: its messages sent" "$REQ/1.json" \
    '[m["content"] for m in d["messages"][1:]] ==
     ["root q", "root a", "A q", "A a", "next"]'
grep -q 'A q' "$T/err" && ok "-n: /tree shows the other branch's text" ||
    fail "-n: /tree shows the other branch's text" "$(cat "$T/err")"
cmp -s "$T/two.jsonl" "$T/two.before" && ok "-n: the file left as it was" ||
    fail "-n: the file left as it was" "changed"

# -l: this directory's sessions, newest first; -s by the start of an id.
: >"$T/in"
touch -d '2020-01-01' "$F"
mkdir -p "$T/other"
(cd "$T/other" && agentexec "$ROOT/agent" -l) >"$T/lother" 2>"$T/lothererr"
runat -l
GID=$(head -1 "$G" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
FID=$(head -1 "$F" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"])')
G8=$(echo "$GID" | cut -c1-8)
F8=$(echo "$FID" | cut -c1-8)
[ "$RC" -eq 0 ] && [ "$(wc -l <"$T/out")" -eq 2 ] &&
    head -1 "$T/out" | grep -q "^$G8  [0-9-]* [0-9:]*      5  first question$" &&
    sed -n 2p "$T/out" | grep -q "^$F8  2020-01-01 [0-9:]* *[0-9]*  first question$" &&
    ok "-l: id, time, entries and first prompt, newest first" ||
    fail "-l: id, time, entries and first prompt, newest first" "$(cat "$T/out" "$T/err")"
[ ! -s "$T/lother" ] && ok "-l: only this directory's sessions" ||
    fail "-l: only this directory's sessions" "$(cat "$T/lother")"
grep -q "^agent: no sessions of $T/other" "$T/lothererr" &&
    ok "-l: none is said, on stderr" ||
    fail "-l: none is said, on stderr" "$(cat "$T/lothererr")"
answer a7 'seven'
startfake -x "$T/a7"
printf 'by id\n' >"$T/in"
runat -s "$F8"
[ "$RC" -eq 0 ] && grep -q '"by id"' "$F" && ok "-s: the start of an id opens that session" ||
    fail "-s: the start of an id opens that session" "rc $RC $(cat "$T/err")"
runat -s nosuchid
[ "$RC" -eq 2 ] && grep -q "no session of this directory" "$T/err" &&
    ok "-s: an unknown id: said, exit 2" ||
    fail "-s: an unknown id: said, exit 2" "rc $RC $(cat "$T/err")"
# make the two ids share a start
python3 - "$G" "$F8" <<'X'
import json, sys
ls = open(sys.argv[1]).read().split("\n")
h = json.loads(ls[0]); h["id"] = sys.argv[2] + h["id"][8:]
ls[0] = json.dumps(h)
open(sys.argv[1], "w").write("\n".join(ls))
X
runat -s "$F8"
[ "$RC" -eq 2 ] && grep -q "more than one session" "$T/err" &&
    grep -q "$F" "$T/err" && grep -q "$G" "$T/err" &&
    ok "-s: an ambiguous id: the candidates, exit 2" ||
    fail "-s: an ambiguous id: the candidates, exit 2" "rc $RC $(cat "$T/err")"
: >"$T/in"
runat -f "$F8"
[ "$RC" -eq 2 ] && grep -q "^agent: -f $F8: more than one session" "$T/err" &&
    grep -q "$F" "$T/err" && grep -q "$G" "$T/err" &&
    ok "-f: an ambiguous id: the candidates, exit 2" ||
    fail "-f: an ambiguous id: the candidates, exit 2" "rc $RC $(cat "$T/err")"
runat -f nosuchid
[ "$RC" -eq 2 ] && grep -q "^agent: -f nosuchid: no session of this directory" "$T/err" &&
    ok "-f: an unknown id: said, exit 2" ||
    fail "-f: an unknown id: said, exit 2" "rc $RC $(cat "$T/err")"
before=$(files | wc -l)
answer a8 'eight'
startfake -x "$T/a8"
G13=$(head -1 "$G" | python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["id"][:13])')
printf 'forked by id\n' >"$T/in"
runat -f "$G13"
[ "$RC" -eq 0 ] && [ "$(files | wc -l)" -eq $((before + 1)) ] &&
    grep -q "\"parentSession\":\"$G\"" $(ls -t $(files) | head -1) &&
    ok "-f: the start of an id forks that session" ||
    fail "-f: the start of an id forks that session" "rc $RC $(cat "$T/err")"
: >"$T/in"
runat -s "$T/nodir/x.jsonl"
[ "$RC" -eq 2 ] && [ ! -e "$T/nodir" ] &&
    grep -q "^agent: -s $T/nodir/x.jsonl: $T/nodir: No such file or directory" "$T/err" &&
    ok "-s: a path in no directory: said, exit 2, nothing made" ||
    fail "-s: a path in no directory: said, exit 2, nothing made" "rc $RC $(cat "$T/err")"
runat -s "$T/in/x.jsonl"
[ "$RC" -eq 2 ] && grep -q "^agent: -s $T/in/x.jsonl: $T/in: Not a directory" "$T/err" &&
    ok "-s: a path under a file: said, exit 2" ||
    fail "-s: a path under a file: said, exit 2" "rc $RC $(cat "$T/err")"

# A hostile session: its text cannot reach the terminal as escapes.
printf '{"type":"session","version":3,"id":"1234","timestamp":"2026-01-01T00:00:00Z","cwd":"%s"}\n{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hi \\u001b]0;pwned\\u0007 there"}}\n' "$W" >"$T/hostile.jsonl"
printf '/tree\n' >"$T/in"
runat -s "$T/hostile.jsonl"
grep -q "$(printf '\033')" "$T/err" && fail "/tree: no escape from the session reaches the terminal" "$(od -c "$T/err" | head)" ||
    ok "/tree: no escape from the session reaches the terminal"

# -l of a hostile session: no escape reaches the terminal; lines cut to
# COLUMNS.
mkdir -p "$(dirname "$F")"
sed "s|\"cwd\":\"[^\"]*\"|\"cwd\":\"$W\"|" "$T/hostile.jsonl" \
    >"$(dirname "$F")/2030-01-01T00-00-00-000Z_hostile.jsonl"
: >"$T/in"
(cd "$W" && COLUMNS=30 agentexec "$ROOT/agent" -l) >"$T/out" 2>"$T/err"
grep -q "$(printf '\033')" "$T/out" && fail "-l: no escape from a session reaches the terminal" "$(od -c "$T/out" | head)" ||
    ok "-l: no escape from a session reaches the terminal"
awk 'length($0) > 30 { bad = 1 } END { exit bad }' "$T/out" &&
    grep -q '^1234  .*\.\.\.$' "$T/out" && ok "-l: lines cut to COLUMNS" ||
    fail "-l: lines cut to COLUMNS" "$(cat "$T/out")"
rm -f "$(dirname "$F")/2030-01-01T00-00-00-000Z_hostile.jsonl"

# -r: pi's get_fork_messages, get_session_stats, fork, switch_session,
# export_html.
H=$(files | grep -v "^$F$" | head -1)
cp "$F" "$T/before"
printf '%s\n' '{"id":1,"type":"get_fork_messages"}' \
    '{"id":2,"type":"get_session_stats"}' \
    "{\"id\":3,\"type\":\"fork\",\"entryId\":\"$U2\"}" \
    '{"id":4,"type":"get_state"}' \
    "{\"id\":5,\"type\":\"switch_session\",\"sessionPath\":\"$H\"}" \
    '{"id":6,"type":"get_state"}' \
    "{\"id\":7,\"type\":\"fork\",\"entryId\":\"$A1\"}" \
    '{"id":8,"type":"switch_session","sessionPath":"/no/such.jsonl"}' \
    "{\"id\":9,\"type\":\"export_html\",\"outputPath\":\"$T/page.html\"}" \
    '{"id":10,"type":"export_html"}' \
    >"$T/cmds"
# each command once the one before is answered, as a client would
cat >"$T/drive.py" <<'X'
import json, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE)
out = open(sys.argv[1], "wb")
for c in open(sys.argv[1] + ".cmds"):
    want = json.loads(c)["id"]
    p.stdin.write(c.encode())
    p.stdin.flush()
    while True:
        l = p.stdout.readline()
        out.write(l)
        if not l or json.loads(l).get("id") == want:
            break
p.stdin.close()
p.wait()
X
cp "$T/cmds" "$T/out.cmds"
: >"$T/in"
(cd "$W" && agentexec timeout 30 python3 "$T/drive.py" "$T/out" \
    "$ROOT/agent" -r -s "$F") 2>"$T/err"
python3 - "$T/out" "$F" "$H" "$U1" "$U2" "$T" <<'X' >"$T/py" 2>&1 && ok "-r: pi's session commands in pi's shapes" || fail "-r: pi's session commands in pi's shapes" "$(cat "$T/py" "$T/out" "$T/err")"
import json, sys
out, f, h, u1, u2 = sys.argv[1:6]
r = {}
for l in open(out):
    d = json.loads(l)
    if d.get("type") == "response":
        r[d["id"]] = d
fm = r[1]["data"]["messages"]
texts = [m["text"] for m in fm]
assert {"entryId": u1, "text": "first question"} in fm, fm
assert {"entryId": u2, "text": "second question"} in fm, fm
assert "other question" in texts and "last question" in texts, texts
st = r[2]["data"]
assert st["sessionFile"] == f and st["userMessages"] >= 2, st
assert st["assistantMessages"] >= 2 and st["toolCalls"] == 0, st
assert set(st["tokens"]) == {"input", "output", "cacheRead", "cacheWrite", "total"}, st
assert st["totalMessages"] >= 4 and "cost" in st, st
assert st["contextUsage"]["contextWindow"] > 0, st
assert r[3]["success"] and r[3]["data"] == {"text": "second question", "cancelled": False}, r[3]
nf = r[4]["data"]["sessionFile"]
assert nf != f and r[4]["data"]["messageCount"] == 2, r[4]
ls = [json.loads(l) for l in open(nf)]
assert ls[0]["parentSession"] == f, ls[0]
assert [e["message"]["content"][0]["text"] for e in ls[1:] if e["type"] == "message"] == ["first question", "one"], ls
assert r[5]["success"] and r[5]["data"] == {"cancelled": False}, r[5]
assert r[6]["data"]["sessionFile"] == h, r[6]
assert not r[7]["success"] and r[7]["error"] == "Invalid entry ID for forking", r[7]
assert not r[8]["success"], r[8]
assert r[9]["success"] and r[9]["data"] == {"path": sys.argv[6] + "/page.html"}, r[9]
page = open(sys.argv[6] + "/page.html").read()
assert "first question" in page and "<script" not in page, page[:300]
assert r[10]["success"] and r[10]["data"]["path"] == h[:-len(".jsonl")] + ".html", r[10]
X
cmp -s "$F" "$T/before" && ok "-r fork: the file forked from is left byte for byte" ||
    fail "-r fork: the file forked from is left byte for byte" "changed"

# pi opens what agent wrote after /branch and /fork, and its tree has the
# same branches as /tree draws.
PI=${PI:-$ROOT/bench/pi/node_modules/.bin/pi}
PIJS=
[ -x "$PI" ] && command -v node >/dev/null 2>&1 &&
    PIJS=$(dirname "$(readlink -f "$PI")")/index.js
if [ ! -f "$PIJS" ]; then
	skip "pi opens the session after /branch" "pi is not installed (set PI, or npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
	skip "pi's tree: the same branches as /tree" "pi is not installed"
	skip "pi opens the session after /fork" "pi is not installed"
	skip "pi's context carries agent's branch summary" "pi is not installed"
	exit 0
fi
cat >"$T/pitree.mjs" <<'X'
// the tree as pi's SessionManager has it, drawn as /tree draws it: a
// line an entry shown, "depth id"; and the context pi would send
const [, , pijs, file, what] = process.argv;
const { SessionManager } = await import(pijs);
const sm = SessionManager.open(file);
if (what === "context") {
	const c = sm.buildSessionContext();
	for (const m of c.messages) {
		let t = m.content ?? m.summary ?? "";
		if (Array.isArray(t))
			t = t.filter((b) => b.type === "text").map((b) => b.text).join("");
		console.log(m.role + ": " + t);
	}
	process.exit(0);
}
const shown = (e) => ["message", "compaction", "branch_summary",
    "custom_message"].includes(e.type);
const stack = sm.getTree().reverse().map((n) => [n, 0]);
while (stack.length) {
	const [n, d] = stack.pop();
	if (shown(n.entry))
		console.log(d + " " + n.entry.id + (n.entry.id === sm.getLeafId() ? " *" : ""));
	const k = n.children.length > 1 ? d + 1 : d;
	for (const c of [...n.children].reverse())
		stack.push([c, k]);
}
X
printf '/tree\n' >"$T/in"
runat -s "$F"
python3 - "$T/err" >"$T/ours" <<'X'
import re, sys
for l in open(sys.argv[1]):
    m = re.match(r"^([* ]) ((?:  |\+ )*)([0-9a-f]{8}) ", l)
    if m:
        print(len(m.group(2)) // 2, m.group(3) + (" *" if m.group(1) == "*" else ""))
X
if node "$T/pitree.mjs" "$PIJS" "$F" >"$T/theirs" 2>"$T/pi.err"; then
	ok "pi opens the session after /branch"
else
	fail "pi opens the session after /branch" "$(cat "$T/pi.err")"
fi
# pi's leaf is the file's last entry, a message here
[ -s "$T/ours" ] && cmp -s "$T/ours" "$T/theirs" &&
    ok "pi's tree: the same branches as /tree" ||
    fail "pi's tree: the same branches as /tree" "ours: $(cat "$T/ours") pi's: $(cat "$T/theirs")"
node "$T/pitree.mjs" "$PIJS" "$G" context >"$T/ctx" 2>"$T/pi.err" &&
    [ "$(cat "$T/ctx")" = "$(printf 'user: first question\nassistant: one\nuser: forked question\nassistant: six')" ] &&
    ok "pi opens the session after /fork" ||
    fail "pi opens the session after /fork" "$(cat "$T/ctx" "$T/pi.err")"
node "$T/pitree.mjs" "$PIJS" "$F" context >"$T/ctx" 2>"$T/pi.err" &&
    grep -q "^branchSummary: The other branch asked another question.$" "$T/ctx" &&
    ok "pi's context carries agent's branch summary" ||
    fail "pi's context carries agent's branch summary" "$(cat "$T/ctx" "$T/pi.err")"
