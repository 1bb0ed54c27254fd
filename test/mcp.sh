#!/bin/sh
# mcp.sh: MCP servers' tools: a scripted server (test/mcpsrv) on stdio,
# test/fake as a streamable HTTP one, every way a server can fail; the
# reference servers through npx where it can reach the registry.
. test/lib.sh
ROOT=$PWD
M=$T/mcp
mkdir -p "$M"

if [ -n "$EMULATOR" ]; then
	skip "mcp: a build with servers in config.h" "no sources under emulation"
	exit 0
fi

# The HTTP server first: its port goes into the build's config.h.
# Requests: initialize (a session id), initialized (202), tools/list,
# tools/call answered as an event stream with a ping request first.
printf 'type application/json\nnodone\nheader Mcp-Session-Id: sess-42\nline {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}\n' >"$M/h1"
printf 'status 202\nnodone\n' >"$M/h2"
printf 'type application/json\nnodone\nline {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"hello","description":"Says hello","inputSchema":{"type":"object"}}]}}\n' >"$M/h3"
printf 'type text/event-stream\nnodone\nline data: {"jsonrpc":"2.0","id":"p1","method":"ping"}\nline\nline data: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hello over http"}]}}\nline\n' >"$M/h4"
printf 'status 202\nnodone\n' >"$M/h5"
# Then it forgets the session: a call is answered 404, and agent says
# hello again, with no session id, and calls once more in the new one.
printf 'status 404\nerror no such session\n' >"$M/h6"
printf 'type application/json\nnodone\nheader Mcp-Session-Id: sess-43\nline {"jsonrpc":"2.0","id":5,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}}}}\n' >"$M/h7"
printf 'type application/json\nnodone\nline {"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"hello again"}]}}\n' >"$M/h9"
./test/fake -p "$M/port" -r "$M/req" "$M/h1" "$M/h2" "$M/h3" "$M/h4" \
    "$M/h5" "$M/h6" "$M/h7" "$M/h2" "$M/h9" 2>"$M/fake.err" &
