#!/bin/sh
# budget.sh: unattended runs bounded and checked: -b's model calls,
# dollars and seconds (exit 3, the session whole), a task's calls counted
# in its parent's, the ledger parallel runs share, -j's summary, the exit
# statuses of bad usage, -C and -w.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"

# runat args...: the agent in $W, its session kept, no terminal.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

nreq() {
	ls "$REQ"/*.json 2>/dev/null | wc -l
}

# sessionwhole: every line of the newest session file is whole JSON.
sessionwhole() {
	_f=$(ls -t "$T"/sessions/*/*.jsonl 2>/dev/null | head -1)
	[ -n "$_f" ] && python3 -c 'import json, sys
for l in open(sys.argv[1]):
    json.loads(l)' "$_f"
}

# A model that never stops calling tools, each answer costing
# 100000 + 10000 tokens of gpt-5: $0.225.
i=1
while [ $i -le 12 ]; do
	script "loop$i" <<X
tool c$i bash {"command": "echo round $i"}
finish tool_calls
usage 100000 10000
X
	LOOP="$LOOP $T/loop$i"
	i=$((i + 1))
done

startfake $LOOP
runat -y -b turns=3 'go on forever'
[ "$RC" -eq 3 ] && [ "$(nreq)" -eq 3 ] &&
    grep -q 'the budget of 3 model calls is spent' "$T/err" &&
    ok "turns=3: three model calls, exit 3, the reason said" ||
    fail "turns=3: three model calls, exit 3, the reason said" \
    "rc $RC, $(nreq) requests: $(cat "$T/err")"
sessionwhole && ok "turns=3: the session is whole" ||
    fail "turns=3: the session is whole" "$(ls -R "$T/sessions")"

startfake $LOOP
(cd "$W" && agentexec env AGENT_MODEL=gpt-5 setsid -w timeout 30 \
    "$ROOT/agent" -y -n -b cost=0.5 'go on forever') </dev/null \
    >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 3 ] && [ "$(nreq)" -eq 3 ] &&
    grep -q 'the budget of \$0.50 is spent (\$0.6750)' "$T/err" &&
    ok "cost=0.5: stops once \$0.675 is spent, exit 3" ||
    fail "cost=0.5: stops once \$0.675 is spent, exit 3" \
    "rc $RC, $(nreq) requests: $(cat "$T/err")"

startfake $LOOP
(cd "$W" && agentexec env AGENT_BUDGET=turns=2 setsid -w timeout 30 \
    "$ROOT/agent" -y -n 'go on forever') </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 3 ] && [ "$(nreq)" -eq 2 ] &&
    ok "AGENT_BUDGET=turns=2: two model calls, exit 3" ||
    fail "AGENT_BUDGET=turns=2: two model calls, exit 3" \
    "rc $RC, $(nreq) requests: $(cat "$T/err")"

# time: the running tool is stopped when the seconds run out.
script slow1 <<'X'
tool s1 bash {"command": "sleep 30"}
finish tool_calls
X
startfake "$T/slow1" "$T/slow1"
START=$(date +%s)
runat -y -b time=2 'take your time'
END=$(date +%s)
[ "$RC" -eq 3 ] && [ $((END - START)) -lt 15 ] &&
    grep -q 'the budget of 2 seconds is spent' "$T/err" &&
    ok "time=2: the running tool stopped, exit 3, the reason said" ||
    fail "time=2: the running tool stopped, exit 3, the reason said" \
    "rc $RC after $((END - START)) s: $(cat "$T/err")"
sessionwhole && ok "time=2: the session is whole" ||
    fail "time=2: the session is whole" "$(ls -R "$T/sessions")"

# Bad lists are bad usage: exit 2, nothing sent.
startfake $LOOP
for b in 'turns=x' 'cost=-1' 'turns=0' 'tokens=5' 'turns=3,' 'time=1.5' \
    'cost=1e3' 'turns=1,,time=3'; do
	runat -y -n -b "$b" 'hi'
	[ "$RC" -eq 2 ] && [ "$(nreq)" -eq 0 ] ||
	    { fail "-b '$b': exit 2, nothing sent" "rc $RC: $(cat "$T/err")"; continue; }
	ok "-b '$b': exit 2, nothing sent"
done
runat -y -n -b cost=1 'hi'
[ "$RC" -eq 2 ] && grep -q 'no model fake-model' "$T/err" &&
    ok "cost= with a model of no price: exit 2, said" ||
    fail "cost= with a model of no price: exit 2, said" "rc $RC: $(cat "$T/err")"

