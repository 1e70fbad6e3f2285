#!/usr/bin/env bash
# Overhead of breakpoint-mode sampling (one-shot int3 at every function
# entry) on a CPU-bound program with many functions, side by side with the
# plain run. One-shot means the cost is one stop per site, paid once: it
# must grow with the number of sites, not with how long the program runs,
# so the program is timed at two run lengths.
#
#   bench/sample_breakpoint_overhead.sh [BUILD_DIR]     # default build/
#   BENCH_FUNCS=2000 BENCH_CALLS="1000000 10000000" BENCH_RUNS=3 bench/...
#
# Needs gcc-12 and the test driver (ninja -C build covkit_sample_breakpoint_driver);
# `covkit sample record --mode breakpoint` will replace the driver.
set -euo pipefail
build=${1:-build}
driver=$build/tests/sample_breakpoint/covkit_sample_breakpoint_driver
funcs=${BENCH_FUNCS:-2000}
calls_list=${BENCH_CALLS:-"1000000 10000000"}
runs=${BENCH_RUNS:-3}
[[ -x $driver ]] || { echo "$driver missing: ninja -C $build covkit_sample_breakpoint_driver" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# FUNCS functions, each called through a table so none is inlined or merged;
# the program calls them round-robin CALLS times in all.
{
  echo '#include <stdlib.h>'
  for ((i = 0; i < funcs; ++i)); do
    echo "__attribute__((noinline)) unsigned f$i(unsigned x) { return x * $((2 * i + 1))u + (x >> 3); }"
  done
  echo "static unsigned (*const table[$funcs])(unsigned) = {"
  for ((i = 0; i < funcs; ++i)); do echo "  f$i,"; done
  echo '};'
  echo 'int main(int argc, char** argv) {'
  echo '  unsigned long calls = argc > 1 ? strtoul(argv[1], 0, 10) : 1000000;'
  echo '  unsigned x = 1;'
  echo "  for (unsigned long i = 0; i < calls; ++i) x = table[i % $funcs](x);"
  echo '  return x == 0xdeadbeef;'
  echo '}'
} >"$work/many.c"
gcc-12 -O1 -o "$work/many" "$work/many.c"

now() { date +%s.%N; }
best_plain() {  # the fastest of $runs plain runs, in seconds
  local best=""
  for ((r = 0; r < runs; ++r)); do
    local t0 t1; t0=$(now); "$work/many" "$1" || true; t1=$(now)
    best=$(awk -v a="$best" -v b="$(awk -v x="$t0" -v y="$t1" 'BEGIN{print y-x}')" 'BEGIN{print (a=="" || b<a) ? b : a}')
  done
  echo "$best"
}
best_recorded() {  # the fastest of $runs recorded runs; prints "seconds planted hits"
  local best="" line=""
  for ((r = 0; r < runs; ++r)); do
    local t0 t1 out; t0=$(now); out=$("$driver" -- "$work/many" "$1" 2>&1 >/dev/null || true); t1=$(now)
    local t; t=$(awk -v x="$t0" -v y="$t1" 'BEGIN{print y-x}')
    if [[ -z $best ]] || awk -v a="$t" -v b="$best" 'BEGIN{exit !(a<b)}'; then
      best=$t
      line=$(sed -n 's/.*planted \([0-9]*\) hits \([0-9]*\).*/\1 \2/p' <<<"$out")
    fi
  done
  echo "$best $line"
}

printf '%d functions (function-entry plan of the executable only), best of %d runs\n' "$funcs" "$runs"
printf '%12s %10s %10s %8s %10s %8s %8s\n' calls plain_s recorded_s ratio added_ms planted hits
for calls in $calls_list; do
  plain=$(best_plain "$calls")
  read -r recorded planted hits <<<"$(best_recorded "$calls")"
  awk -v c="$calls" -v p="$plain" -v r="$recorded" -v pl="$planted" -v h="$hits" \
    'BEGIN{printf "%12d %10.3f %10.3f %8.2f %10.1f %8d %8d\n", c, p, r, r/p, (r-p)*1000, pl, h}'
done
