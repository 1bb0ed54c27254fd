#!/bin/sh
# task.sh: the task tool: a child agent on a prompt, its answer the
# result, its usage added, its session its own and linked; the key over
# a pipe (-K); several at once; a bad call, a failed and a timed-out
# task, Ctrl-C; the depth bound.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
echo hello >"$W/a.txt"

# run args...: ./agent in $W against the fake, -y.
run() {
	(cd "$W" && agentexec timeout 60 "${AGENT:-$ROOT/agent}" -y "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

# procs PATTERN: the processes whose command line (words one space
# apart) matches the grep pattern, from /proc: procps may not be there.
# Write a letter of it in brackets, so that grep does not find itself.
procs() {
	for _p in /proc/[0-9]*; do
		{ tr '\0' ' ' <"$_p/cmdline"; } 2>/dev/null |
		    grep -q -- "$1" && echo "${_p#/proc/}"
	done
}

# The files of the sessions: the parent's (the one with no parent) and
# the children's.
parent() {
	grep -L parentSession "$T"/sessions/*/*.jsonl | head -1
}
children() {
	grep -l parentSession "$T"/sessions/*/*.jsonl
}

# -K: the key is stdin's first line, the rest the prompt.
printf 'text ok\nfinish stop\n' | script k1
startfake -x "$T/k1"
printf 'pipe-key-1\nline one\nline two\n' >"$T/kin"
(cd "$W" && agentexec env -u AGENT_API_KEY timeout 30 "$ROOT/agent" -n -K) \
    <"$T/kin" >"$T/out" 2>"$T/err"
check "task: -K takes the key from stdin" grep -qi 'authorization: Bearer pipe-key-1' "$REQ/1.head"
jsontest "task: -K takes the rest as the prompt" "$REQ/1.json" \
    'd["messages"][-1]["content"] == "line one\nline two\n"'
printf 'empty-key\n' >"$T/kin"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -n -K) <"$T/kin" >"$T/out" \
    2>"$T/err"
RC=$?
check "task: -K with no prompt says so" sh -c \
    "test $RC = 1 && grep -q 'no prompt' '$T/err'"

if [ -n "$EMULATOR" ]; then
	# qemu-user runs the one binary it was given: the child, another
	# aarch64 program, cannot be run from it without binfmt_misc
	skip "task: the child agents" "an emulated program cannot run another (no binfmt_misc)"
	exit 0
fi

# One task: the child reads a file and answers.
script p1 <<'X'
tool c1 task {"description":"look around","prompt":"Read a.txt and say what it holds."}
finish tool_calls
usage 100 20
X
script c1 <<'X'
tool k1 read {"path":"a.txt"}
finish tool_calls
usage 40 5
X
script c2 <<'X'
text It holds hello.
finish stop
usage 50 10
X
script p2 <<'X'
text The child says hello.
finish stop
usage 200 5
X
rm -rf "$T/sessions"
startfake -x "$T/p1" "$T/c1" "$T/c2" "$T/p2"
run 'look'
check "task: the run ends well" test "$RC" = 0
check "task: the parent's answer" grep -q 'The child says hello' "$T/out"
jsontest "task: the child starts on the prompt alone" "$REQ/2.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user"] and
     d["messages"][1]["content"] == "Read a.txt and say what it holds."'
jsontest "task: the child has the read-only tools, no task" "$REQ/2.json" \
    '[t["function"]["name"] for t in d["tools"]] ==
     ["read", "bash", "grep", "find", "ls"]'
jsontest "task: the parent offers task" "$REQ/1.json" \
    '"task" in [t["function"]["name"] for t in d["tools"]]'
check "task: the child has the key" grep -qi 'authorization: Bearer test-key' "$REQ/2.head"
jsontest "task: the child's tool ran" "$REQ/3.json" \
    'd["messages"][-1]["content"].startswith("hello")'
jsontest "task: its answer is the result" "$REQ/4.json" \
    'd["messages"][-1]["role"] == "tool" and
     d["messages"][-1]["content"] == "It holds hello."'
check "task: the usage is added" grep -q 'tokens: 390 in (0 cached), 40 out' "$T/err"
check "task: its calls on the trace" grep -q 'task 1: read a.txt' "$T/err"
check "task: its line ends at its start, its result on its own" sh -c \
    "grep -qx 'task look around \.\.\.' '$T/err' &&
     grep -q '^task look around -> 1 line' '$T/err'"
