#!/bin/sh
# export.sh: -e, a session as one page: HTML and Markdown, the current
# branch only, the default name, bad names and files, a torn line, and a
# hostile session whose page must run nothing (python3's html.parser,
# then a real browser where there is one).
. test/lib.sh
AGENT=$PWD/agent

# exp args...: ./agent -e with no key, no provider, no network: stdout in
# $T/out, stderr in $T/err, the status in $RC.
exp() {
	(cd "$T" && env -u AGENT_API_KEY -u OPENAI_API_KEY \
	    -u ANTHROPIC_API_KEY HOME="$T" AGENT_PROVIDER=no-such-provider \
	    AGENT_BASE_URL=http://127.0.0.1:1/v1 timeout 30 "$AGENT" "$@") \
	    >"$T/out" 2>"$T/err"
	RC=$?
}

# A session with every kind of entry, and two branches from e05: the
# first (e06, e07) left behind, the second (e08 on) the current one.
lines=
i=1
while [ $i -le 30 ]; do
	lines="${lines}LINE-$i\\n"
	i=$((i + 1))
done
U='"usage":{"input":1234,"output":56,"cacheRead":7,"cacheWrite":8,"totalTokens":1305,"cost":{"total":0.0125}}'
cat >"$T/s.jsonl" <<X
{"type":"session","version":3,"id":"5e551011-aaaa-4bbb-8ccc-000000000001","timestamp":"2026-01-02T03:04:05.000Z","cwd":"/home/u/proj"}
{"type":"model_change","id":"e01","parentId":null,"timestamp":"2026-01-02T03:04:06.000Z","provider":"openai","modelId":"gpt-test"}
{"type":"thinking_level_change","id":"e02","parentId":"e01","timestamp":"2026-01-02T03:04:06.000Z","thinkingLevel":"high"}
{"type":"message","id":"e03","parentId":"e02","timestamp":"2026-01-02T03:04:07.000Z","message":{"role":"user","content":[{"type":"text","text":"USER-ASKS-FIRST"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}],"timestamp":1}}
{"type":"message","id":"e04","parentId":"e03","timestamp":"2026-01-02T03:04:08.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"","redacted":true},{"type":"thinking","thinking":"THINKING-ABOUT-IT"},{"type":"text","text":"ASSISTANT-WILL-LOOK"},{"type":"toolCall","id":"call_1","name":"bash","arguments":{"command":"ls -la"}}],"provider":"openai","model":"gpt-test",$U,"stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"e05","parentId":"e04","timestamp":"2026-01-02T03:04:09.000Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash","content":[{"type":"text","text":"TOOL-OUTPUT-LINE\nsecond"}],"isError":false,"timestamp":3}}
{"type":"message","id":"e06","parentId":"e05","timestamp":"2026-01-02T03:04:10.000Z","message":{"role":"user","content":"ABANDONED-BRANCH-TEXT","timestamp":4}}
{"type":"message","id":"e07","parentId":"e06","timestamp":"2026-01-02T03:04:11.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ABANDONED-ANSWER"}],"provider":"openai","model":"gpt-test",$U,"stopReason":"stop","timestamp":5}}
{"type":"branch_summary","id":"e08","parentId":"e05","timestamp":"2026-01-02T03:04:12.000Z","fromId":"e07","summary":"BRANCH-SUMMARY-TEXT"}
{"type":"message","id":"e09","parentId":"e08","timestamp":"2026-01-02T03:04:13.000Z","message":{"role":"user","content":"LONG-OUTPUT-PLEASE","timestamp":6}}
{"type":"message","id":"e10","parentId":"e09","timestamp":"2026-01-02T03:04:14.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_2","name":"read","arguments":{"path":"big.txt"}}],"provider":"openai","model":"gpt-test",$U,"stopReason":"toolUse","timestamp":7}}
{"type":"message","id":"e11","parentId":"e10","timestamp":"2026-01-02T03:04:15.000Z","message":{"role":"toolResult","toolCallId":"call_2","toolName":"read","content":[{"type":"text","text":"$lines"}],"isError":false,"timestamp":8}}
{"type":"compaction","id":"e12","parentId":"e11","timestamp":"2026-01-02T03:04:16.000Z","summary":"COMPACTION-SUMMARY-TEXT","firstKeptEntryId":"e09","tokensBefore":4321}
{"type":"message","id":"e13","parentId":"e12","timestamp":"2026-01-02T03:04:17.000Z","message":{"role":"bashExecution","command":"echo BASH-CMD","output":"BASH-OUT","exitCode":3,"cancelled":false,"truncated":false,"timestamp":9}}
{"type":"message","id":"e14","parentId":"e13","timestamp":"2026-01-02T03:04:18.000Z","message":{"role":"user","content":[{"type":"text","text":"USER-ASKS-LAST"}],"timestamp":10}}
{"type":"message","id":"e15","parentId":"e14","timestamp":"2026-01-02T03:04:19.000Z","message":{"role":"assistant","content":[{"type":"text","text":"FINAL-ANSWER-TEXT"}],"provider":"openai","model":"gpt-test",$U,"stopReason":"stop","timestamp":11}}
X

