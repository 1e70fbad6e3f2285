SOURCES="main.c"
LANG_KIND=c
CFLAGS_EXTRA="-fopenmp -fprofile-update=atomic"
LDFLAGS_EXTRA="-fopenmp"
RUNS="OMP_DYNAMIC=false ./prog; OMP_DYNAMIC=false ./prog a b"
