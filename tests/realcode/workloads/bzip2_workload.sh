#!/bin/sh
# A workload for bzip2 1.0.8 (the sampled real-code tests): compress and
# decompress the source tree's text at several block sizes, test, keep,
# force, small-memory decompression, stdin/stdout, a corrupt file.
#   bzip2_workload.sh BZIP2 SRCDIR
set -u
z=$1 src=$2
d=$(mktemp -d)
cat "$src"/*.c "$src"/*.h > "$d/corpus"
cp "$src"/sample1.ref "$d/s1"
for level in 1 5 9; do
  "$z" -k -f -$level "$d/corpus" && "$z" -d -f -c "$d/corpus.bz2" | cmp -s - "$d/corpus" || echo "level $level FAILED"
done
"$z" -t "$d/corpus.bz2" || echo "test FAILED"
"$z" -d -s -c "$d/corpus.bz2" > "$d/small" && cmp -s "$d/small" "$d/corpus" || echo "small FAILED"
"$z" -c < "$d/s1" | "$z" -d | cmp -s - "$d/s1" || echo "stdin FAILED"
"$z" -v -f -1 "$d/s1" 2>/dev/null; "$z" -d -f "$d/s1.bz2"
head -c 2000 "$d/corpus.bz2" > "$d/cut.bz2"
"$z" -t "$d/cut.bz2" 2>/dev/null && echo "a cut file tested fine?"
"$z" -d -c "$src"/sample2.bz2 | cmp -s - "$src"/sample2.ref || echo "sample2 FAILED"
"$z" -L >/dev/null 2>&1; "$z" --help >/dev/null 2>&1
rm -rf "$d"
