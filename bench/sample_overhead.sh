#!/bin/sh
# Overhead of `covkit sample record` on a CPU-bound loop: wall time with and
# without the recorder, at the default period (or PERIOD=5ms ...), branch
# and pc mode through the preloaded runtime and pc mode through the kernel's
# perf_event_open (--source perf: cpu-clock, covkit reading the rings
# included), best of RUNS. Prints the ratios.
#   bench/sample_overhead.sh [build-dir]   (needs gcc-12)
set -eu
BUILD=${1:-build}
RUNS=${RUNS:-3}
SECONDS_CPU=${SECONDS_CPU:-2}
COVKIT=$(cd "$BUILD" && pwd)/covkit
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
SRC=$(dirname "$0")/../tests/sample_record/progs
# A fixed amount of work (not a fixed CPU time, which the samples would eat).
cat > "$WORK/fixed.c" <<'C'
#include <stdlib.h>
static volatile unsigned long sink, size = 100000;
__attribute__((noinline)) static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) { if (i % 3 == 0) s += i * 7; else s ^= i; }
  return s;
}
int main(int argc, char **argv) {
  long rounds = atol(argv[1]);
  for (long r = 0; r < rounds; ++r) sink += work(size);  /* volatile: computed every round */
  return 0;
}
C
gcc-12 -O2 -g -o "$WORK/fixed" "$WORK/fixed.c"
# rounds for about SECONDS_CPU seconds
t0=$(date +%s.%N); "$WORK/fixed" 200; t1=$(date +%s.%N)
ROUNDS=$(echo "$SECONDS_CPU * 200 / ($t1 - $t0)" | bc)
# Wall and CPU (user + sys, children included) time of "$@" as "W C".
timed() {
  /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@" >/dev/null 2>&1 || true
  awk '{print $1, $2 + $3}' "$WORK/time"
}
min() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
# The three runs alternate, so that a busy moment of a shared machine
# slows all of them; the best of RUNS of each is kept.
period=${PERIOD:+--period $PERIOD}
base_w="" base_c="" br_w="" br_c="" pc_w="" pc_c="" pp_w="" pp_c=""
for _ in $(seq "$RUNS"); do
  set -- $(timed "$WORK/fixed" "$ROUNDS"); base_w=$(min "$base_w" "$1"); base_c=$(min "$base_c" "$2")
  set -- $(timed "$COVKIT" sample record $period -o "$WORK/b" -- "$WORK/fixed" "$ROUNDS")
  br_w=$(min "$br_w" "$1"); br_c=$(min "$br_c" "$2")
  set -- $(timed "$COVKIT" sample record --mode pc --source runtime $period -o "$WORK/p" -- "$WORK/fixed" "$ROUNDS")
  pc_w=$(min "$pc_w" "$1"); pc_c=$(min "$pc_c" "$2")
  set -- $(timed "$COVKIT" sample record --mode pc --source perf $period -o "$WORK/pp" -- "$WORK/fixed" "$ROUNDS")
  pp_w=$(min "$pp_w" "$1"); pp_c=$(min "$pp_c" "$2")
done
perf_samples=$("$COVKIT" sample dump --no-steps "$WORK/pp" 2>/dev/null | grep -c '^sample ' || true)
samples=$("$COVKIT" sample dump --no-steps "$WORK/b" | grep -c '^sample ' || true)
echo "loop of $ROUNDS rounds, best of $RUNS (wall s / cpu s): plain $base_w/$base_c," \
  "branch $br_w/$br_c ($samples samples), pc $pc_w/$pc_c, pc through perf $pp_w/$pp_c ($perf_samples samples)"
echo "branch/plain wall $(echo "scale=3; $br_w / $base_w" | bc) cpu $(echo "scale=3; $br_c / $base_c" | bc)" \
  "  pc/plain wall $(echo "scale=3; $pc_w / $base_w" | bc) cpu $(echo "scale=3; $pc_c / $base_c" | bc)" \
  "  perf pc/plain wall $(echo "scale=3; $pp_w / $base_w" | bc) cpu $(echo "scale=3; $pp_c / $base_c" | bc)"