P=$(parent)
C=$(children)
check "task: two session files" test "$(ls "$T"/sessions/*/*.jsonl | wc -l)" = 2
check "task: the child's names the parent's" grep -qF "\"parentSession\":\"$P\"" "$C"
check "task: the result's details name the child's" grep -qF "\"details\":{\"session\":\"$C\"" "$P"
check "task: the child's session holds its work" grep -q 'It holds hello' "$C"
P8=$(head -1 "$P" | sed 's/.*"id":"\(........\).*/\1/')
C8=$(head -1 "$C" | sed 's/.*"id":"\(........\).*/\1/')
check "task: the child's is named for pi's lists" grep -q \
    "\"type\":\"session_info\".*\"name\":\"task 1 of $P8\"" "$C"
(cd "$W" && agentexec "$ROOT/agent" -l) >"$T/list" 2>&1
check "-l: the child's marked, its parent's not" sh -c \
    "grep -q '^$C8  .*  \[task 1 of $P8\] Read a.txt' '$T/list' &&
     grep -q '^$P8  .*  look\$' '$T/list'"

# Two tasks in one answer run at once: each child's bash sleeps, and the
# other's first request comes in meanwhile; one after the other, the
# first would take three answers and the second one.
script q1 <<'X'
tool t1 task {"description":"one","prompt":"First."}
tool t2 task {"description":"two","prompt":"Second."}
finish tool_calls
X
printf 'tool s1 bash {"command":"sleep 3"}\nfinish tool_calls\n' | script q2
printf 'tool s2 bash {"command":"sleep 3"}\nfinish tool_calls\n' | script q3
printf 'text done A\nfinish stop\n' | script q4
printf 'text done B\nfinish stop\n' | script q5
printf 'text both\nfinish stop\n' | script q6
rm -rf "$T/sessions"
startfake -x "$T/q1" "$T/q2" "$T/q3" "$T/q4" "$T/q5" "$T/q6"
run 'two'
check "task: two at once end well" test "$RC" = 0
n=0
for c in $(children); do
	[ "$(grep -c '"role":"assistant"' "$c")" = 2 ] && n=$((n + 1))
done
check "task: two at once, side by side" test "$n" = 2
jsontest "task: both results, in the calls' order" "$REQ/6.json" \
    '[m.get("tool_call_id") for m in d["messages"][-2:]] == ["t1", "t2"] and
     sorted(m["content"] for m in d["messages"][-2:]) == ["done A", "done B"]'
# each result is the answer of the child that had its prompt
P=$(parent)
if command -v python3 >/dev/null 2>&1; then
	if python3 - "$P" <<'X'
import json, sys
def lines(f):
    return [json.loads(l) for l in open(f) if l.strip()]
for e in lines(sys.argv[1]):
    m = e.get("message", {})
    if m.get("role") != "toolResult":
        continue
    kid = lines(m["details"]["session"])
    said = [k["message"] for k in kid if k.get("type") == "message"]
    want = {"t1": "First.", "t2": "Second."}[m["toolCallId"]]
    assert said[0]["content"][0]["text"] == want, said[0]
    last = [x for x in said if x["role"] == "assistant"][-1]
    assert last["content"][0]["text"] == m["content"][0]["text"]
X
	then ok "task: each result is its own child's answer"
	else fail "task: each result is its own child's answer" "see $P"
	fi
else
	skip "task: each result is its own child's answer" "no python3"
fi

# A call without a prompt is an error the model sees; a child whose
# request fails says why.
script b1 <<'X'
tool b1 task {"description":"no prompt"}
tool b2 task {"description":"fails","prompt":"Fail."}
finish tool_calls
X
printf 'status 400\nerror bad model name\n' | script b2
printf 'text noted\nfinish stop\n' | script b3
rm -rf "$T/sessions"
startfake -x "$T/b1" "$T/b2" "$T/b3"
run 'bad'
check "task: bad calls, the run goes on" test "$RC" = 0
jsontest "task: no prompt is a tool error" "$REQ/3.json" \
    '"needs a description and a prompt" in d["messages"][-2]["content"]'
jsontest "task: a failed task says why" "$REQ/3.json" \
    '"bad model name" in d["messages"][-1]["content"] and
     "failed" in d["messages"][-1]["content"]'
check "task: the failure on the trace" grep -q 'task 1: .*bad model name' "$T/err"

# Ctrl-C stops a task: its child is gone, the run ends 130.
script i1 <<'X'
tool i1 task {"description":"hang","prompt":"Wait."}
finish tool_calls
X
printf 'stall\n' | script i2
rm -rf "$T/sessions"
startfake "$T/i1" "$T/i2"
(cd "$W" && agentexec timeout 60 "$ROOT/agent" -y 'hang') </dev/null \
    >"$T/out" 2>"$T/err" &
APID=$!
i=0
while [ ! -s "$REQ/2.json" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
KID=$(procs "-[s] $T/sessions" | head -1)
check "task: the child runs" test -n "$KID"
ARGV=$(tr '\0' ' ' </proc/"$KID"/cmdline 2>/dev/null)
check "task: the key is not in its argv" sh -c \
    "case '$ARGV' in *' -yjK '*) ! echo '$ARGV' | grep -q test-key ;;
     *) false ;; esac"
