#include <cstdio>
#include "vec.h"

struct Matrix {
    int m[2][2];
    struct Row { int *r; int &operator[](int j) { return r[j]; } };
    Row operator[](int i) { return Row{m[i]}; }
};

int main(int argc, char **)
{
    Vec a(1, argc), b(3, 4);
    Vec c = a + b;
    c += -a;
    Vec d = 2 * c;
    Vec e = d++;
    ++e;
    Matrix mat{{{1, 2}, {3, 4}}};
    mat[1][0] = argc;
    int flags = (a == b) + (a != b) * 2 + (bool(Vec()) ? 4 : 0) + (bool(a) ? 8 : 0);
    std::printf("%d %d %d %d %d %d\n", c[0], c[1], d(argc), dot(e, b), flags, mat[1][0] + mat[0][1]);
    return 0;
}
