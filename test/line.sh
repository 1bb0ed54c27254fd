#!/bin/sh
# line.sh: line mode at a terminal, driven through a pseudo-terminal
# (test/pty): the editor's keys, the history file, Ctrl-C and Ctrl-D, a
# bracketed paste, one-key approvals, and a stdout that is no terminal.
. test/lib.sh
ROOT=$PWD

# drive NAME [pty flags] -- agent args...: ./agent on a pseudo-terminal
# against the fake, in $T/w, the keys' script on stdin; RC its status.
drive() {
	_name=$1
	shift
	_f=
	while [ "$1" != -- ]; do
		_f="$_f $1"
		shift
	done
	shift
	(cd "$T/w" && agentexec "$ROOT/test/pty" -t 10 -l "$T/pty.log" $_f \
	    "$ROOT/agent" "$@") 2>"$T/pty.err"
	RC=$?
	[ $RC -eq 0 ] ||
	    fail "$_name" "$(tail -c 600 "$T/pty.err" | tr -d '\033')"
}

# said NAME N TEXT: the last message of request N is TEXT, whole.
said() {
	jsontest "$1" "$REQ/$2.json" \
	    'd["messages"][-1]["content"] == "'"$3"'"'
}

mkdir -p "$T/w"
i=1
while [ $i -le 9 ]; do
	printf 'text answer%d\nfinish stop\n' $i | script a$i
	i=$((i + 1))
done
A="$T/a1 $T/a2 $T/a3 $T/a4 $T/a5 $T/a6 $T/a7 $T/a8 $T/a9"

