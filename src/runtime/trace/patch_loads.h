/* --patch in libraries loaded after start-up (see patch_loads.c). */
#ifndef CKT_PATCH_LOADS_H
#define CKT_PATCH_LOADS_H

#include "ckt_base.h"

/* One "?" line of the list (without the "?"): a pattern for the modules
 * loaded after start-up; 0 when it cannot be used (a bad regex). */
CKT_FN int ckt_patch_pattern_add(const char *line, const char *eol);
/* After the load-time patching: from now on, each module the dynamic
 * linker adds gets its named entries patched (when any pattern was given). */
CKT_FN void ckt_patch_watch_loads(void);

#endif
