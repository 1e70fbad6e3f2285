/* Four threads each call their own function, and all call shared() at the
   same moment (a barrier), so several may stop on its int3 at once. */
#include <pthread.h>

static pthread_barrier_t barrier;
__attribute__((noinline)) int shared(int x) { __asm__ volatile(""); return x * 2; }
__attribute__((noinline)) int t0(void) { __asm__ volatile(""); return 0; }
__attribute__((noinline)) int t1(void) { __asm__ volatile(""); return 1; }
__attribute__((noinline)) int t2(void) { __asm__ volatile(""); return 2; }
__attribute__((noinline)) int t3(void) { __asm__ volatile(""); return 3; }
__attribute__((noinline)) int unused_in_threads(void) { __asm__ volatile(""); return 4; }

static void* body(void* arg) {
  long i = (long)arg;
  int (*own[4])(void) = {t0, t1, t2, t3};
  int r = own[i]();
  pthread_barrier_wait(&barrier);
  for (int k = 0; k < 1000; ++k) r += shared(k);
  return (void*)(long)r;
}

int main(void) {
  pthread_t th[4];
  pthread_barrier_init(&barrier, 0, 4);
  for (long i = 0; i < 4; ++i)
    if (pthread_create(&th[i], 0, body, (void*)i) != 0) return 10;
  for (int i = 0; i < 4; ++i) pthread_join(th[i], 0);
  return 0;
}
