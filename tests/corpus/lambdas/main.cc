#include <cstdio>

template <typename F>
static int apply_n(F f, int n) { int s = 0; for (int i = 0; i < n; i++) s += f(i); return s; }

int main(int argc, char **)
{
    int base = argc * 10;
    auto add = [base](int x) { return base + x; };
    auto generic = [](auto a, auto b) { return a < b ? b : a; };
    int counter = 0;
    auto bump = [&counter](int by) mutable { counter += by; return counter; };
    const int iife = [&] {
        int r = 0;
        for (int i = 0; i < argc; i++)
            r += i;
        return r;
    }();
    auto never = [](int q) { return q * q * q; };
    (void)never;
    auto nested = [](int x) { auto inner = [x](int y) { return x * y; }; return inner(x + 1); };
    auto fact = [](auto self, int n) -> int { return n <= 1 ? 1 : n * self(self, n - 1); };
    int s = apply_n(add, 3) + apply_n([](int i) { return i * i; }, argc + 1);
    s += generic(3, argc) + (int)generic(2.5, 1.0) + bump(2) + bump(3) + iife + nested(argc) + fact(fact, 5);
    std::printf("%d %d\n", s, counter);
    return 0;
}
