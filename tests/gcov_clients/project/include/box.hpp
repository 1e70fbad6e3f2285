#pragma once
#include <stdexcept>
#include <vector>

// A template instantiated for two types, in a header.
template <typename T>
class Box {
 public:
  void put(T v) {
    if (items_.size() >= 4) throw std::length_error("full");
    items_.push_back(v);
  }
  T sum() const {
    T s{};
    for (const T& v : items_) s += v;
    return s;
  }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<T> items_;
};

int fill_boxes(int n);
