#!/bin/sh
# resume.sh: sessions end to end: written as pi writes them, continued
# (-c), opened (-s, ours or pi's), forked (-f), not written (-n), and
# loaded whole after a crash in the middle of a turn.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
S=$T/sessions

# runat args...: the agent in $W, writing sessions under $S.
runat() {
	(cd "$W" && agentexec timeout 30 "$ROOT/agent" "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

files() {
	find "$S" -name '*.jsonl' 2>/dev/null | sort
}

alljson() {
	python3 -c 'import json, sys
for l in open(sys.argv[1], "rb").read().decode("utf-8").split("\n")[:-1]:
    json.loads(l)' "$1" 2>/dev/null
}

if ! command -v python3 >/dev/null 2>&1; then
	skip "sessions" "no python3"
	exit 0
fi

script a1 <<'X'
text answer one
finish stop
X
script a2 <<'X'
text answer two
finish stop
X
startfake -x "$T/a1" "$T/a2"
runat 'first'
F=$(files)
[ "$RC" -eq 0 ] && [ "$(echo "$F" | wc -l)" -eq 1 ] && [ -n "$F" ] &&
    ok "a session file is written" || fail "a session file is written" "rc $RC, files: $F $(cat "$T/err")"
case $F in
"$S/--"*"-work--/"*_*.jsonl) ok "it lives in the directory named after the cwd" ;;
*) fail "it lives in the directory named after the cwd" "$F" ;;
esac
alljson "$F" && ok "every line is JSON" || fail "every line is JSON" "$(cat "$F")"
python3 - "$F" "$W" <<'X' && ok "header and entries as pi writes them" || fail "header and entries as pi writes them" "$(cat "$F")"
import json, sys, re
lines = [json.loads(l) for l in open(sys.argv[1])]
h = lines[0]
assert h["type"] == "session" and h["version"] == 3 and h["cwd"] == sys.argv[2]
assert re.fullmatch(r"[0-9a-f-]{36}", h["id"])
types = [(l["type"], l.get("message", {}).get("role")) for l in lines[1:]]
assert types == [("model_change", None), ("message", "user"), ("message", "assistant")], types
prev = None
for l in lines[1:]:
    assert re.fullmatch(r"[0-9a-f]{8}", l["id"]) and l["parentId"] == prev
    assert l["timestamp"].endswith("Z")
    prev = l["id"]
assert lines[2]["message"]["content"][0]["text"] == "first"
assert lines[3]["message"]["content"][0]["text"] == "answer one"
X
grep -q test-key "$F" && fail "no key in the session file" "found" || ok "no key in the session file"

runat -c 'second'
[ "$(files | wc -l)" -eq 1 ] && ok "-c: the same file goes on" || fail "-c: the same file goes on" "$(files)"
jsontest "-c: the request holds the earlier exchange" "$REQ/2.json" \
    '[(m["role"], m["content"]) for m in d["messages"][1:]] ==
     [("user", "first"), ("assistant", "answer one"), ("user", "second")]'
[ "$(wc -l <"$F")" -eq 6 ] && ok "-c: two more messages appended" || fail "-c: two more messages appended" "$(cat "$F")"

