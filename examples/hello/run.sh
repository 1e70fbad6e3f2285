#!/usr/bin/env bash
# Compiles examples/hello with --coverage, runs it twice, shows the result
# with `covkit gcov`, then writes the project reports with `covkit report`
# (summary table, lcov tracefile, Cobertura XML, HTML site).
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
echo "---- covkit report"
"$root/build/covkit" report --print-summary --lcov coverage.info --cobertura coverage.xml --html html .
echo "reports: $work/coverage.info $work/coverage.xml $work/html/index.html"
