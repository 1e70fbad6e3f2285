SOURCES="a.cc b.cc c.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog x y; ./prog 1 2 3 4 5"
