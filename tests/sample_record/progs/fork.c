/* Parent and forked child each burn 0.3 s; the child's status is the parent's. */
#include <sys/wait.h>
#include <unistd.h>

#include "spin.h"

int main(void) {
  spin(0.1);
  pid_t pid = fork();
  if (pid == 0) {
    spin(0.3);
    _exit(5);
  }
  spin(0.3);
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
