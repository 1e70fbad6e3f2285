/* The load map: `module` and `segment` lines of the .meta, from
 * dl_iterate_phdr, refreshed when a function address falls outside every
 * known executable segment or objects were loaded/unloaded since. */
#ifndef CKT_MODULES_H
#define CKT_MODULES_H

#include "ckt_base.h"

/* Called when a thread meets `fn` for the first time (cold). When
 * may_iterate is 0 (a forked child's handler) only the known map is used. */
CKT_FN void ckt_modules_note(uintptr_t fn, uint64_t now, int may_iterate);
/* After a dlclose: 1 when known modules are gone (their executable
 * segments are then listed for ckt_modules_gone_range). Allocates nothing
 * and writes no line: the next lookup of a new function (ckt_modules_note)
 * writes what was loaded since. */
CKT_FN int ckt_modules_note_unloads(void);
/* How many segments of gone modules were ever listed, and the i-th of them
 * (0 when the list has moved past it: then forget every function). */
CKT_FN uint32_t ckt_modules_gone_count(void);
CKT_FN int ckt_modules_gone_range(uint32_t i, uint64_t *lo, uint64_t *hi);
/* Writes every loaded module again (a forked child's new .meta). */
CKT_FN void ckt_modules_write_live(void);
/* The load address and path hash (ckt_path_hash) of the known module
 * whose executable segments hold `a`, and its path when `path` is not NULL
 * (cut to `cap` bytes, NUL-terminated); 0 when none does. */
CKT_FN int ckt_modules_locate(uintptr_t a, uint64_t *base, uint64_t *path_hash, char *path, size_t cap);
/* FNV-1a of a module path: how modules and the filter file's lines meet. */
CKT_FN uint64_t ckt_path_hash(const char *path);
CKT_FN void ckt_modules_lock(void);
/* Called after each reading of the load map (no lock held): the PLT slots
 * of new modules are hooked then (plt_hooks.c sets it). */
extern void (*ckt_modules_after_refresh)(void);
CKT_FN void ckt_modules_unlock(void);

#endif
