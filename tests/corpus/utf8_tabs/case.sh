SOURCES="main.c latin1.c"
LANG_KIND=c
RUNS="./prog; ./prog a b c"
