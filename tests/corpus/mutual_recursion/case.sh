SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog 20 '1+2*3'; ./prog 7 '((9))/0-1'"
