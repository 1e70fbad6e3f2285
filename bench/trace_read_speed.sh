#!/usr/bin/env bash
# trace_read_speed.sh [COVKIT [OLD_COVKIT]]
#
# How fast `covkit trace report/graph/timeline` read a trace, next to reading
# its files with `cat` (the speed of the page cache, or of the disk when the
# cache is dropped): events/s, MB/s of trace data and the ratio covkit/cat.
# Two traces: one thread (bench/trace/fib.c, fib(BENCH_N)) and several
# threads (bench/trace/fib_threads.c, BENCH_THREADS x fib(BENCH_TN)); and a
# real program's when Debian's zstd source is at hand (the realcode tests'
# cache): zstd built with -finstrument-functions -O2, compressing its own
# lib/ sources at -3 (a busy worker thread beside idle ones, and static
# inline functions whose copies in several files share a name, which fib
# has not).
# Hot: the files in the page cache (a warm-up run first), median of
# BENCH_RUNS. Rates are by wall time; the CPU time (all threads) is given
# as well, since on a busy machine the wall time measures the other load.
# Cold: the page cache dropped before each run (needs root and
# /proc/sys/vm/drop_caches; skipped otherwise), median of BENCH_COLD_RUNS.
# With OLD_COVKIT the runs of the two alternate, command by command.
# With OLD_COVKIT its numbers are printed beside and the outputs of both
# (report text and --json, graph -o X.dot, timeline) must be identical.
# Exit 0 (a measurement); 1 when a command failed or the outputs differ;
# 2 on setup errors.
#
# Environment:
#   BENCH_N=32          fib(N) of the one-thread trace (7.0 M calls, 14 M events, 27 MiB)
#   BENCH_THREADS=4     threads of the other trace
#   BENCH_TN=30         fib(TN) on each of them (4 x 2.7 M calls)
#   BENCH_RUNS=5        hot runs per command (median)
#   BENCH_COLD_RUNS=3   cold runs per command (median; 0: no cold runs)
#   BENCH_JOBS          --jobs of covkit (default: covkit's, one per core)
#   BENCH_CC=gcc-12     compiler
#   BENCH_ZSTD_SRC=DIR  zstd's source (default: the realcode cache next to
#                       covkit, build/realcode/src/libzstd/libzstd-*; none: no
#                       real program's trace)
#   BENCH_DIR=DIR       where the binaries and traces go (default: a temporary
#                       directory next to covkit, on its disk; removed at the end)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -gt 2 ]; then echo "usage: $0 [COVKIT [OLD_COVKIT]]" >&2; exit 2; fi
COVKIT=$(realpath "${1:-$HERE/../build/covkit}")
OLD=${2:+$(realpath "$2")}
N=${BENCH_N:-32}
THREADS=${BENCH_THREADS:-4}
TN=${BENCH_TN:-30}
RUNS=${BENCH_RUNS:-5}
COLD_RUNS=${BENCH_COLD_RUNS:-3}
CC=${BENCH_CC:-gcc-12}
JOBS=${BENCH_JOBS:+--jobs $BENCH_JOBS}
export LC_ALL=C
unset COVKIT_TRACE_DIR COVKIT_TRACE_MAX_DEPTH COVKIT_TRACE_MIN_TIME_NS LD_PRELOAD

for tool in "$COVKIT" /usr/bin/time "$CC"; do
  command -v "$tool" >/dev/null || { echo "trace_read_speed.sh: $tool not found" >&2; exit 2; }
done
if [ -n "${BENCH_DIR:-}" ]; then
  WORK=$BENCH_DIR; mkdir -p "$WORK"
else
  WORK=$(mktemp -d "$(dirname "$COVKIT")/trace_read_speed.XXXXXX"); trap 'rm -rf "$WORK"' EXIT
fi
COLD=0
if [ "$COLD_RUNS" -gt 0 ] && [ -w /proc/sys/vm/drop_caches ]; then COLD=1; fi

