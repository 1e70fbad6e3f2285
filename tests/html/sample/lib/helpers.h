#ifndef HELPERS_H
#define HELPERS_H
int full_add(int a, int b);
int half_pick(int x);
int half_unused(int y);
#endif