# A task's child's calls count in its parent's budget: the parent's
# call, the child's, the parent's next: three, then the stop.
if [ -n "$EMULATOR" ]; then
	skip "a task's model calls count in its parent's budget" \
	    "an emulated program cannot run another (no binfmt_misc)"
else
	script k1 <<'X'
tool t1 task {"description": "look", "prompt": "say hi"}
finish tool_calls
X
	script k2 <<'X'
text hi from the child
finish stop
X
	script k3 <<'X'
tool t2 bash {"command": "echo more"}
finish tool_calls
X
	startfake "$T/k1" "$T/k2" "$T/k3" "$T/k3" "$T/k3"
	runat -y -n -b turns=3 'delegate'
	[ "$RC" -eq 3 ] && [ "$(nreq)" -eq 3 ] &&
	    grep -q 'hi from the child' "$REQ/3.json" &&
	    ok "a task's model calls count in its parent's budget" ||
	    fail "a task's model calls count in its parent's budget" \
	    "rc $RC, $(nreq) requests: $(cat "$T/err")"
fi

# -j's last event: the summary of the run.
script j1 <<'X'
tool w1 write {"path": "notes.txt", "content": "hello\n"}
finish tool_calls
usage 1000 100
X
script j2 <<'X'
text done
finish stop
usage 1200 20
X
startfake -x "$T/j1" "$T/j2"
(cd "$W" && agentexec env AGENT_MODEL=gpt-5 setsid -w timeout 30 \
    "$ROOT/agent" -y -j 'write notes') </dev/null >"$T/out" 2>"$T/err"
RC=$?
tail -1 "$T/out" >"$T/last.json"
jsontest "-j: agent_end carries the summary" "$T/last.json" \
    'd["type"] == "agent_end" and
     {k: v for k, v in d["summary"].items() if k not in ("sessionId",
      "sessionFile", "cost")} == {"modelCalls": 2, "toolCalls": 1,
      "tokens": {"input": 2200, "output": 120, "cacheRead": 0,
                 "cacheWrite": 0}, "files": ["notes.txt"],
      "exitStatus": 0, "reason": "the model finished"} and
     abs(d["summary"]["cost"] - (2200 * 1.25 + 120 * 10) / 1e6) < 1e-9 and
     len(d["summary"]["sessionId"]) == 36 and
     d["summary"]["sessionFile"].endswith(".jsonl")'
startfake $LOOP
(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -y -j -n \
    -b turns=1 'go on') </dev/null >"$T/out" 2>"$T/err"
tail -1 "$T/out" >"$T/last.json"
jsontest "-j: a budget's stop in the summary" "$T/last.json" \
    'd["summary"]["exitStatus"] == 3 and d["summary"]["sessionFile"] is None
     and "1 model calls" in d["summary"]["reason"]'

# -r: each prompt's summary gives its own turn's reason, not one left
# over from an earlier turn (a cut-short answer, then a finished one).
script c1 <<'X'
text cut
finish length
X
script c2 <<'X'
text whole
finish stop
X
startfake "$T/c1" "$T/c2"
cat >"$T/two.py" <<'X'
import json, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, bufsize=0)
ends = []
for k, m in (("1", "first"), ("2", "second")):
    p.stdin.write((json.dumps({"id": k, "type": "prompt", "message": m})
                   + "\n").encode())
    while True:
        l = p.stdout.readline()
        if not l:
            raise SystemExit("stdout ended early")
        e = json.loads(l)
        if e["type"] == "agent_end":
            ends.append(e["summary"]["reason"])
            break
p.stdin.close()
p.wait()
open(sys.argv[1], "w").write(json.dumps(ends))
X
(cd "$W" && agentexec setsid -w timeout 30 python3 "$T/two.py" "$T/ends" \
    "$ROOT/agent" -y -n -r) </dev/null >"$T/out" 2>"$T/err"
jsontest "-r: a turn's summary does not keep an earlier turn's reason" \
    "$T/ends" 'd[0].startswith("the answer was cut short") and
     d[1] == "the model finished"'

# The ledger: 8 runs at once add their costs whole; the total is exact.
rm -f "$T/ledger"
L8=
i=1
while [ $i -le 8 ]; do
	script "one$i" <<X
text answer $i
finish stop
usage 100000 10000
X
	L8="$L8 $T/one$i"
	i=$((i + 1))
