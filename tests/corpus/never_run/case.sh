# The program is built but never executed: no .gcda exists at all.
SOURCES="main.c twice.c"
LANG_KIND=c
RUNS=":"
