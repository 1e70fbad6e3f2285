SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog 3; ./prog -4 x; ./prog 11 x y; ./prog 5 x y z"
