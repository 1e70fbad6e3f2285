# Two programs sharing a source: its functions are counted once, from the
# profile that adds up both programs' runs.
BUILD='$CC $COVFLAGS -c util.c -o util.o && $CC $COVFLAGS one.c util.o -o one && $CC $COVFLAGS two.c util.o -o two'
BINARIES="one two"
RUNS="./one; ./one x; ./two; ./two a b c"
