SOURCES="main.cc"
LANG_KIND=cxx
CXXFLAGS_EXTRA="-std=c++20"
RUNS="./prog; ./prog a b"
