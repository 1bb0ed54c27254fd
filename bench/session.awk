# bench/session.awk: a pi session of about mb MB, made for bench/run.sh:
# turns of a question, a read call, its result (8 KB), an answer; with
# compact=1 a compaction near the end keeps the last turn alone.
# usage: awk -v mb=N [-v compact=1] -f bench/session.awk
function id(k) { return sprintf("%08x", k) }
function ent(type, body) {
	n++
	par = n > 1 ? "\"" id(n - 1) "\"" : "null"
	printf "{\"type\":\"%s\",\"id\":\"%s\",\"parentId\":%s,\"timestamp\":\"2026-01-01T00:00:00.000Z\",%s}\n", type, id(n), par, body
	size += 100 + length(body)
}
BEGIN {
	blob = ""
	while (length(blob) < 8000)
		blob = blob "\\tfor (i = 0; i < n; i++)\\n\\t\\tsum += v[i] * w[i];\\n"
	print "{\"type\":\"session\",\"version\":3,\"id\":\"bench\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/tmp\"}"
	ent("model_change", "\"provider\":\"fake\",\"modelId\":\"fake-model\"")
	while (size < mb * 1000000) {
		t++
		ent("message", "\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Question " t ": what does sum.c compute?\"}],\"timestamp\":1}")
		if (compact && size > mb * 1000000 - 20000 && !done) {
			done = 1
			ent("compaction", "\"summary\":\"The user asked about sum.c many times.\",\"firstKeptEntryId\":\"" id(n) "\",\"tokensBefore\":" int(size / 4))
		}
		ent("message", "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"toolCall\",\"id\":\"call" t "\",\"name\":\"read\",\"arguments\":{\"path\":\"sum.c\"}}],\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{\"input\":100,\"output\":10,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":110,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"toolUse\",\"timestamp\":1}")
		ent("message", "\"message\":{\"role\":\"toolResult\",\"toolCallId\":\"call" t "\",\"toolName\":\"read\",\"content\":[{\"type\":\"text\",\"text\":\"" blob "\"}],\"isError\":false,\"timestamp\":1}")
		ent("message", "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"It sums the products of v and w.\"}],\"api\":\"openai-completions\",\"provider\":\"fake\",\"model\":\"fake-model\",\"usage\":{\"input\":100,\"output\":10,\"cacheRead\":0,\"cacheWrite\":0,\"totalTokens\":110,\"cost\":{\"input\":0,\"output\":0,\"cacheRead\":0,\"cacheWrite\":0,\"total\":0}},\"stopReason\":\"stop\",\"timestamp\":1}")
	}
}
