/* The runtime's only words on the traced program's stderr. */
#ifndef CKT_WARN_H
#define CKT_WARN_H

#include "ckt_base.h"

/* "covkit-trace: WHAT PATH (tracing off)", at most once per process. */
CKT_FN void ckt_warn(const char *what, const char *path);

#endif
