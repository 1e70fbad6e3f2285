SOURCES="main.cc empty.c nothing.c"
LANG_KIND=cxx
RUNS="./prog"
