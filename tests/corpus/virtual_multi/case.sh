SOURCES="main.cc shapes.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog q"
