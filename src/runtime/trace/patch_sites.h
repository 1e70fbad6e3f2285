/* Patchable entries (covkit trace record --patch), as the runtime prepares
 * them: the table covkit trace attach reads (trace_contract.h) and the
 * writing of the calls, for patch.c (the list covkit wrote, applied at load)
 * and patch_loads.c (libraries loaded later, found by name). */
#ifndef CKT_PATCH_SITES_H
#define CKT_PATCH_SITES_H

#include <link.h>

#include "ckt_base.h"

/* Room for `room` entries; with `patch_later` the calls are prepared but
 * written only once covkit trace attach has switched the entries on. 0 when
 * no memory could be had. */
CKT_FN int ckt_patch_table_init(uint64_t room, int patch_later);
/* The start-up modules' entries are in: attach may use the table. */
CKT_FN void ckt_patch_table_ready(void);

/* A loaded module: its load address and the range of its executable
 * segments. */
struct ckt_text {
  uint64_t base, lo, hi;
};
/* 0 when the module has no executable segment. */
CKT_FN int ckt_text_of(const struct dl_phdr_info *info, struct ckt_text *t);

/* A new page within +-2 GiB of [lo, hi) (so that a rel32 reaches it) that
 * holds `jmp *0(%rip)` to `target`: tried at 1 MiB steps above, then below,
 * with MAP_FIXED_NOREPLACE. NULL when none is free. */
CKT_FN uint8_t *ckt_jump_page_near(uint64_t lo, uint64_t hi, const void *target);

/* Prepares the call at each entry of one module (absolute addresses of
 * function symbols, sorted; an endbr64 there is stepped over) and writes it
 * unless the patching waits for covkit trace attach; entries without 5
 * bytes of NOPs are left alone. Returns how many were left alone. */
CKT_FN uint32_t ckt_patch_entries(const struct ckt_text *t, const uint64_t *entries, uint32_t n);

#endif
