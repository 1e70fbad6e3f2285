# source paths with ./ and ../ components
SOURCES="./main.c src/inner/../inner/deep.c"
LANG_KIND=c
RUNS="./prog; ./prog 1 2 3"
