#!/usr/bin/env bash
# trace_decode_floor.sh [COVKIT]
#
# How far `covkit trace report` is from the floor of its trace format, on
# one core: bench/trace/decode_floor.cc finds every event of a thread stream
# and converts its time, and does nothing else (no stack, no profile), in
# a loop as tight as the format allows; bench/trace/profile_floor.cc adds
# the flat profile's replay to it, trusting the stream (no checks at all),
# once with every counter converted to ns as covkit converts it and once
# with sums in counter ticks; `covkit trace report --jobs 1` does the
# flat profile with every check. All on the same trace of
# bench/trace/fib.c, fib(BENCH_N). Prints the ns per event of each (best
# of BENCH_RUNS; covkit's by its CPU time, start-up included, the floor's
# by its loop alone) and their ratio: what the profile's replay costs on
# top of reading, and how many cores reading at the disk's speed takes
# (a core's MB/s is printed too).
#
# Exit 0 (a measurement); 2 on setup errors.
#
# Environment:
#   BENCH_N=32      fib(N): 7.0 M calls, 14.1 M events
#   BENCH_RUNS=7    runs of each (the best is kept: this is a floor)
#   BENCH_CC=gcc-12, BENCH_CXX=g++-12
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -gt 1 ]; then echo "usage: $0 [COVKIT]" >&2; exit 2; fi
COVKIT=$(realpath "${1:-$HERE/../build/covkit}")
N=${BENCH_N:-32}
RUNS=${BENCH_RUNS:-7}
CC=${BENCH_CC:-gcc-12}
CXX=${BENCH_CXX:-g++-12}
export LC_ALL=C
unset COVKIT_TRACE_DIR COVKIT_TRACE_MAX_DEPTH COVKIT_TRACE_MIN_TIME_NS LD_PRELOAD
for tool in "$COVKIT" /usr/bin/time "$CC" "$CXX"; do
  command -v "$tool" >/dev/null || { echo "trace_decode_floor.sh: $tool not found" >&2; exit 2; }
done
WORK=$(mktemp -d "$(dirname "$COVKIT")/trace_decode_floor.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

"$CC" -O2 -finstrument-functions -o "$WORK/fib" "$HERE/trace/fib.c" || exit 2
"$CXX" -O2 -std=c++20 -o "$WORK/decode_floor" "$HERE/trace/decode_floor.cc" || exit 2
"$CXX" -O2 -std=c++20 -o "$WORK/profile_floor" "$HERE/trace/profile_floor.cc" || exit 2
"$COVKIT" trace record -o "$WORK/t" -- "$WORK/fib" "$N" >/dev/null 2>"$WORK/record.err" || { cat "$WORK/record.err" >&2; exit 2; }
streams=("$WORK"/t/*.ckt)
[ ${#streams[@]} -eq 1 ] || { echo "trace_decode_floor.sh: expected one thread stream" >&2; exit 2; }
stream=${streams[0]}
bytes=$(stat -c %s "$stream")

read -r _ events _ floor_ns _ < <("$WORK/decode_floor" "$stream" "$RUNS") || exit 2
read -r _ _ _ profile_ns _ ticks_ns _ < <("$WORK/profile_floor" "$stream" "$RUNS") || exit 2
"$COVKIT" trace report --jobs 1 "$WORK/t" >/dev/null || exit 2  # warm-up
best=""
for _ in $(seq "$RUNS"); do
  /usr/bin/time -o "$WORK/time.out" -f "%U %S" "$COVKIT" trace report --jobs 1 "$WORK/t" >/dev/null 2>&1 || exit 2
  cpu=$(awk '{ printf "%.3f", $1 + $2 }' "$WORK/time.out")
  if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$cpu; fi
done
awk -v e="$events" -v b="$bytes" -v f="$floor_ns" -v c="$best" -v pn="$profile_ns" -v pt="$ticks_ns" 'BEGIN {
  r = c * 1e9 / e
  printf "fib trace: %d events, %.1f MB (%.2f bytes/event), one core\n", e, b / 1e6, b / e
  printf "%-28s %8s %12s\n", "", "ns/event", "MB/s a core"
  printf "%-28s %8.2f %12.0f\n", "floor (find + convert)", f, b / e / f * 1e3
  printf "%-28s %8.2f %12.0f\n", "profile, no checks, ns", pn, b / e / pn * 1e3
  printf "%-28s %8.2f %12.0f\n", "profile, no checks, ticks", pt, b / e / pt * 1e3
  printf "%-28s %8.2f %12.0f\n", "covkit trace report -j1", r, b / e / r * 1e3
  printf "ratio report/floor: %.2f\n", r / f
}'
