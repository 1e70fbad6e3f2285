#!/usr/bin/env bash
# clang_report_vs_llvm_cov.sh [TREE]
#
# clang's source-based coverage, from the .profraw files a test run left to
# an HTML report, timed side by side (issue 37 item 6):
#   covkit   covkit report --html DIR TREE            (profiles and binaries found in the tree)
#   lcov     llvm-profdata merge  +  llvm-cov export -format=lcov  +  genhtml --branch-coverage
#   show     llvm-profdata merge  +  llvm-cov show -format=html -output-dir DIR
# on Debian 12's zstd 1.5.4 built with clang-16 -fprofile-instr-generate
# -fcoverage-mapping -O0 by tests/realcode/fetch_and_build.sh (17 instrumented
# programs sharing the library's sources, 67 profiles from its tests). Each
# pipeline runs BENCH_RUNS times; the median wall time, the peak RSS and the
# ratios are printed, with the target (covkit at least 5x faster than either)
# as PASS or MISS. Exit 0 either way (a measurement); 2 on setup errors.
#
# TREE: default $COVKIT_REALCODE_CACHE/zstd-gccclang16-source-O0 (built when
# missing; cache default <dir of covkit>/realcode).
#
# Environment:
#   COVKIT=path        covkit binary (default <repo>/build/covkit)
#   BENCH_RUNS=3       runs per pipeline
#   BENCH_LLVM=16      llvm-profdata-N, llvm-cov-N
#   BENCH_TIMEOUT=1200 seconds per command
#   BENCH_SCRATCH=DIR  where the outputs go (default /dev/shm when it is a
#                      directory, else $TMPDIR or /tmp). On tmpfs by default:
#                      on a journal-less ext4 every new file covkit writes
#                      right after llvm-cov show's thousands were deleted
#                      waited on the deleted inodes, and covkit's time was
#                      bimodal. Both tools write to the same scratch.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RC=$HERE/../tests/realcode
[ $# -le 1 ] || { echo "usage: $0 [TREE]" >&2; exit 2; }
COVKIT=${COVKIT:-$HERE/../build/covkit}
case "$COVKIT" in */*) COVKIT=$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT") ;; *) COVKIT=$(command -v "$COVKIT") ;; esac
[ -x "$COVKIT" ] || { echo "$0: covkit binary $COVKIT is not executable (set COVKIT)" >&2; exit 2; }
RUNS=${BENCH_RUNS:-3}
V=${BENCH_LLVM:-16}
TMO=${BENCH_TIMEOUT:-1200}
PROFDATA=llvm-profdata-$V
COV=llvm-cov-$V
export LC_ALL=C
for t in "$PROFDATA" "$COV" genhtml readelf timeout; do
  command -v "$t" >/dev/null || { echo "$0: $t not found" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (package 'time') is required" >&2; exit 2; }

if [ $# -eq 1 ]; then
  TREE=$1
else
  CACHE=${COVKIT_REALCODE_CACHE:-$(dirname "$COVKIT")/realcode}
  TREE=$CACHE/zstd-gccclang$V-source-O0
  if [ ! -f "$TREE/.covkit-realcode-tree" ]; then
    echo "building $TREE with fetch_and_build.sh ..." >&2
    "$RC/fetch_and_build.sh" zstd "$CACHE" "clang$V-source" O0 >&2 || { echo "$0: fetch_and_build.sh failed" >&2; exit 2; }
  fi
fi
[ -d "$TREE/prof" ] || { echo "$0: $TREE has no prof/ directory of .profraw files" >&2; exit 2; }
TREE=$(cd "$TREE" && pwd -P)

# The binaries llvm-cov is given: what covkit finds (executables and shared
# libraries with a coverage mapping), in the same order.
mapfile -t BINS < <(python3 - "$TREE" "$HERE/../tests/clang_cov" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
import run_clang_realcode as r
print("\n".join(r.instrumented_binaries(sys.argv[1])))
PY
)
[ ${#BINS[@]} -gt 0 ] || { echo "$0: no instrumented binary in $TREE" >&2; exit 2; }
OBJS=("${BINS[0]}")
for b in "${BINS[@]:1}"; do OBJS+=(-object "$b"); done
PROFILES=("$TREE"/prof/*.profraw)

if [ -n "${BENCH_SCRATCH:-}" ]; then
  SCRATCH_IN=$BENCH_SCRATCH
elif [ -d /dev/shm ] && [ -w /dev/shm ]; then
  SCRATCH_IN=/dev/shm
else
  SCRATCH_IN=${TMPDIR:-/tmp}
fi
SCRATCH=$(mktemp -d "$SCRATCH_IN/clang-report-bench.XXXXXX") || { echo "$0: cannot make a directory in $SCRATCH_IN" >&2; exit 2; }
trap 'rm -rf "$SCRATCH"' EXIT
OUT=$SCRATCH/out
LOGS=$SCRATCH/logs
mkdir -p "$LOGS"

timed() {  # timed NAME CMD...: appends "seconds peak_rss_kb status cpu_seconds" to LOGS/NAME.times
  local name=$1; shift
  local t0 t1 rc rss cpu
  t0=$(date +%s%N)
  (cd "$TREE" && timeout "$TMO" /usr/bin/time -f '%e %M %U %S' -o "$LOGS/$name.time" "$@" >"$LOGS/$name.out" 2>"$LOGS/$name.err")
  rc=$?
  t1=$(date +%s%N)
  rss=$(awk 'END {print $2}' "$LOGS/$name.time" 2>/dev/null)
  cpu=$(awk 'END {print $3 + $4}' "$LOGS/$name.time" 2>/dev/null)
  echo "$(( (t1 - t0) / 1000000 )) ${rss:-0} $rc ${cpu:-0}" |
    awk '{printf "%.3f %s %s %.2f\n", $1/1000, $2, $3, $4}' >>"$LOGS/$name.times"
  [ $rc -eq 0 ] || { echo "  !! $name exited with $rc:" >&2; tail -3 "$LOGS/$name.err" | sed 's/^/     /' >&2; }
  return $rc
}
median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print "nan"; else if (NR%2) print a[(NR+1)/2]; else printf "%.3f\n", (a[NR/2]+a[NR/2+1])/2}'; }

echo "covkit report vs llvm-profdata/llvm-cov $V (+ genhtml $(genhtml --version | awk '{print $NF}'))"
echo "tree: $TREE: ${#BINS[@]} instrumented binaries, ${#PROFILES[@]} .profraw files"
echo "scratch (every pipeline's outputs): $SCRATCH_IN ($(stat -f -c %T "$SCRATCH_IN" 2>/dev/null || echo '?'))"
echo "runs: $RUNS (median wall and CPU time, peak RSS of the pipeline's largest step)   cores: $(nproc)   load average: $(cut -d' ' -f1-3 /proc/loadavg)"

for ((r = 1; r <= RUNS; r++)); do
  echo "  run $r/$RUNS ..." >&2
  rm -rf "$OUT"; mkdir -p "$OUT"
  timed covkit "$COVKIT" report -q --html "$OUT/covkit-html" "$TREE"
  rm -rf "$OUT"; mkdir -p "$OUT"
  timed merge_a "$PROFDATA" merge -o "$OUT/a.profdata" "${PROFILES[@]}" &&
    timed export "$COV" export -format=lcov -instr-profile "$OUT/a.profdata" "${OBJS[@]}" &&
    cp "$LOGS/export.out" "$OUT/llvm.info" &&
    timed genhtml genhtml --branch-coverage -q -o "$OUT/genhtml" "$OUT/llvm.info"
  rm -rf "$OUT"; mkdir -p "$OUT"
  timed merge_b "$PROFDATA" merge -o "$OUT/b.profdata" "${PROFILES[@]}" &&
    timed show "$COV" show -format=html -output-dir "$OUT/show" -instr-profile "$OUT/b.profdata" "${OBJS[@]}"
done

col() { awk -v c="$2" '$3==0 {print $c}' "$LOGS/$1.times"; }
sum_median() {  # the median over runs of the summed steps
  paste -d' ' "$@" | awk '{s=0; for (i=1;i<=NF;i++) s+=$i; print s}' | median
}
ck=$(col covkit 1 | median)
lc=$(sum_median <(col merge_a 1) <(col export 1) <(col genhtml 1))
sh=$(sum_median <(col merge_b 1) <(col show 1))
ck_c=$(col covkit 4 | median)
lc_c=$(sum_median <(col merge_a 4) <(col export 4) <(col genhtml 4))
sh_c=$(sum_median <(col merge_b 4) <(col show 4))
mem() { cat "$@" | sort -n | tail -1; }
ck_m=$(col covkit 2 | sort -n | tail -1)
lc_m=$(mem <(col merge_a 2) <(col export 2) <(col genhtml 2))
sh_m=$(mem <(col merge_b 2) <(col show 2))
echo
printf '%-58s %9s %8s %10s\n' "pipeline" "wall (s)" "CPU (s)" "RSS (MB)"
printf '%-58s %9s %8s %10.0f\n' "covkit report --html (from .profraw)" "$ck" "$ck_c" "$(echo "$ck_m/1024" | bc -l)"
printf '%-58s %9s %8s %10.0f\n' "llvm-profdata merge + llvm-cov export -format=lcov + genhtml" "$lc" "$lc_c" \
  "$(echo "$lc_m/1024" | bc -l)"
printf '%-58s %9s %8s %10.0f\n' "llvm-profdata merge + llvm-cov show -format=html" "$sh" "$sh_c" \
  "$(echo "$sh_m/1024" | bc -l)"
echo
# The target is on wall time; CPU time (user + sys, every thread) is the
# steadier number on a loaded machine, and covkit's wall time gains from its
# threads where the llvm-cov tools run on one.
for pair in "lcov:$lc:$lc_c" "show:$sh:$sh_c"; do
  IFS=: read -r name t c <<<"$pair"
  ratio=$(echo "$t / $ck" | bc -l 2>/dev/null)
  cpu_ratio=$(echo "$c / $ck_c" | bc -l 2>/dev/null)
  verdict=MISS; [ "$(echo "$ratio >= 5" | bc -l 2>/dev/null)" = 1 ] && verdict=PASS
  printf 'covkit vs %-5s %6.1fx faster in wall time (target >= 5x): %s   (%.1fx in CPU time)\n' "$name" "$ratio" \
    "$verdict" "$cpu_ratio"
done
exit 0
