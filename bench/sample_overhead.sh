#!/bin/sh
# Overhead of `covkit sample record` on a CPU-bound loop: wall time with and
# without the recorder, at the default period (or PERIOD=5ms ...), both
# modes, best of RUNS. Prints the ratios.
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
static volatile unsigned long sink;
__attribute__((noinline)) static unsigned long work(unsigned long n) {
  unsigned long s = 0;
  for (unsigned long i = 0; i < n; ++i) { if (i % 3 == 0) s += i * 7; else s ^= i; }
  return s;
}
int main(int argc, char **argv) {
  long rounds = atol(argv[1]);
  for (long r = 0; r < rounds; ++r) sink += work(100000);
  return 0;
}
C
gcc-12 -O2 -g -o "$WORK/fixed" "$WORK/fixed.c"
# rounds for about SECONDS_CPU seconds
t0=$(date +%s.%N); "$WORK/fixed" 200; t1=$(date +%s.%N)
ROUNDS=$(echo "$SECONDS_CPU * 200 / ($t1 - $t0)" | bc)
best() {  # best wall time of RUNS runs of "$@"
  b=""
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    t=$(echo "$e - $s" | bc)
    if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
  done
  echo "$b"
}
base=$(best "$WORK/fixed" "$ROUNDS")
period=${PERIOD:+--period $PERIOD}
branch=$(best "$COVKIT" sample record $period -o "$WORK/b" -- "$WORK/fixed" "$ROUNDS")
pc=$(best "$COVKIT" sample record --mode pc $period -o "$WORK/p" -- "$WORK/fixed" "$ROUNDS")
samples=$("$COVKIT" sample dump --no-steps "$WORK/b" | grep -c '^sample ')
echo "loop of $ROUNDS rounds, best of $RUNS: plain ${base}s, branch ${branch}s ($samples samples), pc ${pc}s"
echo "branch/plain $(echo "scale=3; $branch / $base" | bc)   pc/plain $(echo "scale=3; $pc / $base" | bc)"
