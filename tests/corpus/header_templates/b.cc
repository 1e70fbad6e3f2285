#include "algo.h"

double tu_b(double x)
{
    Stack<double, 2> s;
    s.push(x);
    s.push(x * 2);
    s.push(x * 3);      // overflow: returns false
    double arr[3] = {x, 1.5, 2.5};
    return clamp_to(x, -1.0, 1.0) + sum_all(arr, 3) + s.size() + shared_inline(2);
}
