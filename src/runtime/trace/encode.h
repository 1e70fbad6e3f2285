/* Event encoding of the thread streams (docs/trace-format.md, "Thread stream";
 * the codes are in trace_contract.h). */
#ifndef CKT_ENCODE_H
#define CKT_ENCODE_H

#include "ckt_base.h"
#include "trace_contract.h"

/* Longest event the hot path writes in one go (a `define`: 1 + 9 + 1 + 3 + 8). */
#define CKT_MAX_EVENT 32

CKT_INLINE uint8_t *ckt_put_varint(uint8_t *p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *p++ = (uint8_t)v;
  return p;
}

/* Lead byte: kind (bits 0-1), more (bit 2), low 5 bits of the delta (3-7). */
CKT_INLINE uint8_t *ckt_put_lead(uint8_t *p, unsigned kind, uint64_t delta) {
  if (CKT_LIKELY(delta < 32)) {
    *p++ = (uint8_t)(kind | (delta << 3));
    return p;
  }
  *p++ = (uint8_t)(kind | 4 | ((delta & 31) << 3));
  return ckt_put_varint(p, delta >> 5);
}

CKT_INLINE uint8_t *ckt_put_u64le(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) *p++ = (uint8_t)(v >> (8 * i));
  return p;
}

#endif
