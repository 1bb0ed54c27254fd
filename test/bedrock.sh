#!/bin/sh
# bedrock.sh: Amazon Bedrock end to end: Anthropic's messages in AWS's
# event-stream frames from the fake (split anywhere), the request as
# InvokeModelWithResponseStream wants it (the model in the path, ':'
# encoded; the version in the body), SigV4 headers or a Bedrock API key,
# exceptions, bad frames, the region and credentials missing, the AWS
# variables kept from tools and the session; and against AWS's own code
# from npm (test/bedrock.js: the SDK's signer checks the signature, its
# codec frames the answer) where it is installed, else skipped.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
DATA=$ROOT/test/data
MODEL='us.anthropic.claude-sonnet-4-5-20250929-v1:0'
SECRET=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY
STOK=FwoGZXIvYXdzEXAMPLEsessiontoken

# runat args...: the agent with -P bedrock in $W, signing with the AWS
# variables ($AWSENV: more of them; $UNSET: env -u's of some), no
# terminal.
AWSENV=
UNSET=
runat() {
	(cd "$W" && agentexec env -u AGENT_API_KEY AWS_REGION=us-west-2 \
	    AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=$SECRET \
	    AWS_SESSION_TOKEN=$STOK AGENT_BASE_URL=http://127.0.0.1:$PORT \
	    $AWSENV env $UNSET setsid -w timeout 30 "$ROOT/agent" -P bedrock \
	    "$@") </dev/null >"$T/out" 2>"$T/err"
	RC=$?
}

echo 'stand-up moves to 9:30' >"$W/notes.txt"
printf 'bedrock\nbytes 7\nraw %s\n' "$DATA/anthropic-toolcall.sse" >"$T/r1"
printf 'bedrock\nbytes 1\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r2"
startfake -x "$T/r1" "$T/r2"
runat -m "$MODEL" 'what does my note say?'
[ "$RC" -eq 0 ] && ok "wire: exit 0" || fail "wire: exit 0" "rc $RC: $(cat "$T/err")"
printf 'The note says: "stand-up moves to 9:30", caf\303\251 on the 3rd floor \342\230\225 \360\237\232\200\n' |
    cmp -s - "$T/out" && grep -q "^I'll read the note.$" "$T/err" &&
    ok "wire: chunks split anywhere, text on stdout" || fail "wire: chunks split anywhere, text on stdout" "$(od -c "$T/out" | head)"
grep -q 'The user asks what the note says; read it before answering.' "$T/err" &&
    ok "wire: thinking on stderr" || fail "wire: thinking on stderr" "$(cat "$T/err")"
grep -q '^POST /model/us\.anthropic\.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream HTTP/1.1' "$REQ/1.head" &&
    ok "request: the endpoint, the model's ':' encoded" || fail "request: the endpoint, the model's ':' encoded" "$(head -1 "$REQ/1.head")"
grep -qi '^accept: application/vnd.amazon.eventstream' "$REQ/1.head" &&
    ! grep -qi '^x-api-key\|^anthropic-version' "$REQ/1.head" &&
    ok "request: asks for the event stream, no Anthropic header" || fail "request: asks for the event stream, no Anthropic header" "$(cat "$REQ/1.head")"
D=$(sed -n 's/^X-Amz-Date: \([0-9]\{8\}\)T[0-9]\{6\}Z.$/\1/p' "$REQ/1.head")
[ "$D" = "$(date -u +%Y%m%d)" ] && grep -q "^X-Amz-Security-Token: $STOK.$" "$REQ/1.head" &&
    grep -q "^Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/$D/us-west-2/bedrock/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]\{64\}.$" "$REQ/1.head" &&
    ok "request: SigV4 headers, today in UTC, the session token" || fail "request: SigV4 headers, today in UTC, the session token" "$(cat "$REQ/1.head")"