# A crash in the middle of a turn loses nothing that was written.
script s1 <<'X'
text partial
stall
X
startfake -x "$T/s1" "$T/a1"
rm -f "$T/out"
(cd "$W" && agentexec "$ROOT/agent" -c 'third') </dev/null >"$T/out" 2>"$T/err" &
pid=$!
i=0
until grep -q partial "$T/out" 2>/dev/null || [ $i -ge 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
grep -q '"third"' "$F" && ok "crash: the user message was on disk at once" ||
    fail "crash: the user message was on disk at once" "$(tail -2 "$F")"
printf '{"type":"message","id":"deadbeef","parentId":' >>"$F"
runat -c 'fourth'
[ "$RC" -eq 0 ] && ok "torn last line: the session still loads" || fail "torn last line: the session still loads" "rc $RC: $(cat "$T/err")"
grep -q 'torn' "$T/err" && ok "torn last line: reported" || fail "torn last line: reported" "$(cat "$T/err")"
jsontest "torn last line: nothing before it lost" "$REQ/2.json" \
    '[m["content"] for m in d["messages"][1:]] ==
     ["first", "answer one", "second", "answer two", "third", "fourth"]'
python3 - "$F" <<'X' && ok "torn last line: left as it was, the next entry on a line of its own" ||
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").split("\n")
assert lines[-1] == "" and '"fourth"' in lines[-3], lines[-3:]
torn = [l for l in lines[:-1] if l == '{"type":"message","id":"deadbeef","parentId":']
assert len(torn) == 1, torn
for l in lines[:-1]:
    if l not in torn:
        json.loads(l)
X
    fail "torn last line: left as it was, the next entry on a line of its own" "$(tail -c 300 "$F")"

# -f: a new file holding a copy of the branch; the original untouched.
cp "$F" "$T/before"
startfake -x "$T/a2"
runat -f "$F" 'fifth'
[ "$(files | wc -l)" -eq 2 ] && ok "-f: a new session file" || fail "-f: a new session file" "$(files)"
cmp -s "$F" "$T/before" && ok "-f: the original is untouched" || fail "-f: the original is untouched" "changed"
G=$(files | grep -v "^$F$")
python3 - "$G" "$F" <<'X' && ok "-f: the header names its parent" || fail "-f: the header names its parent" "$(head -1 "$G")"
import json, sys
h = json.loads(open(sys.argv[1]).readline())
assert h["type"] == "session" and h["parentSession"] == sys.argv[2]
X
jsontest "-f: the request holds the forked history" "$REQ/1.json" \
    'd["messages"][-1]["content"] == "fifth" and
     d["messages"][1]["content"] == "first"'

# -s: a session written by pi, with a compaction and two branches: the
# summary stands for what came before the first kept entry, and the branch
# left behind (a90c5e24..b8c3a6e1) is not sent.
PI=$ROOT/test/data/pi-session.jsonl
cp "$PI" "$T/pi.jsonl" && ok "-s pi's file: test/data has it" ||
    fail "-s pi's file: test/data has it" "no $PI"
startfake -x "$T/a1"
runat -s "$T/pi.jsonl" 'and now?'
jsontest "-s pi's file: its conversation is sent" "$REQ/1.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user",
     "assistant", "tool", "assistant", "user", "assistant", "user"] and
     d["messages"][2]["tool_calls"][0]["id"] ==
     d["messages"][3]["tool_call_id"] == "call_00_Rb6Tk9Vm3NsXw1Gh"'
jsontest "-s pi's file: the compaction's summary first, the other branch left out" \
    "$REQ/1.json" \
    'd["messages"][1]["content"].startswith("The conversation history before this point was compacted") and
     "<modified-files>" in d["messages"][1]["content"] and
     d["messages"][5]["content"] == "Never mind the test. Write a line for the changelog instead." and
     "nonl.txt" not in json.dumps(d) and "make check fails since" not in json.dumps(d)'
head -c "$(wc -c <"$PI")" "$T/pi.jsonl" | cmp -s - "$PI" &&
    ok "-s pi's file: its lines are kept as they were" ||
    fail "-s pi's file: its lines are kept as they were" "changed"
alljson "$T/pi.jsonl" && [ "$(wc -l <"$T/pi.jsonl")" -gt "$(wc -l <"$PI")" ] &&
    ok "-s pi's file: our entries appended" || fail "-s pi's file: our entries appended" "$(tail -2 "$T/pi.jsonl")"
python3 - "$T/pi.jsonl" <<'X' && ok "-s pi's file: ours go on from its last entry" ||
import json, sys
es = [json.loads(l) for l in open(sys.argv[1], "rb").read().decode("utf-8").split("\n")[1:-1]]
assert es[19]["parentId"] == "3a1e95d6", es[19]
ids = {e["id"]: e for e in es}
u = [e for e in es[19:] if e.get("message", {}).get("role") == "user"][0]
assert u["message"]["content"][0]["text"] == "and now?", u
e = u
while e["parentId"] != "3a1e95d6":
    e = ids[e["parentId"]]
