#!/bin/sh
# rpc.sh: -r, pi's rpc mode: a whole session driven over a pipe: a prompt,
# a steer while it streams, an abort while bash sleeps, the questions
# about the state, a compaction, bad lines, and the end of stdin.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
if ! command -v python3 >/dev/null 2>&1; then
	skip "rpc" "no python3"
	exit 0
fi

# 1: the answer to "hi", slow enough to be steered; 2: the steer's, long
# enough to be worth compacting; 3: a bash call that sleeps; 4: after the
# abort; 5: the summary; 6: an answer that stalls, to be aborted.
script r1 <<'X'
delay 200
text Hello
text  there
text  friend
finish stop
X
script r2 <<'X'
big 100000
finish stop
X
script r3 <<'X'
tool c1 bash {"command": "sleep 30"}
finish tool_calls
X
script r4 <<'X'
text After the abort.
finish stop
X
script r5 <<'X'
text ## Goal
text \nsay hi
finish stop
X
script r6 <<'X'
text Partial
stall
X
startfake "$T/r1" "$T/r2" "$T/r3" "$T/r4" "$T/r5" "$T/r6"
cat >"$T/drive.py" <<'X'
import json, subprocess, sys, time
log = open(sys.argv[1], "w")
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, bufsize=0)
def send(o):
    p.stdin.write((o if isinstance(o, str) else json.dumps(o)).encode()
                  + b"\n")
def until(pred):
    while True:
        l = p.stdout.readline()
        if not l:
            raise SystemExit("stdout ended early")
        log.write(l.decode())
        log.flush()
        e = json.loads(l)
        if pred(e):
            return e
def ask(o):
    send(o)
    return until(lambda e: e.get("id") == o["id"])
def timed(o):
    t = time.time()
    ask(o)
    log.write(json.dumps({"took": o["id"], "s": time.time() - t}) + "\n")
send({"id": "1", "type": "prompt", "message": "hi"})
until(lambda e: e["type"] == "message_update")
send({"id": "2", "type": "steer", "message": "be brief"})
send("this is not json")
send({"id": "3", "type": "frobnicate"})
send({"id": 4, "type": "get_state"})
send({"id": "4b", "type": "prompt", "message": "busy"})
until(lambda e: e["type"] == "agent_end")
send({"id": "5", "type": "prompt", "message": "run it"})
until(lambda e: e["type"] == "tool_execution_start")
time.sleep(0.3)
timed({"id": "6", "type": "abort"})
send({"id": "7", "type": "prompt", "message": "again"})
until(lambda e: e["type"] == "agent_end")
ask({"id": "8", "type": "get_messages"})
ask({"id": "9", "type": "get_last_assistant_text"})
ask({"id": "10", "type": "compact"})
ask({"id": "11", "type": "set_thinking_level", "level": "high"})
ask({"id": "11b", "type": "set_thinking_level", "level": "huge"})
ask({"id": "12", "type": "bash", "command": "echo hi"})
ask({"id": "12b", "type": "bash", "command": "echo no; exit 3"})
send({"id": "13", "type": "bash", "command": "sleep 30"})
time.sleep(0.3)
timed({"id": "14", "type": "abort_bash"})
until(lambda e: e.get("id") == "13")
send({"id": "15", "type": "prompt", "message": "stall"})
until(lambda e: e["type"] == "message_update")
timed({"id": "16", "type": "abort"})
ask({"id": "17", "type": "get_state"})
ask({"id": "18", "type": "set_model", "provider": "nope", "modelId": "x"})
ask({"id": "19", "type": "set_model", "provider": "openai-chat",
     "modelId": "other-model"})
ask({"id": "20", "type": "new_session"})
ask({"id": "21", "type": "get_state"})
p.stdin.close()
t = time.time()
log.write(p.stdout.read().decode())
log.write(json.dumps({"rc": p.wait(), "exit": time.time() - t}) + "\n")
X
(cd "$W" && agentexec timeout 60 python3 "$T/drive.py" "$T/out" \
    "$ROOT/agent" -r -y -q) >"$T/drv" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && ok "-r: a whole session over a pipe" ||
    fail "-r: a whole session over a pipe" \
    "rc $RC: $(cat "$T/drv" "$T/err" | head -c 600)"

