SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog d"
CLANG=no            # nested functions are a GNU C extension clang lacks
