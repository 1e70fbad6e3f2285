#!/usr/bin/env bash
# One command for a fresh Debian 12 machine: install dependencies, build
# covkit, and run it on the bundled example (examples/hello).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"$root/examples/hello/run.sh"