done
startfake $L8
i=1 PIDS=
while [ $i -le 8 ]; do
	(cd "$W" && agentexec env AGENT_MODEL=gpt-5 AGENT_LEDGER="$T/ledger" \
	    timeout 30 "$ROOT/agent" -n "run $i") </dev/null >/dev/null \
	    2>"$T/err.$i" &
	PIDS="$PIDS $!"
	i=$((i + 1))
done
for p in $PIDS; do
	wait "$p"
done
python3 -c 'import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "", "no newline at the end"
rows = [json.loads(l) for l in lines[:-1]]
assert len(rows) == 8, len(rows)
assert len({r["run"] for r in rows}) == 8
assert all(r["model"] == "gpt-5" for r in rows)
assert abs(sum(r["cost"] for r in rows) - 8 * 0.225) < 1e-9
' "$T/ledger" 2>"$T/py.err" &&
    ok "ledger: 8 runs at once, 8 whole lines, the total exact" ||
    fail "ledger: 8 runs at once, 8 whole lines, the total exact" \
    "$(cat "$T/py.err" "$T/ledger")"

# A ledger whose last line a full disk tore: the next run's line is not
# glued to it, and its cost counts.
printf '{"run":"torn","time":"2026-01-01T00:00:00Z","model":"gpt-5","co' \
    >"$T/torn"
startfake "$T/one1"
(cd "$W" && agentexec env AGENT_MODEL=gpt-5 AGENT_LEDGER="$T/torn" \
    timeout 30 "$ROOT/agent" -n 'after the tear') </dev/null >/dev/null \
    2>"$T/err"
python3 -c 'import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert len(lines) == 3 and lines[-1] == "", lines
assert json.loads(lines[1])["cost"] > 0
' "$T/torn" 2>"$T/py.err" &&
    ok "ledger: a torn last line, ours on a line of its own" ||
    fail "ledger: a torn last line, ours on a line of its own" \
    "$(cat "$T/py.err" "$T/torn")"

# A run whose ledger has spent its cost asks nothing.
startfake $LOOP
(cd "$W" && agentexec env AGENT_MODEL=gpt-5 AGENT_LEDGER="$T/ledger" \
    timeout 30 "$ROOT/agent" -n -b cost=1.5 'one more') </dev/null \
    >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 3 ] && [ "$(nreq)" -eq 0 ] && grep -q 'in the ledger' "$T/err" &&
    ok "ledger: spent already, exit 3 before any request" ||
    fail "ledger: spent already, exit 3 before any request" \
    "rc $RC, $(nreq) requests: $(cat "$T/err")"

# -C: work in a directory, as make -C.
script c1 <<'X'
tool w1 write {"path": "here.txt", "content": "in C\n"}
finish tool_calls
X
script c2 <<'X'
text done
finish stop
X
startfake -x "$T/c1" "$T/c2"
(cd "$T" && agentexec setsid -w timeout 30 "$ROOT/agent" -y -n -C "$W" \
    'write here') </dev/null >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && [ -f "$W/here.txt" ] && [ ! -f "$T/here.txt" ] &&
    ok "-C DIR: the tools work in DIR" ||
    fail "-C DIR: the tools work in DIR" "rc $RC: $(cat "$T/err")"
runat -n -C "$T/nosuch" hi
[ "$RC" -eq 2 ] && grep -q -- '-C .*nosuch' "$T/err" &&
    ok "-C with no such directory: exit 2" ||
    fail "-C with no such directory: exit 2" "rc $RC: $(cat "$T/err")"

# -w: one more directory the workspace profile may write; no other.
mkdir -p "$T/cache" "$T/other"
script x1 <<X
tool w1 write {"path": "$T/cache/out.txt", "content": "cached\\n"}
tool w2 write {"path": "$T/other/out.txt", "content": "no\\n"}
finish tool_calls
X
script x2 <<'X'
text done
finish stop
X
startfake -x "$T/x1" "$T/x2"
runat -y -n -w "$T/cache" 'write the cache'
[ "$RC" -eq 0 ] && [ -f "$T/cache/out.txt" ] && [ ! -f "$T/other/out.txt" ] &&
    ok "-w DIR: write may write there, and nowhere else outside" ||
    fail "-w DIR: write may write there, and nowhere else outside" \
    "rc $RC: $(ls "$T/cache" "$T/other") $(cat "$T/err")"
runat -y -n -w "$T/nosuch" hi
[ "$RC" -eq 2 ] && ok "-w with no such directory: exit 2" ||
    fail "-w with no such directory: exit 2" "rc $RC: $(cat "$T/err")"
