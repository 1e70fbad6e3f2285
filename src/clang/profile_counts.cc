#include "clang/profile_counts.h"

#include <algorithm>
#include <limits>

namespace covkit::clang {

ProfileCounts::Added ProfileCounts::add(std::string_view name, uint64_t hash, std::span<const uint64_t> counts) {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) it = by_name_.try_emplace(std::string(name)).first;
  for (Entry& e : it->second) {
    if (e.hash != hash) continue;
    if (e.counts.size() != counts.size()) return Added::kCountMismatch;
    bool overflow = false;
    for (size_t i = 0; i < counts.size(); ++i) {
      uint64_t sum;
      if (__builtin_add_overflow(e.counts[i], counts[i], &sum)) {
        sum = std::numeric_limits<uint64_t>::max();
        overflow = true;
      }
      e.counts[i] = sum;
    }
    return overflow ? Added::kOverflow : Added::kMerged;
  }
  it->second.push_back(Entry{hash, std::vector<uint64_t>(counts.begin(), counts.end())});
  ++functions_;
  return Added::kNew;
}

ProfileCounts::Lookup ProfileCounts::find(std::string_view name, uint64_t hash) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return {};
  for (const Entry& e : it->second)
    if (e.hash == hash) return {Found::kCounts, &e.counts};
  return {Found::kHashMismatch, nullptr};
}

std::vector<std::string_view> ProfileCounts::names() const {
  std::vector<std::string_view> out;
  out.reserve(by_name_.size());
  for (const auto& [name, entries] : by_name_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<ProfileCounts::Entry>* ProfileCounts::entries(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

}  // namespace covkit::clang
