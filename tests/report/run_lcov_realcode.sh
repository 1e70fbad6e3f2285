#!/usr/bin/env bash
# `covkit report --lcov` versus lcov 1.16's capture on real code: Debian's
# zstd and zlib built with --coverage and their tests run, by
# tests/realcode/fetch_and_build.sh (cached in $COVKIT_REALCODE_CACHE, else
# DEFAULT_CACHE). Each tree is copied afresh (gcov/lcov may write into the
# tree they read) and compared with lcov_tree_compare.sh.
#
# usage: run_lcov_realcode.sh COVKIT DEFAULT_CACHE [PKG:GCCVER:OPT[:DIR+DIR...] ...]
#
# With DIRs, only those subdirectories of the tree are compared (their
# objects; the sources stay where the .gcno files say). As arguments they may
# be joined by ',' too (a build configured between two defaults keeps that
# spelling); in $COVKIT_REPORT_LCOV_REALCODE, where ',' separates variants,
# by '+'.
# Variants default to $COVKIT_REPORT_LCOV_REALCODE (space or comma separated),
# else "zstd:12:O0 zlib:12:O0".
#
# Both tools name the sources after the compile directory recorded in the
# .gcno files, i.e. the cached tree (CACHE/<pkg>-gcc<N>-<opt>/...), not the
# copy: the copy only provides the .gcno/.gcda files.
#
# exit status: 0 all compared variants agree (some may have been skipped),
# 1 a difference or failure, 77 every variant was skipped (package, build
# dependency or compiler not available, or lcov missing).
set -uo pipefail
if [[ $# -lt 2 ]]; then
    echo "usage: $0 COVKIT DEFAULT_CACHE [PKG:GCCVER:OPT ...]" >&2
    exit 2
fi
COVKIT=$1
CACHE=${COVKIT_REALCODE_CACHE:-$2}
shift 2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FETCH=$HERE/../realcode/fetch_and_build.sh
if [[ $# -gt 0 ]]; then
    VARIANTS=("$@")
else
    read -r -a VARIANTS <<<"${COVKIT_REPORT_LCOV_REALCODE:-zstd:12:O0 zlib:12:O0}"
    IFS=', ' read -r -a VARIANTS <<<"${VARIANTS[*]}"
fi
case "$COVKIT" in
    /*) ;;
    */*) COVKIT="$(cd "$(dirname "$COVKIT")" && pwd)/$(basename "$COVKIT")" ;;
esac
say() { printf '[lcov realcode] %s\n' "$*" >&2; }

command -v lcov >/dev/null 2>&1 || { say "SKIP: lcov not installed"; exit 77; }
[[ -x $COVKIT ]] || { say "ERROR: covkit executable '$COVKIT' not found"; exit 1; }
[[ -f $FETCH ]] || { say "SKIP: $FETCH missing"; exit 77; }

if [[ -n ${LCOV_TMPDIR:-} ]]; then
    tmpbase=$LCOV_TMPDIR
elif [[ -d /dev/shm && -w /dev/shm ]]; then
    tmpbase=/dev/shm
else
    tmpbase=${TMPDIR:-/tmp}
fi
T=$(mktemp -d "$tmpbase/covkit-lcov-realcode.XXXXXX")
# shellcheck disable=SC2317
cleanup() {
    if [[ ${LCOV_KEEP:-0} == 1 ]]; then say "kept $T"; else rm -rf "$T"; fi
}
trap cleanup EXIT

passed=0 skipped=0 failed=0
for v in "${VARIANTS[@]}"; do
    IFS=: read -r pkg ver opt dirs <<<"$v"
    ver=${ver:-12} opt=${opt:-O0}
    name=$pkg-gcc$ver-$opt
    t0=$SECONDS
    bash "$FETCH" "$pkg" "$CACHE" "$ver" "$opt"
    rc=$?
    if [[ $rc -eq 77 ]]; then
        say "SKIP $name: cannot be fetched/built here"
        skipped=$((skipped + 1))
        continue
    elif [[ $rc -ne 0 ]]; then
        say "FAIL $name: fetch_and_build.sh exited $rc"
        failed=$((failed + 1))
        continue
    fi
    if ! command -v "gcov-$ver" >/dev/null 2>&1; then
        say "SKIP $name: gcov-$ver not installed"
        skipped=$((skipped + 1))
        continue
    fi
    src=$(cd "$CACHE/$name" && pwd -P)
    copy=$T/$name
    out=$T/$name.out
    mkdir -p "$out"
    copied=1
    if [[ -n $dirs ]]; then
        mkdir -p "$copy"
        for d in ${dirs//[+,]/ }; do
            cp -a "$src/$d" "$copy/$d" || copied=0
        done
    else
        cp -a "$src" "$copy" || copied=0
    fi
    if [[ $copied -eq 0 ]]; then
        say "FAIL $name: cannot copy $src${dirs:+ ($dirs)} to $copy"
        failed=$((failed + 1))
        continue
    fi
    compared=0
    bash "$HERE/lcov_tree_compare.sh" "$COVKIT" "gcov-$ver" "$copy" "$out" "realcode $name" || compared=$?
    if [[ $compared -eq 0 ]]; then
        passed=$((passed + 1))
        say "$name: same as lcov ($((SECONDS - t0)) s)"
        rm -rf "$copy"
    elif [[ $compared -eq 77 ]]; then
        skipped=$((skipped + 1))
        rm -rf "$copy"
    else
        failed=$((failed + 1))
        say "FAIL $name: reproduce with: LCOV_KEEP=1 COVKIT_REALCODE_CACHE=$CACHE bash $0 $COVKIT $CACHE $v" \
            "(keeps the copy, covkit's ours.info and lcov's total.info)"
    fi
done

say "passed $passed, skipped $skipped, failed $failed"
[[ $failed -gt 0 ]] && exit 1
[[ $passed -eq 0 ]] && exit 77
exit 0
