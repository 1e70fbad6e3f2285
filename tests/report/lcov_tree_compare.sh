#!/usr/bin/env bash
# Compare `covkit report --lcov` with lcov 1.16's own capture of one built and
# run tree (used by run_lcov_case.sh and run_lcov_realcode.sh).
#
# usage: lcov_tree_compare.sh COVKIT GCOV TREE OUTDIR [LABEL]
#
#   cd TREE
#   COVKIT report -q --keep-system-headers --keep-cmake-probes --lcov OUTDIR/ours.info .
#   lcov -q -c -i -d . --rc lcov_branch_coverage=1 --gcov-tool GCOV -o OUTDIR/base.info
#   lcov -q -c    -d . --rc lcov_branch_coverage=1 --gcov-tool GCOV -o OUTDIR/run.info
#   lcov -q -a base.info -a run.info --rc lcov_branch_coverage=1 -o OUTDIR/total.info
#   lcov_compare.py ours.info total.info --strict --lcov-latin1
#   (cd OUTDIR && COVKIT report -q --keep-system-headers --keep-cmake-probes \
#       -a base.info -a run.info --lcov readback.info)
#   lcov_compare.py readback.info total.info --strict
#
# (--lcov-latin1: lcov 1.16 writes non-ASCII function names in Latin-1, see
# lcov_compare.py; the comparison then prints a note.)
# Without any .gcda in TREE, `lcov -c` fails by design: total.info = base.info.
# Then (unless LCOV_NO_COBERTURA=1)
# `COVKIT report -q --keep-system-headers --keep-cmake-probes --cobertura OUTDIR/out.xml .`
# must validate with `xmllint --noout --nonet --dtdvalid cobertura-coverage-04.dtd`
# (DTD: $COVKIT_COBERTURA_DTD, else tests/data/; without xmllint the
# comparison exits 77, skipped).
#
# TREE is modified only by gcov runs of lcov (it writes nothing into it in
# practice: geninfo runs gcov in a temporary directory). OUTDIR must exist and
# should be outside TREE (or covkit/lcov might read each other's outputs --
# they don't read .info files, but keep it clean).
#
# exit status: 0 same, 1 differences / a tool failed (the logs are printed),
# 77 xmllint missing.
set -euo pipefail

