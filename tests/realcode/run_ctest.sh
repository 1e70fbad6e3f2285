#!/usr/bin/env bash
# Driver for the CTest tests realcode.<pkg>[.O2] (see CMakeLists.txt):
#   run_ctest.sh COVKIT PKG GCCVER OPT DEFAULT_CACHE
# Builds (or reuses) the package tree in ${COVKIT_REALCODE_CACHE:-DEFAULT_CACHE}
# and runs compare.sh on it (compare_clang.sh for GCCVER clang). Exit 77 (skip) if the package cannot be fetched.
set -uo pipefail
[ $# -eq 5 ] || { echo "usage: $0 COVKIT PKG GCCVER OPT DEFAULT_CACHE" >&2; exit 2; }
COVKIT=$1 PKG=$2 GCCVER=$3 OPT=$4 CACHE=${COVKIT_REALCODE_CACHE:-$5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

"$HERE/fetch_and_build.sh" "$PKG" "$CACHE" "$GCCVER" "$OPT"
rc=$?
[ $rc -eq 0 ] || exit $rc          # 77 = skip, anything else = failure

# clang's files: against llvm-cov gcov, object by object.
[ "$GCCVER" = clang ] && exec "$HERE/compare_clang.sh" "$COVKIT" "$CACHE/$PKG-gcc$GCCVER-$OPT"
exec "$HERE/compare.sh" "$COVKIT" "$GCCVER" "$CACHE/$PKG-gcc$GCCVER-$OPT"
