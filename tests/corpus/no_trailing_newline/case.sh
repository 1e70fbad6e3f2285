SOURCES="main.c tail.c blank_lines_at_end.c"
LANG_KIND=c
RUNS="./prog; ./prog x"