"$CC" -O2 -finstrument-functions -o "$WORK/fib" "$HERE/trace/fib.c" || exit 2
"$CC" -O2 -finstrument-functions -pthread -o "$WORK/fib_threads" "$HERE/trace/fib_threads.c" || exit 2
record() {  # record DIR COMMAND...: prints the events of the recording
  local dir=$1; shift
  rm -rf "$dir" "$dir.old"
  "$COVKIT" trace record -o "$dir" -- "$@" >/dev/null 2>"$WORK/record.err" || { cat "$WORK/record.err" >&2; exit 2; }
  sed -n 's/.* \([0-9][0-9]*\) events .*/\1/p' "$WORK/record.err" | head -1
}
EV_1=$(record "$WORK/one" "$WORK/fib" "$N")
EV_T=$(record "$WORK/threads" "$WORK/fib_threads" "$THREADS" "$TN")
TRACES="one threads"
ZSTD_SRC=${BENCH_ZSTD_SRC:-$(ls -d "$(dirname "$COVKIT")"/realcode/src/libzstd/libzstd-*/ 2>/dev/null | head -1)}
if [ -n "$ZSTD_SRC" ] && [ -d "$ZSTD_SRC/programs" ]; then
  cp -a "$ZSTD_SRC" "$WORK/zstd-src"
  make -s -j"$(nproc)" -C "$WORK/zstd-src/programs" zstd CC="$CC" MOREFLAGS="-finstrument-functions -O2" \
    >"$WORK/zstd-build.log" 2>&1 || { tail "$WORK/zstd-build.log" >&2; exit 2; }
  cat "$WORK/zstd-src"/lib/*/*.c >"$WORK/zstd-input"
  EV_R=$(record "$WORK/real" "$WORK/zstd-src/programs/zstd" -q -f -3 "$WORK/zstd-input" -o "$WORK/zstd-input.zst")
  TRACES="$TRACES real"
else
  echo "(no real program's trace: zstd's source not found; BENCH_ZSTD_SRC=DIR)"
fi

now() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# measure MODE RUNS COMMAND [COMMAND]: for each command (a string, split on
# spaces), "median-wall-seconds median-cpu-seconds" (CPU: user + system, all
# threads) of RUNS runs, one line each; the commands' runs alternate, so
# that a change in the machine's load (a noisy VM) falls on both alike.
# MODE hot: after a warm-up; cold: the page cache dropped before each run.
measure() {
  local mode=$1 runs=$2; shift 2
  local i
  for i in $(seq $#); do : >"$WORK/walls.$i"; : >"$WORK/cpus.$i"; done
  if [ "$mode" = hot ]; then
    for c in "$@"; do $c >/dev/null 2>&1 || { echo "FAILED: $c" >&2; return 1; }; done
  fi
  for _ in $(seq "$runs"); do
    i=0
    for c in "$@"; do
      i=$((i + 1))
      [ "$mode" = cold ] && drop_caches
      local t0; t0=$(now)
      /usr/bin/time -o "$WORK/time.out" -f "%U %S" $c >/dev/null 2>&1 || { echo "FAILED: $c" >&2; return 1; }
      echo $(( $(now) - t0 )) >>"$WORK/walls.$i"
      awk '{ printf "%.3f\n", $1 + $2 }' "$WORK/time.out" >>"$WORK/cpus.$i"
    done
  done
  for i in $(seq $#); do
    echo "$(median <"$WORK/walls.$i" | awk '{ printf "%.4f", $1 / 1e9 }') $(median <"$WORK/cpus.$i")"
  done
}

status=0
printf '%-8s %-5s %-9s %-4s %8s %8s %10s %8s %8s %8s\n' trace cache command tool "wall s" "cpu s" "M events/s" "MB/s" "wall/cat" "ns/event"
for tr in $TRACES; do
  files=$(ls "$WORK/$tr"/*.ckt "$WORK/$tr"/*.meta)
  bytes=$(cat $files | wc -c)
  case $tr in one) events=$EV_1 ;; threads) events=$EV_T ;; real) events=$EV_R ;; esac
  for mode in hot $([ "$COLD" = 1 ] && echo cold); do
    runs=$([ "$mode" = hot ] && echo "$RUNS" || echo "$COLD_RUNS")
    read -r cat_s cat_cpu <<<"$(measure "$mode" "$runs" "cat $files")"
    row() {  # row COMMAND TOOL WALL CPU: rates by wall time; CPU ns per event
      awk -v tr="$tr" -v m="$mode" -v c="$1" -v t="$2" -v s="$3" -v u="$4" -v e="$events" -v b="$bytes" -v k="$cat_s" 'BEGIN {
        if (s <= 0) s = 0.0001
        printf "%-8s %-5s %-9s %-4s %8.3f %8.2f %10.1f %8.0f %8.1f %8.1f\n", tr, m, c, t, s, u, e / s / 1e6, b / s / 1e6, s / k, u * 1e9 / e }'
    }
    row cat cat "$cat_s" "$cat_cpu"
    commands=(report)
    [ "$mode" = hot ] && commands+=(graph timeline)
    for c in "${commands[@]}"; do
      lines=()
      for tool in new ${OLD:+old}; do
        bin=$COVKIT; jobs=$JOBS
        [ "$tool" = old ] && { bin=$OLD; jobs=; }
        case $c in
          report) lines+=("$bin trace report $WORK/$tr $jobs") ;;
          graph) lines+=("$bin trace graph $WORK/$tr -o $WORK/$tool-$tr.dot $jobs") ;;
          timeline) lines+=("$bin trace timeline $WORK/$tr -o $WORK/$tool-$tr.json $jobs") ;;
        esac
      done
      results=$(measure "$mode" "$runs" "${lines[@]}") || { status=1; continue; }
      tool=new
      while read -r s u; do
        [ -n "$s" ] || { status=1; continue; }
        row "$c" "$tool" "$s" "$u"
        tool=old
      done <<<"$results"
    done
  done
  if [ -n "$OLD" ]; then
    for args in "" "--json" "--tree --threads"; do
      "$COVKIT" trace report "$WORK/$tr" $args $JOBS >"$WORK/new.txt" 2>&1
      "$OLD" trace report "$WORK/$tr" $args >"$WORK/old.txt" 2>&1
      cmp -s "$WORK/new.txt" "$WORK/old.txt" || { echo "outputs differ: $tr report $args"; status=1; }
    done
    for f in "$tr.dot" "$tr.json"; do
      cmp -s "$WORK/new-$f" "$WORK/old-$f" || { echo "outputs differ: $f"; status=1; }
    done
  fi
  echo "  $tr: $events events, $bytes bytes in $(echo $files | wc -w) files ($(awk -v b="$bytes" -v e="$events" 'BEGIN { printf "%.2f", b / e }') bytes/event)"
done
[ "$COLD" = 1 ] || echo "(no cold runs: needs root and /proc/sys/vm/drop_caches, and BENCH_COLD_RUNS > 0)"
[ -n "$OLD" ] && [ "$status" = 0 ] && echo "outputs of new and old identical"
exit $status
