/* Two forked children do work the parent never does, then exit() from
 * inside spawn(): main > spawn > child_work > leaf in each child (the
 * inherited main > spawn counted once, in the parent).
 * Prints the children's pids. Usage: fork_work N1 N2 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void leaf(void) {}

void child_work(int n) {
  for (int i = 0; i < n; i++) leaf();
}

void parent_work(void) { leaf(); }

int spawn(int n) {
  pid_t p = fork();
  if (p == 0) {
    child_work(n);
    exit(0);
  }
  return (int)p;
}

int main(int argc, char **argv) {
  int n1 = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 10;
  int n2 = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20;
  int a = spawn(n1);
  waitpid(a, NULL, 0);
  int b = spawn(n2);
  waitpid(b, NULL, 0);
  parent_work();
  printf("%d %d\n", a, b);
  return 0;
}
