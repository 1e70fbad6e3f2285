#include "vec.h"

Vec operator*(int k, const Vec &v)
{
    return {k * v.x, k * v.y};
}

int dot(const Vec &a, const Vec &b) { return a.x * b.x + a.y * b.y; }