if [[ $# -lt 4 || $# -gt 5 ]]; then
    echo "usage: $0 COVKIT GCOV TREE OUTDIR [LABEL]" >&2
    exit 2
fi
COVKIT=$1 GCOV=$2 TREE=$3 O=$4 LABEL=${5:-$3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LC_ALL=C LANG=C

say() { printf '[lcov %s] %s\n' "$LABEL" "$*" >&2; }
# lcov 1.16 on newer perls prints "Subroutine ... redefined" noise
showlog() { grep -v -E '^Subroutine .* redefined at ' "$1" | tail -n "${2:-30}" >&2 || true; }

cd "$TREE"
RC=(--rc lcov_branch_coverage=1)

# ---------------------------------------------------------------- covkit ---
if ! "$COVKIT" report -q --keep-system-headers --keep-cmake-probes --lcov "$O/ours.info" . >"$O/covkit.log" 2>&1; then
    showlog "$O/covkit.log"
    say "FAIL: covkit report --lcov failed (cd $TREE && $COVKIT report -q --keep-system-headers --keep-cmake-probes --lcov $O/ours.info .)"
    exit 1
fi

# ------------------------------------------------------------------ lcov ---
if ! lcov -q -c -i -d . "${RC[@]}" --gcov-tool "$GCOV" -o "$O/base.info" >"$O/lcov-base.log" 2>&1; then
    showlog "$O/lcov-base.log"
    say "FAIL: lcov --initial capture failed (cd $TREE && lcov -c -i -d . --rc lcov_branch_coverage=1 --gcov-tool $GCOV -o base.info)"
    exit 1
fi
if [[ -n $(find . -name '*.gcda' -print -quit) ]]; then
    if ! lcov -q -c -d . "${RC[@]}" --gcov-tool "$GCOV" -o "$O/run.info" >"$O/lcov-run.log" 2>&1; then
        showlog "$O/lcov-run.log"
        say "FAIL: lcov capture failed (cd $TREE && lcov -c -d . --rc lcov_branch_coverage=1 --gcov-tool $GCOV -o run.info)"
        exit 1
    fi
    if ! lcov -q -a "$O/base.info" -a "$O/run.info" "${RC[@]}" -o "$O/total.info" >"$O/lcov-add.log" 2>&1; then
        showlog "$O/lcov-add.log"
        say "FAIL: lcov -a base.info -a run.info failed"
        exit 1
    fi
else
    say "no .gcda in the tree: comparing with the --initial capture alone"
    cp "$O/base.info" "$O/total.info"
fi

rc=0
# lcov gets branch counts from gcov, only taken or not from llvm-cov.
extra=()
[[ $("$GCOV" --version 2>&1) == *LLVM* ]] && extra+=(--branch-taken-only)
if ! python3 "$HERE/lcov_compare.py" "$O/ours.info" "$O/total.info" --strict --lcov-latin1 "${extra[@]}" >"$O/compare.log" 2>&1; then
    cat "$O/compare.log" >&2
    say "FAIL: covkit and lcov disagree (covkit: $O/ours.info, lcov: $O/total.info)"
    rc=1
else
    grep '^note:' "$O/compare.log" >&2 || true
fi

# ------------------------------------------------ lcov's own files read back ---
# covkit reads lcov's tracefiles as lcov reads them: base.info and run.info
# added by `covkit report -a` must give what `lcov -a` made of them
# (total.info). run.info is lcov's capture as it is, with a line's branches
# listed once per function holding the line (a source included twice).
# Run from OUTDIR: no .gcno there to add to the tracefiles. Names lcov wrote
# in Latin-1 (see above) are bytes covkit keeps: no --lcov-latin1 here.
readback=(-q --keep-system-headers --keep-cmake-probes -a "$O/base.info")
[[ -f $O/run.info ]] && readback+=(-a "$O/run.info")
if ! (cd "$O" && "$COVKIT" report "${readback[@]}" --lcov "$O/readback.info") >"$O/readback.log" 2>&1; then
    showlog "$O/readback.log"
    say "FAIL: covkit report -a of lcov's tracefiles failed (cd $O && $COVKIT report ${readback[*]} --lcov readback.info)"
    rc=1
elif ! python3 "$HERE/lcov_compare.py" "$O/readback.info" "$O/total.info" --strict "${extra[@]}" \
        >"$O/readback-compare.log" 2>&1; then
    cat "$O/readback-compare.log" >&2
    say "FAIL: covkit reads lcov's tracefiles otherwise than lcov -a (covkit: $O/readback.info, lcov: $O/total.info)"
    rc=1
fi

# ------------------------------------------------------------- cobertura ---
if [[ ${LCOV_NO_COBERTURA:-0} != 1 ]]; then
    DTD=${COVKIT_COBERTURA_DTD:-$HERE/../data/cobertura-coverage-04.dtd}
    # (This once asked `covkit report --help | grep -q --cobertura` whether
    # to check at all: grep's early exit made covkit's write fail, pipefail
    # turned that into "no", and the check was skipped without a word.)
    if [[ ! -f $DTD ]]; then
        say "ERROR: $DTD not found"; rc=1
    elif ! command -v xmllint >/dev/null 2>&1; then
        say "SKIP: xmllint (libxml2-utils) is not installed: the Cobertura output cannot be validated"
        exit 77
    elif ! "$COVKIT" report -q --keep-system-headers --keep-cmake-probes --cobertura "$O/out.xml" . >"$O/cobertura.log" 2>&1; then
        showlog "$O/cobertura.log"
        say "FAIL: covkit report --cobertura failed (cd $TREE && $COVKIT report -q --keep-system-headers --keep-cmake-probes --cobertura out.xml .)"
        rc=1
    elif ! xmllint --noout --nonet --dtdvalid "$DTD" "$O/out.xml" >"$O/xmllint.log" 2>&1; then
        # (the DOCTYPE names the DTD by its http URL: --nonet makes xmllint
        # warn instead of trying the network; the warning is noise here)
        grep -v -e 'network entity' -e 'failed to load external entity' -e '^<!DOCTYPE' -e '^ *\^$' \
            "$O/xmllint.log" | head -n 30 >&2 || true
        say "FAIL: Cobertura output does not validate (xmllint --noout --nonet --dtdvalid $DTD $O/out.xml)"
        rc=1
    fi
fi

[[ $rc -eq 0 ]] && say "OK ($(grep -c '^SF:' "$O/ours.info") source files)"
exit "$rc"