# One run, a line each: typed, edited mid-line, cleared, a backspace over
# a two-byte character, Ctrl-C at the prompt, word moves and Ctrl-W, a
# paste of two lines, the history recalled; then Ctrl-D leaves with 0.
startfake $A
drive "line: one run of edits" -- -n <<'K'
wait > 
send hello\r
wait answer1
wait > 
send wrld\e[D\e[D\e[Do\r
wait answer2
wait > 
send junk\x15kept\r
wait answer3
wait > 
send café\x7f\r
wait answer4
wait > 
send draft\x03
wait ^C
send after\r
wait answer5
wait > 
send two\ebone \e[1;5Cs\r
wait answer6
wait > 
send a bb\x17c\x01\x05!\r
wait answer7
wait > 
send \e[200~first\rsecond\e[201~\r
wait answer8
wait > 
send \e[A\e[A\e[A\e[B\r
wait answer9
wait > 
send \x04
expect-exit 0
K
[ $RC -eq 0 ] && ok "line: Ctrl-D on an empty line exits 0"
check "line: the banner" grep -q \
    'fake-model on openai-chat, no session; /help for commands' "$T/pty.log"
said "line: a line typed and Enter" 1 hello
said "line: left arrows and an insertion" 2 world
said "line: Ctrl-U clears" 3 kept
said "line: backspace takes é whole" 4 caf
said "line: Ctrl-C clears the line and stays" 5 after
said "line: Alt-b and Ctrl-right" 6 "one twos"
said "line: Ctrl-W, Ctrl-A, Ctrl-E" 7 "a c!"
said "line: a paste keeps its line end" 8 'first\nsecond'
said "line: up and down through the history" 9 "a c!"
H=$T/.local/state/agent/history
if [ "$(stat -c %a "$H" 2>/dev/null)" = 600 ]; then
	ok "line: the history file, mode 0600"
else
	fail "line: the history file, mode 0600" "$(ls -l "$H" 2>&1)"
fi
check "line: a line end escaped in the history" grep -qx 'first\\nsecond' "$H"

# The history outlives the run; XDG_STATE_HOME moves it.
startfake $A
drive "line: the history of the run before" -- -n <<'K'
wait > 
send \e[A\e[A\r
wait answer1
wait > 
send \x04
expect-exit 0
K
said "line: the history of the run before" 1 'first\nsecond'
startfake $A
XDG_STATE_HOME=$T/state drive "line: XDG_STATE_HOME" -- -n <<'K'
wait > 
send moved\r
wait answer1
send \x04
expect-exit 0
K
check "line: XDG_STATE_HOME holds the history" grep -qx moved \
    "$T/state/agent/history"

# An approval is one key, no Enter: y writes, n does not.
printf '%s\n' 'tool c1 write {"path": "yes.txt", "content": "hi\n"}' \
    'finish tool_calls' | script w1
printf '%s\n' 'tool c1 write {"path": "no.txt", "content": "hi"}' \
    'finish tool_calls' | script w2
startfake "$T/w1" "$T/a1"
drive "line: y approves" -- -n <<'K'
wait > 
send go\r
wait [y/n/a]
send y
wait answer1
wait > 
send \x04
expect-exit 0
K
check "line: y approves, the file is written" test -f "$T/w/yes.txt"
startfake "$T/w2" "$T/a1"
drive "line: n refuses" -- -n <<'K'
wait > 
send go\r
wait [y/n/a]
send n
wait answer1
send \x04
expect-exit 0
K
check "line: n refuses, no file" test ! -e "$T/w/no.txt"
jsontest "line: n refuses, the model is told" "$REQ/2.json" \
    '"did not allow" in d["messages"][-1]["content"]'

# What a call will do is shown before its question: an edit's diff (with
# NO_COLOR, no escape code in it), a new file's content, a bash command
# of several lines whole; the question stays one line.
printf 'one\ntwo\nthree\n' >"$T/w/e.txt"
printf '%s%s\nfinish tool_calls\n' 'tool c1 edit {"path": "e.txt", ' \
    '"edits": [{"oldText": "two", "newText": "2"}]}' | script s1
printf '%s\n' 'tool c1 write {"path": "new.txt", "content": "alpha\nbeta\n"}' \
    'finish tool_calls' | script s2
printf '%s\n' 'tool c1 bash {"command": "echo one\necho two\necho three"}' \
    'finish tool_calls' | script s3
startfake "$T/s1" "$T/a1" "$T/s2" "$T/a2" "$T/s3" "$T/a3"
export NO_COLOR=1
drive "line: the change shown before the question" -- -n <<'K'
wait > 
send go\r
wait @@ -1,3 +1,3 @@
wait -two
wait +2
wait agent: allow edit e.txt? [y/n/a]
send y
wait answer1
wait > 
send go\r
wait +alpha
wait +beta
wait agent: allow write new.txt? [y/n/a]
send n
wait answer2
wait > 
send go\r
wait echo one\r\necho two\r\necho three\r\n
wait agent: allow bash echo one …? [y/n/a]
send n
wait answer3
wait > 
send \x04
expect-exit 0
K
unset NO_COLOR
check "line: the edit allowed is made" grep -qx 2 "$T/w/e.txt"
sed -n '/@@ -1,3/,/allow edit/p' "$T/pty.log" >"$T/shown"
if [ -s "$T/shown" ] && ! grep -q "$(printf '\033')" "$T/shown"; then
	ok "line: NO_COLOR, no escape code in the diff shown"
else
	fail "line: NO_COLOR, no escape code in the diff shown" \
	    "$(od -c "$T/shown" | head -5)"
fi

# /branch to a user's message offers its text on the next line, to be
# edited: the message sent is the edited one, from the message's parent.
printf '{"type":"session","version":3,"id":"5678","timestamp":"2026-01-01T00:00:00Z","cwd":"%s"}\n{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"hello there"}}\n{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":[{"type":"text","text":"yes"}],"stopReason":"stop"}}\n' "$T/w" >"$T/br.jsonl"
startfake "$T/a1"
drive "line: /branch offers the message to edit" -- -n -s "$T/br.jsonl" <<'K'
wait > 
send /branch e1\r
wait > hello there
send \x17again\r
wait answer1
wait > 
send \x04
expect-exit 0
K
jsontest "line: /branch, the message edited and sent in its place" \
    "$REQ/1.json" '[m["content"] for m in d["messages"][1:]] == ["hello again"]'

# stdout no terminal: the answer's bytes alone, no escape code.
startfake "$T/a1"
drive "line: stdout a file" -o "$T/stdout" -- -n <<'K'
wait > 
send hi\r
wait > 
send \x04
expect-exit 0
K
if [ "$(cat "$T/stdout")" = answer1 ] && ! grep -q "$(printf '\033')" \
    "$T/stdout"; then
	ok "line: stdout no terminal has the answer alone"
else
	fail "line: stdout no terminal has the answer alone" \
	    "$(od -c "$T/stdout" | head -3)"
fi

# Issue 30's small things: a provider of no such name lists config.h's,
# from -P or AGENT_PROVIDER, with no usage; an empty prompt is said;
# /thinking LEVEL says what it set; -h and agent.1's SYNOPSIS agree.
(agentexec env AGENT_PROVIDER=nosuch ./agent hi) </dev/null >"$T/out" \
    2>"$T/err"
RC=$?
if [ $RC -eq 2 ] && grep -q 'AGENT_PROVIDER=nosuch: no provider.*anthropic' \
    "$T/err" && ! grep -q usage "$T/err"; then
	ok "AGENT_PROVIDER of no such provider"
else
	fail "AGENT_PROVIDER of no such provider" "rc $RC: $(cat "$T/err")"
fi
runagent -P nosuch hi
if [ $RC -eq 2 ] && grep -q -- '-P nosuch: no provider.*openai-chat' \
    "$T/err"; then
	ok "-P of no such provider lists config.h's"
else
	fail "-P of no such provider lists config.h's" \
	    "rc $RC: $(cat "$T/err")"
fi
runagent -n ''
if [ $RC -eq 2 ] && grep -q 'the prompt is empty' "$T/err"; then
	ok "an empty prompt: exit 2, said"
else
	fail "an empty prompt: exit 2, said" "rc $RC: $(cat "$T/err")"
fi
printf '/thinking high\n' >"$T/in"
runin "$T/in" -n
check "/thinking high says what it set" grep -qx 'thinking: high' "$T/err"
./agent -h | tr -s ' \n' '  ' | sed 's/^usage: //; s/ *$//' >"$T/usage"
if command -v man >/dev/null 2>&1 && MANWIDTH=200 man -l agent.1 \
    >"$T/man" 2>/dev/null; then
	sed -n '/^SYNOPSIS/,/^DESCRIPTION/p' "$T/man" | sed '1d;$d' |
	    tr -s ' \n' '  ' | sed 's/^ *//; s/ *$//' >"$T/syn"
	if cmp -s "$T/usage" "$T/syn"; then
		ok "-h says agent.1's SYNOPSIS"
	else
		fail "-h says agent.1's SYNOPSIS" "$(cat "$T/usage") /" \
		    "$(cat "$T/syn")"
	fi
else
	skip "-h says agent.1's SYNOPSIS" "no man(1) to render agent.1"
fi

# Every flag agent.c reads is in -h and in agent.1's OPTIONS, and every
# flag OPTIONS tells of is one agent.c reads.
fl=$(sed -n 's/.*flagnext(argv, "\([^"]*\)".*/\1/p' agent.c | tr -d ':' |
    fold -w1 | sort | tr -d '\n')
opt=$(sed -n '/^\.Sh OPTIONS/,/^\.Sh /s/^\.It Fl \([A-Za-z]\).*/\1/p' agent.1 2>/dev/null |
    sort -u | tr -d '\n')
miss=
for c in $(echo "$fl" | fold -w1); do
	grep -q -- "-[a-zA-Z]*$c" "$T/usage" || miss="$miss $c"
done
if [ ! -f agent.1 ]; then
	skip "every flag in -h and agent.1's OPTIONS" "no agent.1 here"
elif [ -n "$fl" ] && [ "$fl" = "$opt" ] && [ -z "$miss" ]; then
	ok "every flag in -h and agent.1's OPTIONS, both ways"
else
	fail "every flag in -h and agent.1's OPTIONS, both ways" \
	    "agent.c: $fl, OPTIONS: $opt, not in -h:$miss"
fi
if [ -f agent.1 ] && command -v man >/dev/null 2>&1 &&
    man -l agent.1 >"$T/man" 2>/dev/null; then
	if head -3 "$T/man" | grep -q 'AGENT(1) *General Commands Manual' &&
	    ! head -3 "$T/man" | grep -q BSD && ! grep -q VERSION "$T/man" &&
	    tail -3 "$T/man" | grep -q '^agent '; then
		ok "agent.1's header and footer name agent, not BSD"
	else
		fail "agent.1's header and footer name agent, not BSD" \
		    "$(head -3 "$T/man"; tail -3 "$T/man")"
	fi
else
	skip "agent.1's header and footer name agent" "no man(1) or agent.1"
fi
