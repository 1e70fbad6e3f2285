/* The C half of the vfork wrapper (vfork_entry.S): errno when vfork
 * fails. */
#include <errno.h>

#include "ckt_base.h"

CKT_FN int ckt_vfork_failed(int error);
CKT_FN int ckt_vfork_failed(int error) {
  errno = error;
  return -1;
}
