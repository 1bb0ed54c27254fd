#!/bin/sh
# environ.sh: no secret is left in agent's own environment once tools can
# run: a bash call reads /proc/$PPID/environ (root reads it whatever the
# process says; another user is kept out by PR_SET_DUMPABLE), and finds
# the secrets' names with no values, the proxies without their passwords.
# The proxies still work for agent and its task children, credentials and
# all, as read at start.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"

script r1 <<'X'
tool e1 bash {"command": "cat /proc/$PPID/comm; tr '\\0' '\\n' </proc/$PPID/environ; echo end"}
finish tool_calls
X
script r2 <<'X'
text ok
finish stop
X

# secretrun NAME [runner...]: the agent, run by runner (as another user,
# say), with CI's secrets in its environment and the fake as its HTTP
# proxy, asks for bash to read its environment; NAME labels the checks.
secretrun() {
	_n=$1
	shift
	startfake -x "$T/r1" "$T/r2"
	(cd "$W" && export GITHUB_TOKEN=s-gh AWS_SECRET_ACCESS_KEY=s-aws \
	    DB_PASSWORD=s-db HF_TOKEN=s-hf OPENAI_API_KEY=s-openai \
	    HTTP_PROXY=http://alice:s-proxy@127.0.0.1:$PORT/ \
	    all_proxy=http://bob:s-allp@socks.example:1080 \
	    DATABASE_URL=postgres://carol:s-url@db.example/prod KEYTIMEOUT=1 &&
	    agentexec "$@" setsid -w timeout 30 "$ROOT/agent" -y -n \
	    'read your environment') </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	res="$T/res.$_n"
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d["messages"][-1]["content"])' "$REQ/2.json" >"$res" 2>/dev/null ||
	    : >"$res"
	[ "$RC" -eq 0 ] && ok "$_n: the run ends well" ||
	    fail "$_n: the run ends well" "rc $RC: $(cat "$T/err")"
	if [ -n "$EMULATOR" ]; then
		# qemu copies the environment for the program it runs: what
		# agent blanks is that copy, not what /proc shows
		skip "$_n: no secret in agent's /proc/PID/environ" \
		    "/proc shows $EMULATOR's environment"
	elif grep -q 's-gh\|s-aws\|s-db\|s-hf\|s-openai\|test-key\|s-proxy\|s-allp\|alice\|bob\|s-url\|carol' "$res"; then
		fail "$_n: no secret in agent's /proc/PID/environ" \
		    "$(grep -o 's-[a-z]*\|test-key\|alice\|bob\|carol' "$res" | sort -u)"
	else
		ok "$_n: no secret in agent's /proc/PID/environ"
	fi
	grep -q 'Basic YWxpY2U6cy1wcm94eQ==' "$REQ/2.head" &&
	    ok "$_n: the proxy's credentials still go with a request" ||
	    fail "$_n: the proxy's credentials still go with a request" \
	    "$(cat "$REQ/2.head")"
}

if ! command -v python3 >/dev/null 2>&1; then
	skip "environ" "no python3"
	exit 0
fi

secretrun "as $(id -un)"
if [ -n "$EMULATOR" ]; then
	skip "as root: bash read agent's environ" \
	    "/proc shows $EMULATOR's environment"
elif [ "$(id -u)" -eq 0 ]; then
	# root reads any process's environ: what it sees is what is there
	head -1 "$T/res.as root" | grep -qx agent &&
	    grep -qx 'GITHUB_TOKEN=' "$T/res.as root" &&
	    grep -qx 'AGENT_API_KEY=' "$T/res.as root" &&
	    grep -qx 'HTTP_PROXY=http://127.0.0.1:'"$PORT"'/' "$T/res.as root" &&
	    grep -qx 'all_proxy=http://socks.example:1080' "$T/res.as root" &&
	    grep -qx 'DATABASE_URL=postgres://db.example/prod' "$T/res.as root" &&
	    grep -qx 'KEYTIMEOUT=1' "$T/res.as root" &&
	    ok "as root: bash read agent's environ, the names left, no values" ||
	    fail "as root: bash read agent's environ, the names left, no values" \
	    "$(head -c 600 "$T/res.as root")"
else
	skip "as root: bash read agent's environ" "not root"
fi

# Another user: the run as nobody, in a directory of its own.
nobody="setpriv --reuid=nobody --regid=nogroup --clear-groups"
if [ "$(id -u)" -ne 0 ]; then
	skip "as nobody" "not root: cannot become another user"
elif ! command -v setpriv >/dev/null 2>&1; then
	skip "as nobody" "no setpriv"
elif ! $nobody test -x "$ROOT/agent"; then
	skip "as nobody" "nobody cannot run $ROOT/agent here"
else
	chmod 755 "$T"
	chown -R nobody "$W"
	mkdir -p "$T/sessions" && chown nobody "$T/sessions"
	secretrun "as nobody" $nobody
	if [ -n "$EMULATOR" ]; then
		skip "as nobody: bash could not read agent's environ" \
		    "/proc shows $EMULATOR's environment"
	elif grep -q 'Permission denied\|^GITHUB_TOKEN=$' "$T/res.as nobody"
	then
		ok "as nobody: bash could not read agent's environ, or found it blank"
	else
		fail "as nobody: bash could not read agent's environ, or found it blank" \
		    "$(head -c 600 "$T/res.as nobody")"
	fi
fi

# A task child reaches the model through the proxy too, credentials and
# all: they are given to it whole, in place of our blanked ones.
if [ -n "$EMULATOR" ]; then
	skip "a task child goes through the proxy with its credentials" \
	    "an emulated program cannot run another (no binfmt_misc)"
	exit 0
fi
script t1 <<'X'
tool c1 task {"description": "look", "prompt": "say hi"}
finish tool_calls
X
script t2 <<'X'
text hi from the child
finish stop
X
script t3 <<'X'
text done
finish stop
X
startfake -x "$T/t1" "$T/t2" "$T/t3"
(cd "$W" && export HTTP_PROXY=http://alice:s-proxy@127.0.0.1:$PORT/ &&
    agentexec setsid -w timeout 30 "$ROOT/agent" -y -n 'delegate') \
    </dev/null >"$T/out" 2>"$T/err"
grep -q 'Basic YWxpY2U6cy1wcm94eQ==' "$REQ/2.head" &&
    grep -q 'hi from the child' "$REQ/3.json" &&
    ok "a task child goes through the proxy with its credentials" ||
    fail "a task child goes through the proxy with its credentials" \
    "$(cat "$REQ/2.head" "$T/err" 2>&1 | head -20)"
