# CMake-style object names: build/main.c.o / build/main.c.gcno
# (gcov source-name lookups with -o DIR then fail, as in real CMake trees)
SOURCES="main.c lib/calc.c"
LANG_KIND=c
OBJ_STYLE=cmake
RUNS="./prog; ./prog 1 2 3 4"
