#!/bin/sh
# bench/responses.sh: OpenAI's Responses wire: agent on it beside agent on
# chat completions (the same answer and tool round, the wire the only
# difference), and beside Codex CLI (codex exec, a provider with wire_api
# "responses") and pi (api openai-responses) when they are installed; all
# against test/fake on loopback.  Wall time and CPU are medians, memory
# the highest peak.  Not a test.
#
# codex is looked for as $CODEX or on PATH (npm install -g @openai/codex);
# pi as $PI, on PATH, or in bench/pi/node_modules/.bin/pi.
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
make -s agent test/fake || exit 1
B=$(mktemp -d "${TMPDIR:-/tmp}/agent-bench-responses.XXXXXX") || exit 1
${CC:-cc} -O2 -o "$B/peak" bench/peak.c || exit 1
trap 'kill $FAKE 2>/dev/null; rm -rf "$B"' EXIT INT TERM
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
CODEX=${CODEX:-$(command -v codex)}
[ -x "$CODEX" ] || CODEX=
PI=${PI:-$(command -v pi || echo "$ROOT/bench/pi/node_modules/.bin/pi")}
[ -x "$PI" ] || PI=
N=${N:-10}

. bench/lib.sh

mkdir -p "$B/proj" "$B/codex" "$B/home/.pi/agent"
echo alpha >"$B/proj/a.txt"

# the same answers on each wire: a plain one, and a round of a shell call
# (agent's bash, codex's exec_command) with reasoning before it
printf 'text Hi there.\nfinish stop\nusage 24 4\n' >"$B/chat"
printf 'responses\ntext Hi there.\nusage 24 4\n' >"$B/resp"
printf 'think Read it.\ntool c1 bash {"command": "cat a.txt"}\nfinish tool_calls\n' >"$B/chat1"
printf 'text It says alpha.\nfinish stop\n' >"$B/chat2"
printf 'responses\nthink Read it.\ntool c1 bash {"command":"cat a.txt"}\n' >"$B/resp1"
printf 'responses\ntext It says alpha.\n' >"$B/resp2"
printf 'responses\nthink Read it.\ntool c1 exec_command {"cmd":"cat a.txt"}\n' >"$B/codex1"

# tell codex and pi where the fake is
peers() {
	cat >"$B/codex/config.toml" <<X
model = "fake-model"
model_provider = "fake"
[model_providers.fake]
name = "fake"
base_url = "$BASE/v1"
wire_api = "responses"
env_key = "FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0
X
	cat >"$B/home/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "$BASE/v1", "api": "openai-responses",
  "apiKey": "bench", "models": [{"id": "fake-model", "reasoning": true}]}}}
X
}

# line NAME "ms kb cpu": one program's figures
line() {
	set -- "$1" $2
	printf '%-34s %7s ms %7s KB %7s ms CPU\n' "$1" "$2" "$3" "$4"
}

# agentrun N PROVIDER PROMPT: agent's figures over N runs
agentrun() {
	(cd "$B/proj" && "$B/peak" "$1" env AGENT_BASE_URL="$BASE/v1" \
	    AGENT_API_KEY=bench AGENT_PROVIDER="$2" "$ROOT/agent" -y -n -q \
	    -T medium "$3")
}

echo "Responses wire, against test/fake ($N runs each; codex and pi 5)"
startfake $((N * 2)) "$B/chat"
line "agent, chat: plain answer" "$(agentrun $N openai-chat hi)"
startfake $((N * 2)) "$B/resp"
line "agent, Responses: plain answer" "$(agentrun $N openai hi)"
startfake $((N * 2)) "$B/chat1" "$B/chat2"
line "agent, chat: tool round" "$(agentrun $N openai-chat go)"
startfake $((N * 2)) "$B/resp1" "$B/resp2"
line "agent, Responses: tool round" "$(agentrun $N openai go)"
if [ -n "$CODEX" ]; then
	startfake 12 "$B/resp"
	peers
	line "codex exec: plain answer" "$(cd "$B/proj" && "$B/peak" 5 \
	    env CODEX_HOME="$B/codex" FAKE_API_KEY=bench "$CODEX" exec \
	    --skip-git-repo-check hi)"
	startfake 12 "$B/codex1" "$B/resp2"
	peers
	line "codex exec: tool round" "$(cd "$B/proj" && "$B/peak" 5 \
	    env CODEX_HOME="$B/codex" FAKE_API_KEY=bench "$CODEX" exec \
	    --skip-git-repo-check go)"
	echo "    codex $("$CODEX" --version 2>/dev/null | tail -1)"
else
	echo "codex exec: not installed (npm install -g @openai/codex)"
fi
if [ -n "$PI" ]; then
	startfake 12 "$B/resp"
	peers
	line "pi, Responses: plain answer" "$(cd "$B/proj" && "$B/peak" 5 \
	    env HOME="$B/home" "$PI" --provider fake --model fake-model \
	    --no-session -p hi)"
	startfake 12 "$B/resp1" "$B/resp2"
	peers
	line "pi, Responses: tool round" "$(cd "$B/proj" && "$B/peak" 5 \
	    env HOME="$B/home" "$PI" --provider fake --model fake-model \
	    --no-session -p go)"
	echo "    pi $("$PI" --version 2>&1 | tail -1)"
else
	echo "pi: not installed (npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
fi
