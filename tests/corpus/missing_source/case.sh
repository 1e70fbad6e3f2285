SOURCES="main.c src/gone.c"
LANG_KIND=c
RUNS="./prog; ./prog z; rm src/gone.c gone.h"
