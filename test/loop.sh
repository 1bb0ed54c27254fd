#!/bin/sh
# loop.sh: end-to-end tests of the tool loop against the fake provider:
# the agent runs tools, sends their results back with matching ids, and
# goes on until the model stops calling tools.
. test/lib.sh
ROOT=$PWD
W=$T/work

# runat args...: the agent in the work directory $W, no terminal to ask on.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" "$@") \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

fresh() {
	rm -rf "$W"
	mkdir -p "$W"
}

# A task that reads, edits, runs a command and answers.
fresh
printf 'hello wrold\nsecond line\n' >"$W/notes.txt"
script r1 <<'X'
text Reading.
tool call_1 read {"path": "notes.txt"}
finish tool_calls
usage 100 10
X
script r2 <<'X'
tool call_2 edit {"path": "notes.txt", "edits": [{"oldText": "wrold", "newText": "world"}]}
finish tool_calls
X
script r3 <<'X'
tool call_3 bash {"command": "tr a-z A-Z < notes.txt > upper.txt; echo ran ok"}
finish tool_calls
X
script r4 <<'X'
text All done.
finish stop
usage 300 5
X
startfake -x "$T/r1" "$T/r2" "$T/r3" "$T/r4"
runat -y -n 'fix the typo and make an upper-case copy'
[ "$RC" -eq 0 ] && ok "task: exit 0" || fail "task: exit 0" "rc $RC: $(cat "$T/err")"
printf 'hello world\nsecond line\n' | cmp -s - "$W/notes.txt" &&
    ok "task: file edited" || fail "task: file edited" "$(cat "$W/notes.txt")"
printf 'HELLO WORLD\nSECOND LINE\n' | cmp -s - "$W/upper.txt" &&
    ok "task: command ran" || fail "task: command ran" "no upper.txt"
printf 'All done.\n' | cmp -s - "$T/out" &&
    ok "task: stdout holds the final answer alone" ||
    fail "task: stdout holds the final answer alone" "$(od -c "$T/out" | head)"
grep -qx 'Reading.' "$T/err" && ok "task: the narration on stderr" ||
    fail "task: the narration on stderr" "$(cat "$T/err")"
[ -f "$REQ/4.json" ] && [ ! -f "$REQ/5.json" ] &&
    ok "task: four requests" || fail "task: four requests" "$(ls "$REQ")"
jsontest "task: read result goes back with its id" "$REQ/2.json" \
    'd["messages"][-1] == {"role": "tool", "tool_call_id": "call_1",
     "content": "hello wrold\nsecond line\n"}'
jsontest "task: assistant message carries the call" "$REQ/2.json" \
    'd["messages"][-2]["tool_calls"][0]["id"] == "call_1" and
     d["messages"][-2]["tool_calls"][0]["function"]["name"] == "read" and
     json.loads(d["messages"][-2]["tool_calls"][0]["function"]["arguments"])
     == {"path": "notes.txt"} and d["messages"][-2]["content"] == "Reading."'
jsontest "task: edit result" "$REQ/3.json" \
    'd["messages"][-1]["tool_call_id"] == "call_2" and
     "notes.txt" in d["messages"][-1]["content"]'
jsontest "task: bash result" "$REQ/4.json" \
    'd["messages"][-1]["tool_call_id"] == "call_3" and
     "ran ok" in d["messages"][-1]["content"]'
jsontest "task: whole history sent" "$REQ/4.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user", "assistant",
     "tool", "assistant", "tool", "assistant", "tool"]'
jsontest "task: tools offered" "$REQ/1.json" \
    'sorted(t["function"]["name"] for t in d["tools"]) ==
     ["bash", "edit", "find", "grep", "ls", "read", "task", "write"]'
grep -q 'read notes.txt' "$T/err" && grep -q 'bash tr a-z' "$T/err" &&
    ok "task: trace on stderr" || fail "task: trace on stderr" "$(cat "$T/err")"

