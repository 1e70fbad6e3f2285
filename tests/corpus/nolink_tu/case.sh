SOURCES="main.c"
NOLINK="orphan.c"
LANG_KIND=c
RUNS="./prog; ./prog a b c"
