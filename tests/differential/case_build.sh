# Building one corpus case (sourced by tests/differential/run_case.sh and
# tests/report/run_lcov_case.sh): the object path of a source and the
# compile step, with the case's flags. Expects B (build tree), T (scratch),
# CC, CXX, OBJ_STYLE, CFLAGS_EXTRA, CXXFLAGS_EXTRA and a `die` function.
# shellcheck shell=bash

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

