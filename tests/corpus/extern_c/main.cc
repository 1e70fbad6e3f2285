#include <cstdio>
#include "cfuncs.h"

extern "C" int cxx_callback(int v)
{
    return v * 100;
}

extern "C" {
static int local_c_linkage(int v) { return v - 1; }
int exported_unused(void) { return 0; }
}

namespace ns {
int overloaded(int v) { return v; }
int overloaded(double v) { return (int)(v * 2); }
}

int main(int argc, char **)
{
    int s = c_add(argc, 2) + c_apply(local_c_linkage, argc) + c_apply(nullptr, 5);
    s += ns::overloaded(argc) + ns::overloaded(1.5);
    std::printf("%d\n", s);
    return 0;
}
