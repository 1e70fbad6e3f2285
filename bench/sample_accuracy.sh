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
# Environment: OPT (O2 default; O1), RUNS (5), PERIODS (branch mode periods;
# default "10ms 20ms 50ms"), MODES ("breakpoint branch pc").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
OPT=${OPT:-O2}
RUNS=${RUNS:-5}
PERIODS=${PERIODS:-10ms 20ms 50ms}
MODES=${MODES:-breakpoint branch pc}
mkdir -p "$WORKDIR"
WORKDIR=$(cd "$WORKDIR" && pwd -P)

# 1. The truth build (and the source, cached).
"$ROOT/tests/realcode/fetch_and_build.sh" zstd "$WORKDIR" 12 "$OPT" >/dev/null
TRUTH=$WORKDIR/zstd-gcc12-$OPT
SRCDIR=$(find "$WORKDIR/src/libzstd" -mindepth 1 -maxdepth 1 -type d | head -n1)

# 2. The plain build: the same source and flags, without --coverage.
PLAIN=$WORKDIR/zstd-plain-gcc12-$OPT
if [ ! -x "$PLAIN/programs/zstd" ]; then
  rm -rf "$PLAIN" && cp -a "$SRCDIR" "$PLAIN"
  (cd "$PLAIN" && CC=gcc-12 CFLAGS="-$OPT -g" make -s -j"$(nproc)" -C programs zstd >/dev/null)
fi

# 3. The workload, the same for every run.
CORPUS=$WORKDIR/sample-corpus
[ -s "$CORPUS" ] || cat "$SRCDIR"/lib/*/*.c "$SRCDIR"/lib/*/*.h >"$CORPUS"
workload() {  # ZSTD
  local z=$1 d
  d=$(mktemp -d)
  for l in 1 3 9 19; do "$z" -q -f -$l "$CORPUS" -o "$d/c.zst" && "$z" -q -d -f "$d/c.zst" -o "$d/out"; done
  "$z" -q -f -T2 --long=24 -6 "$CORPUS" -o "$d/mt.zst" && "$z" -q -t --long=24 "$d/mt.zst"
  "$z" -q -l "$d/mt.zst" >/dev/null
  rm -rf "$d"
}
now() { date +%s.%N; }

# The truth: the workload alone in the coverage build's counters.
find "$TRUTH" -name '*.gcda' -delete
workload "$TRUTH/programs/zstd"

t0=$(now); workload "$PLAIN/programs/zstd"; t1=$(now)
PLAIN_TIME=$(echo "$t1 - $t0" | bc -l)
echo "zstd $OPT: workload plain ${PLAIN_TIME}s"

CSV=$WORKDIR/accuracy-$OPT.csv
echo "mode,period,runs,recall,precision,divergence,overhead" >"$CSV"
RECS=$WORKDIR/sample-recordings-$OPT
rm -rf "$RECS" && mkdir -p "$RECS"

# Each workload step is its own process: a recording per step, and the
# run's recordings are added together by `sample compare`.
record_run() {  # MODE PERIOD OUTDIR -> seconds
  local mode=$1 period=$2 out=$3 step=0 t0 t1
  mkdir -p "$out"
  t0=$(now)
  COVKIT_SAMPLE_WRAP="$COVKIT sample record --mode $mode ${period:+--period $period}" \
    workload_wrapped "$out"
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}
workload_wrapped() {  # OUTDIR: the workload with every zstd run recorded
  local out=$1 n=0
  local wrapper=$out/zstd
  cat >"$wrapper" <<WRAP
#!/usr/bin/env bash
n=\$(ls -d "$out"/rec.* 2>/dev/null | wc -l)
exec $COVKIT_SAMPLE_WRAP -o "$out/rec.\$n.\$\$" -- "$PLAIN/programs/zstd" "\$@"
WRAP
  chmod +x "$wrapper"
  workload "$wrapper" 2>/dev/null
}

compare() {  # LABEL OVERHEAD DIRS...
  local label=$1 overhead=$2; shift 2
  local line
  line=$("$COVKIT" sample compare "$@" --against "$TRUTH" --csv-summary)
  echo "$label,$line,$overhead" >>"$CSV"
  printf '%-28s %s  overhead %.3f\n' "$label" "$line" "$overhead"
}

for mode in $MODES; do
  periods=""
  [ "$mode" = breakpoint ] || periods=$PERIODS
  for period in ${periods:-""}; do
    runs=$RUNS; [ "$mode" = breakpoint ] && runs=1
    dirs=()
    for r in $(seq 1 "$runs"); do
      out=$RECS/$mode-${period:-once}-$r
      t=$(record_run "$mode" "$period" "$out")
      overhead=$(echo "$t / $PLAIN_TIME" | bc -l)
      dirs+=("$out"/rec.*)
      compare "$mode,${period:-},$r" "$overhead" "${dirs[@]}"
    done
  done
done
echo "csv: $CSV"
