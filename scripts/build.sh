#!/usr/bin/env bash
# Configures and builds covkit into build/ (or $1), leaving build/covkit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
cmake -S "$root" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
ninja -C "$dir" ${NINJA_QUIET:+--quiet}
