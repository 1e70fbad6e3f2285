SOURCES="impl.cc main.cc"
LANG_KIND=cxx
RUNS="./prog; ./prog a b"
