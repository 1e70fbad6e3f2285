#include <cstdio>
#include "algo.h"

long tu_c(long x) { long a[2] = {x, x}; return sum_all(a, 2) + clamp_to<long>(x, 10, 20); }

int main(int argc, char **)
{
    std::printf("%d %.2f %ld\n", tu_a(argc + 2), tu_b(argc * 0.5), tu_c(argc * 7));
    std::printf("%d\n", clamp_to(argc, 2, 3));
    return 0;
}
