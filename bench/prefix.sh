#!/bin/sh
# bench/prefix.sh: what the first request costs, agent beside pi, and
# whether the part a provider caches (the system prompt and the tools)
# stays the same from run to run and day to day.  Both ask the same
# question of test/fake on the chat completions wire; the bodies are
# recorded and compared.  faketime, where installed, moves the day.
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
make -s agent test/fake || exit 1
B=$(mktemp -d "${TMPDIR:-/tmp}/agent-prefix.XXXXXX") || exit 1
trap 'kill $FAKE 2>/dev/null; rm -rf "$B"' EXIT INT TERM
unset HTTP_PROXY HTTPS_PROXY http_proxy https_proxy
PI=${PI:-$(command -v pi || echo "$ROOT/bench/pi/node_modules/.bin/pi")}
[ -x "$PI" ] || PI=
Q='read a.txt and say what it holds'
mkdir -p "$B/proj" "$B/home/.pi/agent"
echo 'a note' >"$B/proj/a.txt"
printf 'text ok\nfinish stop\n' >"$B/ok"

# ask N [faketime day] [pi]: request N recorded in $B/req, asked by agent
# or pi, on the day given if faketime is here.
ask() {
	_n=$1 _day=$2 _who=$3
	rm -rf "$B/port" "$B/req"
	mkdir "$B/req"
	"$ROOT/test/fake" -x -p "$B/port" -r "$B/req" "$B/ok" 2>/dev/null &
	FAKE=$!
	while [ ! -s "$B/port" ]; do sleep 0.02; done
	URL=http://127.0.0.1:$(cat "$B/port")/v1
	set --
	[ -n "$_day" ] && set -- faketime "$_day"
	if [ "$_who" = pi ]; then
		cat >"$B/home/.pi/agent/models.json" <<X
{"providers": {"fake": {"baseUrl": "$URL", "api": "openai-completions",
  "apiKey": "bench", "models": [{"id": "fake-model"}]}}}
X
		(cd "$B/proj" && HOME="$B/home" "$@" "$PI" --offline \
		    --provider fake --model fake-model --no-session -p "$Q") \
		    </dev/null >/dev/null 2>&1
	else
		(cd "$B/proj" && env AGENT_BASE_URL="$URL" AGENT_API_KEY=bench \
		    AGENT_PROVIDER=openai-chat AGENT_MODEL=fake-model "$@" \
		    "$ROOT/agent" -n "$Q") </dev/null >/dev/null 2>&1
	fi
	wait "$FAKE" 2>/dev/null
	mkdir -p "$B/$_n"
	cp "$B/req/1.json" "$B/$_n/body.json" 2>/dev/null
}

# cached A B: whether bodies A and B have the same system prompt and
# tools, and that part's size in bytes.
cached() {
	python3 - "$B/$1/body.json" "$B/$2/body.json" <<'X'
import json, sys
def part(f):
    d = json.load(open(f))
    return json.dumps([d["messages"][0], d.get("tools")],
                      separators=(",", ":"))
a, b = part(sys.argv[1]), part(sys.argv[2])
print("%s, %d bytes" % ("the same" if a == b else "different", len(a)))
X
}

FT=
faketime -f '+0d' true 2>/dev/null && FT=1
echo "First request for \"$Q\", chat completions"
ask a1
ask a2
[ -n "$FT" ] && ask a3 '2031-06-01 12:00:00'
printf '%-34s %6d bytes\n' "agent" "$(wc -c <"$B/a1/body.json")"
if [ -n "$PI" ]; then
	ask p1 "" pi
	ask p2 "" pi
	[ -n "$FT" ] && ask p3 '2031-06-01 12:00:00' pi
	printf '%-34s %6d bytes   %.2fx agent'"'"'s\n' "pi $("$PI" --version 2>&1 |
	    tail -1)" "$(wc -c <"$B/p1/body.json")" "$(echo \
	    "$(wc -c <"$B/p1/body.json") $(wc -c <"$B/a1/body.json")" |
	    awk '{ print $1 / $2 }')"
else
	echo "pi: not installed (npm install --prefix bench/pi @mariozechner/pi-coding-agent)"
fi
echo "System prompt and tools, the cached prefix:"
printf '  %-32s %s\n' "agent, two runs" "$(cached a1 a2)"
[ -n "$FT" ] && printf '  %-32s %s\n' "agent, another day" "$(cached a1 a3)"
if [ -n "$PI" ]; then
	printf '  %-32s %s\n' "pi, two runs" "$(cached p1 p2)"
	[ -n "$FT" ] && printf '  %-32s %s\n' "pi, another day" "$(cached p1 p3)"
fi
[ -n "$FT" ] || echo "  (no faketime: apt-get install faketime to move the day)"
