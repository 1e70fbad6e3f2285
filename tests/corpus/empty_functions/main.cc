#include <cstdio>

void empty_global() {}
static void empty_static()
{
}
static void empty_multiline(int,
                            int)
{

}
struct E {
    E() {}
    ~E() {}
    void nothing() const {}
    virtual void v() {}
};
inline void empty_inline() {}
static void never_empty() {}
template <typename T> void empty_tmpl(T) {}

int main(int argc, char **)
{
    empty_global();
    empty_static();
    empty_multiline(1, 2);
    E e;
    e.nothing();
    e.v();
    empty_inline();
    if (argc > 5) never_empty();
    empty_tmpl(1);
    empty_tmpl(2.0);
    ;;;
    {}
    return 0;
}
