# What clang's regions see that gcov's lines do not: constexpr and
# `if constexpr`, ?: and short-circuits on one line, nested macros with
# conditions, #if'ed-out code, lambdas, templates instantiated for several
# types, a function defined in an #include'd file inside a body, and unused
# inline functions of a header (dummy records).
SOURCES="main.cc other.cc"
LANG_KIND=cxx
CXXFLAGS_EXTRA="-std=c++17"
RUNS="./prog; ./prog a b; ./prog a b c d e f g"
