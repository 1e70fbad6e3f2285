SOURCES="main.c mixed.c use.c"
LANG_KIND=c
RUNS="./prog; ./prog a b"
