/* exit() from deep inside a worker thread (run > outer > inner) once main
 * waits inside waiter(): both threads' open frames are closed at the process
 * end. Exit status 5. Usage: exit_thread */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>

static sem_t in_waiter;

void inner(void) { exit(5); }
void outer(void) { inner(); }
void *run(void *arg) {
  (void)arg;
  sem_wait(&in_waiter);
  outer();
  return NULL;
}
void waiter(pthread_t t) {
  sem_post(&in_waiter);
  pthread_join(t, NULL);
}

int main(void) {
  pthread_t t;
  sem_init(&in_waiter, 0, 0);
  pthread_create(&t, NULL, run, NULL);
  waiter(t);
  return 0;
}
