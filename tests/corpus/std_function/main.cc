#include <cstdio>
#include <functional>

struct Counter {
    int n = 0;
    int operator()(int x) { n += x; return n; }
    int add(int x) const { return n + x; }
};

static int free_fn(int x) { return x - 1; }

static std::function<int(int)> make_adder(int k)
{
    if (k < 0)
        return nullptr;
    return [k](int x) { return x + k; };
}

static int call_all(const std::function<int(int)> *fs, int n, int arg)
{
    int s = 0;
    for (int i = 0; i < n; i++) {
        if (fs[i]) s += fs[i](arg);
        else s -= 100;
    }
    return s;
}

int main(int argc, char **)
{
    Counter c;
    std::function<int(int)> fs[5] = {free_fn, make_adder(argc), make_adder(-1), std::ref(c), std::bind(&Counter::add, &c, std::placeholders::_1)};
    int s = call_all(fs, 5, 10) + call_all(fs, 2, argc);
    std::function<int(int)> rec = [&rec](int n) { return n <= 0 ? 0 : n + rec(n - 1); };
    s += rec(argc + 4);
    try {
        std::function<void()> empty;
        empty();
    } catch (const std::bad_function_call &) {
        s += 1000;
    }
    std::printf("%d %d\n", s, c.n);
    return 0;
}