# Each check: a name and an expression true of ev (stdout's lines,
# parsed), r (the responses by id), ty (the types of ev in order), ends
# (the message_end events) and took (how long the timed requests took).
python3 - "$T/out" <<'X' || fail "-r: the events" "$(head -c 600 "$T/out")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
r = {e["id"]: e for e in ev if e.get("type") == "response" and "id" in e}
ty = [e.get("type") for e in ev]
ends = [e for e in ev if e.get("type") == "message_end"]
took = {e["took"]: e["s"] for e in ev if "took" in e}
checks = [
    ("-r: every line of stdout is JSON, no session header",
     lambda: "session" not in ty and ty[0] == "response"),
    ("-r: a prompt is answered before its events",
     lambda: r["1"]["success"] and ev.index(r["1"]) < ty.index("agent_start")),
    ("-r: responses echo the id, a number too",
     lambda: r[4]["command"] == "get_state" and r[4]["data"]["isStreaming"]),
    ("-r: a line that is not JSON gets a parse error",
     lambda: [e for e in ev if e.get("command") == "parse" and not e["success"]
     and e["error"].startswith("Failed to parse command")]),
    ("-r: an unknown command gets an error, the session goes on",
     lambda: r["3"]["error"] == "Unknown command: frobnicate" and r["5"]["success"]),
    ("-r: a prompt while streaming needs a streamingBehavior",
     lambda: not r["4b"]["success"] and "streamingBehavior" in r["4b"]["error"]),
    ("-r: a steer comes after the streamed answer, before the next call",
     lambda: [(e["type"], e.get("message", {}).get("role")) for e in ev
     if e.get("type") in ("message_end", "turn_start")][:6] ==
     [("turn_start", None), ("message_end", "user"),
     ("message_end", "assistant"), ("turn_start", None),
     ("message_end", "user"), ("message_end", "assistant")] and
     ends[2]["message"]["content"][0]["text"] == "be brief"),
    ("-r: abort stops bash sleep 30 within 1 s",
     lambda: took["6"] < 1),
    ("-r: the aborted call's result says so",
     lambda: [e for e in ev if e.get("type") == "tool_execution_end"][0]["isError"] and
     "aborted" in [e for e in ev if e.get("type") == "tool_execution_end"][0]
     ["result"]["content"][0]["text"]),
    ("-r: abort is answered once the turn has ended",
     lambda: ev.index(r["6"]) > [i for i, t in enumerate(ty) if t == "agent_end"][1]),
    ("-r: get_messages",
     lambda: [m["role"] for m in r["8"]["data"]["messages"]] == ["user",
     "assistant", "user", "assistant", "user", "assistant", "toolResult",
     "assistant", "user", "assistant"]),
    # pi: after the tools, the next call is aborted at once, and kept
    ("-r: abort during a tool: an aborted answer closes the turn",
     lambda: r["8"]["data"]["messages"][7]["stopReason"] == "aborted" and
     r["8"]["data"]["messages"][7]["content"] == []),
    ("-r: get_last_assistant_text",
     lambda: r["9"]["data"] == {"text": "After the abort."}),
    ("-r: compact answers with the summary",
     lambda: r["10"]["success"] and r["10"]["data"]["summary"].startswith("## Goal")
     and r["10"]["data"]["firstKeptEntryId"] and "compaction_end" in ty),
    ("-r: set_thinking_level: a level, and not a bad one",
     lambda: r["11"]["success"] and not r["11b"]["success"] and
     r["17"]["data"]["thinkingLevel"] == "high"),
    ("-r: bash runs the user's command",
     lambda: r["12"]["data"] == {"output": "hi\n", "exitCode": 0,
     "cancelled": False, "truncated": False}),
    ("-r: bash: a command that fails",
     lambda: r["12b"]["data"] == {"output": "no\n", "exitCode": 3,
     "cancelled": False, "truncated": False}),
    ("-r: bash sends no tool events, as pi's",
     lambda: "tool_execution_update" not in ty[ev.index(r["11b"]):ev.index(r["13"])]),
    ("-r: abort_bash stops it within 1 s",
     lambda: r["14"]["success"] and r["13"]["data"]["cancelled"] and took["14"] < 1),
    ("-r: abort while streaming: what came is kept, marked aborted",
     lambda: took["16"] < 1 and ends[-1]["message"]["stopReason"] == "aborted" and
     ends[-1]["message"]["content"][0]["text"] == "Partial"),
    ("-r: the state after it all",
     lambda: not r["17"]["data"]["isStreaming"] and
     r["17"]["data"]["sessionFile"].endswith(".jsonl") and
     r["17"]["data"]["messageCount"] > 0),
    ("-r: set_model: another model of the provider in use",
     lambda: not r["18"]["success"] and r["19"]["success"] and
     r["21"]["data"]["model"]["id"] == "other-model"),
    ("-r: new_session: an empty context in another file",
     lambda: r["20"]["success"] and r["21"]["data"]["messageCount"] == 0 and
     r["21"]["data"]["sessionId"] != r["17"]["data"]["sessionId"]),
    ("-r: the end of stdin ends the run, status 0",
     lambda: ev[-1]["rc"] == 0 and ev[-1]["exit"] < 2),
]
for name, f in checks:
    try:
        good = f()
        why = "not true"
    except Exception as e:
        good, why = False, repr(e)
    print("ok - " + name if good else "FAIL - %s: %s" % (name, why))
