#!/usr/bin/env bash
# Stand-in for `covkit gcov ...`: execs gcov-$COVKIT_STANDIN_GCCVER (default 12)
# with the `gcov` subcommand word and any --threads N dropped. Used to self-test
# compare.sh / the benchmark before (or independently of) the real covkit.
[ "${1:-}" = gcov ] && shift
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) shift 2 ;;
    --threads=*) shift ;;
    *) args+=("$1"); shift ;;
  esac
done
exec "gcov-${COVKIT_STANDIN_GCCVER:-12}" "${args[@]}"
