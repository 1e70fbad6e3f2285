/* A long-running program that does what its standard input says, for
 * `covkit sample record --pid`: "a" runs before() (sent before attaching),
 * "b" runs during() (while attached: it starts a thread running in_thread()
 * and forks a child running in_child(), and waits for both), "c" runs
 * after() (after detaching), "q" quits. Each command answers "done X" once
 * its work is over. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void before(void) {
  for (int i = 0; i < 100; i++) sink += i * 3;
}

__attribute__((noinline)) void *in_thread(void *arg) {
  for (int i = 0; i < 100; i++) sink += i * 5;
  return arg;
}

__attribute__((noinline)) int in_child(void) {
  for (int i = 0; i < 100; i++) sink += i * 7;
  return sink > 0 ? 0 : 1;
}

__attribute__((noinline)) int during(void) {
  pthread_t t;
  if (pthread_create(&t, NULL, in_thread, NULL) != 0) return 1;
  pthread_join(t, NULL);
  pid_t child = fork();
  if (child == 0) _exit(in_child());
  int status = 0;
  if (child < 0 || waitpid(child, &status, 0) != child) return 1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

__attribute__((noinline)) void after(void) {
  for (int i = 0; i < 100; i++) sink += i * 11;
}

int main(void) {
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    int status = 0;
    if (line[0] == 'a') before();
    else if (line[0] == 'b') status = during();
    else if (line[0] == 'c') after();
    else if (line[0] == 'q') break;
    printf("done %c %d\n", line[0], status);
    fflush(stdout);
  }
  return 0;
}
