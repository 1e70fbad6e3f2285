#include <cstdio>
#include <stdexcept>
#include <string>

struct ParseError : std::runtime_error {
    int pos;
    ParseError(const std::string &m, int p) : std::runtime_error(m), pos(p) {}
};

static int digit(char c, int pos)
{
    if (c < '0' || c > '9') throw ParseError("bad digit", pos);
    return c - '0';
}

static int number(const char *s)
{
    int v = 0;
    for (int i = 0; s[i]; i++) v = v * 10 + digit(s[i], i);
    return v;
}

static int parse_or_rethrow(const char *s)
{
    try {
        return number(s);
    } catch (const ParseError &e) {
        if (e.pos == 0) throw;                          // rethrow the same object
        throw std::out_of_range("wrapped: " + std::string(e.what()));
    }
}

struct Resource {
    static int live;
    int id;
    explicit Resource(int i) : id(i)
    {
        if (i < 0) throw std::invalid_argument("negative id");
        ++live;
    }
    ~Resource() { --live; }
};
int Resource::live = 0;

struct Holder {
    Resource a, b;
    Holder(int x, int y) try : a(x), b(y) {
        std::printf("holder ok\n");
    } catch (const std::exception &) {
        std::printf("holder ctor failed, live=%d\n", Resource::live);
        // implicitly rethrown at the end of a constructor function-try-block
    }
};

static int never_throws(int x) noexcept { return x * 2; }

static int func_try(int x)
try {
    if (x == 3) throw 42;
    return x;
} catch (int v) {
    return -v;
}

int main(int argc, char **argv)
{
    const char *inputs[] = {"123", "x1", "1x", "", "99"};
    int total = 0;
    for (const char *in : inputs) {
        try {
            total += parse_or_rethrow(in);
        } catch (const ParseError &e) {
            total += 1000;
        } catch (const std::exception &e) {
            total += 10000;
        }
    }
    for (int i = -1; i < 2; i++) {
        try {
            Holder h(i, i - 1 + argc);
            total += h.a.id + h.b.id;
        } catch (...) {
            total += 7;
        }
    }
    total += never_throws(argc) + func_try(argc) + func_try(3);
    if (argc > 2) {
        try { throw std::string(argv[1]); } catch (std::string &s) { total += (int)s.size(); }
    }
    std::printf("%d live=%d\n", total, Resource::live);
    return 0;
}
