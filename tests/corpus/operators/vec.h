#ifndef VEC_H
#define VEC_H

struct Vec {
    int x, y;
    constexpr Vec(int a = 0, int b = 0) : x(a), y(b) {}
    Vec operator+(const Vec &o) const { return {x + o.x, y + o.y}; }
    Vec operator-() const { return {-x, -y}; }
    Vec &operator+=(const Vec &o) { x += o.x; y += o.y; return *this; }
    bool operator==(const Vec &o) const { return x == o.x && y == o.y; }
    bool operator!=(const Vec &o) const { return !(*this == o); }
    int operator[](int i) const { return i == 0 ? x : y; }
    Vec &operator++() { ++x; ++y; return *this; }
    Vec operator++(int) { Vec t = *this; ++*this; return t; }
    explicit operator bool() const { return x || y; }
    int operator()(int k) const { return x * k + y; }
};

Vec operator*(int k, const Vec &v);
int dot(const Vec &a, const Vec &b);

#endif
