/* A process that never holds still, for dumps that must neither fail nor
   hang (scenarios threads_come_and_go and exec_during_dump):

     churn threads N        N threads start short-lived threads, endlessly
     churn exec N GEN       the same; main() writes "GEN" to standard output
                            (the program's counters are registered by then),
                            and each byte read from standard input has one of
                            its threads write "exec GEN" and execute the
                            program again as GEN+1: the test says when an exec
                            comes, and knows which dumps met one
     churn reload PLUGIN    dlopen, call and dlclose PLUGIN, endlessly */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

__attribute__((noinline)) void churn_work(long i) { sink += i; }

static void *leaf(void *a) {
  churn_work((long)a);
  return 0;
}

/* Created detached: pthread_detach after pthread_create reads the thread's
   descriptor after marking it detached, by when the thread may have ended
   and glibc unmapped its stack (churn died of SIGSEGV in pthread_detach,
   about once in 600 dumps, whose stops widen that window). */
static void *spawner(void *a) {
  (void)a;
  pthread_attr_t detached;
  pthread_attr_init(&detached);
  pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
  for (long i = 0;; i++) {
    pthread_t t;
    if (pthread_create(&t, &detached, leaf, (void *)i) != 0) usleep(10);
  }
  return 0;
}

static char **args;

/* From a thread that is not the main one: the kernel then gives it the
   process's id and ends the others, the main one included. */
static void *execer(void *a) {
  (void)a;
  char token;
  if (read(0, &token, 1) != 1) return 0;
  dprintf(1, "exec %s\n", args[3]);
  char gen[24];
  snprintf(gen, sizeof gen, "%ld", atol(args[3]) + 1);
  char *argv[] = {args[0], args[1], args[2], gen, 0};
  execv(args[0], argv);
  perror("execv");
  exit(1);
}

int main(int argc, char **argv) {
  args = argv;
  if (argc == 3 && strcmp(argv[1], "reload") == 0) {
    for (;;) {
      void *h = dlopen(argv[2], RTLD_NOW);
      if (!h) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
      }
      void (*work)(int) = (void (*)(int))dlsym(h, "plugin_work");
      work(10);
      churn_work(1);
      dlclose(h);
    }
  }
  if (argc < 3) return 2;
  pthread_t t;
  for (int i = 0; i < atoi(argv[2]); i++) pthread_create(&t, 0, spawner, 0);
  if (argc == 4 && strcmp(argv[1], "exec") == 0) {
    dprintf(1, "%s\n", argv[3]);
    pthread_create(&t, 0, execer, 0);
  }
  for (;;) pause();
}
