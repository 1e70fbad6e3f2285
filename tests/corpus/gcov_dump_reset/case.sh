SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog reset; ./prog dump; ./prog dump; ./prog x y"
