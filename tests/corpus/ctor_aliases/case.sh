SOURCES="main.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog 1 2 3"
