#include <cstdio>

namespace {
int hidden_counter = 0;
int bump() { return ++hidden_counter; }
struct Local {
    static int made;
    static Local create() { ++made; return Local(); }
    int id() const { return made; }
};
int Local::made = 0;
namespace deeper { int depth() { return 2; } }
}

namespace outer {
namespace {
int unreachable_anon() { return -1; }
}
struct Util {
    static int twice(int x) { return 2 * x; }
    static int hidden(int x);
    static constexpr int K = 3;
};
int Util::hidden(int x) { return x > K ? unreachable_anon() : x; }
inline namespace v2 { int version() { return 2; } }
}

static int file_static(int x) { return x + bump(); }

int main(int argc, char **)
{
    Local l = Local::create();
    Local::create();
    int s = l.id() + deeper::depth() + outer::Util::twice(argc) + outer::Util::hidden(argc) + outer::version();
    s += file_static(argc) + file_static(1);
    std::printf("%d %d\n", s, hidden_counter);
    return 0;
}
