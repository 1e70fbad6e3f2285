SOURCES="main.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog item1 b"
