#!/bin/sh
# diffmode.sh: -d: the run works in a copy of the tree, whose change
# comes out on stdout as a diff that git apply and patch -p1 take, the
# tree itself untouched; what is ignored is not copied; a tree too big
# or unreadable does not start.
. test/lib.sh
ROOT=$PWD
W=$T/w
# The copies in a TMPDIR of our own: what another run leaves in /tmp (a
# script beside this one, another checkout's suite) is not ours to count.
TMPDIR=$T/tmp
export TMPDIR
mkdir -p "$TMPDIR"

# The tree: a file to edit, one to delete, one to move, one to make
# executable, a link to change, a binary file to change, a name with a
# space, and an ignored build/ directory.
mkdir -p "$W/sub" "$W/build"
printf 'hello world\nline 2\nline 3\n' >"$W/edit.txt"
printf 'to be removed\n' >"$W/gone.txt"
printf 'moved line %s\n' 1 2 3 4 5 6 >"$W/moved.txt"
printf '#!/bin/sh\necho run\n' >"$W/run.sh"
printf 'old\000binary' >"$W/old.bin"
printf 'a b\n' >"$W/with space.txt"
printf 'crlf\r\nline\r\n' >"$W/crlf.txt"
ln -s edit.txt "$W/link"
printf 'build/\n' >"$W/.gitignore"
head -c 100000 /dev/zero >"$W/build/big.o"
if command -v git >/dev/null 2>&1; then
	(cd "$W" && git init -q && git add -A && git -c user.name=t \
	    -c user.email=t@t commit -qm init) >/dev/null 2>&1
fi
cp -a "$W" "$T/orig"

# state DIR: every path under DIR with its type, mode, link target and
# bytes' checksum, one a line.
state() {
	(cd "$1" && find . -printf '%p %y %m %l\n' | LC_ALL=C sort &&
	    find . -type f -exec cksum {} + | LC_ALL=C sort)
}

# The commands the model runs, for the shell to run too on a copy: what
# the patch must give.
CMDS='rm gone.txt && mv moved.txt sub/moved2.txt && chmod +x run.sh && ln -sfn gone.txt link && printf "new\\000bin\\001" > new.bin && printf "old\\000BINARY" > old.bin && echo "a b c" > "with space.txt" && printf "crlf\\r\\nLINE\\r\\n" > crlf.txt && if test -e build; then echo yes; else echo no; fi > saw-build.txt'
script d1 <<EOF2
tool c1 edit {"path": "edit.txt", "edits": [{"oldText": "world", "newText": "there"}]}
tool c2 write {"path": "new.txt", "content": "brand new\\n"}
tool c3 write {"path": "nonl.txt", "content": "no newline"}
tool c4 bash {"command": "$(printf '%s' "$CMDS" | sed 's/\\/\\\\/g; s/"/\\"/g')"}
tool c5 bash {"command": "for n in 3 4 5 6 7 8 9; do echo LEAK >&\$n; done 2>/dev/null; true"}
finish tool_calls
EOF2
printf 'text the answer\nfinish stop\n' | script d2
state "$W" >"$T/before"

startfake -x "$T/d1" "$T/d2" || exit 0
ls -d "$TMPDIR"/agent-scratch-* >"$T/scratch.before" 2>/dev/null
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -d -y -n 'change it') \
    </dev/null >"$T/out" 2>"$T/err"
RC=$?
if [ $RC -eq 0 ] && [ -s "$T/out" ]; then
	ok "diffmode: exit 0 with a diff on stdout"
else
	fail "diffmode: exit 0 with a diff" "rc $RC: $(tail -5 "$T/err")"
fi
state "$W" >"$T/after"
check "diffmode: the working tree is as it was" cmp "$T/before" "$T/after"
check "diffmode: the answer goes to stderr" grep -q 'the answer' "$T/err"
if grep -q 'the answer' "$T/out" || grep -q LEAK "$T/out"; then
	fail "diffmode: stdout is the diff alone" "$(head -5 "$T/out")"
else
	ok "diffmode: stdout is the diff alone"
fi
if grep -q 'build/big.o' "$T/out" || grep -q '^yes' "$T/out"; then
	fail "diffmode: build/ is not copied" "$(grep -n build "$T/out")"
else
	ok "diffmode: build/ is not copied"
fi
check "diffmode: a rename" grep -q '^rename from moved.txt' "$T/out"
check "diffmode: a mode change" grep -q '^new mode 100755' "$T/out"
check "diffmode: a deleted file" grep -q '^deleted file mode 100644' \
    "$T/out"
check "diffmode: a link's target" grep -q '^+gone.txt' "$T/out"
check "diffmode: no newline at the end" grep -q '^\\ No newline' "$T/out"
check "diffmode: a binary patch" grep -q '^GIT binary patch' "$T/out"
ls -d "$TMPDIR"/agent-scratch-* >"$T/scratch.after" 2>/dev/null
if cmp -s "$T/scratch.before" "$T/scratch.after"; then
	ok "diffmode: the copy is removed"
