#include "point.h"

int left_side(int n)
{
    Point p(n, -n);
    p.scale(2);
    return p.manhattan() + p.origin();
}
