/* A worker thread blocked for good in its entry function (no other call)
 * when main returns: the process ends normally, the worker's stream does
 * not, its only event is the enter of blocker() (its thread's function id 0).
 * The report must still count that call, closed at the process end.
 * Usage: blocked_worker */
#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

static sem_t started;

void *blocker(void *arg) {
  (void)arg;
  sem_post(&started);
  for (;;) pause();
  return NULL;
}

int main(void) {
  pthread_t t;
  sem_init(&started, 0, 0);
  pthread_create(&t, NULL, blocker, NULL);
  sem_wait(&started);
  return 0;
}
