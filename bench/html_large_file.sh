#!/usr/bin/env bash
# html_large_file.sh [COVKIT]
#
# How fast one large source file becomes an HTML page, syntax highlighting
# included: covkit against genhtml (lcov 1.16) and gcovr 5.2 on the same file.
# For each size in BENCH_SIZES (lines; default "4000 40000"), a C++ file made
# by bench/html/make_big_source.py (block comments, raw strings, macros,
# templates; half of its functions run) is built with g++-12 --coverage -O0
# and run once. Then, each BENCH_RUNS times (median, min and max of the wall
# time reported; the output directory is removed before each run, untimed):
#
#   covkit -a     covkit report -a cov.info --html DIR      (from the tracefile)
#   genhtml       genhtml --branch-coverage -o DIR cov.info (same tracefile; no highlighting)
#   covkit        covkit report --html DIR .                 (from .gcno/.gcda)
#   gcovr         gcovr -r . --gcov-executable gcov-12 --html-details DIR/index.html
#                 (runs gcov; highlights with Pygments)
#
# cov.info is covkit's lcov tracefile of the run (genhtml reads it as it reads
# lcov's). Ratios: genhtml / covkit -a (the view alone) and gcovr / covkit
# (the whole report). Also printed: the page's size and how many highlighted
# tokens it holds, and, with two sizes, how covkit's time grows (linear: about
# the ratio of the sizes). Exit 0 (a measurement); 2 on setup errors.
#
# Environment: COVKIT (default <repo>/build/covkit), BENCH_RUNS (5),
# BENCH_SIZES ("4000 40000"), BENCH_SCRATCH (a temporary directory),
# BENCH_CXX (g++-12), BENCH_GCOV (gcov-12). See bench/README.md.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COVKIT=${1:-${COVKIT:-$HERE/../build/covkit}}
COVKIT=$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT")
RUNS=${BENCH_RUNS:-5}
SIZES=${BENCH_SIZES:-4000 40000}
CXX=${BENCH_CXX:-g++-12}
GCOV=${BENCH_GCOV:-gcov-12}
export LC_ALL=C

[ -x "$COVKIT" ] || { echo "$0: covkit binary $COVKIT is not executable" >&2; exit 2; }
for t in "$CXX" "$GCOV" genhtml gcovr python3; do
  command -v "$t" >/dev/null || { echo "$0: $t not found" >&2; exit 2; }
done

SCRATCH=${BENCH_SCRATCH:-$(mktemp -d /tmp/covkit-html-bench-XXXXXX)}
mkdir -p "$SCRATCH"
echo "covkit: $COVKIT ($("$COVKIT" --version 2>/dev/null | head -1))"
echo "genhtml: $(genhtml --version 2>&1 | head -1); gcovr: $(gcovr --version | head -1)"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores; median of $RUNS runs"

# median_time OUTDIR CMD...: runs CMD BENCH_RUNS times in the current
# directory, OUTDIR removed before each run; prints "median min max" seconds.
median_time() {
  local out=$1; shift
  local times=() t0 t1
  for ((r = 0; r < RUNS; r++)); do
    rm -rf "$out"
    t0=$(date +%s%N)
    if ! "$@" >/dev/null 2>"$SCRATCH/last.err"; then
      echo "FAIL"; return 1
    fi
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ a[NR] = $1 } END {
    printf "%.3f %.3f %.3f\n", a[int((NR + 1) / 2)] / 1e6, a[1] / 1e6, a[NR] / 1e6 }'
}

declare -A MEDIAN
printf '\n%-7s %-9s %9s %9s %9s %12s %12s\n' lines tool "median s" "min s" "max s" "page bytes" "highlighted"
printf '%s\n' "-----------------------------------------------------------------------------"
for n in $SIZES; do
  dir=$SCRATCH/n$n
  rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 2
  python3 "$HERE/html/make_big_source.py" big.cc "$n" || exit 2
  "$CXX" -std=c++17 --coverage -O0 -o big big.cc || exit 2
  ./big >/dev/null || exit 2
  "$COVKIT" report . --lcov cov.info || exit 2

  for tool in "covkit -a" genhtml covkit gcovr; do
    case $tool in
      "covkit -a") r=$(median_time out "$COVKIT" report -a cov.info --html out) ;;
      genhtml)     r=$(median_time out genhtml --branch-coverage -q -o out cov.info) ;;
      covkit)      r=$(median_time out "$COVKIT" report --html out .) ;;
      gcovr)       mkdir -p out; r=$(median_time out sh -c "mkdir -p out && exec gcovr -r . --gcov-executable $GCOV --html-details out/index.html") ;;
    esac
    if [ "$r" = FAIL ]; then
      printf '%-7s %-9s FAIL: %s\n' "$n" "$tool" "$(head -c 300 "$SCRATCH/last.err")"
      continue
    fi
    read -r med min max <<<"$r"
    MEDIAN[$n,$tool]=$med
    # The page of big.cc: the largest HTML file the tool wrote.
    page=$(find out -name '*.html' -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
    bytes=$(stat -c %s "$page" 2>/dev/null || echo 0)
    case $tool in
      covkit*) tokens=$(grep -o '<span class="[cspkn]">' "$page" | wc -l) ;;
      gcovr)   tokens=$(grep -o '<span class="[a-z0-9]*">' "$page" | wc -l) ;;
      *)       tokens=0 ;;
    esac
    printf '%-7s %-9s %9s %9s %9s %12s %12s\n' "$n" "$tool" "$med" "$min" "$max" "$bytes" "$tokens"
  done
done

echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }'; }
for n in $SIZES; do
  echo "$n lines: genhtml / covkit -a = $(ratio "${MEDIAN[$n,genhtml]:-0}" "${MEDIAN[$n,covkit -a]:-0}");" \
       "gcovr / covkit = $(ratio "${MEDIAN[$n,gcovr]:-0}" "${MEDIAN[$n,covkit]:-0}")"
done
set -- $SIZES
if [ $# -ge 2 ]; then
  echo "covkit -a from $1 to $2 lines: $(ratio "${MEDIAN[$2,covkit -a]:-0}" "${MEDIAN[$1,covkit -a]:-0}") the time" \
       "for $(ratio "$2" "$1") the lines (process start-up included)"
fi
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -n "${BENCH_SCRATCH:-}" ] || rm -rf "$SCRATCH"
exit 0
