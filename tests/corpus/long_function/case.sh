SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog 1 2; ./prog 1 2 3 4 5"
