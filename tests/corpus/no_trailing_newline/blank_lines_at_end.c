#include <stdio.h>
extern int tail_fn(int);
void call_tail(void) { printf("%d\n", tail_fn(3)); }



