SOURCES="main.c helper.c"
LANG_KIND=c
RUNS="./prog; ./prog"
