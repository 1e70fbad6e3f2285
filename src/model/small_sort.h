// A stable sort for the short ranges the model sorts most (a block's arcs,
// a line's blocks): by insertion up to 32 elements, which allocates nothing
// (std::stable_sort takes a buffer from the heap every call), and
// std::stable_sort above, where insertion is quadratic (a crafted notes
// file can give one block 100,000 successors).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

namespace covkit::model {

template <typename T, typename Less>
void small_stable_sort(std::span<T> items, Less less) {
  if (items.size() > 32) {
    std::stable_sort(items.begin(), items.end(), less);
    return;
  }
  for (size_t i = 1; i < items.size(); ++i) {
    const T x = items[i];
    size_t j = i;
    for (; j > 0 && less(x, items[j - 1]); --j) items[j] = items[j - 1];
    items[j] = x;
  }
}

}  // namespace covkit::model
