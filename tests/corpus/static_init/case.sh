SOURCES="main.cc a.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog x y"
