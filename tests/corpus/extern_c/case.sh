# C and C++ translation units in one program (cpart.c is compiled by gcc)
SOURCES="main.cc cpart.c"
LANG_KIND=cxx
RUNS="./prog; ./prog x"