HFAKE=$!
mkdir -p "$M/req"
trap 'kill $HFAKE 2>/dev/null; stopfake; [ -n "$KEEP" ] && cp -r "$T" /tmp/mcpkeep; rm -rf "$T"' EXIT
i=0
while [ ! -s "$M/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
HPORT=$(cat "$M/port")

mkdir -p "$T/b"
cp "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk "$T/b"/
rm -f "$T/b/config.h"
sed -e '/^static const Mcpserver mcpservers/a\
	{ "srv", "exec \\"$MCPSRV\\" \\"$MCPDIR/srv\\" \\"$MCPDIR/srv.log\\"", NULL, NULL, 0 },\
	{ "bad", "exec \\"$MCPSRV\\" \\"$MCPDIR/bad\\" \\"$MCPDIR/bad.log\\"", NULL, NULL, 0 },\
	{ "web", "http://127.0.0.1:'"$HPORT"'/mcp", "Authorization: Bearer ", "MCPTEST_TOKEN", 0 },\
	{ "gone", "nosuchcmd-mcp --stdio", NULL, NULL, 0 },' \
    -e 's/mcptimeout = [0-9]*;/mcptimeout = 2;/' \
    -e 's/mcpstarttimeout = [0-9]*;/mcpstarttimeout = 2;/' \
    -e 's/\.maximage = 5 << 20,/.maximage = 1000,/' \
    -e 's|/\* { "bash",  "make\*",        ALLOW }, \*/|{ "srv__echo", "*", ALLOW },|' \
    "$ROOT/config.def.h" >"$T/b/config.h"
(cd "$T/b" && make agent) >"$T/b.log" 2>&1 ||
    { fail "mcp: builds" "$(tail -5 "$T/b.log")"; exit 0; }
export MCPSRV="$ROOT/test/mcpsrv" MCPDIR="$M" MCPTEST_TOKEN=tok-secret

# run args...: the built agent against the fake provider.
run() {
	(agentexec timeout 30 "$T/b/agent" "$@") </dev/null >"$T/out" \
	    2>"$T/err"
	RC=$?
}

# The good server: two pages of tools, one with a schema that is no
# object and one with too long a name; a call answered with text, an
# image, a resource link and an embedded resource, with a ping request,
# progress and log notifications and list_changed before it; then the
# list again; a call with isError; one with a JSON-RPC error.
PNG=iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==
cat >"$M/srv" <<X
on initialize
{"jsonrpc":"2.0","id":\$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"t","version":"1"}}}
on tools/list
{"jsonrpc":"2.0","id":\$ID,"result":{"tools":[{"name":"echo","description":"Echoes","inputSchema":{"type":"object","properties":{"s":{"type":"string"}}}},{"name":"bad schema","inputSchema":{"type":"object"}},{"name":"arr","inputSchema":{"type":"array"}}],"nextCursor":"c2"}}
on tools/list
{"jsonrpc":"2.0","id":\$ID,"result":{"tools":[{"name":"fail","description":"Fails","inputSchema":{"type":"object"}},{"name":"rpcerr","inputSchema":{"type":"object"}}]}}
on tools/list
{"jsonrpc":"2.0","id":\$ID,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"fresh","description":"New","inputSchema":{"type":"object"}},{"name":"fail","inputSchema":{"type":"object"}},{"name":"rpcerr","inputSchema":{"type":"object"}}]}}
on tools/call
{"jsonrpc":"2.0","id":"s1","method":"ping"}
read
{"jsonrpc":"2.0","id":"s2","method":"roots/list"}
read
stderr said on stderr
sleep 100
{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":\$TOKEN,"progress":1,"total":2,"message":"half\u001b[31m"}}
{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"log line"}}
{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}
{"jsonrpc":"2.0","id":\$ID,"result":{"content":[{"type":"text","text":"echoed"},{"type":"image","data":"$PNG","mimeType":"image/png"},{"type":"resource_link","uri":"file:///x.txt","name":"x.txt"},{"type":"resource","resource":{"uri":"file:///y","text":"embedded text"}}]}}
on tools/call
{"jsonrpc":"2.0","id":\$ID,"result":{"content":[{"type":"text","text":"it went wrong"}],"isError":true}}
on tools/call
{"jsonrpc":"2.0","id":\$ID,"error":{"code":-32602,"message":"no such thing"}}
X
printf 'on initialize\nexit 1\n' >"$M/bad"

script p1 <<X
tool c1 srv__echo {"s": "hi"}
finish tool_calls
X
script p2 <<X
tool c2 srv__fail {}
tool c3 srv__rpcerr {}
tool c4 web__hello {}
finish tool_calls
X
script p2b <<X
tool c5 web__hello {}
finish tool_calls
X
printf 'text done\nfinish stop\n' | script p3
startfake -x "$T/p1" "$T/p2" "$T/p2b" "$T/p3"
run -y 'go'
check "mcp: the run ends well" test "$RC" = 0
jsontest "mcp: offered as server__tool after config.h's, bad ones left out" \
    "$REQ/1.json" '[t["function"]["name"] for t in d["tools"]][8:] ==
    ["srv__echo", "srv__fail", "srv__rpcerr", "web__hello"] and
    d["tools"][8]["function"]["description"] == "Echoes" and
    d["tools"][8]["function"]["parameters"]["properties"]["s"]["type"] == "string"'
check "mcp: the bad schema named on stderr" grep -q 'tool srv__arr skipped' "$T/err"
check "mcp: the bad name named on stderr" grep -q 'skipped: a name' "$T/err"
jsontest "mcp: the result's text, link and embedded text" "$REQ/2.json" \
    'd["messages"][-2]["content"].startswith("echoed") and
     "Resource link: x.txt file:///x.txt" in d["messages"][-2]["content"] and
     "embedded text" in d["messages"][-2]["content"]'
jsontest "mcp: the image as an image" "$REQ/2.json" \
    '"image_url" in json.dumps(d["messages"][-1]) and
     "iVBORw0KGgo" in json.dumps(d["messages"][-1])'
check "mcp: the arguments reach the server" grep -q '"arguments":{"s": "hi"}' "$M/srv.log"
check "mcp: ping answered" grep -q '"id":"s1","result":{}' "$M/srv.log"
check "mcp: roots/list refused" grep -q '"id":"s2","error":{"code":-32601' "$M/srv.log"
check "mcp: initialized sent" grep -q 'notifications/initialized' "$M/srv.log"
check "mcp: the second page asked for" grep -q '"cursor":"c2"' "$M/srv.log"
check "mcp: progress on the trace" grep -q 'mcp srv: progress 1/2 half' "$T/err"
check "mcp: no escape reaches the trace" sh -c "! grep -q \"$(printf '\033')\" '$T/err'"
check "mcp: log line on the trace" grep -q 'mcp srv: info: log line' "$T/err"
check "mcp: the servers' start said" grep -qx \
    'agent: mcp: starting srv, bad, web, gone' "$T/err"
check "mcp: a call asks for progress" grep -q \
    '"_meta":{"progressToken":1}' "$M/srv.log"
check "mcp: the progress of that token shown" grep -qx \
    'agent: mcp srv: progress 1/2 half.*' "$T/err"
check "mcp: the server's stderr, a line of its own" grep -qx \
    'agent: mcp srv: said on stderr' "$T/err"
check "mcp: its log lines on lines of their own" grep -qx \
    'agent: mcp srv: info: log line' "$T/err"
check "mcp: the call's trace line whole after them" sh -c \
    "grep -q '^srv__echo .* -> ' '$T/err' &&
     ! grep 'srv__echo' '$T/err' | grep -q 'agent: mcp'"
check "mcp: a command not there: the shell's own words" grep -q \
    '^agent: mcp gone: .*nosuchcmd-mcp: .*not found$' "$T/err"
jsontest "mcp: list_changed: the new list before the next request" \
    "$REQ/2.json" '"srv__fresh" in [t["function"]["name"] for t in d["tools"]]'
jsontest "mcp: isError and a JSON-RPC error are tool errors" "$REQ/3.json" \
    '"it went wrong" in str(d["messages"][-3]["content"]) and
     "no such thing" in str(d["messages"][-2]["content"])'
jsontest "mcp: the HTTP server's answer from its event stream" "$REQ/3.json" \
    '"hello over http" in str(d["messages"][-1]["content"])'
check "mcp: HTTP: the session id sent back" grep -qi 'Mcp-Session-Id: sess-42' "$M/req/3.head"
check "mcp: HTTP: the protocol version sent" grep -qi 'MCP-Protocol-Version: 2025-11-25' "$M/req/3.head"
check "mcp: HTTP: the bearer token from the environment" grep -q 'Authorization: Bearer tok-secret' "$M/req/1.head"
check "mcp: HTTP: the ping answered" grep -q '"id":"p1","result":{}' "$M/req/5.json"
check "mcp: HTTP: 404, hello again without the old session" sh -c \
    "grep -q '\"method\":\"initialize\"' '$M/req/7.json' &&
     ! grep -qi 'Mcp-Session-Id' '$M/req/7.head'"
check "mcp: HTTP: the call again in the new session" grep -qi \
    'Mcp-Session-Id: sess-43' "$M/req/9.head"
jsontest "mcp: HTTP: the call's answer from the new session" "$REQ/4.json" \
    '"hello again" in str(d["messages"][-1]["content"])'
check "mcp: the token never on stderr" sh -c "! grep -q tok-secret '$T/err'"
check "mcp: a server that fails to start said once" test "$(grep -c 'mcp bad:' "$T/err")" = 1
f=$(ls "$T"/sessions/*/*.jsonl 2>/dev/null | head -1)
check "mcp: the session records the call" grep -q '"toolName":"srv__echo"' "$f"

# The guard: without -y and no terminal, an MCP tool is refused (it
# asks, as bash does), but for the rule that allows srv__echo.
cat >"$M/srv" <<X
on initialize
{"jsonrpc":"2.0","id":\$ID,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}
on tools/list
{"jsonrpc":"2.0","id":\$ID,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"other","inputSchema":{"type":"object"}}]}}
on tools/call
{"jsonrpc":"2.0","id":\$ID,"result":{"content":[{"type":"text","text":"ran"}]}}
X
script g1 <<X
tool c1 srv__other {}
tool c2 srv__echo {}
finish tool_calls
X
startfake -x "$T/g1" "$T/p3"
run 'go'
jsontest "mcp: guard: asks by default (refused with no terminal)" \
    "$REQ/2.json" '"no terminal" in d["messages"][-2]["content"]'
jsontest "mcp: guard: a rule allows srv__echo" "$REQ/2.json" \
    'd["messages"][-1]["content"] == "ran"'

# The profile: under readonly and plan no MCP tool is offered (its
# server runs outside the sandbox: with -y, a "read-only" run wrote
# through it), but one a rule ALLOWs by name (srv__echo).
for prof in readonly plan; do
	script r1 <<X
tool c1 srv__other {}
tool c2 srv__echo {}
finish tool_calls
X
	startfake -x "$T/r1" "$T/p3"
	: >"$M/srv.log"
	run -y -g $prof 'go'
	jsontest "mcp: -g $prof: only the tool a rule allows is offered" \
	    "$REQ/1.json" '"srv__echo" in [t["function"]["name"] for t in d["tools"]]
	    and "srv__other" not in [t["function"]["name"] for t in d["tools"]]'
	jsontest "mcp: -g $prof: the other is not found, the allowed one runs" \
	    "$REQ/2.json" '"not found" in d["messages"][-2]["content"] and
	    d["messages"][-1]["content"] == "ran"'
	check "mcp: -g $prof: the server never asked to run the other" \
	    sh -c "! grep -q '\"name\":\"other\"' '$M/srv.log'"
	check "mcp: -g $prof: said once" test "$(grep -c \
	    "mcp: srv's tools are not offered under the $prof profile" \
	    "$T/err")" = 1
done

# A hostile result: an image whose mimeType holds a control character
# (copied raw, it made the result invalid JSON: agent exited 1, the text
# lost) and one of a type no wire takes; a tool listed twice (Anthropic
# refuses a request that names a tool twice).
cat >"$M/srv" <<X
on initialize
{"jsonrpc":"2.0","id":\$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}
on tools/list
{"jsonrpc":"2.0","id":\$ID,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":"echo","inputSchema":{"type":"object"}}]}}
on tools/call
{"jsonrpc":"2.0","id":\$ID,"result":{"content":[{"type":"text","text":"kept text"},{"type":"image","data":"$PNG","mimeType":"image/png\\u0001"},{"type":"image","data":"$PNG","mimeType":"image/svg+xml"},{"type":"image","data":"$PNG","mimeType":"image/png"},{"type":"image","data":"$(printf '%01400d' 0 | tr 0 A)","mimeType":"image/png"}]}}
X
script i1 <<X
tool c1 srv__echo {}
finish tool_calls
X
startfake -x "$T/i1" "$T/p3"
run -y 'go'
check "mcp: a hostile image type: the run ends well" test "$RC" = 0
jsontest "mcp: ... the text kept, the images named, not sent, but one in maximage" "$REQ/2.json" \
    '[m for m in d["messages"] if m["role"] == "tool"][-1]["content"].split(chr(10)) ==
     ["kept text", "[image of type image/png\\x01 not shown]",
      "[image of type image/svg+xml not shown]", "[image image/png]",
      "[image over 1000B in all, not shown]"] and
     json.dumps(d["messages"]).count("data:image/") == 1'
jsontest "mcp: a tool listed twice offered once" "$REQ/1.json" \
    '[t["function"]["name"] for t in d["tools"]].count("srv__echo") == 1'
check "mcp: ... and said, naming it" grep -q \
    'mcp srv: tool srv__echo skipped: it is listed more than once' "$T/err"

# errorshapes NAME SCRIPT WANT: the server, scripted so, fails a call:
# the model is told, the run goes on, it is said once, nothing is left.
errorshape() {
	printf '%s\n' "$2" >"$M/srv"
	script e1 <<X
tool c1 srv__echo {}
tool c2 srv__echo {}
finish tool_calls
X
	startfake -x "$T/e1" "$T/p3"
	run -y 'go'
	if [ "$RC" = 0 ] && grep -q "$3" "$T/err" &&
	    [ "$(grep -c 'mcp srv:' "$T/err")" = 1 ] &&
	    python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); m=d["messages"]
sys.exit(0 if "failed" in m[-2]["content"] and "down" in m[-1]["content"] else 1)' "$REQ/2.json" &&
	    ! pgrep -f "mcpsrv $M/srv" >/dev/null; then
		ok "mcp: $1"
	else
		fail "mcp: $1" "rc $RC: $(cat "$T/err")"
	fi
}
HELLO='on initialize
{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}
on tools/list
{"jsonrpc":"2.0","id":$ID,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}'
errorshape "garbage output" "$HELLO
on tools/call
this is not json" "no JSON-RPC"
errorshape "a call that hangs past the timeout" "$HELLO
on tools/call
hang" "did not answer in time"
errorshape "a server that dies mid-call" "$HELLO
on tools/call
exit 3" "it exited"

# A server that never answers initialize: its tools are not offered,
# the run goes on after the start timeout.
printf 'on initialize\nhang\n' >"$M/srv"
startfake -x "$T/p3"
run -y 'go'
if [ "$RC" = 0 ] && grep -q 'mcp srv: it did not answer in time' "$T/err"; then
	ok "mcp: a server that never answers initialize"
else
	fail "mcp: a server that never answers initialize" "$RC $(cat "$T/err")"
fi
jsontest "mcp: ... and none of its tools offered" "$REQ/1.json" \
    'not [t for t in d["tools"] if t["function"]["name"].startswith("srv__")]'

# Its list bounded: 300 tools listed, 256 offered, said; a description
# of 10 KB cut to 4 KB.  Its list's pages within the start timeout (2 s)
# together, not each: five pages a second apart end the start.
{
	printf 'on initialize\n{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'
	printf 'on tools/list\n{"jsonrpc":"2.0","id":$ID,"result":{"tools":['
	i=0
	while [ $i -lt 300 ]; do
		[ $i -gt 0 ] && printf ','
		printf '{"name":"t%d","description":"%s","inputSchema":{"type":"object"}}' \
		    $i "$([ $i = 0 ] && printf '%010240d' 0)"
		i=$((i + 1))
	done
	printf ']}}\n'
} >"$M/srv"
startfake -x "$T/p3"
run -y 'go'
jsontest "mcp: 256 of a server's 300 tools offered" "$REQ/1.json" \
    'len([t for t in d["tools"] if t["function"]["name"].startswith("srv__")]) == 256'
jsontest "mcp: a description cut to 4 KB" "$REQ/1.json" \
    '[len(t["function"]["description"]) for t in d["tools"]
      if t["function"]["name"] == "srv__t0"] == [4099]'
check "mcp: the tools past 256 said" \
    grep -q 'mcp srv: it lists over 256 tools' "$T/err"
{
	printf 'on initialize\n{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'
	for p in 1 2 3 4 5; do
		printf 'on tools/list\nsleep 1000\n{"jsonrpc":"2.0","id":$ID,"result":{"tools":[{"name":"p%d","inputSchema":{"type":"object"}}],"nextCursor":"c%d"}}\n' $p $p
	done
} >"$M/srv"
startfake -x "$T/p3"
t0=$(date +%s)
run -y 'go'
t1=$(date +%s)
check "mcp: a slow list's pages within the start timeout together" \
    grep -q 'mcp srv: it did not answer in time' "$T/err"
check "mcp: ... and the run on in time" test "$RC" = 0 -a $((t1 - t0)) -lt 5

# One that writes its stderr without pause, never answering: the start
# timeout still holds (the reads of its stderr had no end), and what it
# wrote is said in a bounded number of lines.
printf 'on initialize\nflood y\n' >"$M/srv"
startfake -x "$T/p3"
t0=$(date +%s)
run -y 'go'
t1=$(date +%s)
check "mcp: a server flooding its stderr: the run goes on in time" \
    test "$RC" = 0 -a $((t1 - t0)) -lt 12
check "mcp: ... what it wrote said in a bounded number of lines" \
    test "$(wc -l <"$T/err")" -lt 1100
check "mcp: ... and that more was not shown" \
    grep -q 'mcp srv: (more on its stderr, not shown)' "$T/err"

# No server at all (config.def.h's table): nothing started, nothing
# offered beyond config.h's tools.
startfake -x "$T/p3"
(agentexec timeout 30 "$ROOT/agent" 'go') </dev/null >"$T/out" 2>"$T/err"
jsontest "mcp: an empty table offers config.h's tools alone" "$REQ/1.json" \
    'len(d["tools"]) == 8'

# Calls end within mcptimeout (2 s here), whatever the server does: a
# stdio server that floods pings and stops reading (each answer waited
# its own timeout); an HTTP server whose every reply holds a ping (each
# answer's POST was answered deeper, without end); one that sends an
# SSE comment every half second (the timeout was per read).  A build of
# its own: every run starts every server of the table.
# The flood: 600 pings of 200-byte ids at once, read 16 KB at a time:
# their answers fill the pipe (64 KB) the server no longer reads.
mkdir -p "$M/q"
{
	printf 'on initialize\n{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}\n'
	printf 'on tools/list\n{"jsonrpc":"2.0","id":$ID,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}\n'
	printf 'on tools/call\nrepeat 600 {"jsonrpc":"2.0","id":"%s","method":"ping"}\nhang\n' \
	    "$(printf '%0200d' 0)"
} >"$M/flood"
printf 'type application/json\nnodone\nline {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}\n' >"$M/q1"
printf 'status 202\nnodone\n' >"$M/q2"
printf 'type application/json\nnodone\nline {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}\n' >"$M/q3"
printf 'type text/event-stream\nnodone\nsleep 200\nline data: {"jsonrpc":"2.0","id":"again","method":"ping"}\nline\n' >"$M/qping"
{
	printf 'type text/event-stream\nnodone\n'
	i=0
	while [ $i -lt 30 ]; do
		printf 'line : tick\nsleep 500\n'
		i=$((i + 1))
	done
} >"$M/qtick"
set --
i=0
while [ $i -lt 60 ]; do set -- "$@" "$M/qping"; i=$((i + 1)); done
./test/fake -x -p "$M/pport" -r "$M/q" "$M/q1" "$M/q2" "$M/q3" "$@" \
    2>"$M/pfake.err" &
PFAKE=$!
./test/fake -x -p "$M/tport" "$M/q1" "$M/q2" "$M/q3" "$M/qtick" \
    2>"$M/tfake.err" &
TFAKE=$!
# one that answers, then holds its stream open with comments: the
# answer is taken as it comes, the stream left
{
	printf 'type text/event-stream\nnodone\nline data: {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"held answer"}]}}\nline\n'
	i=0
	while [ $i -lt 20 ]; do
		printf 'line : tick\nsleep 500\n'
		i=$((i + 1))
	done
} >"$M/qhold"
./test/fake -x -p "$M/oport" "$M/q1" "$M/q2" "$M/q3" "$M/qhold" \
    2>"$M/ofake.err" &
OFAKE=$!
trap 'kill $HFAKE $PFAKE $TFAKE $OFAKE 2>/dev/null; stopfake; [ -n "$KEEP" ] && cp -r "$T" /tmp/mcpkeep; rm -rf "$T"' EXIT
i=0
while { [ ! -s "$M/pport" ] || [ ! -s "$M/tport" ] || [ ! -s "$M/oport" ]; } &&
    [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
printf 'on initialize\n{"jsonrpc":"2.0","id":$ID,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}\non tools/list\n{"jsonrpc":"2.0","id":$ID,"result":{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}}\non tools/call\n{"jsonrpc":"2.0","id":$ID,"result":{"content":[{"type":"text","text":"ran"}]}}\n' >"$M/ro"
mkdir -p "$T/b2"
cp "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk "$T/b2"/
rm -f "$T/b2/config.h"
sed -e '/^static const Mcpserver mcpservers/a\
	{ "flood", "exec \\"$MCPSRV\\" \\"$MCPDIR/flood\\"", NULL, NULL, 0 },\
	{ "ping", "http://127.0.0.1:'"$(cat "$M/pport")"'/mcp", NULL, NULL, 0 },\
	{ "tick", "http://127.0.0.1:'"$(cat "$M/tport")"'/mcp", NULL, NULL, 0 },\
	{ "hold", "http://127.0.0.1:'"$(cat "$M/oport")"'/mcp", NULL, NULL, 0 },\
	{ "ro", "exec \\"$MCPSRV\\" \\"$MCPDIR/ro\\"", NULL, NULL, 1 },' \
    -e 's/mcptimeout = [0-9]*;/mcptimeout = 2;/' \
    -e 's/mcpstarttimeout = [0-9]*;/mcpstarttimeout = 2;/' \
    "$ROOT/config.def.h" >"$T/b2/config.h"
if (cd "$T/b2" && make agent) >"$T/b2.log" 2>&1; then
	printf 'tool c1 flood__x {}\nfinish tool_calls\n' | script d1
	printf 'tool c2 ping__x {}\nfinish tool_calls\n' | script d2
	printf 'tool c3 tick__x {}\nfinish tool_calls\n' | script d3
	printf 'tool c4 hold__x {}\nfinish tool_calls\n' | script d4
	startfake -x "$T/d1" "$T/d2" "$T/d3" "$T/d4" "$T/p3"
	t0=$(date +%s)
	(agentexec timeout 60 "$T/b2/agent" -y 'go') </dev/null \
	    >"$T/out" 2>"$T/err"
	RC=$?
	t1=$(date +%s)
	check "mcp: hostile servers: the run goes on" test "$RC" = 0
	check "mcp: hostile servers: four calls in under 3 x 3 x mcptimeout" \
	    test $((t1 - t0)) -lt 18
	jsontest "mcp: hold: an answer in a stream held open, taken" \
	    "$REQ/5.json" 'd["messages"][-1]["content"] == "held answer"'
	check "mcp: hold: ... as it came" python3 -c 'import os, sys
d = os.path.getmtime(sys.argv[2]) - os.path.getmtime(sys.argv[1])
sys.exit(0 if d < 1.5 else 1)' "$REQ/4.json" "$REQ/5.json"
	# each call: the time from the request that asked for it to the next
	for k in 1 2 3; do
		name=$(sed -n 's/^tool c[0-9] \([a-z]*\)__x.*/\1/p' "$T/d$k")
		check "mcp: $name: the call ends within 3 x mcptimeout" \
		    python3 -c 'import os, sys
d = os.path.getmtime(sys.argv[2]) - os.path.getmtime(sys.argv[1])
sys.exit(0 if d < 6 else 1)' "$REQ/$k.json" "$REQ/$((k + 1)).json"
		jsontest "mcp: $name: a tool error the model sees" \
		    "$REQ/$((k + 1)).json" \
		    '"The MCP server '"$name"' failed" in d["messages"][-1]["content"]'
	done
	check "mcp: ping: the server's requests answered a bounded number" \
	    test "$(ls "$M/q" | grep -c json)" -le 36
	check "mcp: ping: answered, not only cut" grep -q '"id":"again","result":{}' "$M/q/5.json"

	# A row that says its server only reads (ro): offered under
	# readonly, where another server's tools are not.
	printf 'tool c1 ro__x {}\nfinish tool_calls\n' | script r2
	startfake -x "$T/r2" "$T/p3"
	(agentexec timeout 60 "$T/b2/agent" -y -g readonly 'go') </dev/null \
	    >"$T/out" 2>"$T/err"
	jsontest "mcp: -g readonly: a read-only server's tools offered, others not" \
	    "$REQ/1.json" '"ro__x" in [t["function"]["name"] for t in d["tools"]]
	    and "flood__x" not in [t["function"]["name"] for t in d["tools"]]'
	jsontest "mcp: -g readonly: ... and run" "$REQ/2.json" \
	    'd["messages"][-1]["content"] == "ran"'
else
	fail "mcp: hostile servers: builds" "$(tail -5 "$T/b2.log")"
fi
stopfake

# The reference servers from npm, for real: memory's create_entities
# and read_graph, everything's echo.  Where npx cannot fetch them (no npx,
# no registry) the check is skipped, and counted.
real="mcp: server-memory and server-everything for real"
if ! command -v npx >/dev/null 2>&1; then
	skip "$real" "no npx"
elif ! (printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
    timeout 120 npx -y @modelcontextprotocol/server-memory 2>/dev/null |
    grep -q protocolVersion) ||
    ! (printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' |
    timeout 120 npx -y @modelcontextprotocol/server-everything 2>/dev/null |
    grep -q protocolVersion); then
	skip "$real" "npx cannot fetch them here"
else
	mkdir -p "$T/r"
	cp "$ROOT"/*.c "$ROOT"/*.h "$ROOT"/Makefile "$ROOT"/config.mk "$T/r"/
	rm -f "$T/r/config.h"
	sed -e '/^static const Mcpserver mcpservers/a\
	{ "memory", "npx -y @modelcontextprotocol/server-memory", NULL, NULL, 0 },\
	{ "everything", "npx -y @modelcontextprotocol/server-everything", NULL, NULL, 0 },' \
	    "$ROOT/config.def.h" >"$T/r/config.h"
	(cd "$T/r" && make agent) >"$T/r.log" 2>&1 ||
	    fail "$real: builds" "$(tail -5 "$T/r.log")"
	cat >"$T/m1" <<'X'
tool m1 memory__create_entities {"entities":[{"name":"agent","entityType":"program","observations":["written in C"]}]}
finish tool_calls
X
	cat >"$T/m2" <<'X'
tool m2 memory__read_graph {}
finish tool_calls
X
	cat >"$T/m3" <<'X'
tool m3 everything__echo {"message":"hi from agent"}
finish tool_calls
X
	printf 'text Done.\nfinish stop\n' >"$T/m4"
	startfake -x "$T/m1" "$T/m2" "$T/m3" "$T/m4"
	(MEMORY_FILE_PATH=$T/memory.jsonl agentexec timeout 180 \
	    "$T/r/agent" -y 'remember') </dev/null >"$T/out" 2>"$T/err"
	RC=$?
	[ "$RC" -eq 0 ] && ok "$real: the run ends well" ||
	    fail "$real: the run ends well" "rc $RC $(tail -5 "$T/err")"
	jsontest "$real: their tools offered" "$REQ/1.json" \
	    '{"memory__read_graph", "everything__echo"} <=
	     {t["function"]["name"] for t in d["tools"]}'
	jsontest "$real: memory keeps what it was told" "$REQ/3.json" \
	    '"written in C" in d["messages"][-1]["content"]'
	jsontest "$real: everything echoes" "$REQ/4.json" \
	    '"hi from agent" in d["messages"][-1]["content"]'
	stopfake
fi
