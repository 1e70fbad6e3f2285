#ifndef REGISTRY_H
#define REGISTRY_H
#include <cstdio>

struct Registry {
    int entries[16];
    int n = 0;
    static Registry &instance()
    {
        static Registry r;     // function-local static: guarded init
        return r;
    }
    void add(int v) { if (n < 16) entries[n++] = v; }
};

struct AutoRegister {
    int v;
    explicit AutoRegister(int x) : v(x) { Registry::instance().add(x); }
    ~AutoRegister() { if (v == 99) std::printf("never\n"); }
};

int lazy_value(int);
#endif
