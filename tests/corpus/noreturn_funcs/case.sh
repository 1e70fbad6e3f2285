SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog 12 34; ./prog 1 x || true"