X

# The session file is whole and goes on in another run.
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
python3 - "$F" <<'X' && ok "-r: the session file is valid" ||
import json, sys
es = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
roles = [e["message"]["role"] for e in es if e["type"] == "message"]
assert es[0]["type"] == "session"
assert "bashExecution" in roles, roles
assert any(e["type"] == "compaction" for e in es)
stops = [e["message"].get("stopReason") for e in es if e["type"] ==
         "message" and e["message"]["role"] == "assistant"]
assert stops[-1] == "aborted", stops
assert any(e["type"] == "thinking_level_change" and
           e["thinkingLevel"] == "high" for e in es)
X
    fail "-r: the session file is valid" "$(head -c 600 "$F")"
grep -q '"reasoning_effort":"high"' "$REQ/6.json" &&
    ok "-r: the level set is sent" ||
    fail "-r: the level set is sent" "$(head -c 300 "$REQ/6.json")"
script r7 <<'X'
text Resumed.
finish stop
X
startfake -x "$T/r7"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -q -s "$F" 'go on') \
    </dev/null >"$T/out2" 2>"$T/err2"
RC=$?
[ "$RC" -eq 0 ] && [ "$(cat "$T/out2")" = "Resumed." ] &&
    grep -q 'Ran `echo hi`' "$REQ/1.json" &&
    ok "-r: the session resumes, the bash command in its context" ||
    fail "-r: the session resumes, the bash command in its context" \
    "rc $RC: $(cat "$T/err2")"

# The end of stdin while a turn runs: the turn is done first.
script e1 <<'X'
delay 100
text One
text  two
finish stop
X
startfake -x "$T/e1"
printf '{"type":"prompt","message":"hi"}\n' >"$T/in"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -r -n -q) <"$T/in" \
    >"$T/out3" 2>"$T/err3"
RC=$?
[ "$RC" -eq 0 ] && tail -1 "$T/out3" | grep -q '"agent_end"' &&
    grep -q '"text":"One two"' "$T/out3" &&
    ok "-r: the end of stdin ends the run after the turn" ||
    fail "-r: the end of stdin ends the run after the turn" \
    "rc $RC: $(cat "$T/err3") $(tail -c 300 "$T/out3")"

# bash as the first command of a run, before any tool call: its output
# as printed, last newline and all, as pi answers it.  (Like pi's, a
# run whose stdin ends drops a bash command not yet answered: stdin
# stays open a while.)
{ printf '{"id":"b","type":"bash","command":"echo hi; printf x"}\n'
  sleep 1; } | (cd "$W" && agentexec timeout 30 "$ROOT/agent" -r -n -q) \
    >"$T/out5" 2>"$T/err5"