# Two calls in one message: both run, in order, and both answers go back.
fresh
echo aaa >"$W/a.txt"
echo bbb >"$W/b.txt"
script r1 <<'X'
tool id_a read {"path": "a.txt"}
tool id_b read {"path": "b.txt"}
finish tool_calls
X
script r2 <<'X'
text Both read.
finish stop
X
startfake -x "$T/r1" "$T/r2"
runat -n 'read both'
[ "$RC" -eq 0 ] && ok "two calls: exit 0" || fail "two calls: exit 0" "rc $RC"
jsontest "two calls: both results, in order" "$REQ/2.json" \
    '[(m["tool_call_id"], m["content"]) for m in d["messages"][-2:]] ==
     [("id_a", "aaa\n"), ("id_b", "bbb\n")]'
jsontest "two calls: one assistant message with both" "$REQ/2.json" \
    '[c["id"] for c in d["messages"][-3]["tool_calls"]] == ["id_a", "id_b"]'

# No terminal and no -y: a write is refused and the model is told.
fresh
echo keep >"$W/f.txt"
script r1 <<'X'
tool w1 write {"path": "f.txt", "content": "clobbered"}
finish tool_calls
X
script r2 <<'X'
text I could not write.
finish stop
X
startfake -x "$T/r1" "$T/r2"
runat -n 'overwrite f.txt'
[ "$(cat "$W/f.txt")" = keep ] && ok "refused: file untouched" ||
    fail "refused: file untouched" "$(cat "$W/f.txt")"
jsontest "refused: the model is told" "$REQ/2.json" \
    'd["messages"][-1]["tool_call_id"] == "w1" and
     "approv" in d["messages"][-1]["content"]'
[ "$RC" -eq 0 ] && ok "refused: the turn goes on" || fail "refused: the turn goes on" "rc $RC"

