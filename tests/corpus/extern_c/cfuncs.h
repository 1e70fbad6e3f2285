#ifndef CFUNCS_H
#define CFUNCS_H
#ifdef __cplusplus
extern "C" {
#endif

int c_add(int a, int b);
int c_apply(int (*cb)(int), int v);
int cxx_callback(int v);  /* implemented in C++ with C linkage */

#ifdef __cplusplus
}
#endif
#endif
