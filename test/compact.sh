#!/bin/sh
# compact.sh: compaction end to end: when the context nears the window,
# or the provider says it is over, the older part of the conversation is
# summarised by the model and a compaction entry appended, as pi does.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W"
if ! command -v python3 >/dev/null 2>&1; then
	skip "compaction" "no python3"
	exit 0
fi

# runs FILE STDIN args...: the agent on session FILE with stdin from STDIN.
runs() {
	_f=$1 _in=$2
	shift 2
	(cd "$W" && agentexec timeout 30 "$ROOT/agent" -s "$_f" "$@") \
	    <"$_in" >"$T/out" 2>"$T/err"
	RC=$?
}

# A conversation worth compacting: a short exchange, then a long answer
# whose usage says the window (400000 for openai) is nearly full.
script small <<'X'
text A short answer.
finish stop
usage 100 5
X
script big <<'X'
big 100000
finish stop
usage 390000 25000
X
printf 'first\nsecond\n' >"$T/two"
startfake -x "$T/small" "$T/big"
runs "$T/s.jsonl" "$T/two"
[ "$RC" -eq 0 ] && ok "setup: a long conversation" || fail "setup: a long conversation" "rc $RC: $(cat "$T/err")"
cp "$T/s.jsonl" "$T/s3.jsonl"
cp "$T/s.jsonl" "$T/sj.jsonl"
# the same, but with usage that does not say the window is full
script bigquiet <<'X'
big 100000
finish stop
usage 1000 25000
X
startfake -x "$T/small" "$T/bigquiet"
runs "$T/s2.jsonl" "$T/two"

script summary <<'X'
text SUMMARY-XYZ of the early work.
finish stop
X
script third <<'X'
text Third answer.
finish stop
usage 30000 5
X
startfake -x "$T/summary" "$T/third"
runs "$T/s.jsonl" /dev/null 'third'
[ "$RC" -eq 0 ] && [ "$(cat "$T/out")" = "Third answer." ] &&
    ok "threshold: the answer alone on stdout" || fail "threshold: the answer alone on stdout" "rc $RC: $(cat "$T/out") $(cat "$T/err")"
grep -q 'compacting the conversation' "$T/err" && ok "threshold: said on stderr" ||
    fail "threshold: said on stderr" "$(cat "$T/err")"
jsontest "threshold: the summary request" "$REQ/1.json" \
    '"tools" not in d and d["messages"][0]["role"] == "system" and
     "summarise" in d["messages"][0]["content"] and
     "[User]: first" in d["messages"][1]["content"] and
     "[Assistant]: A short answer." in d["messages"][1]["content"] and
     "[User]: second" in d["messages"][1]["content"] and
     "abcdefghij" not in d["messages"][1]["content"]'
jsontest "threshold: the turn goes on from the summary and the kept part" "$REQ/2.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user", "assistant", "user"] and
     "SUMMARY-XYZ" in d["messages"][1]["content"] and
     len(d["messages"][2]["content"]) >= 100000 and d["messages"][-1]["content"] == "third"'
python3 - "$T/s.jsonl" <<'X' && ok "threshold: a compaction entry as pi writes it, nothing deleted" || fail "threshold: a compaction entry as pi writes it, nothing deleted" "$(grep compaction "$T/s.jsonl" | head -c 400)"
import json, sys
e = [json.loads(l) for l in open(sys.argv[1])]
c = [x for x in e if x["type"] == "compaction"]
assert len(c) == 1 and c[0]["summary"].startswith("SUMMARY-XYZ")
assert c[0]["tokensBefore"] >= 390000
kept = [x for x in e if x.get("id") == c[0]["firstKeptEntryId"]][0]
assert kept["message"]["role"] == "assistant"
assert len(kept["message"]["content"][0]["text"]) >= 100000
texts = [x["message"]["content"][0].get("text") for x in e if x["type"] == "message"]
assert texts[:3] == ["first", "A short answer.", "second"]
X

