#include <cstdio>

template <typename T> class Box { T v; public: Box(T x) : v(x) {} T get() const { return v; } void set(T x) { v = x; } bool zero() const { return v == T(); } Box operator+(const Box &o) const { return Box(v + o.v); } };

template <typename K, typename V> struct Pair { K k; V v; Pair(K a, V b) : k(a), v(b) {} bool less(const Pair &o) const { return k < o.k || (!(o.k < k) && v < o.v); } };

template <int N> struct Fact { static constexpr long value = N * Fact<N - 1>::value; static long get() { return value; } };
template <> struct Fact<0> { static constexpr long value = 1; static long get() { return 1; } };

template <typename T> T twice(T x) { return x + x; }

int main(int argc, char **)
{
    Box<int> bi(argc); Box<double> bd(1.5); Box<char> bc('a');
    bi.set(bi.get() + 1);
    Box<int> s = bi + Box<int>(2);
    Pair<int, int> p1(1, argc), p2(1, 2);
    Pair<double, char> p3(0.5, 'x'), p4(0.25, 'y');
    long f = Fact<5>::get() + Fact<0>::get();
    std::printf("%d %.1f %c %d %d %d %ld %d %.1f\n", s.get(), bd.get(), bc.get(), (int)bi.zero(), (int)p1.less(p2),
                (int)p3.less(p4), f, twice(argc), twice(0.5));
    return 0;
}
