# A program and the shared library it links, both instrumented: one profile
# per process holds both modules; llvm-cov reads it with -object lib.so.
BUILD='$CC $COVFLAGS -fPIC -shared shape.c -o libshape.so && $CC $COVFLAGS main.c -o prog -L. -lshape -Wl,-rpath,$PWD'
BINARIES="libshape.so prog"
RUNS="./prog; ./prog circle; ./prog square 3"
