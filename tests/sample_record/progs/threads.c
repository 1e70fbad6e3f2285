/* Three threads and main, each burning 0.3 s of CPU. */
#include <pthread.h>

#include "spin.h"

static void *body(void *arg) {
  (void)arg;
  spin(0.3);
  return 0;
}

int main(void) {
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) pthread_create(&t[i], 0, body, 0);
  spin(0.3);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], 0);
  return 0;
}
