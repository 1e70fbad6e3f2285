#ifndef SHAPES_H
#define SHAPES_H

struct Named {
    virtual ~Named() {}
    virtual const char *name() const = 0;
};

struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
    virtual int corners() const { return 0; }
};

struct Printable {
    virtual void print() const = 0;
    virtual ~Printable();
};

struct Square : Shape, Named, Printable {
    double s;
    explicit Square(double v) : s(v) {}
    double area() const override { return s * s; }
    int corners() const override { return 4; }
    const char *name() const override { return "square"; }
    void print() const override;
};

struct Circle final : Shape, Named {
    double r;
    explicit Circle(double v) : r(v) {}
    double area() const override { return 3.0 * r * r; }
    const char *name() const override { return "circle"; }
};

// diamond with virtual inheritance
struct Base { int b = 1; virtual int id() const { return b; } virtual ~Base() {} };
struct Left : virtual Base { int id() const override { return 10 + b; } };
struct Right : virtual Base { int r = 5; };
struct Diamond : Left, Right { int id() const override { return Left::id() + r; } };

Shape *make_shape(int kind);

#endif