# Bad calls become errors the model sees, not crashes.
fresh
script r1 <<'X'
tool bad1 read {"path": "x
tool bad2 nosuch {}
tool bad3 read {"offset": 1}
tool bad4 read [1, 2]
finish tool_calls
X
script r2 <<'X'
text Sorry.
finish stop
X
startfake -x "$T/r1" "$T/r2"
runat -n 'go'
[ "$RC" -eq 0 ] && ok "bad calls: exit 0" || fail "bad calls: exit 0" "rc $RC: $(cat "$T/err")"
jsontest "bad calls: malformed arguments reported" "$REQ/2.json" \
    'd["messages"][-4]["tool_call_id"] == "bad1" and
     "not valid JSON" in d["messages"][-4]["content"]'
jsontest "bad calls: unknown tool reported" "$REQ/2.json" \
    'd["messages"][-3]["content"] == "Tool nosuch not found"'
jsontest "bad calls: missing parameter reported" "$REQ/2.json" \
    '"path" in d["messages"][-2]["content"]'
jsontest "bad calls: arguments not an object" "$REQ/2.json" \
    '"object" in d["messages"][-1]["content"]'

# -t picks the offered tools; a call to another one is refused.
fresh
script r1 <<'X'
tool t1 ls {}
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X
startfake -x "$T/r1" "$T/r2"
runat -n -t read,grep 'hi'
jsontest "-t: only those tools offered" "$REQ/1.json" \
    '[t["function"]["name"] for t in d["tools"]] == ["read", "grep"]'
jsontest "-t: a tool not offered is not run" "$REQ/2.json" \
    'd["messages"][-1]["content"] == "Tool ls not found"'
script r3 <<'X'
text ok
finish stop
X
startfake -x "$T/r3"
runat -n -t '' 'hi'
jsontest "-t '': no tools" "$REQ/1.json" '"tools" not in d'
runat -n -t nosuch 'hi'
[ "$RC" -eq 2 ] && ok "-t: unknown tool is bad usage" || fail "-t: unknown tool is bad usage" "rc $RC"

# Keys never reach a tool.
fresh
script r1 <<'X'
tool e1 bash {"command": "env"}
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X
startfake -x "$T/r1" "$T/r2"
(cd "$W" && export OPENAI_API_KEY=sk-secret-openai && agentexec setsid -w timeout 30 \
    "$ROOT/agent" -y -n 'env') </dev/null >"$T/out" 2>"$T/err"
jsontest "secrets: bash ran env" "$REQ/2.json" \
    '"PATH=" in d["messages"][-1]["content"]'
if grep -q 'test-key\|sk-secret-openai' "$REQ/2.json"; then
	fail "secrets: no key in the tool's environment" "$(grep -o '.\{20\}test-key' "$REQ/2.json")"
else
	ok "secrets: no key in the tool's environment"
fi

# CI's secrets never reach a tool either: any name that says it holds
# one, and a proxy's password; names config.h keeps are kept.
startfake -x "$T/r1" "$T/r2"
(cd "$W" && export GITHUB_TOKEN=s-gh AWS_SECRET_ACCESS_KEY=s-aws \
    NPM_TOKEN=s-npm DB_PASSWORD=s-db npm_config__authToken=s-npmrc \
    MY_PASSWD=s-pw GOOGLE_APPLICATION_CREDENTIALS=s-gc \
    HTTPS_PROXY=http://alice:s-proxy@proxy.example:3128/ \
    all_proxy=bob:s-allp@socks.example:1080 \
    KEYTIMEOUT=1 TOKENIZERS_PARALLELISM=false DB_PASS=s-dbp \
    CI_JOB_JWT=s-jwt SENTRY_DSN=https://s-dsn@sentry.example/1 \
    DATABASE_URL=postgres://carol:s-url@db.example/prod \
    PIP_EXTRA_INDEX_URL="https://u:s-pipa@a.example/s https://v:s-pipb@b.example/s" \
    GIT_ASKPASS=/bin/true EMAIL=me@example.com &&
    agentexec setsid -w timeout 30 "$ROOT/agent" -y -n 'env') \
    </dev/null >"$T/out" 2>"$T/err"
for v in GITHUB_TOKEN AWS_SECRET_ACCESS_KEY NPM_TOKEN DB_PASSWORD \
    npm_config__authToken MY_PASSWD GOOGLE_APPLICATION_CREDENTIALS \
    DB_PASS CI_JOB_JWT; do
	jsontest "secrets: $v not in the tool's environment" "$REQ/2.json" \
	    '"PATH=" in d["messages"][-1]["content"] and
	     "'$v'=" not in d["messages"][-1]["content"]'
done
if grep -q 's-gh\|s-aws\|s-npm\|s-db\|s-pw\|s-gc\|s-proxy\|s-allp\|alice\|bob\|s-jwt\|s-dsn\|s-url\|carol\|s-pip' \
    "$REQ/2.json"; then
	fail "secrets: no CI secret or proxy password in the tool's environment" \
	    "$(grep -o 's-[a-z]*\|alice\|bob\|carol' "$REQ/2.json" | sort -u)"
else
	ok "secrets: no CI secret or proxy password in the tool's environment"
fi
jsontest "secrets: proxies keep their host and port" "$REQ/2.json" \
    '"HTTPS_PROXY=http://proxy.example:3128/\n" in d["messages"][-1]["content"]
     and "all_proxy=socks.example:1080\n" in d["messages"][-1]["content"]'
jsontest "secrets: URLs keep all but their user:password@" "$REQ/2.json" \
    '"DATABASE_URL=postgres://db.example/prod\n" in d["messages"][-1]["content"]
     and "PIP_EXTRA_INDEX_URL=https://a.example/s https://b.example/s\n" in
     d["messages"][-1]["content"] and "SENTRY_DSN=" not in
     d["messages"][-1]["content"] and "EMAIL=me@example.com\n" in
     d["messages"][-1]["content"]'
jsontest "secrets: names config.h keeps are kept" "$REQ/2.json" \
    '"KEYTIMEOUT=1\n" in d["messages"][-1]["content"] and
     "TOKENIZERS_PARALLELISM=false\n" in d["messages"][-1]["content"] and
     "GIT_ASKPASS=/bin/true\n" in d["messages"][-1]["content"]'

# The wire examples of test/data: thinking on stderr, text on stdout, two
# calls assembled from pieces, their results in order.
fresh
printf 'stand-up moves to 9:30\ncaf\303\251 on the 3rd floor\n' >"$W/notes.txt"
printf 'fix the parser\nwrite the changelog\n' >"$W/todo.txt"
script r1 <<X
raw $ROOT/test/data/openai-toolcall.sse
X
script r2 <<X
raw $ROOT/test/data/openai-text.sse
X
startfake -x "$T/r1" "$T/r2"
runat -n 'sum up my notes and todo list'
[ "$RC" -eq 0 ] && ok "wire: exit 0" || fail "wire: exit 0" "rc $RC: $(cat "$T/err")"
printf 'The note says: "stand-up moves to 9:30", caf\303\251 on the 3rd floor \342\230\225 \360\237\232\200\n' |
    cmp -s - "$T/out" && grep -q "^I'll read both files.$" "$T/err" &&
    ok "wire: stdout" ||
    fail "wire: stdout" "$(od -c "$T/out" | head)"
grep -q 'The user wants both files summed up; read them first.' "$T/err" &&
    ok "wire: thinking on stderr" || fail "wire: thinking on stderr" "$(cat "$T/err")"
jsontest "wire: both calls assembled from their pieces" "$REQ/2.json" \
    '[(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"]))
      for c in d["messages"][-3]["tool_calls"]] ==
     [("call_00_q3VZ8kTfLw1xRb6NdYc", "read", {"path": "notes.txt"}),
      ("call_01_Hm2JpX7sGv4eKa9UtLo", "read", {"path": "todo.txt", "limit": 2})]'
