SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog 5 || true; ./prog 7 || true; ./prog 3"
