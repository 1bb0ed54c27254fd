#!/bin/sh
# oldkernel.sh: agent on a kernel without Landlock or seccomp filters (a
# board's), as test/oldkernel makes one: each profile runs its tools,
# says once, at the first tool, that they are not sandboxed (full: not a
# word), and write and edit still refuse a path outside the working
# directory by their own check.
. test/lib.sh
ROOT=$PWD
W=$T/work
O=$T/outside

if [ -n "$EMULATOR" ]; then
	skip "old kernel" "no seccomp filter under qemu-user"
	exit 0
fi
if ! ./test/oldkernel true 2>"$T/err"; then
	skip "old kernel" "$(cat "$T/err")"
	exit 0
fi

# under PROFILE TOOL ARGS: one call then an answer, agent under the
# filter in $W with -y; the call's result in $T/res.
under() {
	rm -rf "$W" "$O" "$T/sessions"
	mkdir -p "$W" "$O"
	printf 'tool c1 %s %s\nfinish tool_calls\n' "$2" "$3" >"$T/call"
	printf 'tool c2 %s %s\nfinish tool_calls\n' "$2" "$3" >"$T/call2"
	printf 'text done\nfinish stop\n' >"$T/done"
	startfake -x "$T/call" "$T/call2" "$T/done"
	(cd "$W" && agentexec setsid -w timeout 30 "$ROOT/test/oldkernel" \
	    "$ROOT/agent" -y -g "$1" go) </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["messages"][-1]["content"])' \
	    "$REQ/2.json" >"$T/res" 2>&1
}

for p in workspace readonly plan; do
	under $p bash '{"command": "echo ran"}'
	[ "$RC" -eq 0 ] && grep -qx ran "$T/res" &&
	    ok "old kernel, $p: the tool runs" ||
	    fail "old kernel, $p: the tool runs" "rc $RC: $(cat "$T/err" "$T/res")"
	[ "$(grep -c '^agent: no Landlock here: tool processes are not sandboxed' \
	    "$T/err")" -eq 1 ] &&
	    ok "old kernel, $p: said once that tools are not sandboxed" ||
	    fail "old kernel, $p: said once" "$(cat "$T/err")"
done

under full bash '{"command": "echo ran"}'
[ "$RC" -eq 0 ] && grep -qx ran "$T/res" && ! grep -qi 'landlock\|sandbox' "$T/err" &&
    ok "old kernel, full: the tool runs, not a word" ||
    fail "old kernel, full" "rc $RC: $(cat "$T/err" "$T/res")"

under workspace write "{\"path\": \"$O/f\", \"content\": \"x\"}"
[ "$RC" -eq 0 ] && [ ! -e "$O/f" ] &&
    ok "old kernel, workspace: write outside still refused by its check" ||
    fail "old kernel, workspace: write outside" "rc $RC: $(cat "$T/res")"