X
    fail "-s pi's file: ours go on from its last entry" "$(tail -2 "$T/pi.jsonl" | cut -c1-200)"

# -s of a file that is not there makes it; -n writes nothing.
startfake -x "$T/a1" "$T/a2"
runat -s "$T/new.jsonl" 'hi'
[ -s "$T/new.jsonl" ] && alljson "$T/new.jsonl" && ok "-s: a new file where asked" ||
    fail "-s: a new file where asked" "rc $RC: $(cat "$T/err")"
rm -rf "$S"
runat -n 'hi'
[ -z "$(files)" ] && ok "-n: no session file" || fail "-n: no session file" "$(files)"

# -c -n and -s FILE -n: the session goes on in memory, its file only read.
startfake -x "$T/a1" "$T/a2" "$T/a2" "$T/a2"
runat 'first'
F=$(files)
cp "$F" "$T/before.jsonl"
runat -c -n 'more'
[ "$RC" -eq 0 ] && cmp -s "$F" "$T/before.jsonl" && [ "$(files)" = "$F" ] &&
    ok "-c -n: the session file unchanged, no other made" ||
    fail "-c -n: the session file unchanged, no other made" "rc $RC: $(files) $(cat "$T/err")"
jsontest "-c -n: the request carried the earlier messages" "$REQ/2.json" \
    '[(m["role"], m["content"]) for m in d["messages"][1:]] ==
     [("user", "first"), ("assistant", "answer one"), ("user", "more")]'
runat -n -s "$F" 'again'
[ "$RC" -eq 0 ] && cmp -s "$F" "$T/before.jsonl" && [ "$(files)" = "$F" ] &&
    ok "-s FILE -n: the file unchanged" || fail "-s FILE -n: the file unchanged" "rc $RC: $(cat "$T/err")"
jsontest "-s FILE -n: the request carried its messages" "$REQ/3.json" \
    '[m["content"] for m in d["messages"][1:]] == ["first", "answer one", "again"]'
runat -s "$T/none.jsonl" -n 'hi'
[ "$RC" -eq 0 ] && [ ! -e "$T/none.jsonl" ] && ok "-s NEW -n: no file made" ||
    fail "-s NEW -n: no file made" "rc $RC: $(cat "$T/err")"
runat -c -s "$F" 'hi'
[ "$RC" -eq 2 ] && ok "-c with -s: bad usage" || fail "-c with -s: bad usage" "rc $RC"

# An empty file given to -s is a new session; -f of a missing file says so;
# the fork's source is only read.
: >"$T/empty.jsonl"
startfake -x "$T/a1" "$T/a2"
runat -s "$T/empty.jsonl" 'hi'
[ "$RC" -eq 0 ] && alljson "$T/empty.jsonl" && [ "$(wc -l <"$T/empty.jsonl")" -eq 4 ] &&
    ok "-s an empty file: a new session in it" || fail "-s an empty file: a new session in it" "rc $RC: $(cat "$T/err")"
runat -f "$T/nosuch.jsonl" 'hi'
[ "$RC" -eq 1 ] && grep -q 'no such session file' "$T/err" && ok "-f a missing file: said, exit 1" ||
    fail "-f a missing file: said, exit 1" "rc $RC: $(cat "$T/err")"

# A session that cannot be written fails the run, though the answer came.
startfake -x "$T/a1"
(cd "$W" && env HOME="$T" AGENT_SESSION_DIR=/proc/agent-no-such-dir \
    AGENT_BASE_URL="$URL" AGENT_API_KEY=k AGENT_PROVIDER=openai-chat \
    timeout 30 "$ROOT/agent" 'hi') </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 1 ] && [ "$(cat "$T/out")" = "answer one" ] && ok "unwritable session: the answer, then exit 1" ||
    fail "unwritable session: the answer, then exit 1" "rc $RC: $(cat "$T/err")"

