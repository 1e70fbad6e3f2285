#!/usr/bin/env bash
# compare_clang.sh COVKIT TREE
#
# Differential test on real code built with clang --coverage (a tree of
# fetch_and_build.sh PKG WORKDIR clang OPT): for every data file, and every
# notes file without one, `llvm-cov gcov OPTS FILE` and `COVKIT gcov OPTS
# FILE` are run in the file's directory, for each option set below; their
# stdout, stderr, exit status and .gcov files must be identical. llvm-cov
# reads each argument on its own, so one argument per run loses nothing.
#
# Exit status: 0 identical, 1 differences (the first few are shown).
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 COVKIT TREE" >&2; exit 2; }
COVKIT=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TREE=$(cd "$2" && pwd)
command -v llvm-cov >/dev/null || { echo "$0: llvm-cov not found" >&2; exit 2; }
export LC_ALL=C
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/covkit-realcode-clang-XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT

optsets=("" "-b" "-a -b -c -u" "-f -m" "-l -p" "-b -c -f -x" "-r -s $TREE" "-n -f -b" "-i -b -m" "-i -r -t")
runs=0 fails=0
# Runs TOOL... with OPTS on FILE in DIR; stdout, stderr, status and the
# .gcov files it wrote go to OUT.
one() {
  local out=$1 dir=$2 file=$3 opts=$4; shift 4
  mkdir -p "$out"
  # shellcheck disable=SC2086
  (cd "$dir" && "$@" $opts "$file" >"$out/stdout" 2>"$out/stderr"; echo $? >"$out/status")
  find "$dir" -maxdepth 1 -name '*.gcov' -exec mv {} "$out/" \;
}
while IFS= read -r file; do
  dir=$(dirname "$file")
  base=$(basename "$file")
  for opts in "${optsets[@]}"; do
    rm -rf "$SCRATCH/ref" "$SCRATCH/cov"
    one "$SCRATCH/ref" "$dir" "$base" "$opts" llvm-cov gcov
    one "$SCRATCH/cov" "$dir" "$base" "$opts" "$COVKIT" gcov
    runs=$((runs + 1))
    if ! diff -r "$SCRATCH/ref" "$SCRATCH/cov" >"$SCRATCH/diff" 2>&1; then
      fails=$((fails + 1))
      if [ $fails -le 3 ]; then
        echo "DIFF: (cd $dir && gcov $opts $base): llvm-cov gcov vs covkit gcov"
        head -n 30 "$SCRATCH/diff"
      fi
    fi
  done
done < <(find "$TREE" -name '*.gcda' | sort; find "$TREE" -name '*.gcno' | sort |
         while IFS= read -r n; do [ -e "${n%.gcno}.gcda" ] || echo "$n"; done)
echo "realcode clang: $runs runs of llvm-cov gcov and covkit gcov, $fails differ"
[ $fails -eq 0 ] && [ $runs -gt 0 ]
