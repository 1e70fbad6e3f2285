SOURCES="main.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog 2 3"