# pi's !cmd runs reach the model as pi shows them.
cat >"$T/bash.jsonl" <<'X'
{"type":"session","version":3,"id":"11111111-2222-4333-8444-555555555555","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}
{"type":"message","id":"aaaaaaa1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"bashExecution","command":"ls","output":"out8\n","exitCode":2,"cancelled":false,"truncated":false,"timestamp":1}}
{"type":"message","id":"aaaaaaa2","parentId":"aaaaaaa1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"bashExecution","command":"secret","output":"hidden","exitCode":0,"cancelled":false,"truncated":false,"excludeFromContext":true,"timestamp":2}}
X
startfake -x "$T/a1"
runat -s "$T/bash.jsonl" 'what did ls say?'
jsontest "pi's bashExecution: in the context as pi shows it" "$REQ/1.json" \
    'd["messages"][1] == {"role": "user", "content":
     "Ran `ls`\n```\nout8\n```\n\nCommand exited with code 2"} and
     "hidden" not in json.dumps(d)'

# Loading never changes the file: a writer appends whole lines (one
# O_APPEND write each, as we and pi do) while agent -s loads it again and
# again; no line may go missing.
cp "$T/bash.jsonl" "$T/busy.jsonl"
nbusy=$(wc -l <"$T/busy.jsonl")
python3 - "$T/busy.jsonl" <<'X' &
import json, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
parent = "aaaaaaa2"
for k in range(300):
    e = {"type": "custom", "id": "w%07d" % k, "parentId": parent,
         "timestamp": "2026-01-01T00:00:03.000Z", "data": "x" * 65536}
    line = (json.dumps(e) + "\n").encode()
    assert os.write(fd, line) == len(line)
    parent = e["id"]
X
wpid=$!
loads=0
while kill -0 "$wpid" 2>/dev/null; do
	runat -s "$T/busy.jsonl"
	loads=$((loads + 1))
done
wait "$wpid"
wrc=$?
python3 - "$T/busy.jsonl" "$nbusy" <<'X' && [ "$wrc" -eq 0 ] &&
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").split("\n")
assert lines[-1] == "" and len(lines) - 1 == int(sys.argv[2]) + 300, len(lines)
for l in lines[:-1]:
    json.loads(l)
X
    ok "a file loaded $loads times while written to: every line there, whole" ||
    fail "a file loaded while written to: every line there, whole" "rc $wrc, $(wc -l <"$T/busy.jsonl") lines"

# Two agents in line mode on one file, taking turns: every entry of both
# survives, each a whole line, each agent going on from its own answers.
startfake -x "$T/a1"
runat -s "$T/two.jsonl" 'start'
before=$(wc -l <"$T/two.jsonl")
for k in 1 2 3 4; do
	printf 'text answer %s\nfinish stop\n' "$k" >"$T/t$k"
done
startfake -x "$T/t1" "$T/t2" "$T/t3" "$T/t4"
mkfifo "$T/ina" "$T/inb"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -s "$T/two.jsonl") \
    <"$T/ina" >"$T/outa" 2>"$T/erra" &
apid=$!
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -s "$T/two.jsonl") \
    <"$T/inb" >"$T/outb" 2>"$T/errb" &
bpid=$!
exec 3>"$T/ina" 4>"$T/inb"
# waitfor FILE TEXT: until FILE holds TEXT (10 s at most)
waitfor() {
	_i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $_i -lt 200 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
}
echo 'from a, 1' >&3; waitfor "$T/outa" 'answer 1'
echo 'from b, 1' >&4; waitfor "$T/outb" 'answer 2'
echo 'from a, 2' >&3; waitfor "$T/outa" 'answer 3'
echo 'from b, 2' >&4; waitfor "$T/outb" 'answer 4'
exec 3>&- 4>&-
wait "$apid"; arc=$?
wait "$bpid"; brc=$?
[ "$arc" -eq 0 ] && [ "$brc" -eq 0 ] &&
    [ "$(cat "$T/outa")" = "$(printf 'answer 1\nanswer 3')" ] &&
    [ "$(cat "$T/outb")" = "$(printf 'answer 2\nanswer 4')" ] && ok "two agents on one file: both take their turns" ||
    fail "two agents on one file: both take their turns" "rc $arc $brc: $(cat "$T/erra" "$T/errb" "$T/outa" "$T/outb")"