jsontest "request: anthropic_version, no model, no stream" "$REQ/1.json" \
    'd["anthropic_version"] == "bedrock-2023-05-31" and "model" not in d and
     "stream" not in d and d["max_tokens"] > 0 and
     d["system"][0]["cache_control"] == {"type": "ephemeral"} and
     d["messages"][0]["content"][-1]["text"] == "what does my note say?"'
jsontest "round 2: thinking sent back with its signature" "$REQ/2.json" \
    'd["messages"][1]["content"][0]["type"] == "thinking" and
     d["messages"][1]["content"][0]["signature"].startswith("ErUBCkYIBxgCKkB3m9Qx") and
     d["messages"][2]["content"][0]["type"] == "tool_result"'
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
grep -q '"api":"anthropic-messages","provider":"bedrock"' "$F" &&
    grep -q '"thinkingSignature":"ErUBCkYIBxgCKkB3m9Qx' "$F" &&
    ok "session: the answer as Anthropic's, provider bedrock" || fail "session: the answer as Anthropic's, provider bedrock" "$(tail -c 600 "$F")"
grep -q '"cost":{"input":[0-9.e-]*,"output":[0-9.e-]*,"cacheRead":[0-9.e-]*,"cacheWrite":[0-9.e-]*,"total":0\.0[0-9]*[1-9]' "$F" &&
    ok "session: a Bedrock id priced as Claude's" || fail "session: a Bedrock id priced as Claude's" "$(grep -o '"cost":{[^}]*}' "$F")"
! grep -q "$SECRET\|$STOK\|AKIDEXAMPLE" "$F" "$T/out" "$T/err" &&
    ok "no credential in the session, stdout or stderr" || fail "no credential in the session, stdout or stderr" "$(grep -l "$SECRET\|$STOK\|AKIDEXAMPLE" "$F" "$T/out" "$T/err")"

# the default model, a Bedrock API key instead of signing; the region
# from AWS_DEFAULT_REGION into the URL's {region}
printf 'bedrock\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r1"
startfake -x "$T/r1"
AWSENV="AWS_DEFAULT_REGION=eu-central-1 AWS_BEARER_TOKEN_BEDROCK=ABSKbedrockkey AGENT_BASE_URL=http://127.0.0.1:$PORT/{region}"
UNSET="-u AWS_REGION -u AGENT_MODEL"
runat -t '' hello
AWSENV=
UNSET=
[ "$RC" -eq 0 ] && grep -q '^POST /eu-central-1/model/global\.anthropic\.claude-sonnet-5/invoke-with-response-stream ' "$REQ/1.head" &&
    ok "the default model, AWS_DEFAULT_REGION's region in the URL" || fail "the default model, AWS_DEFAULT_REGION's region in the URL" "rc $RC: $(head -1 "$REQ/1.head") $(cat "$T/err")"
jsontest "-T off: no thinking field for Bedrock's Sonnet 5, which cannot be told not to think" "$REQ/1.json" \
    '"thinking" not in d and "output_config" not in d'
grep -q '^tokens: .*, \$0\.0' "$T/err" &&
    ok "the default model priced as claude-sonnet-5" || fail "the default model priced as claude-sonnet-5" "$(cat "$T/err")"
grep -q '^Authorization: Bearer ABSKbedrockkey.$' "$REQ/1.head" && ! grep -qi '^x-amz' "$REQ/1.head" &&
    ok "a Bedrock API key: a bearer token, nothing signed" || fail "a Bedrock API key: a bearer token, nothing signed" "$(cat "$REQ/1.head")"

# a task's child on Bedrock signs as its parent does: it is given the
# AWS keys, which its tools are not
if [ -n "$EMULATOR" ]; then
	skip "a task's child signs too" "an emulated program cannot run another (no binfmt_misc)"
else
	script r1 <<'EOF'
