/* vfork from inside main > spawn, twice: the child (which runs on its
 * parent's memory until it execs or exits) calls g, then ends as argv[1]
 * says: "_exit", "exit" (atexit handlers and destructors run, the
 * runtime's too) or "exec" (/bin/true). The parent calls h. None of the
 * child's calls are the parent's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void g(void) { __asm__ __volatile__(""); }
void h(void) { __asm__ __volatile__(""); }

int spawn(const char *how) {
  pid_t p = vfork();
  if (p == 0) {
    g();
    if (strcmp(how, "exec") == 0) execl("/bin/true", "true", (char *)NULL);
    if (strcmp(how, "exit") == 0) exit(0);
    _exit(0);
  }
  int status = 1;
  if (p < 0 || waitpid(p, &status, 0) != p) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv) {
  const char *how = argc > 1 ? argv[1] : "_exit";
  int failed = spawn(how) + spawn(how);
  h();
  printf("%s %d\n", how, failed);
  return failed;
}
