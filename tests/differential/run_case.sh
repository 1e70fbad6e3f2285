#!/usr/bin/env bash
# Differential test: build one corpus case with gcc-GCCVER --coverage, run it,
# then compare `gcov-GCCVER OPTS FILES` against `COVKIT gcov OPTS FILES` for
# every option set in optsets.txt. GCCVER "clang": built with clang, against
# `llvm-cov gcov`, with optsets_clang.txt.
#
# usage: run_case.sh COVKIT GCCVER CASE_DIR
#
# exit status: 0 = all option sets identical, 1 = difference (or broken case),
#              77 = skipped (compiler missing or REQUIRES_GCC not met).
#
# Environment knobs (all optional):
#   DIFF_KEEP=1         keep the temporary directory (path is printed)
#   DIFF_ONLY=a,b,...   only run these option-set names (see optsets.txt)
#   DIFF_ONLY_GCC<N>=a,b,...  the same for gcc-N's runs only (wins over DIFF_ONLY)
#   DIFF_OPTSETS=FILE   use another option-set table
#   DIFF_MAX_FAILS=N    stop reporting after N failing comparisons (default 3)
#   DIFF_CONTINUE=1     keep going after the first failing option set
#   DIFF_TMPDIR         where the temporary directory is created (default:
#                       /dev/shm when writable -- the harness copies the
#                       build tree ~100 times, tmpfs is much faster than
#                       disk -- else $TMPDIR, else /tmp)
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

say() { printf '[diff %s gcc%s] %s\n' "$CASE" "$GCCVER" "$*" >&2; }
die() { say "ERROR: $*"; exit 1; }

# Fixed, reproducible environment for the compiler, the program and both gcovs.
export LC_ALL=C
export LANG=C
unset LANGUAGE GCOV_PREFIX GCOV_PREFIX_STRIP GCOV_ERROR_FILE GCC_COLORS \
      GCC_EXEC_PREFIX COMPILER_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH \
      CPLUS_INCLUDE_PATH SOURCE_DATE_EPOCH 2>/dev/null || true

if [[ $GCCVER == clang ]]; then
    # clang's --coverage notes, against the gcov that reads them.
    CC=clang
    CXX=clang++
    GCOV=$HERE/llvm_cov_gcov.sh
    DIFF_OPTSETS=${DIFF_OPTSETS:-$HERE/optsets_clang.txt}
else
    CC=gcc-$GCCVER
    CXX=g++-$GCCVER
    GCOV=gcov-$GCCVER
fi
tools=("$CC" "$CXX" "$GCOV")
[[ $GCCVER == clang ]] && tools+=(llvm-cov)
for tool in "${tools[@]}"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        say "SKIP: $tool not installed"
        exit 77
    fi
done
[[ -x $COVKIT ]] || die "covkit executable '$COVKIT' not found"
[[ -f $CASE_DIR/case.sh ]] || die "$CASE_DIR/case.sh missing"

# ---------------------------------------------------------------- case.sh ---
# shellcheck disable=SC1091
source "$HERE/case_build.sh"
load_case

# --------------------------------------------------------------- tmp dir ---
if [[ -n ${DIFF_TMPDIR:-} ]]; then
    tmpbase=$DIFF_TMPDIR
elif [[ -d /dev/shm && -w /dev/shm ]]; then
    tmpbase=/dev/shm
else
    tmpbase=${TMPDIR:-/tmp}
fi
T=$(mktemp -d "$tmpbase/covkit-diff.$CASE.gcc$GCCVER.XXXXXX")
# shellcheck disable=SC2317  # invoked via trap
cleanup() {
    if [[ ${DIFF_KEEP:-0} == 1 ]]; then
        say "kept temporary directory $T"
    else
        rm -rf "$T"
    fi
}
trap cleanup EXIT

B=$T/b          # pristine build tree: sources + build/ (objects, gcno, gcda) + prog
mkdir -p "$B"
# copy the case (sources, headers, include dirs ...), but not case.sh itself
(cd "$CASE_DIR" && tar cf - --exclude=./case.sh .) | (cd "$B" && tar xf -)

# ----------------------------------------------------------------- build ---
LINK_OBJS=()
OBJ_LIST=()     # "src<TAB>obj" for every compiled source, linked ones first
for s in $SOURCES; do
    compile_one "$s"
    LINK_OBJS+=("$(objname "$s")")
    OBJ_LIST+=("$s"$'\t'"$(objname "$s")")
done
for s in $NOLINK; do
    compile_one "$s"
    OBJ_LIST+=("$s"$'\t'"$(objname "$s")")
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

# -------------------------------------------------------------- compare ---
printf '%s\n' "${OBJ_LIST[@]}" >"$T/objects.txt"
rc=0
python3 "$HERE/difftool.py" \
    --case "$CASE" --gccver "$GCCVER" --gcov "$GCOV" --covkit "$COVKIT" \
    --build "$B" --tmp "$T" --objects "$T/objects.txt" \
    --optsets "${DIFF_OPTSETS:-$HERE/optsets.txt}" \
    --rerun "bash $HERE/run_case.sh $COVKIT $GCCVER $CASE_DIR" || rc=$?
exit "$rc"
