#include <cstdio>
#include "point.h"

int right_side(int n)
{
    Point p(n, 3);
    Point q = p.mirrored();
    return q.manhattan() + Point().origin();
}

int main(int argc, char **)
{
    std::printf("%d %d\n", left_side(argc), right_side(argc));
    return 0;
}
