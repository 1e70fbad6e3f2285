#!/usr/bin/env bash
# Deliberately broken stand-in: like covkit_standin.sh, but afterwards changes
# one execution count in one .gcov file in the working directory (in the first
# one, by name, that has a line executed exactly once: that count becomes 2).
# compare.sh must fail on it.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$HERE/covkit_standin.sh" "$@"
rc=$?
export LC_ALL=C   # glob order
for f in *.gcov; do
  if [ -f "$f" ] && grep -qE '^ +1:' "$f"; then
    sed -i -E '0,/^ +1:/s/^( +)1:/\12:/' "$f"
    break
  fi
done
exit $rc