jsontest "wire: both calls answered, in order" "$REQ/2.json" \
    'd["messages"][-2:] == [{"role": "tool", "tool_call_id": "call_00_q3VZ8kTfLw1xRb6NdYc",
     "content": "stand-up moves to 9:30\ncaf\u00e9 on the 3rd floor\n"},
     {"role": "tool", "tool_call_id": "call_01_Hm2JpX7sGv4eKa9UtLo",
     "content": "fix the parser\nwrite the changelog\n"}]'

# The turn limit is not hit by a normal task, and line mode keeps tool
# history between messages.
fresh
echo x >"$W/x.txt"
script r1 <<'X'
tool l1 read {"path": "x.txt"}
finish tool_calls
X
script r2 <<'X'
text first
finish stop
X
script r3 <<'X'
text second
finish stop
X
startfake -x "$T/r1" "$T/r2" "$T/r3"
printf 'one\ntwo\n' >"$T/in"
(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/agent" -n) <"$T/in" >"$T/out" 2>"$T/err"
jsontest "line mode: tool history kept" "$REQ/3.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user", "assistant",
     "tool", "assistant", "user"]'

# Project instructions: AGENTS.md (or CLAUDE.md) from the working directory
# up, outermost first, in the system prompt.
fresh
mkdir -p "$W/sub"
echo 'Use tabs.' >"$W/AGENTS.md"
echo 'Inner rule.' >"$W/sub/AGENTS.md"
echo 'Not read: AGENTS.md comes first.' >"$W/sub/CLAUDE.md"
script r1 <<'X'
text ok
finish stop
X
startfake -x "$T/r1"
(cd "$W/sub" && agentexec setsid -w timeout 30 "$ROOT/agent" -n hi) \
    </dev/null >"$T/out" 2>"$T/err"
jsontest "context: AGENTS.md files, outermost first" "$REQ/1.json" \
    'd["messages"][0]["role"] == "system" and
     0 < d["messages"][0]["content"].find("Use tabs.") <
     d["messages"][0]["content"].find("Inner rule.") and
     "Not read" not in d["messages"][0]["content"]'
python3 - "$REQ/1.json" "$T" >"$T/py" 2>&1 <<'X'
import json, os, re, sys, time
exec(os.environ["UNENV"])
d = json.load(open(sys.argv[1]))
e = envof(d)
assert "Current date" not in d["messages"][0]["content"], "in the system prompt"
assert re.fullmatch("Current date: %s\nCurrent working directory: %s/work/sub\n\n"
                    % (time.strftime("%Y-%m-%d", time.gmtime()), sys.argv[2]), e), e
