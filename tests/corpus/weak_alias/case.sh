SOURCES="main.c strong.c"
LANG_KIND=c
RUNS="./prog; ./prog a"
