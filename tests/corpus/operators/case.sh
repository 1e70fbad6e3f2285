SOURCES="main.cc vec.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog z"