# The provider says the context is too long: compact, then ask again once.
script over <<'X'
status 400
error This model's maximum context length is 128000 tokens.
X
startfake -x "$T/over" "$T/summary" "$T/third"
runs "$T/s2.jsonl" /dev/null -j 'third'
python3 - "$T/out" <<'X' && ok "overflow -j: events balanced, the question once" || fail "overflow -j: events balanced, the question once" "$(cut -c1-100 "$T/out")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])][1:]
k = [e["type"] for e in ev]
assert k.count("message_start") == k.count("message_end")
assert k.count("turn_start") == k.count("turn_end") == 2
assert "compaction_start" in k and "compaction_end" in k
users = [e for e in ev if e["type"] == "message_end" and e["message"]["role"] == "user"]
assert len(users) == 1
deltas = "".join(e["assistantMessageEvent"].get("delta", "") for e in ev if e["type"] == "message_update")
assert deltas == "Third answer.", deltas
end = [e for e in ev if e["type"] == "compaction_end"][0]
assert end["willRetry"] is True and end["aborted"] is False, end
assert end["result"]["summary"].startswith("SUMMARY-XYZ")
X
[ "$RC" -eq 0 ] && ok "overflow: compacted and answered" ||
    fail "overflow: compacted and answered" "rc $RC: $(cat "$T/err")"
jsontest "overflow: the second try is on the compacted context" "$REQ/3.json" \
    '"SUMMARY-XYZ" in d["messages"][1]["content"] and d["messages"][-1]["content"] == "third"'

# /compact by hand, with a focus; nothing to compact in a short one.
printf '/compact keep the names\nfourth\n' >"$T/manual"
startfake -x "$T/summary" "$T/third"
runs "$T/s3.jsonl" "$T/manual"
jsontest "/compact: the focus reaches the summariser" "$REQ/1.json" \
    '"Additional focus: keep the names" in d["messages"][1]["content"]'
jsontest "/compact: then the next message" "$REQ/2.json" \
    'd["messages"][-1]["content"] == "fourth" and "SUMMARY-XYZ" in d["messages"][1]["content"]'
# -j: a compaction by hand asks nothing again: willRetry false.
startfake -x "$T/summary" "$T/third"
runs "$T/sj.jsonl" "$T/manual" -j
python3 - "$T/out" <<'X' && ok "/compact -j: compaction_end, willRetry false" || fail "/compact -j: compaction_end, willRetry false" "$(grep compaction "$T/out")"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])][1:]
end = [e for e in ev if e["type"] == "compaction_end"][0]
assert end["reason"] == "manual" and end["willRetry"] is False, end
assert end["aborted"] is False and "summary" in end["result"]
X
printf '/compact\n' >"$T/short"
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -n) <"$T/short" >"$T/out" 2>"$T/err"
grep -q 'nothing to compact' "$T/err" && ok "/compact: nothing to compact in a short one" ||
    fail "/compact: nothing to compact in a short one" "$(cat "$T/err")"

# /fork after a /compact that found nothing: the fork holds the lines
# whole, each once (the lines the plan read went back to the file).
printf 'hello\n' >"$T/hello"
startfake -x "$T/third"
runs "$T/sf.jsonl" "$T/hello"
printf '/compact\n/fork\n' >"$T/cf"
runs "$T/sf.jsonl" "$T/cf"
G=$(sed -n 's/.*forked: //p' "$T/err")
python3 - "$T/sf.jsonl" "$G" <<'X' && ok "/fork after /compact: the lines whole" || fail "/fork after /compact: the lines whole" "$(cat "$T/err"; cat "$G")"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert [e.get("id") for e in a[1:]] == [e.get("id") for e in b[1:]], b
assert [e.get("message") for e in a[1:]] == [e.get("message") for e in b[1:]]
X

# The newest entries are big tool results of one call: the cut goes back
# to the message that made the calls, never between a call and a result.
for f in r1 r2 r3; do
	awk 'BEGIN { for (i = 0; i < 1000; i++) printf "%049d\n", i }' >"$W/$f.txt"
done
script calls <<'X'
tool t1 read {"path": "r1.txt"}
tool t2 read {"path": "r2.txt"}
tool t3 read {"path": "r3.txt"}
finish tool_calls
usage 100 10
X
startfake -x "$T/small" "$T/calls" "$T/over" "$T/summary" "$T/third"
printf 'hello\nread the three\n' >"$T/two2"
runs "$T/s4.jsonl" "$T/two2"
[ "$RC" -eq 0 ] && ok "tool results last: compacted and answered" ||
    fail "tool results last: compacted and answered" "rc $RC: $(cat "$T/err")"
