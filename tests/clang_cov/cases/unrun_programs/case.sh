# Three programs with a main each, only `ran` run: the profile's `main` has
# ran's hash. For a program that never ran, llvm-cov 13 and 14 call its
# main a hash mismatch and leave it out; llvm-cov 15 and later do so only
# when the context-sensitive flag of the two hashes (bit 60) agrees, and
# otherwise count it as a function the profile does not know: zero, its
# file reported. ran.c's main hash has bit 60 clear, same_flag.c's clear
# and other_flag.c's set, with clang 13 to 16 alike (the front end's hash
# of the control flow). Seen on pcre2, whose pcre2posix_test never ran.
BUILD='$CC $COVFLAGS ran.c -o ran && $CC $COVFLAGS same_flag.c -o same_flag && $CC $COVFLAGS other_flag.c -o other_flag'
BINARIES="ran same_flag other_flag"
RUNS="./ran; ./ran x"