else
	fail "diffmode: the copy is removed" "$(cat "$T/scratch.after")"
fi

# What the patch must give: the same changes made by the shell.
cp -a "$T/orig" "$T/want"
(cd "$T/want" && printf 'hello there\nline 2\nline 3\n' >edit.txt &&
    printf 'brand new\n' >new.txt && printf 'no newline' >nonl.txt &&
    eval "$CMDS" && echo no >saw-build.txt)	# the copy has no build/
rm -rf "$T/want/.git"
if command -v git >/dev/null 2>&1; then
	cp -a "$T/orig" "$T/g"
	rm -rf "$T/g/.git"
	if (cd "$T/g" && git apply "$T/out") 2>"$T/apply.err"; then
		ok "diffmode: git apply takes the diff"
	else
		fail "diffmode: git apply takes the diff" "$(cat "$T/apply.err")"
	fi
	state "$T/g" >"$T/got.state"
	state "$T/want" >"$T/want.state"
	if cmp -s "$T/got.state" "$T/want.state"; then
		ok "diffmode: git apply gives the copy's tree"
	else
		fail "diffmode: git apply gives the copy's tree" \
		    "$(diff "$T/want.state" "$T/got.state")"
	fi
else
	skip "diffmode: git apply" "no git"
fi
if command -v patch >/dev/null 2>&1; then
	# patch(1) takes no binary patch: those files are left out
	awk '/^diff --git /{ if (blk !~ /GIT binary patch/) printf "%s", blk;
	    blk = "" } { blk = blk $0 "\n" }
	    END { if (blk !~ /GIT binary patch/) printf "%s", blk }' \
	    "$T/out" >"$T/text.patch"
	cp -a "$T/orig" "$T/p"
	rm -rf "$T/p/.git"
	if (cd "$T/p" && patch -p1 -s <"$T/text.patch") >"$T/patch.err" 2>&1
	then
		ok "diffmode: patch -p1 takes the text parts"
	else
		fail "diffmode: patch -p1 takes the text parts" \
		    "$(cat "$T/patch.err")"
	fi
	cp "$T/want/new.bin" "$T/want/old.bin" "$T/p/"
	state "$T/p" >"$T/got.state"
	state "$T/want" >"$T/want.state"
	if cmp -s "$T/got.state" "$T/want.state"; then
		ok "diffmode: patch -p1 gives the copy's text files"
	else
		fail "diffmode: patch -p1 gives the copy's text files" \
		    "$(diff "$T/want.state" "$T/got.state")"
	fi
else
	skip "diffmode: patch -p1" "no patch"
fi

# The session is this directory's; the model is told of the copy.
printf 'text hi\nfinish stop\n' | script s1
startfake -x "$T/s1" || exit 0
(cd "$W" && agentexec timeout 30 "$ROOT/agent" -d 'hi') </dev/null \
    >"$T/out" 2>"$T/err"
RC=$?
check "diffmode: no change, no diff" test $RC -eq 0 -a ! -s "$T/out"
if head -n 1 "$T"/sessions/*/*.jsonl 2>/dev/null | grep -q "\"cwd\":\"$W\""
then
	ok "diffmode: the session's cwd is the working tree"
else
	fail "diffmode: the session's cwd is the working tree" \
	    "$(head -n 1 "$T"/sessions/*/*.jsonl)"
fi
check "diffmode: the model works in the copy" grep -q \
    'working directory: [^"]*agent-scratch-[^"/]*/w' "$REQ/1.json"

# bad NAME WHY DIR: -d in DIR exits 2, saying WHY, before any request.
bad() {
	startfake -x "$T/s1" || return
	(cd "$3" && agentexec timeout 30 "$ROOT/agent" -d -n 'hi') \
	    </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	if [ $RC -eq 2 ] && [ ! -e "$REQ/1.json" ] && grep -q "$2" "$T/err"
	then
		ok "diffmode: $1: exit 2 before any request"
	else
		fail "diffmode: $1: exit 2" "rc $RC: $(cat "$T/err")"
	fi
}
mkdir -p "$T/big"
truncate -s 300M "$T/big/sparse" 2>/dev/null ||
    dd if=/dev/zero of="$T/big/sparse" bs=1 count=0 seek=300M 2>/dev/null
bad "300 MB" "holds more than" "$T/big"
rm -f "$T/big/sparse"
mkdir "$T/big/many"
(cd "$T/big/many" && seq 1 20001 | xargs touch)
bad "20,001 files" "holds more than" "$T/big"
rm -rf "$T/big/many"
printf 'x\n' >"$T/big/secret"
chmod 000 "$T/big/secret"
if [ "$(id -u)" -eq 0 ]; then
	skip "diffmode: an unreadable file" "root reads it"
else
	bad "an unreadable file" "cannot read secret" "$T/big"
fi
runagent -d -j hi
check "diffmode: -d with -j is a usage error" test $RC -eq 2
