/* The test server's control loop, compiled WITHOUT --coverage: everything
   that happens between two commands (reading the pipe, answering, calling
   __gcov_dump) changes no counter, so the counters a covkit dump reads while
   the server waits are exactly those its own __gcov_dump() writes next.

   Commands, one per line on stdin; each is answered "ok" (or a number):
     w N   work(N) spread over the worker threads, returns when all are idle
     l     dlopen the plugin (PLUGIN env var) and run plugin_work(7)
     L     start the load threads (run job() until S)     S  stop; prints iterations
     d     __gcov_dump()      r  __gcov_reset()           q  exit(0)
     f     fork a child that idles (prints its pid); SIGTERM makes it
           __gcov_dump() and exit
     e     fork a child that execs `sleep 300` (prints its pid): a
           descendant without coverage
     X     the main thread hands the commands to a new thread and ends with
           pthread_exit (a zombie while the process runs on) */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void __gcov_dump(void);
extern void __gcov_reset(void);
void job(int i);          /* instrumented, in server.c */
void lib_touch(int n);    /* instrumented, in liblive.so */

#define WORKERS 4
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER, done_cv = PTHREAD_COND_INITIALIZER;
static int next_item, last_item;
static atomic_int load_on;
static atomic_long load_iterations;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (next_item >= last_item) pthread_cond_wait(&cv, &mu);
    /* job() runs under the lock: the workers take turns, so a build without
       -fprofile-update=atomic loses no increment to a race and the counts
       are known. The load threads (L) run job() at the same time, in the
       atomic build. */
    int i = next_item++;
    job(i);
    if (next_item >= last_item) pthread_cond_broadcast(&done_cv);
  }
  return NULL;
}

static void* loader(void* arg) {
  (void)arg;
  while (atomic_load(&load_on)) {
    job(atomic_fetch_add(&load_iterations, 1));
  }
  return NULL;
}

/* A forked child's way out: its own libgcov dump, then gone. */
static void child_term(int sig) {
  (void)sig;
  __gcov_dump();
  _exit(0);
}

static void run_work(int n) {
  pthread_mutex_lock(&mu);
  last_item = next_item + n;
  pthread_cond_broadcast(&cv);
  while (next_item < last_item) pthread_cond_wait(&done_cv, &mu);
  pthread_mutex_unlock(&mu);
}

static void command_loop(void);

static void* command_thread(void* arg) {
  (void)arg;
  command_loop();
  return NULL;
}

static pthread_t load[WORKERS];

void control_loop(void) {
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, NULL);
  command_loop();
}

static void command_loop(void) {
  char line[128];
  while (fgets(line, sizeof line, stdin)) {
    switch (line[0]) {
      case 'w': run_work(atoi(line + 2)); lib_touch(atoi(line + 2)); break;
      case 'l': {
        void* h = dlopen(getenv("PLUGIN"), RTLD_NOW);
        if (!h) { printf("dlopen: %s\n", dlerror()); fflush(stdout); continue; }
        void (*fn)(int) = (void (*)(int))dlsym(h, "plugin_work");
        fn(7);
        break;
      }
      case 'L':
        atomic_store(&load_on, 1);
        for (int i = 0; i < WORKERS; i++) pthread_create(&load[i], NULL, loader, NULL);
        break;
      case 'S':
        atomic_store(&load_on, 0);
        for (int i = 0; i < WORKERS; i++) pthread_join(load[i], NULL);
        printf("%ld\n", atomic_load(&load_iterations));
        fflush(stdout);
        continue;
      case 'f': {
        pid_t c = fork();
        if (c == 0) {
          signal(SIGTERM, child_term);
          for (;;) pause();
        }
        printf("%d\n", (int)c);
        fflush(stdout);
        continue;
      }
      case 'e': {
        pid_t c = fork();
        if (c == 0) {
          execlp("sleep", "sleep", "300", (char*)NULL);
          _exit(127);
        }
        printf("%d\n", (int)c);
        fflush(stdout);
        continue;
      }
      case 'X': {
        pthread_t c;
        pthread_create(&c, NULL, command_thread, NULL);
        printf("ok\n");
        fflush(stdout);
        pthread_exit(NULL);
      }
      case 'd': __gcov_dump(); break;
      case 'r': __gcov_reset(); break;
      case 'q': exit(0);
    }
    printf("ok\n");
    fflush(stdout);
  }
  exit(0);
}
