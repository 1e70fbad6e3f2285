#include "../include/lib/ring.h"

int ring_push(struct ring *r, int v)
{
	if (ring_full(r))
		return -1;
	r->buf[r->head++ % 8] = v;
	return 0;
}

int ring_pop(struct ring *r, int *out)
{
	if (ring_empty(r))
		return -1;
	*out = r->buf[r->tail++ % 8];
	return 0;
}
