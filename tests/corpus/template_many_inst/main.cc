#include <cstdio>

template <typename T> T add3(T a, T b, T c) { return a + b + c; }

template <typename T>
int classify(T v)
{
    if (v < T(0))
        return -1;
    else if (v == T(0))
        return 0;
    return 1;
}

template <int N> int unroll(int x) { return N > 0 ? unroll<(N > 0 ? N - 1 : 0)>(x) + x : 0; }

template <typename T> struct Tag { static int id() { return sizeof(T); } };

int main(int argc, char **)
{
    int s = 0;
    s += add3<int>(1, 2, argc) + (int)add3<long>(1, 2, 3) + (int)add3<short>(1, 1, 1) + (int)add3<double>(0.5, 0.5, 1.0);
    s += (int)add3<unsigned>(1u, 2u, 3u) + (int)add3<char>(1, 2, 3) + (int)add3<float>(1.f, 1.f, 1.f);
    s += classify(argc) + classify(-1L) + classify(0.0) + classify('a') + classify(0u) + classify(-2.5f);
    s += unroll<4>(argc);
    s += Tag<char>::id() + Tag<int>::id() + Tag<double>::id() + Tag<Tag<int>>::id();
    std::printf("%d\n", s);
    return 0;
}
