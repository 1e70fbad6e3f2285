#include <compare>
#include <concepts>
#include <cstdio>

template <typename T>
concept Number = std::integral<T> || std::floating_point<T>;

template <Number T>
constexpr T absval(T v) { return v < 0 ? -v : v; }

template <typename T>
int kind(T v)
{
    if constexpr (std::integral<T>) {
        return v % 2 ? 1 : 2;
    } else {
        return v > 0 ? 3 : 4;
    }
}

struct Pt { int x, y; auto operator<=>(const Pt &) const = default; };

consteval int compile_time(int n) { return n * n; }

static int hot(int x)
{
    if (x > 0) [[likely]] {
        return x;
    } else [[unlikely]] {
        return -x;
    }
}

int main(int argc, char **)
{
    Pt a{1, argc}, b{1, 2};
    auto [px, py] = a;
    int arr[] = {3, 1, 4, 1, 5};
    int s = 0;
    for (int i = 0; int v : arr) s += v * i++;
    s += kind(argc) + kind(2.5) + kind(-1.0) + (int)absval(-3.5) + absval(-argc) + compile_time(4);
    s += (a < b) + (a == b) * 2 + (a > b) * 4 + px + py + hot(argc) + hot(-argc);
    std::printf("%d\n", s);
    return 0;
}
