# A profile of one build read with the binary of another: functions whose
# structure changed have another hash, and are left out (and said), as
# llvm-cov leaves them out; the unchanged ones count.
SOURCES="main.c"
LANG_KIND=c
RUNS='./prog; ./prog x; $CC $COVFLAGS -DCHANGED main.c -o prog'
