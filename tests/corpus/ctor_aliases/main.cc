#include <cstdio>

// C1/C2 (complete/base object) constructors and D0/D1/D2 destructors.
struct Plain {
    int v;
    Plain(int x) : v(x) { if (x < 0) v = 0; }
    ~Plain() { v = -1; }
};

struct VBase {
    int tag;
    VBase() : tag(7) {}
    virtual ~VBase() {}
};

// virtual base: the complete-object and base-object constructors differ
struct Mid : virtual VBase {
    int m;
    Mid(int x) : m(x)
    {
        if (x > 3)
            m = 3;
    }
    ~Mid() override { m = 0; }
};

struct Leaf : Mid {
    Leaf(int x) : VBase(), Mid(x + 1) {}
    ~Leaf() override {}
};

struct Delegating {
    int a, b;
    Delegating() : Delegating(1, 2) {}
    Delegating(int x, int y) : a(x), b(y) {}
    Delegating(const Delegating &o) : a(o.a + 1), b(o.b) {}
    Delegating &operator=(const Delegating &o) { a = o.a; b = o.b + 1; return *this; }
};

int main(int argc, char **)
{
    Plain p(argc), q(-argc);
    Mid m(argc);
    Leaf l(argc + 3);
    VBase *dyn = new Leaf(argc);
    delete dyn;                       // deleting destructor (D0)
    Delegating d, e(d);
    d = e;
    std::printf("%d %d %d %d %d %d\n", p.v, q.v, m.m, l.m, d.a, e.b);
    return 0;
}