# APID is timeout (agentexec execs it), its one child the agent: ours,
# where a search by name might find another suite's.
kill -INT $(cat /proc/"$APID"/task/*/children)
wait $APID
RC=$?
check "task: Ctrl-C ends the run, 130" test "$RC" = 130
check "task: Ctrl-C stops the child" sh -c "! kill -0 $KID 2>/dev/null ||
    grep -q '^[0-9]* ([^)]*) Z' /proc/$KID/stat"
check "task: the interrupted task is said" grep -q 'task 1: agent: interrupted' "$T/err"

# -r: abort stops a task as it stops bash.
rm -rf "$T/sessions"
startfake "$T/i1" "$T/i2"
if command -v python3 >/dev/null 2>&1; then
	cat >"$T/drive.py" <<'X'
import json, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, bufsize=0)
def until(t):
    while True:
        e = json.loads(p.stdout.readline())
        if e.get("type") == t:
            return e
p.stdin.write(b'{"id":"1","type":"prompt","message":"hang"}\n')
until("tool_execution_start")
import time, os
while not os.path.exists(os.environ["REQ"] + "/2.json"):
    time.sleep(0.05)
p.stdin.write(b'{"id":"2","type":"abort"}\n')
e = until("tool_execution_end")
print("ABORTED" if e["isError"] and "interrupted" in json.dumps(e) else e)
p.stdin.close()
p.wait()
X
	(cd "$W" && REQ=$REQ agentexec timeout 60 python3 "$T/drive.py" \
	    "$ROOT/agent" -r) >"$T/out" 2>"$T/err"
	check "task: -r's abort stops the task" grep -q ABORTED "$T/out"
	check "task: -r leaves no child" test -z "$(procs "-[s] $T/sessions")"
else
	skip "task: -r's abort" "no python3"
fi
stopfake

if [ -n "$EMULATOR" ]; then
	skip "task: a build with a short time limit and depth 2" "no sources under emulation"
	exit 0
fi
# A build whose tasks may run 2 s and start tasks of their own, on a
# provider of their own (the fake, as "other", its key in OTHER_KEY):
# the child gets that key, never this run's.
script d1 <<'X'
tool d1 task {"description":"deep","prompt":"Go deeper."}
finish tool_calls
X
printf 'stall\n' | script d2
printf 'text gave up\nfinish stop\n' | script d3
script e1 <<'X'
tool e1 task {"description":"keyless","prompt":"Go."}
finish tool_calls
X
printf 'text no key then\nfinish stop\n' | script e2
rm -rf "$T/sessions"
startfake "$T/d1" "$T/d2" "$T/d3" "$T/e1" "$T/e2"
mkdir -p "$T/b"
cp "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk "$T/b"/
rm -f "$T/b/config.h"
sed -e 's|^\t1,\t\t/\* depth|\t2,\t\t/* depth|' \
    -e 's|^\t600,\t\t/\* seconds a task|\t2,\t\t/* seconds a task|' \
    -e 's|^\tNULL,\t\t/\* provider: NULL|\t"other",\t/* provider: NULL|' \
    -e '/^static const Provider providers/a\
	{ "other", OPENAI, "'"$URL"'", "OTHER_KEY", "other-model", 32768, 8192, "max_tokens", "off", THNONE, 0 },' \
    "$ROOT/config.def.h" >"$T/b/config.h"
(cd "$T/b" && make agent) >"$T/b.log" 2>&1 ||
    { fail "task: builds" "$(tail -5 "$T/b.log")"; exit 0; }
AGENT=$T/b/agent
OTHER_KEY=other-key run 'deep'
check "task: a timed-out task, the run goes on" test "$RC" = 0
jsontest "task: depth 2, the child may start tasks" "$REQ/2.json" \
    '"task" in [t["function"]["name"] for t in d["tools"]]'
jsontest "task: past its time limit it is stopped and says so" "$REQ/3.json" \
    '"ran past its time limit of 2 s" in d["messages"][-1]["content"]'
check "task: another provider's child has its key, not ours" sh -c \
    "grep -qi 'authorization: Bearer other-key' '$REQ/2.head' &&
     ! grep -q test-key '$REQ/2.head'"
jsontest "task: and its model" "$REQ/2.json" 'd["model"] == "other-model"'
# OTHER_KEY unset: the child has no key (and says so), not ours.
run 'keyless'
check "task: another provider without its key: the run goes on" test "$RC" = 0
jsontest "task: its child gets no key of ours, and says it has none" \
    "$REQ/5.json" '"no API key" in d["messages"][-1]["content"]'
check "task: the keyless child sent nothing" test ! -e "$REQ/6.json"
stopfake
