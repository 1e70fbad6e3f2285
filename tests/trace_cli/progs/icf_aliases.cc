// Two virtual functions with the same code: GCC's identical code folding
// (-fipa-icf, on at -O2) keeps one body, and the other's symbol becomes an
// alias at the same address (leveldb's EmptyIterator::SeekToFirst and
// SeekToLast). The body is the first's, by the debug information.
#include <cstdio>
struct Iter {
  virtual ~Iter() = default;
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
};
namespace {
struct Empty : Iter {
  void SeekToFirst() override {}
  void SeekToLast() override {}
};
}  // namespace
Iter* make();
Iter* make() { return new Empty; }
int main(int argc, char**) {
  Iter* it = make();
  for (int i = 0; i < 3 * argc; ++i) it->SeekToFirst();
  for (int i = 0; i < 5 * argc; ++i) it->SeekToLast();
  delete it;
  std::puts("ok");
  return 0;
}
