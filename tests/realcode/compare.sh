#!/usr/bin/env bash
# compare.sh COVKIT GCCVER WORKDIR
#
# Differential test: for every tree built by fetch_and_build.sh for gcc-GCCVER
# under WORKDIR (or WORKDIR itself if it is such a tree), and for every object
# directory with .gcno files in it, runs
#     gcov-GCCVER <opts> <all objects of that directory>
#     COVKIT gcov <opts> <all objects of that directory>
# from the directory the compiler ran in (read from the .gcno), each tool in
# its own fresh copy of the tree, for several option sets (see MODES in
# realcode.py: '', '-b -c', '-a -b -u', '-j -b', '-l -p -b', gcov once per
# object, the lcov 1.16 and gcovr 5.2 invocations, ...), and checks that all
# .gcov files, stdout, stderr and exit status are byte-identical and that the
# .gcov.json.gz files are equal after gunzip + JSON parse.
# COVKIT is also run with --threads 2 in the multi-object modes.
#
# Exit status 0: identical; 1: any difference (a diff naming the file is
# printed, outputs are kept in the scratch directory); 2: usage / setup error.
#
# Environment:
#   COVKIT_REALCODE_MODES          comma list of modes (default: all)
#   COVKIT_REALCODE_THREADS        --threads values to try besides the default
#                                  (default "2"; "" disables)
#   COVKIT_REALCODE_IGNORE_STDERR  1: report stderr differences but do not fail
#   COVKIT_REALCODE_STRICT_JSON    1: decompressed JSON must be byte-identical too
#   COVKIT_REALCODE_SCRATCH        scratch dir (default: a new /dev/shm/covkit-realcode.XXXXXX
#                                  if /dev/shm has > 3 GB free, else WORKDIR/compare.XXXXXX;
#                                  on failure the outputs are then copied to
#                                  WORKDIR/compare-failed/out)
#   COVKIT_REALCODE_KEEP           1: keep the scratch dir even on success
#   COVKIT_REALCODE_GCOV           reference gcov (default gcov-GCCVER)
set -euo pipefail

if [ $# -ne 3 ]; then
  echo "usage: $0 COVKIT GCCVER WORKDIR" >&2
  exit 2
fi
COVKIT=$1
GCCVER=$2
WORKDIR=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3

GCOV=${COVKIT_REALCODE_GCOV:-gcov-$GCCVER}
DUMP=${COVKIT_REALCODE_GCOV_DUMP:-gcov-dump-$GCCVER}
command -v "$GCOV" >/dev/null || { echo "$0: $GCOV not found" >&2; exit 2; }
command -v "$DUMP" >/dev/null || { echo "$0: $DUMP not found" >&2; exit 2; }
case "$COVKIT" in
  */*) [ -x "$COVKIT" ] || { echo "$0: $COVKIT is not executable" >&2; exit 2; }
       COVKIT=$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT") ;;
  *)   command -v "$COVKIT" >/dev/null || { echo "$0: $COVKIT not found" >&2; exit 2; } ;;
esac
[ -d "$WORKDIR" ] || { echo "$0: no such directory $WORKDIR" >&2; exit 2; }
WORKDIR=$(cd "$WORKDIR" && pwd -P)

parent=$WORKDIR
[ -f "$WORKDIR/.covkit-realcode-tree" ] && parent=$(dirname "$WORKDIR")
KEEP_ON_FAIL=
if [ -n "${COVKIT_REALCODE_SCRATCH:-}" ]; then
  SCRATCH=$COVKIT_REALCODE_SCRATCH
  mkdir -p "$SCRATCH"
elif [ -d /dev/shm ] && [ -w /dev/shm ] \
     && [ "$(df -Pk /dev/shm 2>/dev/null | awk 'NR==2 {print $4}')" -gt 3000000 ] 2>/dev/null; then
  # tmpfs: creating and deleting the ~20000 small output files is several
  # times faster than on the VM's disk. Outputs are moved to disk on failure.
  SCRATCH=$(mktemp -d /dev/shm/covkit-realcode.XXXXXX)
  KEEP_ON_FAIL=$parent/compare-failed
else
  # A fresh scratch directory per run so that concurrent runs sharing the
  # package cache do not collide. Not inside a tree (trees are scanned for .gcno).
  SCRATCH=$(mktemp -d "$parent/compare.XXXXXX")
fi

args=(compare --reference "$GCOV" --candidate "$(printf '%q gcov' "$COVKIT")"
      --gcov-dump "$DUMP" --gccver "$GCCVER" --scratch "$SCRATCH"
      --threads "${COVKIT_REALCODE_THREADS-2}" --modes "${COVKIT_REALCODE_MODES:-}")
[ "${COVKIT_REALCODE_IGNORE_STDERR:-0}" = 1 ] && args+=(--ignore-stderr)
[ "${COVKIT_REALCODE_STRICT_JSON:-0}" = 1 ] && args+=(--strict-json)
[ "${COVKIT_REALCODE_KEEP:-0}" = 1 ] && args+=(--keep)
export LC_ALL=C
if [ -z "$KEEP_ON_FAIL" ]; then
  exec "$PY" "$HERE/realcode.py" "${args[@]}" "$WORKDIR"
fi
rc=0
"$PY" "$HERE/realcode.py" "${args[@]}" "$WORKDIR" || rc=$?
if [ -d "$SCRATCH" ]; then
  if [ $rc -ne 0 ] && [ -d "$SCRATCH/out" ]; then
    rm -rf "$KEEP_ON_FAIL" && mkdir -p "$KEEP_ON_FAIL" && cp -a "$SCRATCH/out" "$KEEP_ON_FAIL/" \
      && echo "outputs moved to $KEEP_ON_FAIL/out (the paths above under $SCRATCH/out)"
  fi
  [ "${COVKIT_REALCODE_KEEP:-0}" = 1 ] && [ $rc -eq 0 ] || rm -rf "$SCRATCH"
fi
exit $rc
