/* pthread_atfork handlers. The child gets a new <pid>.meta (ppid, modules
 * copied from the parent's map) and, for the forking thread, a new stream
 * that starts with a `stack` event of the frames it inherited; the other
 * threads do not exist in the child and their states are dropped. The
 * parent's `fork <tsc> <child>` line is appended to the parent's .meta by
 * the child (the parent's handler does not know the child's pid). The
 * handlers are registered by process.c at the process start. */
#include "fork.h"

#include <pthread.h>
#include <unistd.h>

#include <string.h>

#include "calib.h"
#include "clock.h"
#include "events.h"
#include "modules.h"
#include "plt_stubs.h"
#include "process_meta.h"
#include "process_state.h"
#include "thread_life.h"

static uint64_t fork_time;
static int locked;

CKT_FN static void prepare(void) {
  if (!ckt_process_active()) return;
  struct ckt_thread *t = ckt_tls;
  uint64_t now = ckt_now();
  if (t && t->real && !t->busy) {
    t->busy = 1;
    CKT_BARRIER();
    if (now < t->last) now = t->last;
    ckt_keep_held(t);  /* a held enter belongs to both streams */
    CKT_BARRIER();
    t->busy = 0;
  }
  fork_time = now;
  ckt_registry_lock();
  ckt_modules_lock();
  ckt_plt_lock();
  locked = 1;
}

CKT_FN static void parent(void) {
  if (!locked) return;
  locked = 0;
  ckt_plt_unlock();
  ckt_modules_unlock();
  ckt_registry_unlock();
}

CKT_FN static void child(void) {
  if (!locked) return;
  locked = 0;
  ckt_plt_unlock();
  ckt_modules_unlock();
  ckt_registry_unlock();

  struct ckt_thread *t = ckt_tls;
  struct ckt_thread *keep = t && t->real ? t : NULL;
  ckt_registry_forget_others(keep);
  char parent_image[sizeof ckt_image];
  memcpy(parent_image, ckt_image, sizeof parent_image);
  ckt_ppid = ckt_pid;
  ckt_pid = getpid();
  if (!ckt_meta_open()) {
    ckt_process_set_inert();
    if (keep) ckt_thread_drop_in_child(keep);
    return;
  }
  ckt_calib_start();
  ckt_modules_write_live();
  ckt_plt_meta_rewrite();
  ckt_meta_fork_to_parent(parent_image, fork_time, ckt_pid);
  if (keep) ckt_thread_restart_in_child(keep);
}

CKT_FN void ckt_fork_init(void) {
  static int done;
  if (!done) {
    done = 1;
    pthread_atfork(prepare, parent, child);
  }
}
