SOURCES="main.c lib.c used.c"
LANG_KIND=c
RUNS="./prog; ./prog a"
