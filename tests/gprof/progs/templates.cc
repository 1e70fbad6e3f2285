// C++ with templates, a class hierarchy and a functor: mangled names that
// gprof demangles (with parameters), instantiations for several types.
#include <cstdio>
#include <vector>

namespace shapes {

template <typename T>
T accumulate_squares(const std::vector<T>& v) {
  T total{};
  for (const T& x : v) total += x * x;
  return total;
}

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};

struct Square : Shape {
  double side;
  explicit Square(double s) : side(s) {}
  double area() const override { return side * side; }
};

struct Circle : Shape {
  double r;
  explicit Circle(double radius) : r(radius) {}
  double area() const override { return 3.14159 * r * r; }
};

template <typename F>
double apply_all(const std::vector<Shape*>& shapes, F f) {
  double sum = 0;
  for (const Shape* s : shapes) sum += f(*s);
  return sum;
}

}  // namespace shapes

int main() {
  std::vector<int> ints;
  std::vector<double> doubles;
  for (int i = 0; i < 2000; i++) {
    ints.push_back(i % 100);
    doubles.push_back(i * 0.25);
  }
  long a = 0;
  double b = 0;
  for (int k = 0; k < 20; k++) {
    a += shapes::accumulate_squares(ints);
    b += shapes::accumulate_squares(doubles);
  }
  std::vector<shapes::Shape*> all;
  for (int i = 0; i < 50; i++) {
    if (i % 3)
      all.push_back(new shapes::Square(i));
    else
      all.push_back(new shapes::Circle(i));
  }
  double area = shapes::apply_all(all, [](const shapes::Shape& s) { return s.area(); });
  for (shapes::Shape* s : all) delete s;
  std::printf("%ld %g %g\n", a, b, area);
  return 0;
}
