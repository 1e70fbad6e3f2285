#include <cstdio>

template <typename T, int N>
struct Vecn {
    T v[N];
    void fill(T x) { for (int i = 0; i < N; i++) v[i] = x + T(i); }
    T dot(const Vecn &o) const { T s = 0; for (int i = 0; i < N; i++) s += v[i] * o.v[i]; return s; }
    void axpy(T a, const Vecn &x) { for (int i = 0; i < N; i++) v[i] += a * x.v[i]; }
};

static inline int collatz_len(unsigned n)
{
    int len = 0;
    while (n != 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        len++;
    }
    return len;
}

int main(int argc, char **)
{
    Vecn<float, 256> a, b;
    Vecn<int, 100> c, d;
    a.fill(0.5f); b.fill(1.0f); c.fill(argc); d.fill(1);
    float fs = 0;
    for (int r = 0; r < 200; r++) { a.axpy(0.001f, b); fs += a.dot(b) * 1e-6f; }
    int is = c.dot(d);
    int longest = 0;
    for (unsigned n = 1; n < 3000u * argc; n++) { int l = collatz_len(n); if (l > longest) longest = l; }
    std::printf("%d %d %d\n", (int)fs, is, longest);
    return 0;
}
