#!/bin/sh
# prompt.sh: what the user's words bring in: skills listed in the system
# prompt, prompt templates (/name args, line mode and one-shot), @files
# attached (text and images), each as pi does it; with pi installed, the
# same words through pi -p give the same request.
. test/lib.sh
ROOT=$PWD
W=$T/work
mkdir -p "$W/.git" "$W/.agents/skills/alpha" "$W/.agents/skills/bad" \
    "$W/.agents/skills/nodesc" "$W/.claude/skills/gamma" \
    "$T/.agents/skills/beta" "$W/.agents/prompts" "$W/.pi/prompts" \
    "$T/.pi/agent/prompts"

# runat FILE args...: the agent in $W, stdin from FILE
runat() {
	_in=$1
	shift
	(cd "$W" && agentexec timeout 30 "$ROOT/agent" -n "$@") <"$_in" \
	    >"$T/out" 2>"$T/err"
	RC=$?
}
# field N EXPR: the Python expression EXPR of request N's body b (as
# unenv leaves it), its system prompt s and its last user message's
# text u (images: img)
field() {
	python3 - "$REQ/$1.json" "$2" <<'X'
import json, os, sys
exec(os.environ["UNENV"])
b = unenv(json.load(open(sys.argv[1])))
m = b["messages"]
s = m[0]["content"] if isinstance(m[0]["content"], str) else "".join(p.get("text", "") for p in m[0]["content"])
c = [x for x in m if x["role"] == "user"][-1]["content"]
u = c if isinstance(c, str) else "".join(p.get("text", "") for p in c if p["type"] == "text")
img = [] if isinstance(c, str) else [p for p in c if p["type"] == "image_url"]
print(eval(sys.argv[2]))
X
}
# is NAME N EXPR WANT: ok when field N EXPR prints WANT
is() {
	_got=$(field "$2" "$3" 2>&1)
	[ "$_got" = "$4" ] && ok "$1" || fail "$1" "got [$_got] want [$4] $(cat "$T/err")"
}
nreq() {
	ls "$REQ" | grep -c '\.json$'
}
if ! command -v python3 >/dev/null 2>&1; then
	skip "prompt" "no python3"
	exit 0
fi

script ok <<'X'
text done
finish stop
X

# skills: project (.agents, .claude) and home; a bad one said and skipped
cat >"$W/.agents/skills/alpha/SKILL.md" <<'X'
---
name: alpha
description: Does A & <b> things. Use when A.
---
# Alpha
X
cat >"$T/.agents/skills/beta/SKILL.md" <<'X'
---
name: "beta"
description: 'Beta''s skill: # not a comment'
---
X
cat >"$W/.claude/skills/gamma/SKILL.md" <<'X'
---
description: >
  Folded over
  two lines
---
X
printf '# no front matter\n' >"$W/.agents/skills/bad/SKILL.md"
printf -- '---\nname: nodesc\n---\nbody\n' >"$W/.agents/skills/nodesc/SKILL.md"
startfake -x "$T/ok"
runat /dev/null 'hi'
is "skills: project and home listed as pi lists them" 1 \
    's[s.index("\n\nThe following skills"):s.index("</available_skills>") + 19]' \
    "$(printf '\n\nThe following skills provide specialized instructions for specific tasks.
Use the read tool to load a skill'"'"'s file when the task matches its description.
When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.

<available_skills>
  <skill>
    <name>alpha</name>
    <description>Does A &amp; &lt;b&gt; things. Use when A.</description>
    <location>%s/.agents/skills/alpha/SKILL.md</location>
  </skill>
  <skill>
    <name>gamma</name>
    <description>Folded over two lines
</description>
    <location>%s/.claude/skills/gamma/SKILL.md</location>
  </skill>
  <skill>
    <name>beta</name>
    <description>Beta&apos;s skill: # not a comment</description>
    <location>%s/.agents/skills/beta/SKILL.md</location>
  </skill>
