SOURCES="main.cc"
LANG_KIND=cxx
CXXFLAGS_EXTRA="-std=c++20"
RUNS="./prog; ./prog 1; ./prog 1 2 3"
