SOURCES="main.c src/a/util.c src/b/util.c"
LANG_KIND=c
RUNS="./prog; ./prog a b"