</available_skills>' "$W" "$W" "$T")"
grep -q "skill $W/.agents/skills/bad/SKILL.md: no front matter: skipped" "$T/err" &&
    grep -q "nodesc/SKILL.md: no description: skipped" "$T/err" &&
    ok "a skill without front matter or description is named on stderr and skipped" ||
    fail "a skill without front matter or description is named on stderr and skipped" "$(cat "$T/err")"
is "the system prompt ends with the skills, no date after them" 1 \
    's.endswith("</available_skills>") and "Current date:" not in s' True

startfake -x "$T/ok"
runat /dev/null -t bash 'hi'
is "without the read tool no skills are listed, as pi" 1 \
    '"available_skills" in s' False

if [ "$(id -u)" -eq 0 ]; then
	chown -R nobody "$W/.agents/skills/alpha"
	startfake -x "$T/ok"
	runat /dev/null 'hi'
	is "a project skill of another user is not listed" 1 \
	    '("<name>alpha" in s, "<name>beta" in s)' "(False, True)"
	chown -R 0 "$W/.agents/skills/alpha"
else
	skip "a project skill of another user is not listed" "not root: no chown"
fi

# templates
cat >"$W/.agents/prompts/rev.md" <<'X'
---
description: Review a file
---
Review $1 then $@ and $ARGUMENTS; ${@:2}; ${@:2:1}; [$3$4$10].
X
printf 'Fix $1 in home\n' >"$T/.pi/agent/prompts/fix.md"
printf 'Project $1\n' >"$W/.pi/prompts/fix.md"
printf '\n\n  First line of a long template that goes on past sixty bytes.\n' \
    >"$T/.pi/agent/prompts/long.md"
printf '/rev a.c "b c" d\n/fix x\n/help\n/nosuch 1\n' >"$T/in"
startfake -x "$T/ok" "$T/ok"
runat "$T/in"
is "/rev: \$1 \$@ \$ARGUMENTS \${@:N} \${@:N:L} as pi puts them in" 1 u \
    'Review a.c then a.c b c d and a.c b c d; b c d; b c; [d].'
is "/fix: the project's template before the home one, its newline kept" 2 \
    'repr(u)' "'Project x\\n'"
grep -q '^/rev  Review a file$' "$T/err" &&
    grep -q '^/fix  Project \$1$' "$T/err" &&
    grep -q '^/long    First line of a long template that goes on past sixty byte\.\.\.$' "$T/err" &&
    ok "/help lists the templates with their descriptions" ||
    fail "/help lists the templates with their descriptions" "$(cat "$T/err")"
grep -q 'unknown command: /nosuch 1' "$T/err" && [ "$(nreq)" -eq 2 ] &&
    ok "a /name of no template is an unknown command, no request" ||
    fail "a /name of no template is an unknown command, no request" "$(nreq) $(cat "$T/err")"

printf 'Template help\n' >"$W/.agents/prompts/help.md"
printf '/help\n' >"$T/in"
startfake -x "$T/ok"
runat "$T/in"
[ "$(nreq)" -eq 0 ] && grep -q '^/session' "$T/err" &&
    ok "a built-in command wins over a template of its name" ||
    fail "a built-in command wins over a template of its name" "$(cat "$T/err")"

startfake -x "$T/ok"
runat /dev/null '/rev' 'x.c' 'y'
is "one-shot: the prompt /rev x.c y expands" 1 u \
    'Review x.c then x.c y and x.c y; y; y; [].'

# @files
printf 'hello\n' >"$W/note.txt"
# a real 1x1 PNG, which pi can resize
python3 -c 'import struct, zlib, sys
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
sys.stdout.buffer.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) +
    chunk(b"IDAT", zlib.compress(b"\0\xff\0\0")) + chunk(b"IEND", b""))' >"$W/dot.png"
: >"$W/empty.txt"
startfake -x "$T/ok"
runat /dev/null @note.txt 'explain' @dot.png @empty.txt
is "one-shot: @file arguments attached as pi attaches them" 1 'repr(u)' \
    "$(printf "'<file name=\"%s/note.txt\">\\\\nhello\\\\n\\\\n</file>\\\\n<file name=\"%s/dot.png\"></file>\\\\nexplain'" "$W" "$W")"
