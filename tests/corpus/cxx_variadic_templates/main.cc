#include <cstdio>
#include <tuple>
#include <utility>

template <typename... Ts> int count(Ts...) { return sizeof...(Ts); }

template <typename T> T sum(T v) { return v; }
template <typename T, typename... Rest> T sum(T first, Rest... rest) { return first + sum<T>(rest...); }

template <typename... Ts> auto fold_mul(Ts... xs) { return (xs * ... * 1); }

template <typename... Ts>
void print_all(const Ts &...xs)
{
    int i = 0;
    ((std::printf("%d:%d ", i++, (int)xs)), ...);
    std::printf("\n");
}

template <typename Tuple, std::size_t... I>
int tuple_sum(const Tuple &t, std::index_sequence<I...>) { return (0 + ... + (int)std::get<I>(t)); }

int main(int argc, char **)
{
    int s = count() + count(1, 2.0, 'c') + sum(1, 2, 3, argc) + (int)sum(1.5, 2.5) + fold_mul(2, 3, argc);
    print_all(argc, 2.5, 'x');
    auto t = std::make_tuple(1, 2L, 3.0f, argc);
    s += tuple_sum(t, std::make_index_sequence<4>{});
    std::printf("%d\n", s);
    return 0;
}
