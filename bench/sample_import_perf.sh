#!/usr/bin/env bash
# bench/sample_import_perf.sh [COVKIT [WORKDIR]]
#
# Reading perf.data: `covkit sample import-perf perf.data` side by side with
# `perf script`, perf's own reading of the same file (what a user ran before
# covkit read perf.data: perf script's text, then covkit's import of it).
# The file: `perf record -e cpu-clock:u -c PERIOD --call-graph fp` around one
# `zstd -19` of the accuracy bench's corpus (bench/sample_zstd_setup.sh),
# ~50,000 samples at the default 40 us. Prints each tool's best of RUNS
# (wall seconds), the file's size and samples, and the ratio.
#
# Environment: OPT (O2), PERIOD (40000 ns of CPU), RUNS (3). Needs perf
# (linux-perf) allowed to sample its children.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
COVKIT=$(readlink -f "${1:-$ROOT/build/covkit}")
WORKDIR=${2:-${COVKIT_REALCODE_CACHE:-$ROOT/build/realcode}}
OPT=${OPT:-O2}
PERIOD=${PERIOD:-40000}
RUNS=${RUNS:-3}
command -v perf >/dev/null || { echo "sample_import_perf: perf not found (apt-get install linux-perf)" >&2; exit 2; }
. "$ROOT/bench/sample_zstd_setup.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
perf record -q -e cpu-clock:u -c "$PERIOD" --call-graph fp -o "$tmp/perf.data" -- \
  "$PLAIN/programs/zstd" -q -f -19 "$CORPUS" -o "$tmp/c.zst"

best() {  # COMMAND...: the best wall time of RUNS, in seconds
  local b=""
  for ((r = 0; r < RUNS; ++r)); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
    b=$(awk -v a="$b" -v x="$t0" -v y="$t1" 'BEGIN { t = y - x; print (a == "" || t < a) ? t : a }')
  done
  echo "$b"
}
perf_text=$(best perf script -i "$tmp/perf.data" -F pid,tid,ip)
perf_flat=$(best perf script -i "$tmp/perf.data" -F pid,tid,ip --hide-call-graph)
covkit=$(best "$COVKIT" sample import-perf "$tmp/perf.data" -o "$tmp/rec")
samples=$("$COVKIT" sample import-perf "$tmp/perf.data" -o "$tmp/rec" 2>&1 | sed -n 's/.* \([0-9]*\) samples.*/\1/p')
size=$(stat -c %s "$tmp/perf.data")
echo "perf.data: $((size / 1024)) KiB, $samples samples with call chains (zstd -$OPT, -19 of the corpus)"
printf 'perf script -F pid,tid,ip                     %6.3f s\n' "$perf_text"
printf 'perf script -F pid,tid,ip --hide-call-graph   %6.3f s\n' "$perf_flat"
printf 'covkit sample import-perf (writes a recording) %6.3f s\n' "$covkit"
awk -v p="$perf_text" -v f="$perf_flat" -v c="$covkit" \
  'BEGIN { printf "perf script / covkit import: %.1fx (with call chains), %.1fx (without)\n", p / c, f / c }'
