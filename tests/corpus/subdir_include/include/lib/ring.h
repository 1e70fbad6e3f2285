#ifndef RING_H
#define RING_H

struct ring { int buf[8]; unsigned head, tail; };

static inline int ring_empty(const struct ring *r) { return r->head == r->tail; }
static inline int ring_full(const struct ring *r) { return r->head - r->tail == 8; }

int ring_push(struct ring *r, int v);
int ring_pop(struct ring *r, int *out);

#endif
