#!/usr/bin/env bash
# `covkit merge` on .gcda trees against GCC's own `gcov-tool-12 merge`:
# a program built with gcc-12 --coverage runs in two GCOV_PREFIX trees, and
# the merged tree must be byte-identical to gcov-tool's. Also: one input is
# reproduced byte for byte, three inputs add up, a file only one tree has is
# copied as it is, and data of a rebuilt object is refused without writing.
# Usage: run_merge_test.sh COVKIT WORKDIR   (exit 77 = skipped)
set -u
covkit=$1
work=$2

for tool in gcc-12 gcov-tool-12; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
if ! "$covkit" merge --help >/dev/null 2>&1; then
  echo "SKIP: '$covkit merge' is not available (not dispatched in main.cc yet?)"
  exit 77
fi

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

rm -rf "$work"
mkdir -p "$work/src"
work=$(cd "$work" && pwd -P)
cd "$work/src" || exit 1

cat >main.c <<'EOF'
#include <stdlib.h>
int sq(int x);
static int never(int x) { return x + 1; }
int main(int argc, char **argv) {
  int s = 0, n = argc > 1 ? atoi(argv[1]) : 3;
  for (int i = 0; i < n; i++) s += sq(i);
  if (argc > 5) s += never(s);
  return s == 12345;
}
EOF
cat >lib.c <<'EOF'
int sq(int x) {
  if (x % 2) return x * x;
  return x * x + 0;
}
EOF
cat >other.c <<'EOF'
int main(void) { return 0; }
EOF
gcc-12 --coverage -O0 -o prog main.c lib.c || exit 1
gcc-12 --coverage -O0 -o other other.c || exit 1

# GCOV_PREFIX_STRIP removes every component of $work, so each tree holds src/*.gcda.
strip=$(echo "$work" | tr -cd / | wc -c)
run() {  # run TREE PROGRAM ARGS...
  local tree=$1
  shift
  GCOV_PREFIX="$work/$tree" GCOV_PREFIX_STRIP=$strip "$@"
}
run run1 ./prog 3
run run2 ./prog 100 a b c d
run run2 ./prog 7
run run2 ./other
run run3 ./prog 1
cd "$work" || exit 1
[ -f run1/src/prog-main.gcda ] && [ -f run2/src/prog-lib.gcda ] && [ -f run2/src/other.gcda ] ||
  { echo "FAIL: the runs wrote no data where expected"; find "$work" -name '*.gcda'; exit 1; }

# Two trees, against gcov-tool.
"$covkit" merge -o merged run1 run2 || fail "covkit merge run1 run2 exited $?"
gcov-tool-12 merge run1 run2 -o ref || fail "gcov-tool-12 merge failed"
for f in src/prog-main.gcda src/prog-lib.gcda; do
  cmp "merged/$f" "ref/$f" || fail "$f differs from gcov-tool's merge"
done
# gcov-tool doubles the run count of a file only the second tree has (it
# "merges" it with itself at weight 0); covkit copies it as it is.
cmp merged/src/other.gcda run2/src/other.gcda || fail "a file only run2 has was not copied as it is"

# Three trees equal gcov-tool applied twice.
"$covkit" merge -o merged3 run1 run2 run3 || fail "covkit merge of three trees exited $?"
gcov-tool-12 merge ref run3 -o ref3 || fail "gcov-tool-12 merge ref run3 failed"
for f in src/prog-main.gcda src/prog-lib.gcda; do
  cmp "merged3/$f" "ref3/$f" || fail "three-tree $f differs from gcov-tool's"
done

# One tree comes back byte for byte.
"$covkit" merge -o single run2 || fail "covkit merge of one tree exited $?"
diff -r single run2 >/dev/null || fail "merging one tree did not reproduce it"

# A rebuilt object (new stamp) is refused: exit 1, one line naming both
# files, and nothing written (an existing OUT is left as it was).
cd "$work/src" || exit 1
sed -i 's/x \* x + 0/x * x + 1/' lib.c
gcc-12 --coverage -O0 -o prog main.c lib.c || exit 1
run rebuilt ./prog 2
cd "$work" || exit 1
mkdir -p kept/src
echo previous >kept/src/prog-main.gcda
"$covkit" merge -o kept run1 rebuilt 2>err.txt
status=$?
[ "$status" = 1 ] || fail "a stamp mismatch exited $status, not 1"
[ "$(wc -l <err.txt)" = 1 ] || fail "the stamp mismatch message is not one line: $(cat err.txt)"
grep -q "^covkit merge: rebuilt/src/prog-.*\.gcda: cannot be added to run1/src/prog-.*\.gcda: " err.txt ||
  fail "the stamp mismatch message does not name both files: $(cat err.txt)"
[ "$(cat kept/src/prog-main.gcda)" = previous ] || fail "a failed merge changed OUT"
[ "$(find kept -type f | wc -l)" = 1 ] || fail "a failed merge wrote files: $(find kept -type f)"
"$covkit" merge -o fresh run1 rebuilt 2>/dev/null
[ ! -e fresh ] || fail "a failed merge created OUT"

# Mixed inputs are refused.
"$covkit" merge -o x.info run1 run1/src/prog-main.gcda 2>err.txt
[ $? = 1 ] && grep -q "not both" err.txt || fail "mixed inputs: $(cat err.txt)"

if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
