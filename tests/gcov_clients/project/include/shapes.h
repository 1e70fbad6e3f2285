#pragma once
#ifdef __cplusplus
extern "C" {
#endif
enum shape { SQUARE, CIRCLE, TRIANGLE, HEXAGON };
double area(enum shape s, double size);
int classify(int n);
/* In a header: every object that calls it has its own copy. */
static inline int clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
#ifdef __cplusplus
}
#endif
