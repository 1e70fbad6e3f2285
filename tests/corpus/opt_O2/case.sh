SOURCES="main.c"
LANG_KIND=c
CFLAGS_EXTRA="-O2"
RUNS="./prog; ./prog a b"
