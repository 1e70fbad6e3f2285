#!/usr/bin/env bash
# sqlite_workload.sh SQLITE3 SCRATCH
#
# Runs sqlite_workload.sql through the sqlite3 shell SQLITE3 on a fresh
# database file in SCRATCH (emptied first, removed at the end), then a few shell invocations
# that take other paths (a read-only reopen with -json, .read of a missing
# file, -bail on an error). Everything the shell prints goes to stdout
# (errors too, in order: the statements that fail on purpose, constraint
# violations and bad JSON, are part of the output). Exit 1 if the shell
# dies of a signal or prints nothing.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: $0 SQLITE3 SCRATCH" >&2; exit 2; }
SQL=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sqlite_workload.sql
exe=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
db=$dir/workload.db
lines=0
shell() {
  local out st
  out=$("$exe" "$@" 2>&1)
  st=$?
  [ $st -lt 128 ] || { echo "sqlite3 died (status $st): $*" >&2; exit 1; }
  printf '%s\n' "$out"
  lines=$((lines + $(printf '%s\n' "$out" | wc -l)))
}
shell "$db" <"$SQL"
shell -readonly -json "$db" 'SELECT name, budget FROM dept ORDER BY id'
shell "$db" '.read /nonexistent/file.sql'
shell -bail "$db" 'SELECT * FROM no_such_table'
rm -rf "$dir"
[ "$lines" -gt 100 ] || { echo "sqlite3 printed only $lines lines" >&2; exit 1; }
exit 0
