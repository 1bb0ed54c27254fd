#!/bin/sh
# tiny.sh: make tiny's stubs, in the native agent-tiny that make test
# builds (test/static.sh runs the static one): a tool round still works,
# and each room left out says, where it is asked for, that it is not in
# this build: -d (noscratch.c), /undo (noundo.c), -r (noserve.c), Google
# Cloud's rows (nogauth.c), Bedrock signed with AWS keys (nosigv4.c) and
# its event stream (noeventstream.c).
. test/lib.sh
ROOT=$PWD
TINY=$ROOT/agent-tiny
DATA=$ROOT/test/data
W=$T/work

if [ ! -x "$TINY" ]; then
	echo "skip - tiny: no agent-tiny (make agent-tiny)"
	exit 0
fi
if ! "$TINY" -v >/dev/null 2>&1; then	# make tiny ARCH=... made it
	echo "skip - tiny: agent-tiny does not run here (rm it; make agent-tiny)"
	exit 0
fi
mkdir -p "$W"
printf 'a note\n' >"$W/notes.txt"

# tiny [env...] -- args...: agent-tiny in $W, stdout in $T/out, stderr in
# $T/err, the exit status in RC
tiny() {
	_env=
	while [ "$1" != -- ]; do
		_env="$_env $1"
		shift
	done
	shift
	(cd "$W" && agentexec env $_env timeout 30 "$TINY" "$@") </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
}

script r1 <<'X'
tool call_1 read {"path": "notes.txt"}
finish tool_calls
X
script r2 <<'X'
text Read it.
finish stop
X
startfake -x "$T/r1" "$T/r2"
tiny -- -n 'read notes.txt'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "Read it." ] &&
    ok "tiny: a tool round" || fail "tiny: a tool round" "rc $RC: $(cat "$T/err")"

tiny -- -n -d 'change it'
[ "$RC" -eq 2 ] && grep -q '^agent: -d: diff mode is not in this build$' "$T/err" &&
    ok "tiny: -d says it is not in this build" ||
    fail "tiny: -d" "rc $RC: $(cat "$T/err")"

# /undo after a write: the file stays as the write left it
script u1 <<'X'
tool call_1 write {"path": "new.txt", "content": "written\n"}
finish tool_calls
X
script u2 <<'X'
text Wrote it.
finish stop
X
startfake -x "$T/u1" "$T/u2"
(cd "$W" && printf 'write new.txt\n/undo\n' |
    agentexec timeout 30 "$TINY" -n -y) >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && grep -q '^agent: /undo is not in this build$' "$T/err" &&
    [ "$(cat "$W/new.txt")" = written ] &&
    ok "tiny: /undo says it is not in this build" ||
    fail "tiny: /undo" "rc $RC: $(cat "$T/err")"

# the session's tree: /tree and /session say so, /branch to an id too;
# the run goes on
script t1 <<'X'
text on
finish stop
X
startfake -x "$T/t1"
(cd "$W" && printf '/tree\n/session\n/branch abc\nhi\n' |
    agentexec timeout 30 "$TINY" -n) >"$T/out" 2>"$T/err"
RC=$?
[ "$RC" -eq 0 ] && grep -q '^agent: /tree is not in this build$' "$T/err" &&
    grep -q '^agent: /session is not in this build$' "$T/err" &&
    grep -q "the session's tree is not in this build" "$T/err" &&
    grep -q '^on$' "$T/out" &&
    ok "tiny: /tree, /session and /branch say they are not in this build" ||
    fail "tiny: /tree, /session, /branch" "rc $RC: $(cat "$T/err")"

tiny -- -r
[ "$RC" -eq 2 ] && grep -q '^agent: -r: rpc mode is not in this build$' "$T/err" &&
    ok "tiny: -r says it is not in this build" ||
    fail "tiny: -r" "rc $RC: $(cat "$T/err")"

# Google Cloud: with a token (the URL is the first thing asked), and with
# a service account's key file; no request either way
startfake
tiny GOOGLE_CLOUD_ACCESS_TOKEN=ya29.given GOOGLE_CLOUD_PROJECT=p \
    AGENT_BASE_URL= -- -n -P vertex hi
[ "$RC" -eq 2 ] && grep -q 'Google Cloud.s rows (vertex, vertex-gemini) are not in this build' "$T/err" &&
    [ ! -f "$REQ/1.head" ] &&
    ok "tiny: vertex with a token says it is not in this build" ||
    fail "tiny: vertex with a token" "rc $RC: $(cat "$T/err")"
printf '{}\n' >"$T/sa.json"
tiny -u AGENT_API_KEY GOOGLE_APPLICATION_CREDENTIALS="$T/sa.json" \
    GOOGLE_CLOUD_PROJECT=p -- -n -P vertex-gemini hi
[ "$RC" -eq 2 ] && grep -q "GOOGLE_APPLICATION_CREDENTIALS: Google Cloud's rows are not in this build" "$T/err" &&
    ok "tiny: a service account's key file says it is not in this build" ||
    fail "tiny: a service account's key file" "rc $RC: $(cat "$T/err")"

# Bedrock: signed with AWS keys, refused before the request; with a
# Bedrock API key the request goes, and its stream is refused
printf 'bedrock\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/b1"
startfake -x "$T/b1"
tiny -u AGENT_API_KEY AWS_REGION=us-west-2 AWS_ACCESS_KEY_ID=AKIDEXAMPLE \
    AWS_SECRET_ACCESS_KEY=secret AGENT_BASE_URL=http://127.0.0.1:$PORT \
    -- -n -P bedrock hi
[ "$RC" -eq 2 ] && grep -q "AWS's signatures (AWS_ACCESS_KEY_ID) are not in this build" "$T/err" &&
    [ ! -f "$REQ/1.head" ] &&
    ok "tiny: bedrock with AWS keys says it is not in this build" ||
    fail "tiny: bedrock with AWS keys" "rc $RC: $(cat "$T/err")"
tiny -u AGENT_API_KEY AWS_REGION=us-west-2 AWS_BEARER_TOKEN_BEDROCK=k \
    AGENT_BASE_URL=http://127.0.0.1:$PORT -- -n -P bedrock hi
[ "$RC" -eq 1 ] && grep -q "Bedrock's event stream is not in this build" "$T/err" &&
    ok "tiny: bedrock's stream says it is not in this build" ||
    fail "tiny: bedrock's stream" "rc $RC: $(cat "$T/err")"
