#!/bin/sh
# bench/read.sh: the read tool on a 1 GB text file; peak memory must stay
# under 10 MB (the tool streams the file).  Not part of make test.
cd "$(dirname "$0")/.." || exit 1
make -s test/tools || exit 1
f=$(mktemp "${TMPDIR:-/tmp}/agent-bench-read-XXXXXX") || exit 1
trap 'rm -f "$f"' EXIT INT TERM
yes 'The quick brown fox jumps over the lazy dog, line after line.' |
	head -c 1073741824 >"$f" || exit 1
out=$(./test/tools --bench-read "$f") || exit 1
echo "$out"
kb=$(echo "$out" | sed -n 's/.*peak RSS \([0-9]*\) KB.*/\1/p')
if [ "$kb" -lt 10240 ]; then
	echo "ok - peak RSS ${kb} KB < 10240 KB"
else
	echo "FAIL - peak RSS ${kb} KB >= 10240 KB"
	exit 1
fi
