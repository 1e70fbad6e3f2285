#include <coroutine>
#include <cstdio>
#include <exception>
#include <utility>

template <typename T>
class Generator {
public:
    struct promise_type {
        T current{};
        Generator get_return_object() { return Generator(std::coroutine_handle<promise_type>::from_promise(*this)); }
        std::suspend_always initial_suspend() noexcept { return {}; }
        std::suspend_always final_suspend() noexcept { return {}; }
        std::suspend_always yield_value(T v) noexcept { current = v; return {}; }
        void return_void() noexcept {}
        void unhandled_exception() { std::terminate(); }
    };
    explicit Generator(std::coroutine_handle<promise_type> h) : h_(h) {}
    Generator(Generator &&o) noexcept : h_(std::exchange(o.h_, {})) {}
    Generator(const Generator &) = delete;
    ~Generator() { if (h_) h_.destroy(); }
    bool next()
    {
        if (!h_ || h_.done())
            return false;
        h_.resume();
        return !h_.done();
    }
    T value() const { return h_.promise().current; }
private:
    std::coroutine_handle<promise_type> h_;
};

static Generator<int> range(int from, int to, int step)
{
    for (int i = from; i < to; i += step)
        co_yield i;
}

static Generator<long> fib(int n)
{
    long a = 0, b = 1;
    while (n-- > 0) {
        co_yield a;
        long t = a + b;
        a = b;
        b = t;
    }
}

static Generator<int> filtered(int limit)
{
    auto g = range(0, limit, 1);
    while (g.next())
        if (g.value() % 3 == 0) co_yield g.value();
}

int main(int argc, char **)
{
    long s = 0;
    auto r = range(0, 10 * argc, 3);
    while (r.next()) s += r.value();
    auto f = fib(10 + argc);
    while (f.next()) s += f.value();
    auto g = filtered(20);
    for (int k = 0; k < 3 && g.next(); k++) s += g.value();   // abandoned before completion
    std::printf("%ld\n", s);
    return 0;
}
