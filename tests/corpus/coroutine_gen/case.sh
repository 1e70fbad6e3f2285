SOURCES="main.cc"
LANG_KIND=cxx
CXXFLAGS_EXTRA="-std=c++20"
RUNS="./prog; ./prog a b"
CLANG_MIN_VERSION=14  # clang 13 knows only std::experimental coroutines
