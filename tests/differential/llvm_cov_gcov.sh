#!/bin/sh
# `llvm-cov gcov` as one command, for the harness's reference-tool slot.
exec llvm-cov gcov "$@"
