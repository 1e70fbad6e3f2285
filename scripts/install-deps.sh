#!/usr/bin/env bash
# Installs everything covkit needs to build and test, from Debian 12 packages.
# Idempotent: does nothing when all packages are already present.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config
  gcc-11 g++-11 gcc-12 g++-12 clang llvm-14 llvm-14-dev
  libcli11-dev libfmt-dev nlohmann-json3-dev zlib1g-dev libiberty-dev
  libgtest-dev libgmock-dev libbenchmark-dev libdw-dev libelf-dev libmimalloc-dev libzydis-dev
  lcov gcovr python3 dpkg-dev time wrk apache2-utils
  libxml2-utils chromium fonts-dejavu-core git
  uftrace graphviz libgraphviz-dev lld linux-perf
  # clang's source-based coverage, tested against llvm-cov of each clang Debian 12 ships
  clang-13 clang-15 clang-16 llvm-13 llvm-15 llvm-16 libclang-rt-16-dev
  # the package (lintian), man pages, completions in each shell, Meson as a gcov client
  lintian meson man-db groff-base zsh fish
  # bench/sample_recall_vectors.py draws its PNG (docs/images/sample-recall-vectors.png),
  # bench/scale_vs_objects.py its plot of how cost grows (docs/images/report-scale.png)
  gnuplot-nox
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  fast=()
  if [ -n "${CI:-}" ]; then
    # A throwaway CI machine: dpkg need not fsync each file (a crash there
    # loses nothing), and man-db need not index the new manual pages.
    fast=(-o Dpkg::Options::=--force-unsafe-io)
    echo "man-db man-db/auto-update boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
  fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${fast[@]}" "${missing[@]}" >/dev/null
fi