exp -e s.jsonl
[ "$RC" -eq 0 ] && [ -s "$T/s.html" ] &&
    ok "html: written, with no key and no provider" ||
    fail "html: written, with no key and no provider" "rc $RC: $(cat "$T/err")"
[ "$(cat "$T/out")" = s.html ] && ok "default name: FILE.jsonl as FILE.html, said on stdout" ||
    fail "default name: FILE.jsonl as FILE.html, said on stdout" "$(cat "$T/out")"
[ ! -s "$T/err" ] && ok "html: nothing on stderr" || fail "html: nothing on stderr" "$(cat "$T/err")"
cp "$T/s.jsonl" "$T/plain"
exp -e plain
[ "$RC" -eq 0 ] && [ -s "$T/plain.html" ] && ok "default name: .html appended" ||
    fail "default name: .html appended" "rc $RC: $(ls "$T")"

# what a page holds, by python3's HTML parser: the tags, the attributes,
# the text (entities decoded); strict UTF-8.
cat >"$T/page.py" <<'X'
import re, sys
from html.parser import HTMLParser
class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text, self.stack = [], [], [], []
        self.folded = ""
    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]
        if tag == "details":
            self.stack.append(tag)
    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
    def handle_endtag(self, tag):
        if tag == "details" and self.stack:
            self.stack.pop()
    def handle_data(self, d):
        self.text.append(d)
        if self.stack:
            self.folded += d
def read(path):
    p = Page()
    p.feed(open(path, "rb").read().decode("utf-8"))
    p.close()
    p.all = "".join(p.text)
    return p
X

# pycheck NAME args...: ok when the python3 script on stdin succeeds.
pycheck() {
	_name=$1
	shift
	if ! command -v python3 >/dev/null 2>&1; then
		cat >/dev/null
		skip "$_name" "no python3"
	elif python3 - "$@" 2>"$T/py.err"; then
		ok "$_name"
	else
		fail "$_name" "$(tail -5 "$T/py.err")"
	fi
}

pycheck "html: the current branch, every kind of entry" "$T" <<'X'
import sys
sys.path.insert(0, sys.argv[1])
from page import read
p = read(sys.argv[1] + "/s.html")
for s in ["5e551011-aaaa-4bbb-8ccc-000000000001", "/home/u/proj",
          "Started: 2026-01-02 03:04 UTC", "Last entry: 2026-01-02 03:04 UTC",
          "03:04:07 UTC", "Messages: 9 (3 from the user, 3 answers, "
          "2 tool results), 2 tool calls", "Tokens: in 3702, out 168, "
          "cache read 21, cache write 24; cost $0.0375",
          "Model: openai/gpt-test", "USER-ASKS-FIRST",
          "THINKING-ABOUT-IT", "ASSISTANT-WILL-LOOK", "bash", "call_1",
          "$ ls -la", "TOOL-OUTPUT-LINE\nsecond",
          "BRANCH-SUMMARY-TEXT", "LONG-OUTPUT-PLEASE", "LINE-1\n",
          "LINE-30", "COMPACTION-SUMMARY-TEXT", "4321", "$ echo BASH-CMD",
          "BASH-OUT", "exit code 3", "USER-ASKS-LAST", "FINAL-ANSWER-TEXT",
          "[thinking redacted]", "gpt-test", "in 1234", "out 56", "cache read 7", "cache write 8",
          "$0.0125", "high"]:
    assert s in p.all, s
