#!/usr/bin/env bash
# trace_replay_vs_uftrace.sh [COVKIT]
#
# `covkit trace replay` against `uftrace replay`, side by side in one run, on
# the same program: bench/trace/fib.c (fib(N): 2*F(N+1)-1 calls of fib, plus
# main; 7,049,155 calls of fib for N = 32) built with gcc-12 -O2
# -finstrument-functions, recorded once by each tool (`covkit trace record`,
# `uftrace record`). Then each replay writes its text to a file (as
# `> out.txt` or a pager would read it), BENCH_RUNS times after a warm-up,
# the runs of the two tools
# alternating. Prints the median wall and CPU (user + system) seconds, the
# lines written, ns of CPU per line and the ratio uftrace/covkit (> 1:
# covkit is faster). Both texts are checked to hold every call of fib: a
# replay that drops lines must not look fast.
# Exit 0 (a measurement); 1 when a replay failed or lost calls; 2 on setup
# errors. See bench/README.md.
#
# Environment:
#   BENCH_N=32         fib(N)
#   BENCH_RUNS=3       timed runs per tool (median)
#   BENCH_CC=gcc-12    compiler
#   BENCH_UFTRACE=uftrace
#   BENCH_DIR=DIR      where the binary, traces and texts go (default: a
#                      temporary directory next to covkit, removed at the end)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib/timing.sh"
if [ $# -gt 1 ]; then echo "usage: $0 [COVKIT]" >&2; exit 2; fi
COVKIT=$(realpath "${1:-${COVKIT:-$HERE/../build/covkit}}")
N=${BENCH_N:-32}
RUNS=${BENCH_RUNS:-3}
CC=${BENCH_CC:-gcc-12}
UFTRACE=${BENCH_UFTRACE:-uftrace}
export LC_ALL=C
unset COVKIT_TRACE_DIR COVKIT_TRACE_MAX_DEPTH COVKIT_TRACE_MIN_TIME_NS LD_PRELOAD

die() { echo "$0: $*" >&2; exit 2; }
for tool in "$COVKIT" "$CC" "$UFTRACE"; do command -v "$tool" >/dev/null || die "$tool not found"; done
case "$RUNS" in ''|*[!0-9]*|0) die "BENCH_RUNS must be a positive integer" ;; esac
case "$N" in ''|*[!0-9]*) die "BENCH_N must be a non-negative integer" ;; esac
[ "$N" -le 40 ] || die "BENCH_N=$N: too many calls"
if [ -n "${BENCH_DIR:-}" ]; then
  WORK=$BENCH_DIR; mkdir -p "$WORK" || die "cannot create $WORK"
else
  WORK=$(mktemp -d "$(dirname "$COVKIT")/trace_replay.XXXXXX") || die "cannot create a work directory"
  trap 'rm -rf "$WORK"' EXIT
fi

a=0 b=1
for ((i = 0; i < N; i++)); do t=$((a + b)); a=$b; b=$t; done
FIB_CALLS=$((2 * b - 1))
"$CC" -O2 -finstrument-functions -o "$WORK/fib" "$HERE/trace/fib.c" || die "$CC failed"
"$COVKIT" trace record -o "$WORK/covkit.data" -- "$WORK/fib" "$N" >/dev/null 2>"$WORK/record.err" ||
  { cat "$WORK/record.err" >&2; die "covkit trace record failed"; }
"$UFTRACE" record -d "$WORK/uftrace.data" "$WORK/fib" "$N" >/dev/null 2>>"$WORK/record.err" ||
  { cat "$WORK/record.err" >&2; die "uftrace record failed"; }

run_covkit()  { "$COVKIT" trace replay "$WORK/covkit.data" >"$WORK/covkit.txt"; }
run_uftrace() { "$UFTRACE" replay -d "$WORK/uftrace.data" >"$WORK/uftrace.txt"; }

declare -A CPU WALL
FAILED=0
one() {  # one TOOL KEEP: a run; appends its CPU and wall seconds
  local tool=$1 keep=$2 out cpu wall
  out=$(bench_time "$WORK/replay.err" "run_$tool") || { echo "$0: $tool replay failed" >&2; FAILED=1; return; }
  read -r cpu wall <<<"$out"
  [ "$keep" = 1 ] || return 0
  CPU[$tool]+="$cpu "
  WALL[$tool]+="$wall "
}
median() { bench_median 3; }

echo "trace_replay_vs_uftrace: fib($N), $FIB_CALLS calls of fib; $("$CC" --version | head -1);" \
  "$("$UFTRACE" --version 2>&1 | head -1 | cut -d' ' -f1-2)"
echo "  $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg); median of $RUNS runs after a warm-up, tools alternating"
for ((round = 0; round <= RUNS; round++)); do
  one covkit $((round > 0))
  one uftrace $((round > 0))
done
[ $FAILED = 0 ] || exit 1

# Every call of fib must be in each text: as `fib() {` with its return, or as `fib();`.
calls_in() { grep -c -E '\| +fib\(\)( \{|;)' "$1"; }
echo
printf '%-8s %8s %8s %10s %12s %9s\n' tool "wall s" "cpu s" lines "cpu ns/line" "fib calls"
for tool in covkit uftrace; do
  lines=$(($(wc -l <"$WORK/$tool.txt") - 1))
  cpu=$(median <<<"${CPU[$tool]}")
  calls=$(calls_in "$WORK/$tool.txt")
  [ "$calls" = "$FIB_CALLS" ] || { echo "$0: $tool replay shows $calls calls of fib, not $FIB_CALLS" >&2; FAILED=1; }
  printf '%-8s %8s %8s %10d %12.1f %9d\n' "$tool" "$(median <<<"${WALL[$tool]}")" "$cpu" "$lines" \
    "$(awk -v c="$cpu" -v n="$lines" 'BEGIN{print c * 1e9 / n}')" "$calls"
done
echo
echo "uftrace/covkit: $(awk -v u="$(median <<<"${CPU[uftrace]}")" -v c="$(median <<<"${CPU[covkit]}")" \
  'BEGIN{printf "%.2fx", u / c}') on CPU time, $(awk -v u="$(median <<<"${WALL[uftrace]}")" \
  -v c="$(median <<<"${WALL[covkit]}")" 'BEGIN{printf "%.2fx", u / c}') on wall time (> 1: covkit is faster)"
[ $FAILED = 0 ] || exit 1
exit 0
