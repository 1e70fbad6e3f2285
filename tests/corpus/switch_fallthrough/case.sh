SOURCES="main.c"
LANG_KIND=c
RUNS="./prog; ./prog aaaa; ./prog hello world; ./prog zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"
