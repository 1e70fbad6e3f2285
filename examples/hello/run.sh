#!/usr/bin/env bash
# Compiles examples/hello with --coverage, runs it twice, and shows the result
# with `covkit gcov` (branch probabilities and function summaries on).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$root/build/example
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$here/hello.c" .
gcc --coverage -O0 -g -o hello hello.c
./hello
./hello 100
"$root/build/covkit" gcov -b hello.c
echo "---- $work/hello.c.gcov"
cat hello.c.gcov
