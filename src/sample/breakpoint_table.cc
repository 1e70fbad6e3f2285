#include "sample/breakpoint_table.h"

#include <algorithm>

namespace covkit::sample {

bool BreakpointTable::add(uint64_t address, uint8_t original, bool planned, bool persistent) {
  return sites_.try_emplace(address, PlantedSite{original, true, planned, persistent}).second;
}

PlantedSite* BreakpointTable::find(uint64_t address) {
  auto it = sites_.find(address);
  return it == sites_.end() ? nullptr : &it->second;
}

const PlantedSite* BreakpointTable::find(uint64_t address) const {
  auto it = sites_.find(address);
  return it == sites_.end() ? nullptr : &it->second;
}

std::optional<uint8_t> BreakpointTable::disarm(uint64_t address) {
  PlantedSite* s = find(address);
  if (!s || !s->armed || s->persistent) return std::nullopt;
  s->armed = false;
  return s->original;
}

std::vector<std::pair<uint64_t, uint8_t>> BreakpointTable::disarm_all() {
  std::vector<std::pair<uint64_t, uint8_t>> out;
  for (auto& [address, site] : sites_) {
    if (!site.armed) continue;
    site.armed = false;
    out.emplace_back(address, site.original);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void BreakpointTable::forget(uint64_t start, uint64_t end) {
  std::erase_if(sites_, [&](const auto& entry) { return entry.first >= start && entry.first < end; });
}

size_t BreakpointTable::armed() const {
  return size_t(std::count_if(sites_.begin(), sites_.end(), [](const auto& e) { return e.second.armed; }));
}

}  // namespace covkit::sample
