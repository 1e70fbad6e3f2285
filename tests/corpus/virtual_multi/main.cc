#include <cstdio>
#include "shapes.h"

static double total_area(Shape **v, int n)
{
    double t = 0;
    for (int i = 0; i < n; i++)
        if (v[i]) t += v[i]->area() + v[i]->corners();
    return t;
}

int main(int argc, char **)
{
    Shape *v[6];
    for (int i = 0; i < 6; i++) v[i] = make_shape(i + argc);
    double t = total_area(v, 6);
    for (int i = 0; i < 6; i++) {
        if (Named *n = dynamic_cast<Named *>(v[i])) std::printf("%s\n", n->name());
        if (Printable *p = dynamic_cast<Printable *>(v[i])) p->print();   // cross-cast through the second base
        delete v[i];
    }
    Diamond d;
    Base &b = d;
    Left &l = d;
    std::printf("%.1f %d %d\n", t, b.id(), l.id());
    return 0;
}
