SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog a; ./prog a b c"
