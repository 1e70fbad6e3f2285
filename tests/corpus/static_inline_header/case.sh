SOURCES="main.c a.c b.c"
LANG_KIND=c
RUNS="./prog; ./prog q"
