#!/usr/bin/env bash
# bench/sample_workload_overhead.sh [COVKIT [WORKDIR]]
#
# What `covkit sample record` costs a real workload, measured so that the
# noise of a shared VM does not drown it: the accuracy bench's zstd workload
# (14 zstd processes under one shell script, bench/sample_zstd_setup.sh) run
# plain and inside one recording per mode, alternating, ROUNDS times, each
# run under `perf record -e cpu-clock` (inherited by every process). perf
# splits each run's CPU time into the program's own code (zstd's text, which
# does the same work in both runs) and everything else: the kernel, libc,
# the loader, covkit and its runtime, the traps. On this VM the program's own
# code varies by ±20% from run to run (1.4 to 1.9 s for the same work), more
# than any mode costs, so the ratio of whole CPU times says little; the time
# added outside the program's code, over the plain run's CPU time, is what
# each mode costs. Both are printed.
#
# Environment: OPT (O2 default), ROUNDS (5), MODES ("breakpoint branch pc":
# branch and pc through the preloaded runtime; also perf-pc: pc mode through
# perf_event_open, the default where it is permitted), PERIOD (empty: each mode's
# default). Needs perf (Debian's linux-perf) allowed to sample its children
# (kernel.perf_event_paranoid <= 2).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
OPT=${OPT:-O2}
ROUNDS=${ROUNDS:-5}
MODES=${MODES:-breakpoint branch pc}
PERIOD=${PERIOD:-}
command -v perf >/dev/null || { echo "sample_workload_overhead: perf not found (apt-get install linux-perf)" >&2; exit 2; }
. "$ROOT/bench/sample_zstd_setup.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PROGRAM=$(basename "$PLAIN/programs/zstd")
SAMPLE_NS=100000  # one cpu-clock sample per 100 us of CPU

# profile NAME COMMAND...: runs COMMAND under perf; appends "total program"
# (seconds of CPU, all of it and the program's own code) to $tmp/NAME.
profile() {
  local name=$1; shift
  perf record -q -e cpu-clock -c "$SAMPLE_NS" -o "$tmp/perf.data" -- "$@" >/dev/null 2>"$tmp/err" ||
    { echo "sample_workload_overhead: perf record failed: $(head -n1 "$tmp/err")" >&2; exit 2; }
  perf report -i "$tmp/perf.data" --sort comm,dso --stdio -F sample,comm,dso 2>/dev/null |
    awk -v p="$PROGRAM" -v ns="$SAMPLE_NS" '
      /^ *[0-9]+ / { all += $1; if ($2 == p && $3 == p) own += $1 }
      END { printf "%.4f %.4f\n", all * ns / 1e9, own * ns / 1e9 }' >>"$tmp/$name"
}

# The workload inside one recording per mode, as a script perf can run.
for mode in $MODES; do
  how="--mode $mode"
  # pc and branch: the runtime's (perf-pc: the kernel's cpu-clock)
  case $mode in perf-*) how="--mode ${mode#perf-} --source perf" ;; pc|branch) how="--mode $mode --source runtime" ;; esac
  cat >"$tmp/record-$mode" <<SH
#!/usr/bin/env bash
rm -rf "$tmp/rec"
exec "$COVKIT" sample record $how ${PERIOD:+--period $PERIOD} -o "$tmp/rec" -- "$WORKLOAD" "$PLAIN/programs/zstd" "$CORPUS"
SH
  chmod +x "$tmp/record-$mode"
done

# A first recording per mode fills covkit's cache of sites per build-id,
# as every recording after a user's first finds it.
for mode in $MODES; do profile warmup "$tmp/record-$mode"; done
for ((r = 1; r <= ROUNDS; ++r)); do
  profile plain "$WORKLOAD" "$PLAIN/programs/zstd" "$CORPUS"
  for mode in $MODES; do profile "$mode" "$tmp/record-$mode"; done
done

median() {  # FILE COLUMN: the median of a column (3: the first minus the second)
  awk -v c="$2" '{ print (c == 3) ? $1 - $2 : $c }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
describe() {  # NAME
  printf 'CPU %.2f s (its code %.2f s, the rest %.3f s)' "$(median "$tmp/$1" 1)" "$(median "$tmp/$1" 2)" "$(median "$tmp/$1" 3)"
}
echo "each round, CPU seconds in all / in the program's code:"
for name in plain $MODES; do
  printf '  %-10s %s\n' "$name" "$(awk '{ printf "%.2f/%.2f ", $1, $2 }' "$tmp/$name")"
done
plain_all=$(median "$tmp/plain" 1)
plain_rest=$(median "$tmp/plain" 3)
echo "zstd -$OPT workload, $ROUNDS rounds, medians; plain: $(describe plain)"
for mode in $MODES; do
  all=$(median "$tmp/$mode" 1)
  rest=$(median "$tmp/$mode" 3)
  awk -v m="$mode" -v d="$(describe "$mode")" -v a="$all" -v r="$rest" -v pa="$plain_all" -v pr="$plain_rest" 'BEGIN {
    printf "%-11s %s\n            whole CPU %.3fx plain; added outside the program'"'"'s code %+.3f s = %.3fx\n",
      m, d, a / pa, r - pr, 1 + (r - pr) / pa }'
done
