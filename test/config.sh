#!/bin/sh
# config.sh: mistakes in config.h stop the agent at start, before any
# request, naming the tool; the tools' descriptions say config.h's numbers.
. test/lib.sh
ROOT=$PWD

# The descriptions and schemas sent carry the numbers of config.h.
printf 'text ok\nfinish stop\n' | script ok
startfake -x "$T/ok"
runagent -n 'hi'
jsontest "descriptions: the numbers filled in from config.h" "$REQ/1.json" \
    '[t["function"]["name"] for t in d["tools"]][:1] == ["read"] and
     "2000 lines or 50KB" in d["tools"][0]["function"]["description"] and
     "(default 100)" in json.dumps(d["tools"][4]["function"]["parameters"]) and
     "${" not in json.dumps(d["tools"])'

# badbuild NAME SED: build the agent in $T/NAME with config.def.h changed
# by the sed script, as a user's config.h would be.  Under emulation
# (make test-cross) there are no sources here to build: make test builds
# them natively.
badbuild() {
	if [ -n "$EMULATOR" ]; then
		skip "$1: a build with a changed config.h" \
		    "no sources under emulation; make test runs it"
		return 1
	fi
	mkdir -p "$T/$1"
	cp "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk "$T/$1"/
	rm -f "$T/$1/config.h"
	sed "$2" "$ROOT/config.def.h" >"$T/$1/config.h"
	if cmp -s "$T/$1/config.h" "$ROOT/config.def.h"; then
		fail "$1: the sed script changed nothing" "$2"
		return 1
	fi
	(cd "$T/$1" && make agent) >"$T/$1.log" 2>&1 ||
	    { fail "$1: builds" "$(tail -5 "$T/$1.log")"; return 1; }
}

# runbad NAME: that agent against a fresh fake; $RC, $T/err.
runbad() {
	startfake "$T/ok"
	(agentexec timeout 30 "$T/$1/agent" -n 'hi') </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
}

# refused NAME WHAT MESSAGE: the agent built in $T/NAME exits 2 at start
# with MESSAGE on stderr, and sends nothing.
refused() {
	runbad "$1"
	[ "$RC" -eq 2 ] && grep -q "config.h: $3" "$T/err" &&
	    ok "$2: exit 2, named" || fail "$2: exit 2, named" "rc $RC: $(cat "$T/err")"
	[ ! -e "$REQ/1.head" ] && ok "$2: no request" ||
	    fail "$2: no request" "$(ls "$REQ")"
}

badbuild schema 's|"\\"limit\\":{\\"type\\":\\"number\\",\\"description\\":\\"Most lines to read\\"}},"|"\\"limit\\":{\\"type\\":\\"number\\",\\"description\\":\\"Most lines to read\\"},"|' &&
    refused schema "a schema with a missing brace" \
        'tool read: its schema is not valid JSON'
badbuild number 's|at ${greplimit} matches|at ${greplimits} matches|' &&
    refused number "a description naming no number" \
        'tool grep: ${greplimits} is no number of config.h'
badbuild field 's|"max_completion_tokens",|"max_tokens\\":1,\\"x",|' &&
    refused field "a field name with quotes" \
        'provider openai-chat: the max tokens field must be a plain name'
true
