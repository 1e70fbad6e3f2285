#ifndef POINT_H
#define POINT_H

struct Point {
    int x = 0, y = 0;
    Point() = default;
    Point(int a, int b) : x(a), y(b) {}
    int manhattan() const { return (x < 0 ? -x : x) + (y < 0 ? -y : y); }
    void scale(int k)
    {
        x *= k;
        y *= k;
    }
    bool origin() const { return x == 0 && y == 0; }
    Point mirrored() const;
};

inline Point Point::mirrored() const { return Point(-x, -y); }

int left_side(int);
int right_side(int);

#endif
