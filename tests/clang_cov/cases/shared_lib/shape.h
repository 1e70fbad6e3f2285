#ifndef SHAPE_H
#define SHAPE_H
/* Inline in a header: each module has its own copy (and record). */
static inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
int area(const char *kind, int side);
#endif
