SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog a b"