jsontest "tool results last: the calls and their results kept together" "$REQ/5.json" \
    '[m["role"] for m in d["messages"]] == ["system", "user", "assistant",
     "tool", "tool", "tool"] and "SUMMARY-XYZ" in d["messages"][1]["content"] and
     [c["id"] for c in d["messages"][2]["tool_calls"]] == ["t1", "t2", "t3"]'
jsontest "tool results last: the question went into the summary" "$REQ/4.json" \
    '"[User]: read the three" in d["messages"][1]["content"]'

# pi's own kinds of entry are summarised too: a !cmd run, a custom message.
python3 - "$T/s5.jsonl" <<'X'
import json, sys
big = "x" * 100000
lines = [{"type": "session", "version": 3, "id": "11111111-2222-4333-8444-555555555555",
          "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}]
def add(i, **kw):
    e = {"id": "e%07d" % i, "parentId": "e%07d" % (i - 1) if i else None,
         "timestamp": "2026-01-01T00:00:01.000Z"}
    e.update(kw)
    lines.append(e)
add(0, type="message", message={"role": "bashExecution", "command": "make check",
    "output": "all 12 pass", "exitCode": 0, "cancelled": False, "truncated": False})
add(1, type="custom_message", customType="note", content="REMEMBER-THIS", display=True)
add(2, type="message", message={"role": "user", "content": "go on"})
add(3, type="message", message={"role": "assistant", "content": [{"type": "text", "text": big}],
    "stopReason": "stop", "usage": {"totalTokens": 1000}})
with open(sys.argv[1], "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
X
printf '/compact\n' >"$T/c1"
startfake -x "$T/summary"
runs "$T/s5.jsonl" "$T/c1"
jsontest "pi's entries: a !cmd run and a custom message reach the summariser" "$REQ/1.json" \
    '"[User ran]: make check" in d["messages"][1]["content"] and
     "all 12 pass" in d["messages"][1]["content"] and
     "[User]: REMEMBER-THIS" in d["messages"][1]["content"]'

# The token estimate by the model's tokenizer: Sonnet 5 counts ~30% more
# tokens for the same text (models-now.md), so that text after the last
# usage sets compaction off sooner there than on an older model with the
# same window (1M; 128K kept for the answer: 872K).  800K by the last
# usage, then 240 KB of text: 60K tokens by bytes, 78K on Sonnet 5.
python3 - "$T/tok.jsonl" <<'X'
import json, sys
lines = [{"type": "session", "version": 3, "id": "11111111-2222-4333-8444-666666666666",
          "timestamp": "2026-01-01T00:00:00.000Z", "cwd": "/tmp"}]
def add(i, **kw):
    e = {"id": "t%07d" % i, "parentId": "t%07d" % (i - 1) if i else None,
         "timestamp": "2026-01-01T00:00:01.000Z"}
    e.update(kw)
    lines.append(e)
add(0, type="message", message={"role": "user", "content": "start"})
add(1, type="message", message={"role": "assistant", "content": [{"type": "text", "text": "ok"}],
    "stopReason": "stop", "usage": {"totalTokens": 800000}})
add(2, type="message", message={"role": "user", "content": "y" * 240000})
with open(sys.argv[1], "w") as f:
    for l in lines:
        f.write(json.dumps(l) + "\n")
X
cp "$T/tok.jsonl" "$T/tok2.jsonl"
startfake -x "$T/third"
runs "$T/tok.jsonl" /dev/null -m claude-opus-4-6 'go'
[ "$RC" -eq 0 ] && ! grep -q 'compacting' "$T/err" &&
    ok "token estimate: 60K estimated tokens under the threshold on Opus 4.6" ||
    fail "token estimate: 60K estimated tokens under the threshold on Opus 4.6" "rc $RC: $(cat "$T/err")"
startfake -x "$T/summary" "$T/third"
runs "$T/tok2.jsonl" /dev/null -m claude-sonnet-5 'go'
[ "$RC" -eq 0 ] && grep -q 'compacting the conversation (threshold' "$T/err" &&
    ok "token estimate: the same text over it on Sonnet 5, its tokenizer's" ||
    fail "token estimate: the same text over it on Sonnet 5, its tokenizer's" "rc $RC: $(cat "$T/err")"
