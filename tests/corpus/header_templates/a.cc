#include "algo.h"

int tu_a(int x)
{
    Stack<int, 4> s;
    for (int i = 0; i < x; i++)
        s.push(i);
    int v = 0, acc = 0;
    while (s.pop(v))
        acc += v;
    return clamp_to(acc, 0, 5) + shared_inline(x);
}