is "an @image is an image block" 1 \
    '[i["image_url"]["url"][:21] for i in img]' "['data:image/png;base64']"

printf 'look at @note.txt now, mail me@example.org\n' >"$T/in"
startfake -x "$T/ok"
runat "$T/in"
is "line mode: @word attached, kept in the text; an address is no file" 1 \
    'repr(u)' "$(printf "'<file name=\"%s/note.txt\">\\\\nhello\\\\n\\\\n</file>\\\\nlook at @note.txt now, mail me@example.org'" "$W")"

startfake -x "$T/ok"
runat /dev/null 'see @missing.txt'
[ "$RC" -eq 1 ] && [ "$(nreq)" -eq 0 ] &&
    grep -q "$W/missing.txt: file not found" "$T/err" &&
    ok "one-shot: a missing @file exits 1 before any request" ||
    fail "one-shot: a missing @file exits 1 before any request" "rc $RC $(nreq) $(cat "$T/err")"
printf 'see @missing.txt\nthen this\n' >"$T/in"
startfake -x "$T/ok"
runat "$T/in"
[ "$(nreq)" -eq 1 ] && grep -q "missing.txt: file not found" "$T/err" &&
    [ "$(field 1 u)" = "then this" ] &&
    ok "line mode: a missing @file is said, the message not sent" ||
    fail "line mode: a missing @file is said, the message not sent" "$(nreq) $(cat "$T/err")"

printf 'ask @everyone about @property\n' >"$T/in"
startfake -x "$T/ok"
runat "$T/in"
[ "$(nreq)" -eq 1 ] && [ "$(field 1 u)" = "ask @everyone about @property" ] &&
    ok "line mode: an @word that is no file and looks like no path stays text" ||
    fail "line mode: an @word that is no file and looks like no path stays text" "$(nreq) $(cat "$T/err")"

# pi, given the same words in the same directory, sends the same
PI=${PI:-$ROOT/bench/pi/node_modules/.bin/pi}
if [ ! -x "$PI" ] || ! command -v node >/dev/null 2>&1; then
	skip "pi: the same skills list" "pi is not installed (set PI, or npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
	skip "pi: the same template expansion" "pi is not installed"
	skip "pi: the same @file attachment" "pi is not installed"
	exit 0
fi
mkdir -p "$T/.pi/agent"
# pirun ARGS...: pi -p in $W against the fake, HOME as agent's
pirun() {
	cat >"$T/.pi/agent/models.json" <<EOF
{"providers": {"fake": {"baseUrl": "$URL", "api": "openai-completions",
 "apiKey": "test-key", "compat": {"supportsDeveloperRole": false},
 "models": [{"id": "fake-model", "name": "fake-model", "input": ["text", "image"],
 "contextWindow": 200000, "maxTokens": 32000}]}}}
EOF
	(cd "$W" && HOME="$T" timeout 60 "$PI" --offline --provider fake \
	    --model fake-model --no-session -p "$@") </dev/null >"$T/piout" 2>&1
}
# same NAME EXPR ARGS...: EXPR of agent's request and of pi's, for ARGS
same() {
	_name=$1 _expr=$2
	shift 2
	startfake -x "$T/ok"
	runat /dev/null "$@"
	_a=$(field 1 "$_expr" 2>&1)
	startfake -x "$T/ok"
	pirun "$@"
	_p=$(field 1 "$_expr" 2>&1)
	[ -n "$_a" ] && [ "$_a" = "$_p" ] && ok "$_name" ||
	    fail "$_name" "agent [$_a] pi [$_p] $(head -c 500 "$T/piout")"
}
cp "$W/.agents/prompts/rev.md" "$W/.pi/prompts/rev.md"
rm -r "$W/.claude"	# pi does not look there
same "pi: the same skills list" \
    's[s.index("\n\nThe following skills"):s.index("</available_skills>")]' 'hi'
same "pi: the same template expansion" 'repr(u)' '/rev a.c "b c" d'
same "pi: the same @file attachment" '(repr(u), len(img))' @note.txt @dot.png 'explain'