for s in ["ABANDONED-BRANCH-TEXT", "ABANDONED-ANSWER"]:
    assert s not in p.all, s
assert "THINKING-ABOUT-IT" in p.folded, "thinking folded"
assert "LINE-30" in p.folded, "long output folded"
assert "TOOL-OUTPUT-LINE" not in p.folded, "short output shown"
assert p.all.index("USER-ASKS-FIRST") < p.all.index("BRANCH-SUMMARY-TEXT") \
    < p.all.index("COMPACTION-SUMMARY-TEXT") < p.all.index("FINAL-ANSWER-TEXT")
imgs = [v for t, k, v in p.attrs if t == "img" and k == "src"]
assert imgs == ["data:image/png;base64,iVBORw0KGgo="], imgs
X

exp -e s.jsonl s.md
[ "$RC" -eq 0 ] && [ -s "$T/s.md" ] && ok "md: written" ||
    fail "md: written" "rc $RC: $(cat "$T/err")"
pycheck "md: the current branch, every kind of entry" "$T/s.md" <<'X'
import sys
m = open(sys.argv[1], "rb").read().decode("utf-8")
for s in ["# Session", "## User", "> USER-ASKS-FIRST", "## Assistant",
          "<details><summary>Thinking</summary>", "> THINKING-ABOUT-IT",
          "### Tool call: bash (call\\_1)", "```sh\n$ ls -la\n```",
          "TOOL-OUTPUT-LINE\nsecond\n```", "> BRANCH-SUMMARY-TEXT",
          "LINE-30", "> COMPACTION-SUMMARY-TEXT", "$ echo BASH-CMD",
          "BASH-OUT", "> FINAL-ANSWER-TEXT", "in 1234",
          "![image](data:image/png;base64,iVBORw0KGgo=)"]:
    assert s in m, s
assert "ABANDONED" not in m
X

exp -e s.jsonl s.txt
[ "$RC" -eq 2 ] && [ ! -e "$T/s.txt" ] && grep -q 'html' "$T/err" &&
    ok "a page named neither .html nor .md: usage error, exit 2" ||
    fail "a page named neither .html nor .md: usage error, exit 2" "rc $RC: $(cat "$T/err")"
exp -e s.jsonl a.html b.html
[ "$RC" -eq 2 ] && ok "two pages named: usage error" || fail "two pages named: usage error" "rc $RC"
exp -e nosuch.jsonl
[ "$RC" -eq 1 ] && grep -q 'nosuch.jsonl' "$T/err" && [ ! -e "$T/nosuch.html" ] &&
    ok "a missing file: said, exit 1, nothing written" ||
    fail "a missing file: said, exit 1, nothing written" "rc $RC: $(cat "$T/err")"
exp -e s.jsonl "$T/no/such/dir/s.html"
[ "$RC" -eq 1 ] && grep -q 'dir/s.html' "$T/err" &&
    ok "a page that cannot be written: said, exit 1" ||
    fail "a page that cannot be written: said, exit 1" "rc $RC: $(cat "$T/err")"

