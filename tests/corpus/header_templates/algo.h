#ifndef ALGO_H
#define ALGO_H

template <typename T>
T clamp_to(T v, T lo, T hi)
{
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

template <typename T, int N>
struct Stack {
    T data[N];
    int top = 0;
    bool push(T v) { if (top == N) return false; data[top++] = v; return true; }
    bool pop(T &out)
    {
        if (top == 0)
            return false;
        out = data[--top];
        return true;
    }
    int size() const { return top; }
};

inline int shared_inline(int x)
{
    int r = 0;
    for (int i = 0; i < x; i++)
        r += i & 3;
    return r;
}

template <typename T>
T sum_all(const T *p, int n) { T s{}; for (int i = 0; i < n; i++) s += p[i]; return s; }

int tu_a(int);
double tu_b(double);
long tu_c(long);

#endif
