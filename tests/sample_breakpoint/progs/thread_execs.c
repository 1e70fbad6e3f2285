/* A thread other than the main one execs argv[1]: the kernel gives the
   new image the process id, and the thread's own id disappears. */
#include <pthread.h>
#include <unistd.h>

static char** args;
__attribute__((noinline)) int in_thread(void) { __asm__ volatile(""); return 1; }

static void* body(void* unused) {
  (void)unused;
  in_thread();
  execv(args[1], args + 1);
  _exit(20);
}

int main(int argc, char** argv) {
  if (argc < 2) return 10;
  args = argv;
  pthread_t t;
  if (pthread_create(&t, 0, body, 0) != 0) return 11;
  pthread_join(t, 0);  /* never returns: the exec ends this image */
  return 12;
}