# A line broken in the middle and a torn last line: what loads is
# exported, each line skipped named on stderr.
{
	head -4 "$T/s.jsonl"
	echo '{"type":"message","id":"bad1" this is not json'
	sed -n 5p "$T/s.jsonl"
	printf '{"type":"message","id":"e99","parentId":"e05","mess'
} >"$T/torn.jsonl"
exp -e torn.jsonl torn.html
[ "$RC" -eq 0 ] && grep -q 'ASSISTANT-WILL-LOOK' "$T/torn.html" &&
    ok "torn: what loads is exported" || fail "torn: what loads is exported" "rc $RC: $(cat "$T/err")"
grep -q 'torn.jsonl:5' "$T/err" && grep -q 'torn.jsonl:7: torn' "$T/err" &&
    ok "torn: the lines skipped are named on stderr" ||
    fail "torn: the lines skipped are named on stderr" "$(cat "$T/err")"

# A hostile session: markup in every field a page shows, images that are
# no images, invalid UTF-8.  Each payload would mark the page if it ran.
R="document.body.setAttribute('data-pwned','1')"
cat >"$T/h.jsonl" <<X
{"type":"session","version":3,"id":"</title><script>$R</script>","timestamp":"<script>$R</script>","cwd":"/tmp/\"><svg onload=\"$R\">"}
{"type":"model_change","id":"h01","parentId":null,"timestamp":"x","provider":"<img src=x onerror=\"$R\">","modelId":"</p><script>$R</script>"}
{"type":"message","id":"h02","parentId":"h01","timestamp":"</small></h2><script>$R</script>","message":{"role":"user","content":[{"type":"text","text":"<script>$R</script> and </pre><img src=x onerror=\"$R\"> and </div></section><!-- and \"><svg onload=\"$R\"> and [a link](javascript:$R)"},{"type":"image","mimeType":"text/html","data":"PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg=="},{"type":"image","mimeType":"image/png","data":"AAAA\"><script>$R</script>"},{"type":"image","mimeType":"image/svg+xml","data":"PHN2Zy8+"},{"type":"image","mimeType":"image/png\"><script>$R</script>","data":"AAAA"}],"timestamp":1}}
{"type":"message","id":"h03","parentId":"h02","timestamp":"y","message":{"role":"assistant","content":[{"type":"thinking","thinking":"</details><script>$R</script>"},{"type":"text","text":"</div><img src=x onerror=\"$R\">"},{"type":"toolCall","id":"\"><img src=x onerror=\"$R\">","name":"<b onmouseover=\"$R\">bash</b>","arguments":{"<x onclick=\"$R\">":"</pre><script>$R</script>"}},{"type":"<script>$R</script>"}],"provider":"'><script>$R</script>","model":"<style>body{display:none}</style>","stopReason":"<script>$R</script>","errorMessage":"</pre><script>$R</script>","timestamp":2}}
{"type":"message","id":"h04","parentId":"h03","timestamp":"z","message":{"role":"toolResult","toolCallId":"<a href=\"http://example.com/\">x</a>","toolName":"<script>$R</script>","content":[{"type":"text","text":"</pre></details><script>$R</script>\u0000\u001b[31m\ud800"}],"isError":true,"timestamp":3}}
{"type":"custom_message","id":"h05","parentId":"h04","timestamp":"z","customType":"<script>$R</script>","content":"<iframe src=\"http://example.com/\"></iframe>","display":true}
{"type":"label","id":"h06","parentId":"h05","timestamp":"z","targetId":"<script>$R</script>","label":"<img src=x onerror=\"$R\">"}
{"type":"<script>$R</script>","id":"h07","parentId":"h06","timestamp":"z"}
{"type":"message","id":"h08","parentId":"h07","timestamp":"z","message":{"role":"<script>$R</script>","content":"x","summary":"<script>$R</script>"}}
X
printf '{"type":"message","id":"h09","parentId":"h08","timestamp":"z","message":{"role":"user","content":"bad \377\376 bytes \300\257"}}\n' >>"$T/h.jsonl"
exp -e h.jsonl h.html
[ "$RC" -eq 0 ] && ok "hostile: exported" || fail "hostile: exported" "rc $RC: $(cat "$T/err")"
exp -e h.jsonl h.md
[ "$RC" -eq 0 ] && ok "hostile: exported as Markdown" || fail "hostile: exported as Markdown" "rc $RC: $(cat "$T/err")"
pycheck "hostile: no script, no handler, nothing loaded; the payloads shown as text" "$T" "$R" <<'X'
import re, sys
sys.path.insert(0, sys.argv[1])
from page import read
r = sys.argv[2]
p = read(sys.argv[1] + "/h.html")
ours = {"html", "head", "meta", "style", "title", "body", "h1", "h2", "h3",
        "p", "div", "section", "details", "summary", "pre", "small", "img",
        "a"}