bedrock
line data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}
line
line data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"task","input":{}}}
line
line data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"description\":\"env\",\"prompt\":\"say hi\"}"}}
line
line data: {"type":"content_block_stop","index":0}
line
line data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}
line
line data: {"type":"message_stop"}
line
EOF
	printf 'bedrock\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r2"
	printf 'bedrock\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r3"
	startfake -x "$T/r1" "$T/r2" "$T/r3"
	runat -y -m "$MODEL" 'ask a child'
	[ "$RC" -eq 0 ] && [ -f "$REQ/3.head" ] &&
	    grep -q "^Authorization: AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/.*x-amz-security-token" "$REQ/2.head" &&
	    ok "a task's child signs too" || fail "a task's child signs too" "rc $RC: $(cat "$T/err") $(cat "$REQ/2.head" 2>&1)"
	stopfake
fi

# what goes wrong
script r1 <<EOF
bedrock
line event: message_start
line data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}
line
line data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
line
line data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Half an"}}
line
exception modelStreamErrorException The model stream broke off
EOF
startfake -x "$T/r1"
runat -t '' hello
[ "$RC" -eq 1 ] && grep -q 'modelStreamErrorException: The model stream broke off' "$T/err" &&
    ok "an exception frame: its type and message, exit 1" || fail "an exception frame: its type and message, exit 1" "rc $RC: $(cat "$T/err")"
printf 'bedrock\nexception throttlingException Too many requests, please wait.\n' >"$T/r1"
printf 'bedrock\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r2"
startfake -x "$T/r1" "$T/r2"
runat -t '' hello
[ "$RC" -eq 0 ] && grep -q 'throttlingException: Too many requests, please wait., retrying' "$T/err" &&
    ok "throttled before the answer: tried again" || fail "throttled before the answer: tried again" "rc $RC: $(cat "$T/err")"
printf 'bedrock\nbadcrc\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r1"
startfake -x "$T/r1"
runat -t '' hello
[ "$RC" -eq 1 ] && grep -q 'a malformed event-stream frame: its CRC does not match' "$T/err" &&
    ok "a bad CRC: said, exit 1" || fail "a bad CRC: said, exit 1" "rc $RC: $(cat "$T/err")"
printf 'bedrock\nframing close\ndrop 20\nline data: {"type":"message_start"}\nline\n' >"$T/r1"
startfake -x "$T/r1"
runat -t '' hello
[ "$RC" -eq 1 ] && grep -q 'the stream ended inside a message' "$T/err" &&
    ok "cut inside a frame: said, exit 1" || fail "cut inside a frame: said, exit 1" "rc $RC: $(cat "$T/err")"
script r1 <<'EOF'
status 403
error The security token included in the request is invalid.
EOF
startfake -x "$T/r1"
runat -t '' hello
[ "$RC" -eq 1 ] && grep -q 'HTTP 403: The security token included in the request is invalid.' "$T/err" &&
    ok "a refusal: HTTP 403 and its message" || fail "a refusal: HTTP 403 and its message" "rc $RC: $(cat "$T/err")"
UNSET="-u AWS_REGION"
runat hello
[ "$RC" -eq 2 ] && grep -q 'no AWS region: set AWS_REGION or AWS_DEFAULT_REGION' "$T/err" &&
    ok "no region: said, exit 2" || fail "no region: said, exit 2" "rc $RC: $(cat "$T/err")"
UNSET="-u AWS_SECRET_ACCESS_KEY"
runat hello
[ "$RC" -eq 2 ] && grep -q 'no credentials: set AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY' "$T/err" &&
    ok "no credentials: said, exit 2" || fail "no credentials: said, exit 2" "rc $RC: $(cat "$T/err")"
UNSET=
AWSENV="AWS_REGION=us-west-2/x"
runat hello
[ "$RC" -eq 2 ] && grep -q 'not a region' "$T/err" &&
    ok "a region that is no name: refused" || fail "a region that is no name: refused" "rc $RC: $(cat "$T/err")"
AWSENV=

