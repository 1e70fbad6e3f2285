# -fprofile-abs-path: the .gcno records absolute source names
SOURCES="main.c src/mod.c"
LANG_KIND=c
CFLAGS_EXTRA="-fprofile-abs-path"
RUNS="./prog; ./prog a b"
CLANG=no            # -fprofile-abs-path is GCC's only
