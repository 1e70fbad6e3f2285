#include "registry.h"

static AutoRegister reg_main(10);
static int computed = [] { int s = 0; for (int i = 0; i < 5; i++) s += i; return s; }();
int global_with_ctor_call = lazy_value(1);

int main(int argc, char **)
{
    Registry &r = Registry::instance();
    int s = 0;
    for (int i = 0; i < r.n; i++)
        s += r.entries[i];
    std::printf("%d %d %d %d\n", s, computed, global_with_ctor_call, lazy_value(argc));
    return 0;
}
