#!/usr/bin/env bash
# The cost of a breakpoint-mode block, by the way its trap is taken:
# `covkit sample record --mode breakpoint` with the runtime's in-process
# SIGTRAP handler (the default) and with --breakpoint-handler ptrace, side
# by side with the plain run, on a program of FUNCS one-block functions
# each called once (so every planted site fires once). Then the same
# program run PROCS times in one recording: with the runtime, the hit flags
# shared by the processes of a recording plant in later processes only what
# earlier ones did not reach; under ptrace every process pays every block.
#
#   bench/sample_breakpoint_handlers.sh [COVKIT]       # default build/covkit
#   BENCH_FUNCS=20000 BENCH_PROCS=5 BENCH_RUNS=3 bench/sample_breakpoint_handlers.sh
#
# Prints best-of-RUNS wall times, the µs per block each handler adds, and
# the ratio runtime/ptrace. A warm-up recording fills covkit's per-build-id
# cache of breakpoint sites first, so the analysis is not timed. Exit 0 (a
# measurement), 2 on setup errors.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
funcs=${BENCH_FUNCS:-20000}
procs=${BENCH_PROCS:-5}
runs=${BENCH_RUNS:-3}
command -v gcc-12 >/dev/null || { echo "gcc-12 missing" >&2; exit 2; }
[[ -x $COVKIT ]] || { echo "$COVKIT missing: scripts/build.sh" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
{
  for ((i = 0; i < funcs; ++i)); do
    echo "__attribute__((noinline)) unsigned f$i(unsigned x) { return x * $((2 * i + 1))u + (x >> 3); }"
  done
  echo "static unsigned (*const table[$funcs])(unsigned) = {"
  for ((i = 0; i < funcs; ++i)); do echo "  f$i,"; done
  echo '};'
  echo "int main(void) { unsigned x = 1; for (int i = 0; i < $funcs; ++i) x = table[i](x); return x == 0xdeadbeef; }"
} >"$work/many.c"
gcc-12 -O2 -g -o "$work/many" "$work/many.c" || exit 2
printf '#!/bin/sh\nfor i in $(seq %d); do "%s" || exit 1; done\n' "$procs" "$work/many" >"$work/procs.sh"
chmod +x "$work/procs.sh"

now() { date +%s.%N; }
best() {  # best wall time of $runs runs of the command
  local b=""
  for ((r = 0; r < runs; ++r)); do
    local t0 t1; t0=$(now); "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }; t1=$(now)
    b=$(awk -v a="$b" -v x="$t0" -v y="$t1" 'BEGIN{t=y-x; print (a=="" || t<a) ? t : a}')
  done
  echo "$b"
}
rec() { "$COVKIT" sample record --mode breakpoint --breakpoint-handler "$1" -o "$work/rec.$1" -- "${@:2}"; }

rec runtime "$work/many" >/dev/null 2>&1 || { echo "covkit sample record failed" >&2; exit 2; }  # warm the site cache
echo "$funcs one-block functions, each called once; best of $runs runs (wall seconds)"
printf '%-22s %9s %9s %9s %12s %12s %9s\n' workload plain runtime ptrace "runtime us" "ptrace us" "rt/pt"
for w in one procs; do
  if [[ $w == one ]]; then cmd=("$work/many"); blocks=$funcs; label="1 process"
  else cmd=("$work/procs.sh"); blocks=$((funcs * procs)); label="$procs processes"; fi
  p=$(best "${cmd[@]}")
  r=$(best rec runtime "${cmd[@]}")
  t=$(best rec ptrace "${cmd[@]}")
  awk -v l="$label" -v p="$p" -v r="$r" -v t="$t" -v b="$blocks" \
    'BEGIN{printf "%-22s %9.3f %9.3f %9.3f %12.1f %12.1f %9.2f\n", l, p, r, t, (r-p)/b*1e6, (t-p)/b*1e6, r/t}'
done
echo "(µs per block: time added over plain, divided by the blocks the processes ran, $funcs per process)"
