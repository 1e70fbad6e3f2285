// geo::Circle::area() is a member defined in its class: a weak COMDAT
// function in a section of its own. The linker puts it right after this
// object's .text, whose last function, set(), ends in a tail call out of
// an inlined std::string member (a row of basic_string.h at its very end).
// GCC emits area's line sequence before .text's, so at area's address one
// sequence ends and the other starts; gprof files area under comdat.cc.
// PAD (a number of NOPs in set()) moves .text's end onto area's start.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace geo {

struct Shape {
  explicit Shape(const char* n);
  virtual ~Shape();
  virtual double area() const = 0;
  std::string name;
};

struct Circle : Shape {
  explicit Circle(double r) : Shape("circle"), r(r) {}
  __attribute__((noinline)) double area() const override {
    double a = 0;
    for (int i = 1; i < 3000; ++i) a += r * r * M_PI / i;
    return a;
  }
  double r;
};

}  // namespace geo

static double spin(int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += i * 0.5;
  return s;
}

void set(std::string& s, const char* c);

int main(int argc, char**) {
  std::vector<std::unique_ptr<geo::Shape>> v;
  for (int i = 0; i < 10; ++i) v.push_back(std::make_unique<geo::Circle>(i + argc));
  double t = 0;
  for (int r = 0; r < 2000; ++r)
    for (const auto& s : v) t += s->area() + spin(3000);
  set(v[0]->name, "done");
  std::printf("%g %s\n", t, v[0]->name.c_str());
}

geo::Shape::Shape(const char* n) : name(n) {}
geo::Shape::~Shape() {}

void set(std::string& s, const char* c) {
  asm volatile(".rept " PAD "\n nop\n .endr");
  s.assign(c);
}
