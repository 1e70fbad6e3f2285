#include "box.hpp"

int fill_boxes(int n) {
  Box<int> ints;
  Box<double> doubles;
  int thrown = 0;
  for (int i = 0; i < n; i++) {
    try {
      ints.put(i);
      doubles.put(i * 0.5);
    } catch (const std::length_error&) {
      thrown++;
    }
  }
  return ints.sum() + int(doubles.sum()) + thrown + (ints.empty() ? 100 : 0);
}
