/* posix_spawn (a vfork: the child shares this address space until its
   exec) of argv[1], then after_spawn() once the child is done. */
#include <spawn.h>
#include <sys/wait.h>

extern char** environ;
__attribute__((noinline)) int after_spawn(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int never_called(int x) { __asm__ volatile(""); return x + 2; }

int main(int argc, char** argv) {
  if (argc < 2) return 10;
  pid_t pid;
  if (posix_spawn(&pid, argv[1], 0, 0, argv + 1, environ) != 0) return 11;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 5) return 12;
  return after_spawn(argc) == argc + 1 ? 0 : 13;
}