assert set(p.tags) <= ours, set(p.tags) - ours
assert p.tags.count("style") == 1 and p.tags.count("title") == 1
csp = [v for t, k, v in p.attrs if t == "meta" and k == "content" and
       "default-src" in v]
assert csp == ["default-src 'none'; img-src data:; style-src 'unsafe-inline'"]
for t, k, v in p.attrs:
    assert not k.startswith("on"), (t, k, v)
    assert k in ("lang", "charset", "http-equiv", "content", "name",
                 "class", "alt", "src", "href"), (t, k, v)
    if k == "href":
        assert re.fullmatch(r"https?://[^\s\"'<>]+", v), v
    if k == "src":
        assert re.fullmatch(r"data:image/(png|jpeg|gif|webp);base64,"
                            r"[A-Za-z0-9+/=]+", v), v
assert not [v for t, k, v in p.attrs if k == "src"], "no image shown"
for s in ["</title><script>" + r + "</script>",
          "/tmp/\"><svg onload=\"" + r + "\">",
          "<script>" + r + "</script> and </pre><img src=x onerror=\"" + r +
          "\"> and </div></section><!-- and \"><svg onload=\"" + r + "\">"
          " and [a link](javascript:" + r + ")",
          "</details><script>" + r + "</script>",
          "<b onmouseover=\"" + r + "\">bash</b>",
          "\"><img src=x onerror=\"" + r + "\">",
          "<x onclick=\"" + r + "\">: </pre><script>" + r + "</script>",
          "<a href=\"http://example.com/\">x</a>",
          "<iframe src=\"http://example.com/\"></iframe>",
          "<style>body{display:none}</style>", "text/html", "image/svg+xml",
          "bad \ufffd\ufffd bytes \ufffd\ufffd"]:
    assert s in p.all, s
m = open(sys.argv[1] + "/h.md", "rb").read().decode("utf-8")
assert "bad \ufffd\ufffd bytes" in m and "data:" not in m
assert "\\<b onmouseover=\"" in m and "\\<script\\>" in m
# outside the fences, which show text as it is, no HTML but ours and no
# link: a viewer that lets HTML or links through shows the text
prose = re.sub(r"(?ms)^(`{3,})[^`\n]*\n.*?^\1`*$", "", m)
tags = re.findall(r"(?<!\\)<[^>]*>?", prose)
assert set(tags) <= {"<details>", "</details>", "<summary>", "</summary>"}, tags
assert not re.findall(r"(?<!\\)\[", prose), re.findall(r".{20}(?<!\\)\[.{20}", prose)
X

