# See LICENSE file for copyright and license details.
# lib.sh: helpers for the end-to-end test scripts; `. test/lib.sh` from the
# repository root. $T is a scratch directory, removed at exit.

# A proxy or a key from the caller's environment must not leak into a test.
unset HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy \
    ALL_PROXY all_proxy AGENT_TIMEOUT AGENT_API_KEY OPENAI_API_KEY
T=$(mktemp -d "${TMPDIR:-/tmp}/agent-test.XXXXXX") || exit 1
FAKEPID=
trap 'stopfake; rm -rf "$T"' EXIT
trap 'exit 1' HUP INT TERM

ok() {
	echo "ok - $1"
}

# skip NAME WHY: a check that cannot run here; test/run.sh counts it
# apart, never as a pass.
skip() {
	echo "skip - $1: $2"
}

# fail NAME DETAILS...: one line, so that test/run.sh counts it once.
fail() {
	_name=$1
	shift
	echo "FAIL - $_name: $*" | tr '\n' ' '
	echo
}

# check NAME cmd...: ok when the command succeeds.
check() {
	_name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		ok "$_name"
	else
		fail "$_name" "failed: $*"
	fi
}

# script NAME: the here-document on stdin becomes the script $T/NAME.
script() {
	cat >"$T/$1"
}

# startfake [fake flags] script...: a fresh fake provider; sets PORT, URL,
# and REQ, the directory of its recorded requests (1.head, 1.json, ...).
startfake() {
	stopfake
	REQ=$T/req
	rm -rf "$REQ" "$T/port"
	mkdir "$REQ" || return 1
	./test/fake -p "$T/port" -r "$REQ" "$@" 2>"$T/fake.err" &
	FAKEPID=$!
	_i=0
	while [ ! -s "$T/port" ]; do
		_i=$((_i + 1))
		if [ "$_i" -gt 100 ] || ! kill -0 "$FAKEPID" 2>/dev/null; then
			fail "startfake $*" "no port: $(cat "$T/fake.err")"
			FAKEPID=
			return 1
		fi
		sleep 0.05
	done
	PORT=$(cat "$T/port")
	URL=http://127.0.0.1:$PORT/v1
}

stopfake() {
	if [ -n "$FAKEPID" ]; then
		kill "$FAKEPID" 2>/dev/null
		wait "$FAKEPID" 2>/dev/null
		FAKEPID=
	fi
}

# agentexec cmd...: exec cmd with the environment the tests give the agent
# (in a subshell, so that `(agentexec ./agent ...) &` leaves its pid in $!).
agentexec() {
	mkdir -p "$T/sessions"
	exec env HOME="$T" AGENT_SESSION_DIR="$T/sessions" \
	    AGENT_BASE_URL="$URL" AGENT_API_KEY=test-key \
	    AGENT_PROVIDER=openai-chat AGENT_MODEL=fake-model "$@"
}

# runin FILE args...: ./agent against the fake with stdin from FILE, stdout
# in $T/out, stderr in $T/err, the exit status in $RC; 30 s at most.
runin() {
	_in=$1
	shift
	(agentexec timeout 30 ./agent "$@") <"$_in" >"$T/out" 2>"$T/err"
	RC=$?
}

# runagent args...: runin with stdin from /dev/null.
runagent() {
	runin /dev/null "$@"
}

# jsonvalid FILE: 0 valid JSON in valid UTF-8, 1 not, 77 no tool to tell.
jsonvalid() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1" \
		    2>/dev/null
	elif command -v jq >/dev/null 2>&1 && command -v iconv >/dev/null 2>&1
	then
		# jq alone would let invalid UTF-8 through
		iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 &&
		    jq -e . "$1" >/dev/null 2>&1
	else
		return 77
	fi
}

# Python: unenv(d) takes out of request d the paragraph of the date and
# the working directory that a session's first user message is sent with
# (before its text: a block of its own, or joined to the text that
# follows, as chat completions and Anthropic join them; Gemini's first
# part), so that a test may say what the request holds of the
# conversation; envof(d) is that paragraph, or None.  For any test's Python: exec(os.environ["UNENV"]).
UNENV='
def envpart(d):
    for key in ("messages", "input", "contents"):
        ms = d.get(key) if isinstance(d, dict) else None
        for m in ms if isinstance(ms, list) else []:
            if isinstance(m, dict) and m.get("role") == "user":
                return m
    return None
def envtext(t):
    if isinstance(t, str) and t.startswith("Current date: ") and "\n\n" in t:
        return t.split("\n\n", 1)[0] + "\n\n"
    return None
def envof(d):
    m = envpart(d)
    c = m and m.get("content", m.get("parts"))
    if isinstance(c, list) and c and isinstance(c[0], dict):
        return envtext(c[0].get("text"))
    return envtext(c)
def unenv(d):
    m = envpart(d)
    e = envof(d)
    if e is None:
        return d
    if "parts" in m:
        m = {"content": m["parts"]}
    if isinstance(m["content"], str):
        m["content"] = m["content"][len(e):]
    elif len(m["content"][0]["text"]) > len(e):
        m["content"][0]["text"] = m["content"][0]["text"][len(e):]
    else:
        del m["content"][0]
    return d
'
export UNENV

# jsontest NAME FILE EXPR: ok when the Python expression EXPR is true of
# d, the JSON document in FILE (a request: unenv's); a skip without
# python3.
jsontest() {
	if ! command -v python3 >/dev/null 2>&1; then
		skip "$1" "no python3"
	elif python3 -c 'import json, os, sys
exec(os.environ["UNENV"])
d = unenv(json.loads(open(sys.argv[1], "rb").read().decode("utf-8")))
sys.exit(0 if ('"$3"') else 1)' "$2" 2>"$T/py.err"; then
		ok "$1"
	else
		fail "$1" "not true of $2: $3 $(head -c 300 "$T/py.err")"
	fi
}
