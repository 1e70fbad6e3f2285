#pragma once
// gprof sorts with qsort, which glibc implements as a merge sort that takes
// from the left run whenever cmp(left, right) <= 0. Some of gprof's
// comparators are not consistent (two cycles of equal time each claim to be
// first), so only the same merge gives the same order: this is it.
#include <cstddef>
#include <vector>

namespace covkit::trace {

// Sorts `v` as glibc's qsort does with the three-way comparator `cmp`.
template <typename T, typename Cmp>
void glibc_merge_sort(std::vector<T>& v, Cmp cmp) {
  std::vector<T> tmp(v.size());
  auto sort = [&](auto& self, size_t lo, size_t n) -> void {
    if (n <= 1) return;
    size_t n1 = n / 2, n2 = n - n1;
    self(self, lo, n1);
    self(self, lo + n1, n2);
    size_t a = lo, b = lo + n1, out = 0;
    while (n1 > 0 && n2 > 0) {
      if (cmp(v[a], v[b]) <= 0) {
        tmp[out++] = v[a++];
        --n1;
      } else {
        tmp[out++] = v[b++];
        --n2;
      }
    }
    while (n1 > 0) {
      tmp[out++] = v[a++];
      --n1;
    }
    for (size_t i = 0; i < out; ++i) v[lo + i] = tmp[i];
  };
  sort(sort, 0, v.size());
}

}  // namespace covkit::trace
