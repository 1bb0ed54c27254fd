#!/bin/sh
# guard.sh: the guard: profiles (-g), the sandbox the kernel holds tool
# processes and the file tools in (Landlock), rules and hooks from
# config.h, and a config.h that cannot work refused at start.
. test/lib.sh
ROOT=$PWD
W=$T/work
O=$T/outside

# runat args...: the agent in $W, no terminal to ask on.
runat() {
	(cd "$W" && agentexec setsid -w timeout 30 "${AGENT:-$ROOT/agent}" \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

fresh() {
	rm -rf "$W" "$O" "$T/sessions"
	mkdir -p "$W" "$O"
}

# result N: the content of the last message of request N (a tool result).
result() {
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["messages"][-1]["content"])' "$REQ/$1.json"
}

# has NAME N TEXT: ok when the last message of request N holds TEXT.
has() {
	jsontest "$1" "$REQ/$2.json" \
	    '"""'"$3"'""" in d["messages"][-1]["content"]'
}

# hasnot NAME N TEXT: ok when it does not.
hasnot() {
	jsontest "$1" "$REQ/$2.json" \
	    '"""'"$3"'""" not in d["messages"][-1]["content"]'
}

printf 'text done\nfinish stop\n' | script done

# The default profile, with -y: bash writes inside the tree and in its
# own TMPDIR, not outside; write refuses outside, directly or through a
# symlink; the session is still written.
fresh
ln -s "$O" "$W/out"
echo keep >"$O/file"
ln -s "$O/file" "$W/flink"
script b1 <<X
tool c1 bash {"command": "echo in > inside.txt && echo wrote-inside; echo t > \"\$TMPDIR/t\" && echo wrote-tmp; echo tmpdir=\$TMPDIR; echo x > $O/bash.txt && echo wrote-outside"}
finish tool_calls
X
script b2 <<X
tool c2 write {"path": "$O/w.txt", "content": "x"}
tool c3 write {"path": "out/w.txt", "content": "x"}
tool c4 write {"path": "flink", "content": "clobbered"}
tool c5 edit {"path": "$O/file", "edits": [{"oldText": "keep", "newText": "gone"}]}
tool c6 write {"path": "sub/new.txt", "content": "fine"}
finish tool_calls
X
startfake -x "$T/b1" "$T/b2" "$T/done"
runat -y 'go'
LL=1
if grep -q 'not sandboxed' "$T/err"; then
	LL=0
	skip "landlock" "the kernel has none: $(grep 'not sandboxed' "$T/err")"
fi
[ "$RC" -eq 0 ] && ok "workspace: exit 0" || fail "workspace: exit 0" "rc $RC: $(cat "$T/err")"
[ -f "$W/inside.txt" ] && ok "workspace: bash writes inside the tree" ||
    fail "workspace: bash writes inside the tree" "$(cat "$T/err")"
has "workspace: bash writes in its TMPDIR" 2 wrote-tmp
if [ "$LL" = 1 ]; then
	[ ! -e "$O/bash.txt" ] && ok "workspace: bash cannot write outside" ||
	    fail "workspace: bash cannot write outside" "$O/bash.txt exists"
	hasnot "workspace: the model sees the failure" 2 wrote-outside
	has "workspace: the model is told why" 2 "Permission denied"
fi
[ ! -e "$O/w.txt" ] && ok "workspace: write refused outside" ||
    fail "workspace: write refused outside" "$O/w.txt exists"
[ "$(cat "$O/file")" = keep ] && ok "workspace: no write nor edit through a link or path outside" ||
    fail "workspace: no write nor edit through a link or path outside" "$(cat "$O/file")"
jsontest "workspace: write and edit refused, the model told" "$REQ/3.json" \
    '[m["content"].startswith("Not allowed: ") for m in d["messages"][-5:-1]]
     == [True] * 4 and "leads to '"$O"'/w.txt" in d["messages"][-4]["content"]'
[ "$(cat "$W/sub/new.txt" 2>/dev/null)" = fine ] &&
    ok "workspace: write works inside, parents made" ||
    fail "workspace: write works inside, parents made" "$(result 3)"
grep -q 'write flink -> Not allowed' "$T/err" &&
    ok "workspace: the trace says a write was refused" ||
    fail "workspace: the trace says a write was refused" "$(cat "$T/err")"
F=$(find "$T/sessions" -name '*.jsonl' 2>/dev/null | head -1)
[ -n "$F" ] && grep -q 'Not allowed' "$F" && ok "workspace: the session file is written" ||
    fail "workspace: the session file is written" "none in $T/sessions"
D=$(result 2 2>/dev/null | sed -n 's/^tmpdir=//p')
command -v python3 >/dev/null 2>&1 || D=none
case $D in
none) skip "workspace: the run's TMPDIR removed at exit" "no python3" ;;
*/agent-tmp-*) [ ! -e "$D" ] && ok "workspace: the run's TMPDIR removed at exit" ||
    fail "workspace: the run's TMPDIR removed at exit" "$D is there" ;;