# the AWS variables never reach a tool, nor through it the session
script r1 <<'EOF'
bedrock
line data: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}
line
line data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_env","name":"bash","input":{}}}
line
line data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"command\":\"env; echo END\"}"}}
line
line data: {"type":"content_block_stop","index":0}
line
line data: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}
line
line data: {"type":"message_stop"}
line
EOF
printf 'bedrock\nraw %s\n' "$DATA/anthropic-text.sse" >"$T/r2"
startfake -x "$T/r1" "$T/r2"
rm -rf "$T/sessions"
AWSENV="AWS_BEARER_TOKEN_BEDROCK=ABSKbedrockkey"
runat -y 'show the environment'
AWSENV=
F=$(find "$T/sessions" -name '*.jsonl' | head -1)
[ "$RC" -eq 0 ] && grep -q 'END' "$F" && grep -q 'AGENT_SESSION_DIR' "$F" &&
    ! grep -q "AWS_ACCESS_KEY_ID\|AWS_SECRET_ACCESS_KEY\|AWS_SESSION_TOKEN\|AWS_BEARER_TOKEN_BEDROCK\|$STOK\|ABSKbedrockkey" "$F" &&
    ok "tools: no AWS credential in a tool's environment" || fail "tools: no AWS credential in a tool's environment" "rc $RC: $(grep -o 'AWS[A-Z_]*=[^\\]*' "$F")"

# against AWS's own code: its signer checks ours, its codec frames
NM=$ROOT/npm/aws/node_modules
if ! command -v node >/dev/null 2>&1; then
	skip "AWS's SDK: SigV4 and the frames" "no node"
elif [ ! -d "$NM/@smithy/signature-v4" ] || [ ! -d "$NM/@smithy/eventstream-codec" ] ||
    [ ! -d "$NM/@aws-crypto/sha256-js" ] || [ ! -d "$NM/@smithy/util-utf8" ]; then
	skip "AWS's SDK: SigV4 and the frames" "no @smithy packages in npm/aws (.ci/run installs them)"
else
	stopfake
	rm -f "$T/port"
	NODE_PATH=$NM node "$ROOT/test/bedrock.js" "$T/port" "$T/sdk.log" "$SECRET" 2>"$T/node.err" &
	FAKEPID=$!
	_i=0
	while [ ! -s "$T/port" ] && [ "$_i" -lt 100 ] && kill -0 "$FAKEPID" 2>/dev/null; do
		_i=$((_i + 1))
		sleep 0.1
	done
	PORT=$(cat "$T/port" 2>/dev/null)
	runat -m "$MODEL" -t '' 'hello'
	[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "Signed and framed by AWS's own code." ] &&
	    [ "$(cat "$T/sdk.log")" = "signature ok" ] &&
	    ok "AWS's SDK: it finds our signature good; we read its frames" ||
	    fail "AWS's SDK: it finds our signature good; we read its frames" "rc $RC: $(cat "$T/err" "$T/sdk.log" "$T/node.err")"
	AWSENV="AGENT_BASE_URL=http://127.0.0.1:$PORT/v1/a%20b"
	UNSET="-u AWS_SESSION_TOKEN"
	runat -m 'arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/a1b2c3' -t '' 'hello'
	[ "$RC" -eq 0 ] && [ "$(tail -1 "$T/sdk.log")" = "signature ok" ] &&
	    ok "AWS's SDK: no session, an ARN for a model, a %20 in the path" ||
	    fail "AWS's SDK: no session, an ARN for a model, a %20 in the path" "rc $RC: $(cat "$T/err" "$T/sdk.log" "$T/node.err")"
	AWSENV="AWS_SECRET_ACCESS_KEY=not-the-secret"
	UNSET=
	runat -t '' 'hello'
	AWSENV=
	[ "$RC" -eq 1 ] && grep -q 'signature bad' "$T/sdk.log" &&
	    grep -q 'HTTP 403: The request signature we calculated does not match' "$T/err" &&
	    ok "AWS's SDK: a wrong secret is caught" ||
	    fail "AWS's SDK: a wrong secret is caught" "rc $RC: $(cat "$T/err" "$T/sdk.log")"
	stopfake
fi
