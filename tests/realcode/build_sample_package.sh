#!/usr/bin/env bash
# build_sample_package.sh PKG TREE
#
# Builds Lua 5.4 (PKG lua: the computed-goto interpreter gcc gets by
# default; luaswitch: LUA_USE_JUMPTABLE=0, the switch) or bzip2 in TREE (a
# copy of the Debian source) with $CC, $CFLAGS and $LDFLAGS: the
# --coverage truth (fetch_and_build.sh) and the plain build that covkit
# sample records (sample_realcode.py) come from this one script, so that
# they differ in --coverage only. Lua as its upstream Makefile builds it
# (llex.c, lparser.c and lcode.c at -Os; $LUA_SIZE_CFLAGS, when set, instead:
# empty keeps them at $CFLAGS' level), without Debian's libtool and C++
# copies; bzip2 as one program (libbz2's objects linked in, as upstream's
# Makefile does before Debian's shared-library patch); sqlite from its
# amalgamation (sqlite3.c, shell.c and sqlite3.h, already in TREE) with the
# -D options of Debian's rules, linked into the sqlite3 shell.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 lua|luaswitch|bzip2|sqlite TREE" >&2; exit 2; }
PKG=$1 TREE=$2
: "${CC:=gcc-12}" "${CFLAGS:=-O2 -g}" "${LDFLAGS:=}"
case "$PKG" in
  lua|luaswitch)
    cd "$TREE/src"
    # Debian's luaconf.h includes a header its rules generate.
    [ -f lua5.4-deb-multiarch.h ] || echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >lua5.4-deb-multiarch.h
    defs="-std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX"
    [ "$PKG" = luaswitch ] && defs="$defs -DLUA_USE_JUMPTABLE=0"
    objs=() pids=()
    for c in *.c; do
      [ "$c" = luac.c ] && continue
      case "$c" in llex.c|lparser.c|lcode.c) size=${LUA_SIZE_CFLAGS--Os} ;; *) size= ;; esac
      # shellcheck disable=SC2086
      $CC $CFLAGS $size $defs -c "$c" -o "${c%.c}.o" &
      pids+=($!)
      objs+=("${c%.c}.o")
      if [ ${#pids[@]} = 2 ]; then  # two at a time: CI has two cores
        for p in "${pids[@]}"; do wait "$p"; done
        pids=()
      fi
    done
    for p in "${pids[@]}"; do wait "$p"; done
    # shellcheck disable=SC2086
    $CC $LDFLAGS -o lua "${objs[@]}" -lm -ldl
    ;;
  bzip2)
    cd "$TREE"
    objs=()
    for c in blocksort.c huffman.c crctable.c randtable.c compress.c decompress.c bzlib.c bzip2.c; do
      # shellcheck disable=SC2086
      $CC $CFLAGS -D_FILE_OFFSET_BITS=64 -c "$c" -o "${c%.c}.o"
      objs+=("${c%.c}.o")
    done
    # shellcheck disable=SC2086
    $CC $LDFLAGS -o bzip2 "${objs[@]}"
    ;;
  sqlite)
    cd "$TREE"
    # debian/rules' CFLAGS (but -O2: $CFLAGS says the level), plus
    # FTS4/FTS5 and the math functions its configure options add.
    defs="-fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
      -DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_FTS4
      -DSQLITE_ENABLE_FTS5 -DSQLITE_ENABLE_RTREE=1 -DSQLITE_SOUNDEX=1
      -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1 -DSQLITE_ENABLE_DBSTAT_VTAB
      -DSQLITE_ALLOW_ROWID_IN_VIEW -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1
      -DSQLITE_ENABLE_LOAD_EXTENSION -DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS
      -DSQLITE_THREADSAFE=1 -DSQLITE_USE_URI=1 -DSQLITE_MAX_SCHEMA_RETRY=25
      -DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB
      -DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_ENABLE_MATH_FUNCTIONS"
    # shellcheck disable=SC2086
    $CC $CFLAGS $defs -c sqlite3.c -o sqlite3.o &
    c_pid=$!
    # shellcheck disable=SC2086
    $CC $CFLAGS $defs -c shell.c -o shell.o
    wait "$c_pid"
    # shellcheck disable=SC2086
    $CC $LDFLAGS -o sqlite3 shell.o sqlite3.o -lpthread -ldl -lm
    ;;
  *) echo "$0: unknown package $PKG" >&2; exit 2 ;;
esac
