/* Parent and child call different functions after the fork; both before
   and after the fork one function each (the child inherits armed int3s). */
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) int in_child(void) { __asm__ volatile(""); return 1; }
__attribute__((noinline)) int in_parent(void) { __asm__ volatile(""); return 2; }
__attribute__((noinline)) int never(void) { __asm__ volatile(""); return 3; }

int main(void) {
  pid_t pid = fork();
  if (pid < 0) return 10;
  if (pid == 0) _exit(in_child() == 1 ? 0 : 1);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 11;
  return in_parent() == 2 ? 0 : 12;
}