python3 - "$T/two.jsonl" "$before" <<'X' &&
import json, sys
lines = open(sys.argv[1], "rb").read().decode("utf-8").split("\n")
assert lines[-1] == ""
es = [json.loads(l) for l in lines[1:-1]]
assert len(lines) - 1 == int(sys.argv[2]) + 8, len(lines)
ids = {e["id"]: e for e in es}
assert len(ids) == len(es)
assert all(e["parentId"] is None or e["parentId"] in ids for e in es)
def text(e):
    c = e.get("message", {}).get("content")
    return c if isinstance(c, str) else c[0]["text"] if c else None
by = {text(e): e for e in es if e["type"] == "message"}
# each agent's second message follows its own first answer
assert by["from a, 2"]["parentId"] == by["answer 1"]["id"]
assert by["from b, 2"]["parentId"] == by["answer 2"]["id"]
assert by["answer 3"]["parentId"] == by["from a, 2"]["id"]
assert by["answer 4"]["parentId"] == by["from b, 2"]["id"]
X
    ok "two agents on one file: every entry of both there, whole, each on its own branch" ||
    fail "two agents on one file: every entry of both there, whole, each on its own branch" "$(cut -c1-150 "$T/two.jsonl")"

# A session whose working directory is gone goes on, and says so.
mkdir -p "$T/gone"
printf '{"type":"session","version":3,"id":"g","timestamp":"2026-01-01T00:00:00.000Z","cwd":"%s"}\n' "$T/gone" >"$T/gone.jsonl"
rmdir "$T/gone"
printf 'text still here\nfinish stop\n' | script gone1
startfake -x "$T/gone1"
runagent -s "$T/gone.jsonl" 'hi'
[ "$RC" -eq 0 ] && grep -q "working directory $T/gone is gone" "$T/err" &&
    ok "-s a session whose directory is gone: it goes on, and says so" ||
    fail "-s a session whose directory is gone: it goes on, and says so" "rc $RC: $(cat "$T/err")"

# A resumed session with big messages and many small ones: the request,
# sent in pieces from the kept forms (more pieces than one write takes,
# and more bytes than the socket holds, so writes stop part way through
# a piece), arrives whole, every message in order.
python3 - "$T/big.jsonl" <<'X'
import json, sys
f = open(sys.argv[1], "w")
f.write('{"type":"session","version":3,"id":"big","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}\n')
par = None
def text(i):
    return ("m%d " % i) * (30000 if i % 60 == 0 else 3000 if i < 12 else 2)
for i in range(2400):
    role = "user" if i % 2 == 0 else "assistant"
    m = {"role": role, "content": [{"type": "text", "text": text(i)}], "timestamp": 1}
    if role == "assistant":
        m.update(api="openai-completions", provider="openai", model="fake-model", stopReason="stop",
                 usage={"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}})
    e = {"type": "message", "id": "%08x" % i, "parentId": par, "timestamp": "2026-01-01T00:00:00.000Z", "message": m}
    par = e["id"]
    f.write(json.dumps(e) + "\n")
X
printf 'text big done\nfinish stop\n' | script big1
startfake -x "$T/big1"
runagent -s "$T/big.jsonl" 'last'
python3 - "$REQ/1.json" <<'X' &&
import json, os, sys
exec(os.environ["UNENV"])
ms = unenv(json.load(open(sys.argv[1])))["messages"][1:]
assert len(ms) == 2401, len(ms)
for i, m in enumerate(ms[:2400]):
    c = m["content"]
    t = c if isinstance(c, str) else "".join(p["text"] for p in c)
    n = 30000 if i % 60 == 0 else 3000 if i < 12 else 2
    assert t == ("m%d " % i) * n, (i, t[:20])
X
    [ "$RC" -eq 0 ] &&
    ok "a resumed big session's request, sent in pieces, arrives whole" ||
    fail "a resumed big session's request, sent in pieces, arrives whole" "rc $RC: $(cat "$T/err")"
stopfake
