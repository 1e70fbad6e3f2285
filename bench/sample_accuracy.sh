#!/usr/bin/env bash
# bench/sample_accuracy.sh [COVKIT [WORKDIR]]
#
# covkit sample on a real program: Debian 12's zstd (libzstd 1.5.4) built
# twice from the same source with gcc-12: `-OPT -g` (what is sampled) and
# `--coverage -OPT -g` (the truth, by tests/realcode/fetch_and_build.sh). One
# workload (compress and decompress a corpus at several levels, then list and
# test) runs: plain (timed), under the truth build (its .gcda are the truth),
# and under `covkit sample record` per mode (timed). Prints, per mode, period
# and number of runs added together, recall and precision against the truth
# (`covkit sample compare`) and the overhead ratio (time under covkit / time
# plain); the CSV goes to WORKDIR/accuracy-OPT.csv for docs/covkit-sample.md.
#
# Environment: OPT (O2 default; O1), RUNS (5), PERIODS (periods of branch
# and pc mode; default "20ms 80ms"), MODES ("breakpoint branch pc"; also
# perf-pc and perf-branch: those modes through perf_event_open), TAG
# (a name for this run: accuracy-OPT-TAG.csv, so runs do not overwrite each other).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
OPT=${OPT:-O2}
RUNS=${RUNS:-5}
PERIODS=${PERIODS:-20ms 80ms}
MODES=${MODES:-breakpoint branch pc}

# 1-3. The truth build, the plain build and the workload (cached in WORKDIR).
. "$ROOT/bench/sample_zstd_setup.sh"
workload() { "$WORKLOAD" "$1" "$CORPUS"; }
cpu_time() {  # COMMAND... -> user+sys seconds of it and its children
  /usr/bin/time -f "%U %S" -o "$WORKDIR/.time" "$@" >/dev/null 2>&1 || true
  awk '{ print $1 + $2 }' "$WORKDIR/.time"
}

# The truth: the workload alone in the coverage build's counters.
find "$TRUTH" -name '*.gcda' -delete
workload "$TRUTH/programs/zstd"

PLAIN_TIME=$(cpu_time "$WORKLOAD" "$PLAIN/programs/zstd" "$CORPUS")
echo "zstd $OPT: workload plain ${PLAIN_TIME}s of CPU"

CSV=$WORKDIR/accuracy-$OPT${TAG:+-$TAG}.csv
echo "mode,period,runs,recall,precision,divergence,hits,misses,false_positives,overhead" >"$CSV"
RECS=$WORKDIR/sample-recordings-$OPT${TAG:+-$TAG}
rm -rf "$RECS" && mkdir -p "$RECS"

# Each workload step is its own process: a recording per step, and the
# run's recordings are added together by `sample compare`.
record_run() {  # MODE PERIOD OUTDIR -> CPU seconds, covkit's included
  local mode=$1 period=$2 out=$3
  mkdir -p "$out"
  local how="--mode $mode"
  # pc and branch: the runtime's (perf-pc, perf-branch: the kernel's)
  case $mode in perf-*) how="--mode ${mode#perf-} --source perf" ;; pc|branch) how="--mode $mode --source runtime" ;; esac
  local wrapper=$out/zstd
  cat >"$wrapper" <<WRAP
#!/usr/bin/env bash
n=\$(ls -d "$out"/rec.* 2>/dev/null | wc -l)
exec "$COVKIT" sample record $how ${period:+--period $period} -o "$out/rec.\$n" -- "$PLAIN/programs/zstd" "\$@"
WRAP
  chmod +x "$wrapper"
  cpu_time "$WORKLOAD" "$wrapper" "$CORPUS"
}

compare() {  # LABEL OVERHEAD DIRS...
  local label=$1 overhead=$2; shift 2
  local line
  line=$("$COVKIT" sample compare "$@" --against "$TRUTH" --path-map "$PLAIN=$TRUTH" -q --csv-summary)
  echo "$label,$line,$overhead" >>"$CSV"
  printf '%-28s %s  overhead %s\n' "$label" "$line" "$overhead"
}

for mode in $MODES; do
  periods=-  # breakpoint mode has no period
  [ "$mode" = breakpoint ] || periods=$PERIODS
  for period in $periods; do
    [ "$period" = - ] && period=""
    runs=$RUNS; [ "$mode" = breakpoint ] && runs=1
    dirs=()
    for r in $(seq 1 "$runs"); do
      out=$RECS/$mode-${period:-once}-$r
      t=$(record_run "$mode" "$period" "$out")
      overhead=$(awk -v a="$t" -v b="$PLAIN_TIME" 'BEGIN { printf "%.3f", a / b }')
      dirs+=("$out"/rec.*)
      compare "$mode,${period:-},$r" "$overhead" "${dirs[@]}"
    done
  done
done
echo "csv: $CSV"