RC=$?
[ "$RC" -eq 0 ] && [ "$(wc -l <"$T/out5")" -eq 1 ] &&
    grep -q '"output":"hi\\nx","exitCode":0' "$T/out5" &&
    ok "-r: bash first thing in a run" ||
    fail "-r: bash first thing in a run" \
    "rc $RC: $(cat "$T/err5") $(head -c 300 "$T/out5")"

# SIGTERM while idle: an orderly end, 128 + 15.
startfake
mkfifo "$T/fifo"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -r -n -q) <"$T/fifo" \
    >"$T/out4" 2>"$T/err4" &
PID=$!
exec 3>"$T/fifo"
echo '{"id":"s","type":"get_state"}' >&3
i=0
while [ "$i" -lt 50 ] && ! grep -q '"get_state"' "$T/out4"; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$PID"
wait "$PID"
RC=$?
exec 3>&-
[ "$RC" -eq 143 ] && grep -q '"success":true' "$T/out4" &&
    ok "-r: SIGTERM ends the run, status 143" ||
    fail "-r: SIGTERM ends the run, status 143" "rc $RC: $(cat "$T/err4")"

# An abort while a failed request waits to be tried again.
script b1 <<'X'
status 503
retry-after 30
X
startfake "$T/b1"
cat >"$T/wait.py" <<'X'
import json, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, bufsize=0)
p.stdin.write(b'{"type":"prompt","message":"hi"}\n')
while json.loads(p.stdout.readline())["type"] != "message_start":
    pass
time.sleep(1)
t = time.time()
p.stdin.write(b'{"id":"a","type":"abort"}\n')
while json.loads(p.stdout.readline()).get("id") != "a":
    pass
print(time.time() - t)
X
(cd "$W" && agentexec timeout 30 python3 "$T/wait.py" "$ROOT/agent" -r -n -q) \
    >"$T/out5" 2>"$T/err5"
RC=$?
[ "$RC" -eq 0 ] && python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 1)' \
    "$(cat "$T/out5")" 2>/dev/null &&
    ok "-r: abort stops the wait before a retry within 1 s" ||
    fail "-r: abort stops the wait before a retry within 1 s" \
    "rc $RC: $(cat "$T/out5" "$T/err5")"

# An abort while grep matches one long line with a slow pattern: stdin
# is looked at inside the line, not only when the search ends.
python3 -c 'import sys; sys.stdout.write("a" * (4 << 20) + "\n")' \
    >"$W/big.txt"
script g1 <<'X'
tool g1 grep {"pattern": "(a*a*a*a*a*a*a*a*a*a*){50}b", "path": "big.txt"}
finish tool_calls
X
startfake "$T/g1" "$T/r4"
cat >"$T/grep.py" <<'X'
import json, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, bufsize=0)
p.stdin.write(b'{"type":"prompt","message":"hi"}\n')
while json.loads(p.stdout.readline())["type"] != "tool_execution_start":
    pass
time.sleep(0.3)
t = time.time()
p.stdin.write(b'{"id":"a","type":"abort"}\n')
while True:
    e = json.loads(p.stdout.readline())
    if e.get("type") == "tool_execution_end":
        end = e
    if e.get("id") == "a":
        break
print(time.time() - t, json.dumps(end["result"]))
X
(cd "$W" && agentexec timeout 60 python3 "$T/grep.py" "$ROOT/agent" -r -n -q) \
    >"$T/out6" 2>"$T/err6"
RC=$?
[ "$RC" -eq 0 ] && python3 -c 'import sys; sys.exit(float(sys.argv[1]) >= 2)' \
    "$(cut -d' ' -f1 "$T/out6")" 2>/dev/null &&
    grep -q Interrupted "$T/out6" &&
    ok "-r: abort stops grep inside a 4 MB line within 2 s" ||
    fail "-r: abort stops grep inside a 4 MB line within 2 s" \
    "rc $RC: $(cat "$T/out6" "$T/err6")"