# A session as models write it: Markdown, an edit, a write, a command,
# an image as pi stores it, and hostile text among the Markdown.
cat >"$T/m.jsonl" <<'X'
{"type":"session","version":3,"id":"5e551011-aaaa-4bbb-8ccc-000000000002","timestamp":"2026-11-28T14:03:05.000Z","cwd":"/home/u/proj"}
{"type":"message","id":"m01","parentId":null,"timestamp":"2026-11-28T14:03:06.000Z","message":{"role":"user","content":[{"type":"text","text":"Fix **main.c**, see [the docs](https://example.com/docs) and [evil](javascript:document.title='PWNED')."},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}],"timestamp":1}}
{"type":"message","id":"m02","parentId":"m01","timestamp":"2026-11-28T14:03:07.000Z","message":{"role":"assistant","content":[{"type":"text","text":"## The plan\n\n- first *item*\n- second __strong__ item\n  - nested `code`\n\n1. one\n2. two\n\n> a quote\n\n| name | size |\n|:-----|-----:|\n| a.c | 12 |\n\n```c\nint main(void) { return 0; }\n```\n\nHOSTILE <script>document.title='PWNED'</script> <img src=x onerror=\"document.title='PWNED';document.body.setAttribute('data-pwned','1')\"> </pre></div></section> `</code><script>x</script>` [x](data:text/html,<script>y</script>)"},{"type":"toolCall","id":"call_e","name":"edit","arguments":{"path":"main.c","edits":[{"oldText":"int main(void) {\n\treturn 1;\n}\n","newText":"int main(void) {\n\treturn 0;\n}\n"}]}},{"type":"toolCall","id":"call_w","name":"write","arguments":{"path":"NOTES.md","content":"WRITTEN-CONTENT\n"}},{"type":"toolCall","id":"call_b","name":"bash","arguments":{"command":"make && ./main"}}],"provider":"anthropic","model":"claude-test","usage":{"input":100,"output":20,"cacheRead":3,"cacheWrite":4,"totalTokens":127,"cost":{"total":0.5}},"stopReason":"toolUse","timestamp":2}}
{"type":"message","id":"m03","parentId":"m02","timestamp":"2026-11-28T14:05:09.000Z","message":{"role":"toolResult","toolCallId":"call_e","toolName":"edit","content":[{"type":"text","text":"Successfully replaced 1 block(s) in main.c."}],"details":{"diff":"-2 \treturn 1;\n+2 \treturn 0;","firstChangedLine":2},"isError":false,"timestamp":3}}
X
exp -e m.jsonl m.html
[ "$RC" -eq 0 ] && ok "markdown: exported" || fail "markdown: exported" "rc $RC: $(cat "$T/err")"
exp -e m.jsonl m.md
[ "$RC" -eq 0 ] && ok "markdown: exported as Markdown" ||
    fail "markdown: exported as Markdown" "rc $RC: $(cat "$T/err")"
pycheck "markdown: rendered, the edit a diff, no script, the policy kept" "$T" <<'X'
import re, sys
sys.path.insert(0, sys.argv[1])
from page import read
h = open(sys.argv[1] + "/m.html", "rb").read().decode("utf-8")
p = read(sys.argv[1] + "/m.html")
for t in ["h2", "ul", "ol", "li", "table", "th", "td", "pre", "code",
          "strong", "em", "blockquote", "a", "del", "ins", "img"]:
    assert t in p.tags, t
assert "<script" not in h.lower()
assert "<h2>The plan</h2>" in h
assert "<ul><li>first <em>item</em></li>" in h
assert "<li>second <strong>strong</strong> item<ul><li>nested " \
    "<code>code</code></li></ul>" in h
assert '<th class="l"> name </th><th class="r"> size </th>' in h
assert '<pre><code class="language-c">int main(void) { return 0; }\n' \
    '</code></pre>' in h
hrefs = [v for t, k, v in p.attrs if k == "href"]
assert hrefs == ["https://example.com/docs"], hrefs
assert "[evil](javascript:document.title='PWNED')" in p.all
assert "[x](data:text/html,<script>y</script>)" in p.all
assert "<del>-\treturn 1;</del><ins>+\treturn 0;</ins>" in h
assert "path: main.c" in p.all and "path: NOTES.md" in p.all
assert "WRITTEN-CONTENT" in p.all and "$ make && ./main" in p.all
assert "HOSTILE <script>document.title='PWNED'</script> <img src=x" in p.all
csp = [v for t, k, v in p.attrs if t == "meta" and k == "content" and
       "default-src" in v]
