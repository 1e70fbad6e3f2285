#include "registry.h"

static AutoRegister reg_a1(1);
static AutoRegister reg_a2(2);

namespace {
struct Tracer {
    const char *tag;
    explicit Tracer(const char *t) : tag(t) { std::printf("ctor %s\n", tag); }
    ~Tracer() { std::printf("dtor %s\n", tag); }
};
Tracer tracer_a("a");
}

int lazy_value(int x)
{
    static int cached = x * 100;     // dynamic init on first call only
    static Tracer t("lazy");
    return cached + x;
}
