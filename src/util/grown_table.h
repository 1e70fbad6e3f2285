#pragma once
// The slow path of a table indexed by small integers whose data pointer
// and size a hot loop keeps in locals (in registers, where the vector's own
// members would be reloaded after every store into the table): grows the
// table to hold index `at`, by doubling, and hands back its new data and
// size for the loop to take.
#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace covkit::util {

template <class T>
[[gnu::noinline]] std::pair<T*, size_t> grown_table(std::vector<T>& table, size_t at) {
  table.resize(std::max<size_t>({at + 1, table.size() * 2, 64}));
  return {table.data(), table.size()};
}

}  // namespace covkit::util
