#include "sample/fde_functions.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace covkit::sample {

std::string unnamed_function_name(uint64_t vaddr) { return fmt::format("fn_{:x}", vaddr); }

namespace {

// Whether [start, end) overlaps a range of `taken` (begin -> end, disjoint).
bool overlaps(const std::map<uint64_t, uint64_t>& taken, uint64_t start, uint64_t end) {
  auto it = taken.lower_bound(end);  // first range beginning at or after `end`: no overlap
  if (it == taken.begin()) return false;
  --it;
  return it->second > start;
}

}  // namespace

std::vector<FunctionSymbol> add_fde_functions(std::vector<FunctionSymbol> symbols,
                                              std::span<const format::FdeRange> fdes,
                                              std::span<const std::pair<uint64_t, uint64_t>> excluded,
                                              size_t* added) {
  // Symbols may overlap each other (aliases, nested local labels): they
  // are kept as read; only the FDEs must keep clear of them.
  std::map<uint64_t, uint64_t> symbol_ranges, taken;
  for (const FunctionSymbol& s : symbols) {
    uint64_t& end = symbol_ranges[s.address];
    end = std::max(end, s.address + s.size);
  }
  // Merge the symbols' ranges into a disjoint set to test overlap against.
  for (auto& [begin, end] : symbol_ranges) {
    if (!taken.empty() && std::prev(taken.end())->second >= begin) {
      auto& last = std::prev(taken.end())->second;
      last = std::max(last, end);
    } else {
      taken[begin] = end;
    }
  }
  size_t count = 0;
  for (const format::FdeRange& f : fdes) {
    uint64_t end = f.start + f.size;
    if (f.size == 0 || end < f.start || overlaps(taken, f.start, end)) continue;
    auto in_excluded = [&](const auto& x) { return x.first < end && f.start < x.second; };
    if (std::any_of(excluded.begin(), excluded.end(), in_excluded)) continue;
    taken[f.start] = end;
    symbols.push_back({unnamed_function_name(f.start), f.start, f.size});
    ++count;
  }
  std::stable_sort(symbols.begin(), symbols.end(),
                   [](const FunctionSymbol& a, const FunctionSymbol& b) { return a.address < b.address; });
  if (added) *added = count;
  return symbols;
}

}  // namespace covkit::sample
