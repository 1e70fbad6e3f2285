# Building one corpus case (sourced by tests/differential/run_case.sh and
# tests/report/run_lcov_case.sh): reading its case.sh, the object path of a
# source and the compile step, with the case's flags. Expects B (build tree),
# T (scratch), CC, CXX, GCCVER and `say`/`die` functions.
# shellcheck shell=bash

# load_case: the case's settings from CASE_DIR/case.sh, with their defaults;
# exits 77 when the case needs a newer GCCVER, dies on a malformed case.
# Sets SOURCES NOLINK LANG_KIND CFLAGS_EXTRA CXXFLAGS_EXTRA LDFLAGS_EXTRA
# REQUIRES_GCC OBJ_STYLE RUNS CLANG and LINKER (needs CC, CXX, GCCVER, say, die).
# GCCVER "clang" builds with clang (REQUIRES_GCC does not apply).
load_case() {
    SOURCES=""          # compiled and linked, in this order
    NOLINK=""           # compiled (so .gcno exists) but not linked: never a .gcda
    LANG_KIND=c         # c -> link with gcc, cxx -> link with g++
    CFLAGS_EXTRA=""     # added to every compile (C and C++)
    CXXFLAGS_EXTRA=""   # added to C++ compiles only
    LDFLAGS_EXTRA=""    # added to the link
    REQUIRES_GCC=""     # minimum gcc major version
    OBJ_STYLE=plain     # plain: build/dir/x.o   cmake: build/dir/x.c.o
    RUNS=""             # bash snippet run in the build dir (set -e -o pipefail)
    CLANG=yes           # no: clang cannot build the case (not tested with it)
    # shellcheck disable=SC1091
    source "$CASE_DIR/case.sh"

    if [[ $GCCVER == clang && $CLANG == no ]]; then
        say "SKIP: clang cannot build this case"
        exit 77
    fi
    if [[ $GCCVER != clang && -n $REQUIRES_GCC ]] && (( GCCVER < REQUIRES_GCC )); then
        say "SKIP: case requires gcc >= $REQUIRES_GCC"
        exit 77
    fi
    [[ -n $SOURCES ]] || die "case.sh sets no SOURCES"
    case "$LANG_KIND" in
        c) LINKER=$CC ;;
        cxx) LINKER=$CXX ;;
        *) die "LANG_KIND must be c or cxx, got '$LANG_KIND'" ;;
    esac
}

objname() {     # source path -> object path (relative to $B)
    local s=$1
    if [[ $OBJ_STYLE == cmake ]]; then
        printf 'build/%s.o' "$s"
    else
        printf 'build/%s.o' "${s%.*}"
    fi
}

compile_one() {
    local src=$1 obj comp
    obj=$(objname "$src")
    mkdir -p "$B/$(dirname "$obj")"
    local -a flags=(--coverage -g)
    case "$src" in
        *.c) comp=$CC ;;
        *.cc|*.cpp|*.cxx|*.C|*.c++) comp=$CXX ;;
        *) die "don't know how to compile '$src'" ;;
    esac
    # word splitting of *_EXTRA is intended
    # shellcheck disable=SC2206
    flags+=($CFLAGS_EXTRA)
    if [[ $comp == "$CXX" ]]; then
        # shellcheck disable=SC2206
        flags+=($CXXFLAGS_EXTRA)
    fi
    if ! (cd "$B" && "$comp" "${flags[@]}" -c "$src" -o "$obj") >"$T/compile.log" 2>&1; then
        cat "$T/compile.log" >&2
        die "compiling $src failed: $comp ${flags[*]} -c $src -o $obj"
    fi
}

