#!/usr/bin/env bash
# trace_views.sh [COVKIT [OLD_COVKIT]]
#
# Memory and time of the views of a large trace against reading its files:
# `covkit trace report`, `trace graph -o X.dot` and `trace timeline` on the
# trace of bench/trace/fib.c (fib(N): 2*F(N+1)-1 calls; 7,049,156 for N = 32,
# 14.1 M events, 27 MiB), next to `cat FILES >/dev/null` (page cache warm).
# For each command: the median wall and CPU time of BENCH_RUNS runs and the
# peak RSS (/usr/bin/time -f %M), then the ratios time/cat-time and
# RSS/cat-RSS. A second trace of N + BENCH_GROWTH shows how memory grows with
# the trace's length (peak RSS ratio of the long trace over the short one: 1.0
# means no growth). With OLD_COVKIT (e.g. a build of the commit before the
# views streamed) its numbers are printed beside, and the outputs of both are
# compared (they must be identical). Exit 0 (a measurement); 2 on setup errors;
# 1 when a command failed or the outputs differ.
#
# Environment:
#   BENCH_N=32        fib(N) of the main trace
#   BENCH_GROWTH=3    the second trace is fib(N + GROWTH) (x4.2 the calls for 3)
#   BENCH_RUNS=3      timed runs per command (median)
#   BENCH_CC=gcc-12   compiler
#   BENCH_DIR=DIR     where the binary and the traces go (default: a temporary
#                     directory next to covkit, removed at the end)
#   BENCH_MAX_EVENTS  --max-events of the timeline (default: covkit's, 1000000)
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ $# -gt 2 ]; then echo "usage: $0 [COVKIT [OLD_COVKIT]]" >&2; exit 2; fi
COVKIT=$(realpath "${1:-$HERE/../build/covkit}")
OLD=${2:+$(realpath "$2")}
N=${BENCH_N:-32}
GROWTH=${BENCH_GROWTH:-3}
RUNS=${BENCH_RUNS:-3}
CC=${BENCH_CC:-gcc-12}
MAXEV=${BENCH_MAX_EVENTS:+--max-events $BENCH_MAX_EVENTS}
export LC_ALL=C
unset COVKIT_TRACE_DIR COVKIT_TRACE_MAX_DEPTH COVKIT_TRACE_MIN_TIME_NS LD_PRELOAD

for tool in "$COVKIT" /usr/bin/time "$CC"; do
  command -v "$tool" >/dev/null || { echo "trace_views.sh: $tool not found" >&2; exit 2; }
done
if [ -n "${BENCH_DIR:-}" ]; then
  WORK=$BENCH_DIR; mkdir -p "$WORK"
else
  WORK=$(mktemp -d "$(dirname "$COVKIT")/trace_views.XXXXXX"); trap 'rm -rf "$WORK"' EXIT
fi

"$CC" -O2 -finstrument-functions -o "$WORK/fib" "$HERE/trace/fib.c" || exit 2
record() {  # record N DIR
  rm -rf "$2" "$2.old"
  "$COVKIT" trace record -o "$2" -- "$WORK/fib" "$1" >/dev/null 2>"$WORK/record.err" || { cat "$WORK/record.err"; exit 2; }
  sed 's/^/  /' "$WORK/record.err"
}
echo "fib($N) and fib($((N + GROWTH))), recorded by $COVKIT:"
record "$N" "$WORK/t1"
record "$((N + GROWTH))" "$WORK/t2"

# One measurement: median wall and CPU seconds and the largest peak RSS (KiB)
# of RUNS runs of "$@", printed as "wall cpu rss".
measure() {
  local walls=() cpus=() rss=0
  "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; return 1; }  # warm-up, and the page cache
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -o "$WORK/time.out" -f "%e %U %S %M" "$@" >/dev/null 2>/dev/null
    read -r w u s m <"$WORK/time.out"
    walls+=("$w"); cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')")
    [ "$m" -gt "$rss" ] && rss=$m
  done
  printf '%s %s %s\n' "$(printf '%s\n' "${walls[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")" \
    "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n "$(((RUNS + 1) / 2))p")" "$rss"
}

views() {  # views COVKIT TRACE TAG: the view commands, one per line
  echo "report|$1 trace report $2 --json"
  echo "graph|$1 trace graph $2 -o $WORK/$3.dot"
  echo "timeline|$1 trace timeline $2 -o $WORK/$3.json $MAXEV"
}

status=0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
for tr in t1 t2; do
  files=$(ls "$WORK/$tr"/*.ckt "$WORK/$tr"/*.meta)
  read -r cw cc crss <<<"$(measure cat $files)"
  [ "$(awk -v c="$cw" 'BEGIN { print (c < 0.01) }')" = 1 ] && cw=0.01  # /usr/bin/time has 10 ms resolution
  echo
  echo "$tr: $(du -sh "$WORK/$tr" | cut -f1); cat FILES >/dev/null: ${cw} s, ${crss} KiB"
  printf '%-10s %-8s %8s %8s %10s %10s %10s\n' view covkit "wall s" "cpu s" "peak KiB" "time/cat" "RSS/cat"
  for tool in new ${OLD:+old}; do
    bin=$COVKIT; [ "$tool" = old ] && bin=$OLD
    while IFS='|' read -r name cmd; do
      read -r w c m <<<"$(measure $cmd)" || { status=1; continue; }
      printf '%-10s %-8s %8s %8s %10s %10s %10s\n' "$name" "$tool" "$w" "$c" "$m" "$(ratio "$w" "$cw")" \
        "$(ratio "$m" "$crss")"
      eval "RSS_${tool}_${name}_${tr}=$m"
    done < <(views "$bin" "$WORK/$tr" "$tool-$tr")
  done
  if [ -n "$OLD" ]; then
    "$COVKIT" trace report "$WORK/$tr" --json >"$WORK/new.json" 2>/dev/null
    "$OLD" trace report "$WORK/$tr" --json >"$WORK/old.json" 2>/dev/null
    for f in new.json:old.json "new-$tr.dot:old-$tr.dot" "new-$tr.json:old-$tr.json"; do
      if ! cmp -s "$WORK/${f%%:*}" "$WORK/${f##*:}"; then echo "outputs differ: $f"; status=1; fi
    done
  fi
done

echo
echo "peak RSS of fib($((N + GROWTH))) over fib($N) (1.00: memory does not grow with the trace):"
for tool in new ${OLD:+old}; do
  for name in report graph timeline; do
    a=$(eval echo "\${RSS_${tool}_${name}_t1:-}"); b=$(eval echo "\${RSS_${tool}_${name}_t2:-}")
    [ -n "$a" ] && [ -n "$b" ] && printf '  %-8s %-10s x%s\n' "$tool" "$name" "$(ratio "$b" "$a")"
  done
done
exit $status
