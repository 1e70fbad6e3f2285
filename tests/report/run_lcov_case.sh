#!/usr/bin/env bash
# Differential test of `covkit report --lcov` against lcov 1.16's own capture:
# build one corpus case with gcc-GCCVER --coverage, run it, then
#
#   covkit report -q --keep-system-headers --lcov ours.info .
#   lcov -c -i -d . --rc lcov_branch_coverage=1 --gcov-tool gcov-N -o base.info
#   lcov -c    -d . --rc lcov_branch_coverage=1 --gcov-tool gcov-N -o run.info
#   lcov -a base.info -a run.info --rc lcov_branch_coverage=1 -o total.info
#   lcov_compare.py ours.info total.info --strict
#
# (with no .gcda at all `lcov -c` fails: then total.info = base.info).
# The Cobertura output is also validated against cobertura-coverage-04.dtd
# with xmllint (the DTD is looked up in $COVKIT_COBERTURA_DTD, else
# tests/data/).
#
# usage: run_lcov_case.sh COVKIT GCCVER CASE_DIR
#
# exit status: 0 = same, 1 = difference (or broken case), 77 = skipped
# (gcc-N/g++-N/gcov-N, lcov or xmllint missing, or REQUIRES_GCC not met).
#
# Environment knobs (optional):
#   LCOV_KEEP=1      keep the temporary directory (path is printed)
#   LCOV_TMPDIR      where the temporary directory is created (default:
#                    /dev/shm when writable, else $TMPDIR, else /tmp)
#   LCOV_NO_COBERTURA=1  skip the Cobertura validation
#
# The build-and-run part is a copy of tests/differential/run_case.sh (same
# case.sh variables: SOURCES NOLINK LANG_KIND CFLAGS_EXTRA CXXFLAGS_EXTRA
# LDFLAGS_EXTRA REQUIRES_GCC OBJ_STYLE RUNS).
set -euo pipefail

if [[ $# -ne 3 ]]; then
    echo "usage: $0 COVKIT GCCVER CASE_DIR" >&2
    exit 2
fi

COVKIT=$1
GCCVER=$2
CASE_DIR=$(cd "$3" && pwd)
CASE=$(basename "$CASE_DIR")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

case "$COVKIT" in
    /*) ;;
    */*) COVKIT="$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT")" ;;
esac

say() { printf '[lcov %s gcc%s] %s\n' "$CASE" "$GCCVER" "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

export LC_ALL=C
export LANG=C
unset LANGUAGE GCOV_PREFIX GCOV_PREFIX_STRIP GCOV_ERROR_FILE GCC_COLORS \
      GCC_EXEC_PREFIX COMPILER_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH \
      CPLUS_INCLUDE_PATH SOURCE_DATE_EPOCH 2>/dev/null || true

if [[ $GCCVER == clang ]]; then
    # clang's --coverage files: lcov runs llvm-cov gcov on them.
    CC=clang
    CXX=clang++
    GCOV=$HERE/../differential/llvm_cov_gcov.sh
else
    CC=gcc-$GCCVER
    CXX=g++-$GCCVER
    GCOV=gcov-$GCCVER
fi
for tool in "$CC" "$CXX" "$GCOV" lcov; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "SKIP: $tool not installed"
        exit 77
    fi
done
[[ -x $COVKIT ]] || die "covkit executable '$COVKIT' not found"
[[ -f $CASE_DIR/case.sh ]] || die "$CASE_DIR/case.sh missing"

# ---------------------------------------------------------------- case.sh ---
# shellcheck disable=SC1091
source "$HERE/../differential/case_build.sh"
load_case

# --------------------------------------------------------------- tmp dir ---
if [[ -n ${LCOV_TMPDIR:-} ]]; then
    tmpbase=$LCOV_TMPDIR
elif [[ -d /dev/shm && -w /dev/shm ]]; then
    tmpbase=/dev/shm
else
    tmpbase=${TMPDIR:-/tmp}
fi
T=$(mktemp -d "$tmpbase/covkit-lcov.$CASE.gcc$GCCVER.XXXXXX")
# shellcheck disable=SC2317  # invoked via trap
cleanup() {
    if [[ ${LCOV_KEEP:-0} == 1 ]]; then
        say "kept temporary directory $T"
    else
        rm -rf "$T"
    fi
}
trap cleanup EXIT

B=$T/b          # build tree: sources + build/ (objects, gcno, gcda) + prog
O=$T/out        # outputs of covkit and lcov (outside the scanned tree)
mkdir -p "$B" "$O"
(cd "$CASE_DIR" && tar cf - --exclude=./case.sh .) | (cd "$B" && tar xf -)

# ----------------------------------------------------------------- build ---
LINK_OBJS=()
for s in $SOURCES; do
    compile_one "$s"
    LINK_OBJS+=("$(objname "$s")")
done
for s in $NOLINK; do
    compile_one "$s"
done

# shellcheck disable=SC2086
if ! (cd "$B" && "$LINKER" --coverage "${LINK_OBJS[@]}" -o prog $LDFLAGS_EXTRA) >"$T/link.log" 2>&1; then
    cat "$T/link.log" >&2
    die "link failed"
fi

# ------------------------------------------------------------------- run ---
if [[ -n $RUNS ]]; then
    if ! (cd "$B" && timeout 60 bash -e -o pipefail -c "$RUNS") >"$T/run.log" 2>&1 </dev/null; then
        tail -n 20 "$T/run.log" >&2
        die "RUNS failed: $RUNS"
    fi
fi

# ------------------------------------------------------- lcov comparison ---
rc=0
bash "$HERE/lcov_tree_compare.sh" "$COVKIT" "$GCOV" "$B" "$O" "$CASE gcc$GCCVER" || rc=$?
if [[ $rc -ne 0 && ${LCOV_KEEP:-0} != 1 ]]; then
    say "rerun with LCOV_KEEP=1 to keep the tree: LCOV_KEEP=1 bash $0 $COVKIT $GCCVER $CASE_DIR"
fi
exit "$rc"
