# After the runs the sources are edited: main.c becomes newer than its .gcno
# (gcov warns) and other.c is truncated to fewer lines than the .gcno records
# (gcov prints /*EOF*/ lines).
SOURCES="main.c other.c"
LANG_KIND=c
RUNS='./prog; ./prog a
future=$(( $(date +%s) + 3600 ))
printf "/* edited after the build */\n" >> main.c
touch -d "@$future" main.c
head -n 4 other.c > other.c.tmp && mv other.c.tmp other.c
touch -d "@$future" other.c'
