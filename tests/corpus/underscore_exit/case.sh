SOURCES="main.c util.c"
LANG_KIND=c
RUNS="./prog a b; ./prog e; ./prog 1 2 3; ./prog"
