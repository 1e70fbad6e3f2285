SOURCES="main.cc"
LANG_KIND=cxx
CFLAGS_EXTRA="-pthread -fprofile-update=atomic"
LDFLAGS_EXTRA="-pthread"
RUNS="./prog; ./prog a b"
