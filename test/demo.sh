#!/bin/sh
# demo.sh: the whole loop with no key and no network: the real agent, a
# scripted model (test/fake) and a small coding task in a scratch directory.
# Run by `make demo`; not a test.
ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 1
D=$(mktemp -d "${TMPDIR:-/tmp}/agent-demo.XXXXXX") || exit 1
trap 'kill $FAKE 2>/dev/null; rm -rf "$D"' EXIT INT TERM
mkdir "$D/proj" "$D/model"

cat >"$D/proj/hello.c" <<'X'
#include <stdio.h>

int
main(void)
{
	printf("hello, wrold\n");
	return 0;
}
X

# What the model says, one reply per request.
cat >"$D/model/1" <<'X'
think The user wants the greeting fixed. Look at the file first.
text I'll read hello.c first.
tool call_1 read {"path": "hello.c"}
finish tool_calls
usage 1210 31
X
cat >"$D/model/2" <<'X'
text The greeting is misspelt; fixing it.
tool call_2 edit {"path": "hello.c", "edits": [{"oldText": "hello, wrold", "newText": "hello, world"}]}
finish tool_calls
usage 1302 58
X
cat >"$D/model/3" <<'X'
tool call_3 bash {"command": "cc -o hello hello.c && ./hello"}
finish tool_calls
usage 1371 40
X
cat >"$D/model/4" <<'X'
text Fixed the typo in hello.c ("wrold" -> "world"). It builds, and\n./hello now prints:\n\n    hello, world\n
finish stop
usage 1425 35
X

"$ROOT/test/fake" -p "$D/port" -x -b 6 -d 15 \
    "$D/model/1" "$D/model/2" "$D/model/3" "$D/model/4" &
FAKE=$!
i=0
while [ ! -s "$D/port" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done

cat <<X
agent demo: a scripted model (test/fake) drives the real agent through a
small task in $D/proj.  The answer streams to stdout; the
tool trace, thinking and token usage go to stderr.  -y allows the write,
edit and bash calls that would otherwise be asked about on the terminal.

\$ cat hello.c
X
cat "$D/proj/hello.c"
printf '\n$ agent -y "fix the typo in hello.c and run it"\n'
cd "$D/proj" &&
    env AGENT_BASE_URL="http://127.0.0.1:$(cat "$D/port")/v1" \
    AGENT_PROVIDER=llamacpp AGENT_MODEL=demo \
    "$ROOT/agent" -n -y "fix the typo in hello.c and run it"
rc=$?
printf '\n$ cat hello.c\n'
cat "$D/proj/hello.c"
exit $rc