assert csp == ["default-src 'none'; img-src data:; style-src 'unsafe-inline'"]
for s in ["Started: 2026-11-28 14:03 UTC",
          "Last entry: 2026-11-28 14:05 UTC",
          "Messages: 3 (1 from the user, 1 answers, 1 tool results), "
          "3 tool calls", "Tokens: in 100, out 20, cache read 3, "
          "cache write 4; cost $0.5000", "Model: anthropic/claude-test"]:
    assert s in p.all, s
imgs = [v for t, k, v in p.attrs if t == "img" and k == "src"]
assert len(imgs) == 1 and imgs[0].startswith("data:image/png;base64,iVBOR")
m = open(sys.argv[1] + "/m.md", "rb").read().decode("utf-8")
assert "```diff\n@@ -1,3 +1,3 @@\n int main(void) {\n-\treturn 1;\n" \
    "+\treturn 0;\n }\n```" in m, m
X

# A real browser: the page shows the conversation, and nothing in the
# hostile one runs, with the page's policy or (its meta line taken out)
# by the escaping alone.  A control page whose script must run shows
# that the check can see a script run.
chrome() {
	timeout 60 chromium --headless --no-sandbox --disable-gpu \
	    --user-data-dir="$T/chrome" --virtual-time-budget=2000 \
	    --dump-dom "file://$T/$1" >"$T/$2" 2>"$T/chrome.err"
}
pwned() {
	grep -q '<[a-z][^<>]* data-pwned=' "$T/$1"
}
if ! command -v chromium >/dev/null 2>&1; then
	for c in "the conversation rendered" "a control script runs" \
	    "hostile: nothing runs" "hostile: nothing runs without the policy" \
	    "markdown: rendered, nothing runs"
	do
		skip "chromium: $c" "no chromium (apt-get install chromium)"
	done
	exit 0
fi
chrome s.html s.dom
grep -q 'USER-ASKS-FIRST' "$T/s.dom" && grep -q 'FINAL-ANSWER-TEXT' "$T/s.dom" &&
    ! grep -q 'ABANDONED' "$T/s.dom" &&
    ok "chromium: the conversation rendered" ||
    fail "chromium: the conversation rendered" "$(head -c 500 "$T/s.dom") $(tail -3 "$T/chrome.err")"
printf '<!DOCTYPE html><body><img src=x onerror="%s"></body>\n' "$R" >"$T/c.html"
chrome c.html c.dom
pwned c.dom && ok "chromium: a control script runs" ||
    fail "chromium: a control script runs" "the check cannot see one: $(head -c 500 "$T/c.dom")"
chrome h.html h.dom
[ -s "$T/h.dom" ] && ! pwned h.dom && ok "chromium: hostile: nothing runs" ||
    fail "chromium: hostile: nothing runs" "$(head -c 800 "$T/h.dom")"
grep -v 'Content-Security-Policy' "$T/h.html" >"$T/h2.html"
chrome h2.html h2.dom
[ -s "$T/h2.dom" ] && ! pwned h2.dom &&
    ok "chromium: hostile: nothing runs without the policy" ||
    fail "chromium: hostile: nothing runs without the policy" "$(head -c 800 "$T/h2.dom")"
chrome m.html m.dom
grep -q '<h2>The plan</h2>' "$T/m.dom" && grep -q '<table>' "$T/m.dom" &&
    grep -q '<del>' "$T/m.dom" && grep -q '<ins>' "$T/m.dom" &&
    grep -q '<a href="https://example.com/docs">' "$T/m.dom" &&
    grep -q '<img alt="image" src="data:image/png' "$T/m.dom" &&
    grep -q '<title>Session 5e551011-aaaa-4bbb-8ccc-000000000002</title>' \
    "$T/m.dom" && ! grep -qi '<script' "$T/m.dom" && ! pwned m.dom &&
    ok "chromium: markdown: rendered, nothing runs" ||
    fail "chromium: markdown: rendered, nothing runs" "$(head -c 800 "$T/m.dom")"
