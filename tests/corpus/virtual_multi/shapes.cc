#include <cstdio>
#include "shapes.h"

Printable::~Printable() {}

void Square::print() const { std::printf("square %.1f\n", s); }

Shape *make_shape(int kind)
{
    switch (kind % 3) {
    case 0: return new Square(kind);
    case 1: return new Circle(kind);
    default: return nullptr;
    }
}
