#!/bin/sh
# bigresume.sh: resuming a big session holds less than the request it
# sends: the lines the context uses are mapped from the file, its
# messages lie in place there, and the request's big texts (a tool's
# output with terminal colours too) are sent from there, a few MB of
# them held at a time; the session's other lines stay on disk.
. test/lib.sh

NAME="resume: peak memory within half the request + 4 MB"
if [ -n "$ASAN_OPTIONS" ] || grep -q __asan_init ./agent 2>/dev/null; then
	skip "$NAME" "under a sanitizer"
	exit 0
elif [ -n "$EMULATOR" ]; then
	skip "$NAME" "the process would be $EMULATOR's"
	exit 0
fi

# A session of about 16 MB as pi writes them: turns of a question, a read
# call, its result (8 KB of code, a line in four coloured), an answer.
awk 'function id(k) { return sprintf("%08x", k) }
function ent(body) {
	n++
	par = n > 1 ? "\"" id(n - 1) "\"" : "null"
	printf "{\"type\":\"message\",\"id\":\"%s\",\"parentId\":%s,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":%s}\n", id(n), par, body
	size += length(body) + 100
}
BEGIN {
	while (length(blob) < 8000)
		blob = blob "\\u001b[32mfor\\u001b[0m (i = 0; i < n; i++)\\n\\t\\tsum += \\\"v[i]\\\" * w[i];\\n\\tx = 1;\\n\\ty = 2;\\n"
	print "{\"type\":\"session\",\"version\":3,\"id\":\"big\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/tmp\"}"
	while (size < 16000000) {
		t++
		ent("{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Question " t ": what does sum.c compute?\"}],\"timestamp\":1}")
		ent("{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"call" t "\",\"name\":\"read\",\"arguments\":{\"path\":\"sum.c\"}}],\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{\"input\":100,\"output\":10,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":110,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"toolUse\",\"timestamp\":1}")
		ent("{\"role\":\"toolResult\",\"toolCallId\":\"call" t "\",\"toolName\":\"read\",\"content\":[{\"type\":\"text\",\"text\":\"" blob "\"}],\"isError\":false,\"timestamp\":1}")
		ent("{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"It sums the products of v and w.\"}],\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{\"input\":100,\"output\":10,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":110,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\",\"timestamp\":1}")
	}
}' >"$T/big.jsonl"
check "a 16 MB session made" [ "$(wc -c <"$T/big.jsonl")" -gt 16000000 ]
# the same start, a few KB: what the agent holds of itself
head -n 9 "$T/big.jsonl" >"$T/small.jsonl"

script answer <<'X'
text Fixed.
finish stop
X
startfake "$T/answer" "$T/answer"

# peak FILE: the agent's peak memory in KB resuming FILE, into $KB
peak() {
	(agentexec ./test/maxrss ./agent -q -s "$1" go) </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
	KB=$(sed -n 's/^maxrss \([0-9]*\)$/\1/p' "$T/err")
}

peak "$T/small.jsonl"
base=$KB
check "resume a small session: exit 0" [ "$RC" -eq 0 ]
peak "$T/big.jsonl"
big=$KB
check "resume a 16 MB session: exit 0" [ "$RC" -eq 0 ]
req=$(($(wc -c <"$REQ/2.json") / 1024))
if [ -z "$base" ] || [ -z "$big" ]; then
	fail "$NAME" "no figure: $(cat "$T/err")"
elif [ $((big - base)) -le $((req / 2 + 4096)) ]; then
	ok "$NAME (request $req KB, peak $big KB, $base KB of it the agent's own)"
else
	fail "$NAME" "request $req KB, peak $big KB, $base KB of it the" \
	    "agent's own"
fi
