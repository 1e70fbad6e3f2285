/* The process's tracing state word. */
#include "process_state.h"

#include "calib.h"

int ckt_process_state = CKT_ST_NEW;

CKT_FN int ckt_process_active(void) {
  return __atomic_load_n(&ckt_process_state, __ATOMIC_ACQUIRE) == CKT_ST_ACTIVE;
}

CKT_FN void ckt_process_set_inert(void) {
  __atomic_store_n(&ckt_process_state, CKT_ST_INERT, __ATOMIC_RELEASE);
  ckt_calib_stop();
}
