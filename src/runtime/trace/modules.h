/* The load map: `module` and `segment` lines of the .meta, from
 * dl_iterate_phdr, refreshed when a function address falls outside every
 * known executable segment or objects were loaded/unloaded since. */
#ifndef CKT_MODULES_H
#define CKT_MODULES_H

#include "ckt_base.h"

/* Called when a thread meets `fn` for the first time (cold). When
 * may_iterate is 0 (a forked child's handler) only the known map is used. */
CKT_FN void ckt_modules_note(uintptr_t fn, uint64_t now, int may_iterate);
/* Writes every loaded module again (a forked child's new .meta). */
CKT_FN void ckt_modules_write_live(void);
CKT_FN void ckt_modules_lock(void);
CKT_FN void ckt_modules_unlock(void);

#endif
