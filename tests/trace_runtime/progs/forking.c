/* fork from inside main > f1 > f2: the child's stream starts with that
 * stack, calls g and returns normally; the parent calls h. */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Not empty: GCC drops the calls of an empty function (no side effect),
 * which -pg builds (unlike -finstrument-functions ones) would show. */
void g(void) { __asm__ __volatile__(""); }
void h(void) { __asm__ __volatile__(""); }

int f2(void) {
  pid_t p = fork();
  if (p == 0) g();
  return p;
}
int f1(void) { return f2(); }

int main(void) {
  int p = f1();
  if (p == 0) return 0;  /* the child */
  waitpid(p, NULL, 0);
  h();
  printf("child %d\n", p);
  return 0;
}
