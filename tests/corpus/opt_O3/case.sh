SOURCES="main.cc"
LANG_KIND=cxx
CFLAGS_EXTRA="-O3"
RUNS="./prog; ./prog x"