assert unenv(d)["messages"][1]["content"] == "hi"
X
[ $? -eq 0 ] && ok "context: the date and directory go before the first message, not in the system prompt" ||
    fail "context: the date and directory go before the first message, not in the system prompt" "$(cat "$T/py")"

# A key is not in /proc/PID/environ of the agent either, where a tool
# could read it.
fresh
script r1 <<'X'
tool p1 bash {"command": "tr '\\0' '\\n' < /proc/$PPID/environ"}
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X
if [ -r /proc/self/environ ]; then
	startfake -x "$T/r1" "$T/r2"
	(cd "$W" && export OPENAI_API_KEY=sk-secret-openai && agentexec setsid -w \
	    timeout 30 "$ROOT/agent" -y -n 'env') </dev/null >"$T/out" 2>"$T/err"
	jsontest "secrets: the agent's environment was read" "$REQ/2.json" \
	    '"AGENT_BASE_URL=" in d["messages"][-1]["content"]'
	if [ -n "$EMULATOR" ]; then
		# qemu copies the environment for the program it runs: what
		# the agent blanks is that copy, not what /proc shows
		echo "skip - secrets: no key in /proc/PPID/environ:" \
		    "/proc shows $EMULATOR's environment"
	elif grep -q 'test-key\|sk-secret-openai' "$REQ/2.json"; then
		fail "secrets: no key in /proc/PPID/environ" "$(grep -o '.\{30\}test-key' "$REQ/2.json")"
	else
		ok "secrets: no key in /proc/PPID/environ"
	fi
else
	skip "secrets: no key in /proc/PPID/environ" "no /proc"
fi

# Servers differ in how they send calls: the id and name again in every
# piece, no id at all, the arguments as an object.
fresh
echo one >"$W/a.txt"
script r1 <<'X'
line data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "rep", "type": "function", "function": {"name": "read", "arguments": "{\"pa"}}]}}]}
line
line data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "rep", "type": "function", "function": {"name": "read", "arguments": "th\": \"a.txt\"}"}}]}}]}
line
line data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "function": {"name": "read", "arguments": "{\"path\": \"a.txt\"}"}}]}}]}
line
line data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 2, "id": "obj", "function": {"name": "read", "arguments": {"path": "a.txt"}}}]}}]}
line
line data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1e10, "id": "huge", "function": {"name": "read", "arguments": "{}"}}]}}]}
line
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X
startfake -x "$T/r1" "$T/r2"
runat -n 'read'
jsontest "call shapes: id and name sent twice are not doubled" "$REQ/2.json" \
    'd["messages"][-4]["tool_calls"][0]["id"] == "rep" and
     d["messages"][-4]["tool_calls"][0]["function"]["name"] == "read" and
     d["messages"][-3] == {"role": "tool", "tool_call_id": "rep", "content": "one\n"}'
jsontest "call shapes: a call without an id gets one, and its result too" "$REQ/2.json" \
    'd["messages"][-4]["tool_calls"][1]["id"] != "" and
     d["messages"][-2]["tool_call_id"] == d["messages"][-4]["tool_calls"][1]["id"] and
     d["messages"][-2]["content"] == "one\n"'
jsontest "call shapes: arguments as an object" "$REQ/2.json" \
    'd["messages"][-1] == {"role": "tool", "tool_call_id": "obj", "content": "one\n"}'
jsontest "call shapes: an index out of range is dropped" "$REQ/2.json" \
    'len(d["messages"][-4]["tool_calls"]) == 3'

# What the model asks for reaches the terminal made safe: an escape
# sequence cannot hide part of a command.
fresh
script r1 <<'X'
tool s1 bash {"command": "echo safe \u001b[2K\u001b[1Grm -rf x; echo hidden"}
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X
startfake -x "$T/r1" "$T/r2"
runat -y -n 'go'
if grep -q "$(printf '\033')" "$T/err"; then
	fail "trace: no escape sequence from the model" "$(od -c "$T/err" | head -5)"
else
	ok "trace: no escape sequence from the model"
fi
grep -q 'echo safe \\x1b\[2K' "$T/err" && ok "trace: control characters shown as \\xNN" ||
    fail "trace: control characters shown as \\xNN" "$(cat "$T/err")"
