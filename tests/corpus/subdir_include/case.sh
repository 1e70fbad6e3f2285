SOURCES="src/main.c src/ring.c"
LANG_KIND=c
RUNS="./prog; ./prog a b"