*) fail "workspace: the run's TMPDIR removed at exit" "TMPDIR was '$D'" ;;
esac

# TCP from bash: refused under the default profile, allowed under full; the
# agent's own requests go on.  A second fake gives a port to reach.
if [ "$LL" = 1 ] && [ -x /bin/bash ]; then
	./test/fake -p "$T/port2" "$T/done" 2>/dev/null &
	F2=$!
	i=0
	while [ ! -s "$T/port2" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	P2=$(cat "$T/port2")
	script n1 <<X
tool n1 bash {"command": "exec 3<>/dev/tcp/127.0.0.1/$P2 && echo connected"}
finish tool_calls
X
	fresh
	startfake -x "$T/n1" "$T/done"
	runat -y 'go'
	[ "$RC" -eq 0 ] && [ -f "$REQ/2.json" ] && ok "network: the agent's requests work" ||
	    fail "network: the agent's requests work" "rc $RC: $(cat "$T/err")"
	hasnot "network: no TCP connection from bash" 2 connected
	startfake -x "$T/n1" "$T/done"
	runat -y -g full 'go'
	has "network: -g full connects" 2 connected
	kill "$F2" 2>/dev/null
	wait "$F2" 2>/dev/null
fi

# An abstract Unix socket (a server's way in that no path guards): not
# reached under the default profile (Landlock ABI 6), reached under full.
if [ "$LL" = 1 ] && command -v python3 >/dev/null 2>&1; then
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1])
s.listen(5)
open(sys.argv[2], "w").write("up")
while True:
    s.accept()[0].close()' "agent-guard-$$" "$T/unixup" 2>/dev/null &
	U=$!
	i=0
	while [ ! -s "$T/unixup" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	script u1 <<'X'
tool u1 bash {"command": "python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"\\0NAME\"); print(\"unix-connected\")'"}
finish tool_calls
X
	sed -i "s/NAME/agent-guard-$$/" "$T/u1"
	fresh
	startfake -x "$T/u1" "$T/done"
	runat -y 'go'
	abi=$(python3 -c 'import ctypes
print(ctypes.CDLL(None).syscall(444, None, 0, 1))' 2>/dev/null)
	if [ "${abi:-0}" -ge 6 ]; then
		hasnot "network: no abstract Unix socket from bash" 2 unix-connected
	else
		skip "network: no abstract Unix socket from bash" "Landlock ABI ${abi:-?} < 6"
	fi
	startfake -x "$T/u1" "$T/done"
	runat -y -g full 'go'
	has "network: -g full reaches the abstract Unix socket" 2 unix-connected
	kill "$U" 2>/dev/null
	wait "$U" 2>/dev/null
fi

# -g readonly: write and edit not offered; bash writes nothing but in
# its TMPDIR.  AGENT_PROFILE picks it as well.
fresh
script r1 <<'X'
tool r1 bash {"command": "touch made.txt && echo touched; echo t > \"$TMPDIR/t\" && echo tmp-ok"}
tool r2 write {"path": "w.txt", "content": "x"}
finish tool_calls
X
startfake -x "$T/r1" "$T/done"
runat -y -g readonly 'go'
jsontest "readonly: write and edit not offered" "$REQ/1.json" \
    'sorted(t["function"]["name"] for t in d["tools"]) ==
     ["bash", "find", "grep", "ls", "read", "task"]'
if [ "$LL" = 1 ]; then
	[ -z "$(ls -A "$W")" ] && ok "readonly: nothing created" ||
	    fail "readonly: nothing created" "$(ls -A "$W")"
else
	[ ! -e "$W/w.txt" ] && ok "readonly: write not run" ||
	    fail "readonly: write not run" "$(ls -A "$W")"
fi
if [ "$LL" = 1 ]; then
	jsontest "readonly: bash touch fails, its TMPDIR works" "$REQ/2.json" \
	    '"touched" not in d["messages"][-2]["content"] and
	     "tmp-ok" in d["messages"][-2]["content"]'
fi
has "readonly: a write call is refused" 2 "Tool write not found"
startfake -x "$T/done"
(export AGENT_PROFILE=readonly; runat -n 'go')
jsontest "AGENT_PROFILE=readonly: write not offered" "$REQ/1.json" \
    '"write" not in [t["function"]["name"] for t in d["tools"]]'

# -t cannot offer what the profile withholds, and says so.
startfake -x "$T/done"
runat -n -g readonly -t read,write 'go'
jsontest "readonly: -t write is not offered" "$REQ/1.json" \
    '[t["function"]["name"] for t in d["tools"]] == ["read"]'
grep -q 'the readonly profile offers no write' "$T/err" &&
    ok "readonly: -t write warns" || fail "readonly: -t write warns" "$(cat "$T/err")"

# -g full: no sandbox.
fresh
script f1 <<X
tool f1 bash {"command": "echo x > $O/full.txt && echo wrote"}
tool f2 write {"path": "$O/fw.txt", "content": "x"}
finish tool_calls
X
startfake -x "$T/f1" "$T/done"
runat -y -g full 'go'
[ -f "$O/full.txt" ] && [ -f "$O/fw.txt" ] && ok "full: bash and write write outside" ||
    fail "full: bash and write write outside" "$(result 2)"

# -g plan: the plan file alone is written; the prompt asks for a plan.
fresh
script p1 <<'X'
tool p1 bash {"command": "touch other.txt && echo touched"}
tool p2 write {"path": "PLAN.md", "content": "1. do it\n"}
tool p3 write {"path": "other.md", "content": "x"}
finish tool_calls
X
script p2 <<'X'
tool p4 edit {"path": "PLAN.md", "edits": [{"oldText": "do it", "newText": "do it well"}]}
tool p5 bash {"command": "echo more >> PLAN.md && echo appended"}
finish tool_calls
X
startfake -x "$T/p1" "$T/p2" "$T/done"
runat -y -g plan 'plan it'
jsontest "plan: the system prompt asks for a plan in PLAN.md" "$REQ/1.json" \
    '"acceptance checks" in d["messages"][0]["content"] and
     "The plan file: PLAN.md" in d["messages"][0]["content"]'
[ ! -e "$W/other.md" ] && ok "plan: write refused but for the plan file" ||
    fail "plan: write refused but for the plan file" "other.md exists"
if [ "$LL" = 1 ]; then
	[ ! -e "$W/other.txt" ] && ok "plan: bash touches nothing else" ||
	    fail "plan: bash touches nothing else" "other.txt exists"
	printf '1. do it well\nmore\n' | cmp -s - "$W/PLAN.md" &&
	    ok "plan: write, edit and bash write the plan file" ||
	    fail "plan: write, edit and bash write the plan file" "$(cat "$W/PLAN.md")"
else
	grep -q 'do it well' "$W/PLAN.md" && ok "plan: write and edit write the plan file" ||
	    fail "plan: write and edit write the plan file" "$(cat "$W/PLAN.md")"
fi

# A profile that does not exist: exit 2, the names listed, no request.
startfake "$T/done"
runat -g nosuch 'go'
[ "$RC" -eq 2 ] && grep -q 'no profile named nosuch; there are: workspace readonly plan full' "$T/err" &&
    ok "bad profile: exit 2 with the list" || fail "bad profile: exit 2 with the list" "rc $RC: $(cat "$T/err")"
[ ! -e "$REQ/1.head" ] && ok "bad profile: no request" || fail "bad profile: no request" "$(ls "$REQ")"

# No Landlock (AGENT_NO_LANDLOCK=1): one warning, and write and edit
# still refuse outside paths.
fresh
ln -s "$O" "$W/out"
script l1 <<X
tool l1 write {"path": "$O/w.txt", "content": "x"}
tool l2 write {"path": "out/w.txt", "content": "x"}
tool l3 write {"path": "in.txt", "content": "x"}
finish tool_calls
X
startfake -x "$T/l1" "$T/done"
(export AGENT_NO_LANDLOCK=1; runat -y 'go')
[ "$(grep -c '^agent: ' "$T/err")" -eq 1 ] &&
    grep -q '^agent: AGENT_NO_LANDLOCK is set: tool processes are not sandboxed' "$T/err" &&
    ok "no landlock: exactly one warning" || fail "no landlock: exactly one warning" "$(cat "$T/err")"
[ ! -e "$O/w.txt" ] && [ -f "$W/in.txt" ] && ok "no landlock: write still refuses outside" ||
    fail "no landlock: write still refuses outside" "$(result 2)"

# Rules and hooks: an agent built with a config.h that has some.
# build NAME: the agent in $T/NAME with config.def.h's rules and hooks
# tables given the rows in $T/NAME.rules and $T/NAME.hooks.  The first
# build is whole, with the Makefile's flags (the objects of the tree may
# have others, as under make test-asan); the next ones take its objects
# but agent.o, the one config.h is in.
build() {
	if [ -n "$EMULATOR" ]; then
		skip "$1: a build with a changed config.h" \
		    "no sources under emulation; make test runs it"
		return 1
	fi
	mkdir -p "$T/$1"
	cp -p "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk \
	    "$T/$1"/
	[ "$1" = guard ] || cp -p "$T/guard"/*.o "$T/$1"/ 2>/dev/null
	touch "$T/$1.rules" "$T/$1.hooks"
	sed -e "/^	\/\* tool    glob  /r $T/$1.rules" \
	    -e "/^	\/\* when  tool    command  /r $T/$1.hooks" \
	    "$ROOT/config.def.h" >"$T/$1/config.h"
	(cd "$T/$1" && make agent) >"$T/$1.log" 2>&1 ||
	    { fail "$1: builds" "$(tail -5 "$T/$1.log")"; return 1; }
}

cat >"$T/guard.rules" <<'X'
	{ "bash",  "git push*",     DENY },
	{ "bash",  "echo allowed*", ALLOW },
X
cat >"$T/guard.hooks" <<'X'
	{ PRE,   "bash", "if grep -q blockme; then echo 'hook says no' >&2; exit 1; fi", 5000 },
	{ PRE,   "bash", "if grep -q hangme; then sleep 30; fi", 500 },
	{ POST,  "*",    "cat >> \"$HOOKLOG\"", 5000 },
	{ PRE,   "ls",   "env > \"$HOOKENV\"", 5000 },
	{ POST,  "ls",   "echo post-failed >&2; exit 3", 5000 },
X
if build guard; then
	AGENT=$T/guard/agent
	export HOOKLOG=$T/hook.log HOOKENV=$T/hook.env
	fresh
	script g1 <<'X'
tool g1 bash {"command": "git push origin main; echo pushed > pushed.txt"}
tool g2 bash {"command": "echo allowed > allowed.txt"}
tool g3 bash {"command": "echo other > other.txt"}
finish tool_calls
X
	startfake -x "$T/g1" "$T/done"
	runat 'go'
	[ ! -e "$W/pushed.txt" ] && ok "rules: a denied command is not run" ||
	    fail "rules: a denied command is not run" "pushed.txt exists"
	jsontest "rules: the model is told which rule denied it" "$REQ/2.json" \
	    'd["messages"][-3]["content"] ==
	     "Denied by rule 1 of config.h (bash \"git push*\")"'
	grep -q 'bash git push origin main; echo pushed > pushed.txt -> Denied by rule 1' "$T/err" &&
	    ok "rules: the trace says so" || fail "rules: the trace says so" "$(cat "$T/err")"
	[ -f "$W/allowed.txt" ] && ok "rules: an allowed command runs with no terminal" ||
	    fail "rules: an allowed command runs with no terminal" "$(result 2)"
	[ ! -e "$W/other.txt" ] && ok "rules: another command is still asked for (refused)" ||
	    fail "rules: another command is still asked for (refused)" "other.txt exists"
	jsontest "hooks: the post hook sees the call and its result" "$HOOKLOG" \
	    'd["tool"] == "bash" and
	     d["args"] == {"command": "echo allowed > allowed.txt"} and
	     d["result"]["isError"] is False and "text" in d["result"]'

	fresh
	script h1 <<'X'
tool h1 bash {"command": "echo blockme > blocked.txt"}
tool h2 bash {"command": "echo hangme > hung.txt"}
tool h3 bash {"command": "echo fine > fine.txt"}
finish tool_calls
X
	startfake -x "$T/h1" "$T/done"
	start=$(date +%s)
	runat -y 'go'
	end=$(date +%s)
	[ ! -e "$W/blocked.txt" ] && ok "hooks: a failing pre hook blocks" ||
	    fail "hooks: a failing pre hook blocks" "blocked.txt exists"
	jsontest "hooks: the model is told the hook's stderr" "$REQ/2.json" \
	    'd["messages"][-3]["content"] ==
	     "Blocked by hook 1 of config.h (exit 1): hook says no\n"'
	[ ! -e "$W/hung.txt" ] && [ $((end - start)) -lt 10 ] &&
	    ok "hooks: a hanging hook is killed at its timeout and blocks" ||
	    fail "hooks: a hanging hook is killed at its timeout and blocks" "$((end - start)) s"
	jsontest "hooks: the model is told of the timeout" "$REQ/2.json" \
	    'd["messages"][-2]["content"] ==
	     "Blocked by hook 2 of config.h (killed after 500 ms)"'
	[ -f "$W/fine.txt" ] && ok "hooks: a call they pass runs" ||
	    fail "hooks: a call they pass runs" "$(result 2)"

	script e1 <<'X'
tool e1 ls {}
finish tool_calls
X
	startfake -x "$T/e1" "$T/done"
	(export GITHUB_TOKEN=s-gh HTTPS_PROXY=http://u:s-px@h.example:8080 &&
	    runat -y 'go')
	grep -q '^HOOKENV=' "$HOOKENV" && ! grep -q 'test-key' "$HOOKENV" &&
	    ok "hooks: bash's environment, no API key" ||
	    fail "hooks: bash's environment, no API key" "$(grep -c . "$HOOKENV") lines"
	! grep -q 's-gh\|s-px' "$HOOKENV" &&
	    grep -q '^HTTPS_PROXY=http://h.example:8080$' "$HOOKENV" &&
	    ok "hooks: no token, no proxy password, as bash" ||
	    fail "hooks: no token, no proxy password, as bash" \
	    "$(grep 's-gh\|s-px\|PROXY' "$HOOKENV")"
	grep -q '^agent: hook 5 after ls failed: post-failed' "$T/err" &&
	    jsontest "hooks: a failing post hook is only reported" "$REQ/2.json" \
	    'd["messages"][-1]["content"] == "fine.txt"' ||
	    fail "hooks: a failing post hook is only reported" "$(cat "$T/err")"
	unset AGENT
fi

# Rules read each simple command of a bash line, unquoted and unwrapped;
# path rules read where a path lands; hooks read the arguments written
# anew; an ASK rule asks every time.
# said NAME ID TEXT: ok when the result of call ID, in the last request
# the fake recorded, starts with TEXT.
said() {
	_last=$(ls "$REQ" | sed -n 's/\.json$//p' | sort -n | tail -1)
	jsontest "$1" "$REQ/$_last.json" '[m["content"] for m in d["messages"]
	    if m.get("tool_call_id") == "'"$2"'"][0].startswith("""'"$3"'""")'
}

cat >"$T/rules.rules" <<'X'
	{ "bash",  "git status*",  ALLOW },
	{ "bash",  "git push*",    DENY },
	{ "write", "*.git/?*",     ASK },
	{ "read",  "*.git/?*",     DENY },
	{ "write", "*.txt",        ALLOW },
X
cat >"$T/rules.hooks" <<'X'
	{ PRE,   "bash", "if grep -q 'rm -rf'; then echo 'no rm -rf' >&2; exit 1; fi", 5000 },
	{ POST,  "*",    "cat >> \"$HOOKLOG\"", 5000 },
X
if build rules; then
	AGENT=$T/rules/agent
	export HOOKLOG=$T/rules.log
	NOTTY="Not run: there is no terminal"
	fresh
	script a1 <<X
tool a1 bash {"command": "git status; touch p1"}
tool a2 bash {"command": "git status && touch p2"}
tool a3 bash {"command": "git status || touch p3"}
tool a4 bash {"command": "git status | touch p4"}
tool a5 bash {"command": "git status\\ntouch p5"}
tool a6 bash {"command": "git status \$(touch p6)"}
tool a7 bash {"command": "git status \`touch p7\`"}
tool a8 bash {"command": "git status >$O/far.txt"}
tool a9 bash {"command": "git status 2>/dev/null >inside.txt"}
tool a10 bash {"command": "git status >.git/x"}
tool a11 write {"path": "lnk.txt", "content": "x"}
tool a12 write {"path": "new.txt", "content": "x"}
finish tool_calls
X
	startfake -x "$T/a1" "$T/done"
	ln -s "$O/notes.md" "$W/lnk.txt"
	mkdir "$W/.git"
	runat 'go'
	said "allow: git status* does not approve git status; touch" a1 "$NOTTY"
	said "allow: nor git status && touch" a2 "$NOTTY"
	said "allow: nor git status || touch" a3 "$NOTTY"
	said "allow: nor git status | touch" a4 "$NOTTY"
	said "allow: nor git status, a newline, touch" a5 "$NOTTY"
	said "allow: nor git status \$(touch)" a6 "$NOTTY"
	said "allow: nor git status \`touch\`" a7 "$NOTTY"
	said "allow: nor a redirection outside the tree" a8 "$NOTTY"
	[ -z "$(cd "$W" && ls p? 2>/dev/null)" ] && [ ! -e "$O/far.txt" ] &&
	    ok "allow: none of those ran" ||
	    fail "allow: none of those ran" "$(ls "$W" "$O")"
	[ -f "$W/inside.txt" ] && ok "allow: git status with redirections inside the tree runs" ||
	    fail "allow: git status with redirections inside the tree runs" "$(result 2)"
	said "allow: nor a redirection where a write rule asks" a10 "$NOTTY"
	said "allow: *.txt does not allow a link to outside" a11 "$NOTTY"
	[ -f "$W/new.txt" ] && ok "allow: *.txt allows new.txt" ||
	    fail "allow: *.txt allows new.txt" "$(result 2)"

	fresh
	mkdir -p "$W/.git"
	echo secret >"$W/.git/config"
	ln -s .git "$W/g"
	script d1 <<'X'
tool d1 bash {"command": "git  push origin"}
tool d2 bash {"command": "\"git\" push"}
tool d3 bash {"command": "env git push"}
tool d4 bash {"command": "command git push"}
tool d5 bash {"command": "cd . && git push"}
tool d6 bash {"command": "git -C . push"}
tool d7 read {"path": "g/config"}
tool d8 read {"path": "./.git/../g/config"}
finish tool_calls
X
	startfake -x "$T/d1" "$T/done"
	runat -y 'go'
	DENIED='Denied by rule 2 of config.h (bash "git push*")'
	said "deny: git push* catches two spaces" d1 "$DENIED"
	said "deny: git push* catches \"git\" push" d2 "$DENIED"
	said "deny: git push* catches env git push" d3 "$DENIED"
	said "deny: git push* catches command git push" d4 "$DENIED"
	said "deny: git push* catches cd . && git push" d5 "$DENIED"
	said "deny: git push* catches git -C . push" d6 "$DENIED"
	said "deny: *.git/?* catches g/config, g -> .git" d7 \
	    'Denied by rule 4 of config.h (read "*.git/?*")'
	said "deny: *.git/?* catches ./.git/../g/config" d8 \
	    'Denied by rule 4 of config.h (read "*.git/?*")'

	fresh
	mkdir "$W/victim"
	rm -f "$HOOKLOG"
	script k1 <<'X'
tool k1 bash {"command": "\u0072m -rf victim"}
tool k2 bash {"command": "echo ok", "command": "touch dup"}
line data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":2,"id":"k3","type":"function","function":{"name":"bash","arguments":"{\\"command\\":\\n  \\"echo one\\\\necho two\\"}"}}]}}]}
line
finish tool_calls
X
	startfake -x "$T/k1" "$T/done"
	runat -y 'go'
	[ -d "$W/victim" ] && ok "hooks: a pre hook reads \\u0072m -rf as rm -rf" ||
	    fail "hooks: a pre hook reads \\u0072m -rf as rm -rf" "$(result 2)"
	said "hooks: the model is told the hook blocked it" k1 \
	    "Blocked by hook 1 of config.h (exit 1): no rm -rf"
	said "duplicate keys: the call is refused, the model told" k2 \
	    'The arguments give the key "command" more than once'
	[ ! -e "$W/dup" ] && ok "duplicate keys: neither runs" ||
	    fail "duplicate keys: neither runs" "dup exists"
	said "hooks: a call with line breaks in its arguments runs" k3 "one"
	command -v python3 >/dev/null 2>&1 && python3 -c 'import json, sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[-1] == "" and len(lines) == 2, lines
d = json.loads(lines[0])
assert d["args"] == {"command": "echo one\necho two"}, d
assert "\"command\":\"echo one\\necho two\"" in lines[0], lines[0]' "$HOOKLOG" \
	    2>"$T/py.err" && ok "hooks: the post hook's stdin is one line, written anew" ||
	    fail "hooks: the post hook's stdin is one line, written anew" \
	    "$(cat "$HOOKLOG" "$T/py.err")"

	# With a terminal: "a" to the profile's question for write stops
	# it for write, never a rule's question.  Each answer is typed when
	# its question shows, as a user would: typed ahead, it could be
	# taken by the terminal's end of input.
	if command -v python3 >/dev/null 2>&1; then
		fresh
		mkdir -p "$W/.git/hooks"
		ln -s .git "$W/g"
		script t1 <<'X'
tool t1 write {"path": "a.md", "content": "a"}
tool t2 write {"path": ".git/hooks/h1", "content": "x"}
tool t3 write {"path": "g/hooks/h2", "content": "x"}
tool t4 write {"path": "b.md", "content": "b"}
finish tool_calls
X
		startfake -x "$T/t1" "$T/done"
		(cd "$W" && agentexec python3 -c '
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp("timeout", ["timeout", "30", sys.argv[1], "-n", "go"])
out, asked, answers = b"", 0, [b"a\n", b"n\n", b"n\n"]
while select.select([fd], [], [], 40)[0]:
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
    while asked < out.count(b"[y/n"):
        os.write(fd, answers[asked] if asked < len(answers) else b"n\n")
        asked += 1
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)' "$AGENT") >"$T/tty" 2>&1
		[ -f "$W/a.md" ] && [ -f "$W/b.md" ] &&
		    [ "$(grep -c 'allow write' "$T/tty")" -eq 3 ] &&
		    ok "always: a covers the profile's asking for write" ||
		    fail "always: a covers the profile's asking for write" \
		    "$(cat "$T/tty")"
		[ ! -e "$W/.git/hooks/h1" ] &&
		    ok "always: an ASK rule still asks after a" ||
		    fail "always: an ASK rule still asks after a" "$(cat "$T/tty")"
		[ ! -e "$W/.git/hooks/h2" ] &&
		    ok "always: an ASK rule asks for g/hooks/h2, g -> .git" ||
		    fail "always: an ASK rule asks for g/hooks/h2, g -> .git" \
		    "$(cat "$T/tty")"
	else
		for c in "a covers the profile's asking for write" \
		    "an ASK rule still asks after a" \
		    "an ASK rule asks for g/hooks/h2, g -> .git"; do
			skip "always: $c" "no python3"
		done
	fi
	unset AGENT
fi

# Read rules hold every reader: grep, find and ls over a path a read
# rule denies are denied as read is, and in a walk they leave out each
# file it denies (its name and its text), through a link too; an @file
# it denies is not attached.  A hostile repository holds the secret.
cat >"$T/readrules.rules" <<'X'
	{ "read",  "*.env",        DENY },
	{ "read",  "secrets/**",   DENY },
X
if build readrules; then
	AGENT=$T/readrules/agent
	SECRET=hunter2-canary-s3cr3t
	fresh
	mkdir -p "$W/sub" "$W/secrets"
	echo "SECRET=$SECRET" >"$W/.env"
	echo "SECRET=$SECRET" >"$W/sub/deep.env"
	echo "SECRET=$SECRET" >"$W/secrets/token.txt"
	echo "SECRET=public" >"$W/notes.txt"
	ln -s .env "$W/ok.txt"
	script r1 <<X
tool r1 grep {"pattern": "SECRET", "path": ".env"}
tool r2 grep {"pattern": "SECRET", "path": "$W/.env"}
tool r3 grep {"pattern": "SECRET", "path": "ok.txt"}
tool r4 grep {"pattern": "SECRET"}
tool r5 grep {"pattern": "SECRET", "path": "secrets"}
tool r6 find {"pattern": "*"}
tool r7 ls {}
tool r8 ls {"path": "secrets"}
tool r9 find {"pattern": "*.env", "path": "sub"}
tool r10 read {"path": "ok.txt"}
finish tool_calls
X
	startfake -x "$T/r1" "$T/done"
	runat 'go'
	if grep -q -- "$SECRET" "$REQ/2.json"; then
		fail "read rules: the secret never reaches the model" \
		    "$(grep -o ".\{80\}$SECRET" "$REQ/2.json")"
	else
		ok "read rules: the secret never reaches the model"
	fi
	said "read rules: grep of a denied file is denied" r1 \
	    'Denied by rule 1 of config.h (read \"*.env\")'
	said "read rules: grep of it by its absolute path is denied" r2 \
	    'Denied by rule 1 of config.h (read \"*.env\")'
	said "read rules: grep through a link to it is denied" r3 \
	    'Denied by rule 1 of config.h (read \"*.env\")'
	said "read rules: grep of the tree finds what is not denied" r4 \
	    'notes.txt:1: SECRET=public'
	jsontest "read rules: grep of the tree says what it left out" \
	    "$REQ/2.json" '[m["content"] for m in d["messages"]
	    if m.get("tool_call_id") == "r4"][0].endswith(
	    "[4 paths left out: denied by read rules of config.h (rule 1)]")'
	said "read rules: grep of a directory whose files are denied" r5 \
	    'No matches found

[1 path left out: denied by read rule of config.h (rule 2)]'
	jsontest "read rules: find lists no denied file nor a link to one" \
	    "$REQ/2.json" '[m["content"] for m in d["messages"]
	    if m.get("tool_call_id") == "r6"][0].split("\n\n")[0].split("\n")
	    == ["notes.txt", "secrets/", "sub/"]'
	jsontest "read rules: ls lists no denied file nor a link to one" \
	    "$REQ/2.json" '[m["content"] for m in d["messages"]
	    if m.get("tool_call_id") == "r7"][0].split("\n\n")[0].split("\n")
	    == ["notes.txt", "secrets/", "sub/"]'
	said "read rules: ls of a directory whose files are denied" r8 \
	    '(no entries shown)

[1 path left out: denied by read rule of config.h (rule 2)]'
	said "read rules: find in a subdirectory" r9 \
	    'No files found matching pattern

[1 path left out'
	said "read rules: read through a link, as before" r10 \
	    'Denied by rule 1 of config.h (read \"*.env\")'

	startfake "$T/done"
	runat @.env 'explain'
	[ "$RC" -eq 1 ] && [ ! -e "$REQ/1.json" ] &&
	    grep -q "agent: $W/.env: denied by rule 1 of config.h: not" "$T/err" &&
	    ok "read rules: an @file they deny is not attached, no request" ||
	    fail "read rules: an @file they deny is not attached, no request" \
	    "rc $RC $(cat "$T/err")"
	startfake "$T/done"
	runat 'what is in @ok.txt'
	[ "$RC" -eq 1 ] && [ ! -e "$REQ/1.json" ] &&
	    grep -q "ok.txt: denied by rule 1 of config.h" "$T/err" &&
	    ok "read rules: an @file linking to a denied one is not attached" ||
	    fail "read rules: an @file linking to a denied one is not attached" \
	    "rc $RC $(cat "$T/err")"
	startfake -x "$T/done"
	runat 'see @notes.txt'
	grep -q 'SECRET=public' "$REQ/1.json" &&
	    ok "read rules: an @file they do not deny is attached" ||
	    fail "read rules: an @file they do not deny is attached" \
	    "rc $RC $(cat "$T/err")"
	unset AGENT
fi

# Tables that cannot work: exit 2 at start, before any request.
# badtable NAME WHAT MESSAGE: the agent of build NAME refuses to start.
badtable() {
	build "$1" || return 0	# said: a skip or a failure
	startfake "$T/done"
	AGENT=$T/$1/agent
	runat 'go'
	unset AGENT
	[ "$RC" -eq 2 ] && grep -q "config.h: $3" "$T/err" && [ ! -e "$REQ/1.head" ] &&
	    ok "$2: exit 2 at start, no request" ||
	    fail "$2: exit 2 at start, no request" "rc $RC: $(cat "$T/err")"
}
echo '	{ "bash", "[abc", DENY },' >"$T/badglob.rules"
badtable badglob "a rule with a bad glob" "rule 1: a bad glob"
echo '	{ "bsh", "ls*", DENY },' >"$T/badtool.rules"
badtable badtool "a rule naming no tool" "rule 1: no tool named bsh"
echo '	{ PRE, "bash", "", 1000 },' >"$T/emptyhook.hooks"
badtable emptyhook "a hook with an empty command" "hook 1: an empty command"
