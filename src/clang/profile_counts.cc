#include "clang/profile_counts.h"

#include <algorithm>
#include <limits>

#include "clang/profile_names.h"

namespace covkit::clang {

uint32_t ProfileCounts::index_of(std::string_view name, uint64_t name_ref) const {
  auto it = by_ref_.find(name_ref);
  if (it == by_ref_.end()) return kNone;
  for (uint32_t i = it->second; i != kNone; i = named_[i].next)
    if (named_[i].name == name) return i;
  return kNone;
}

ProfileCounts::Added ProfileCounts::add(std::string_view name, uint64_t hash, std::span<const uint64_t> counts) {
  return add(name, name_ref(name), hash, counts);
}

ProfileCounts::Added ProfileCounts::add(std::string_view name, uint64_t ref, uint64_t hash,
                                        std::span<const uint64_t> counts) {
  Slot at;
  return add(name, ref, hash, counts, at);
}

namespace {

// llvm-profdata merge's sum, saturating.
ProfileCounts::Added merge_into(std::vector<uint64_t>& into, std::span<const uint64_t> counts) {
  if (into.size() != counts.size()) return ProfileCounts::Added::kCountMismatch;
  bool overflow = false;
  for (size_t i = 0; i < counts.size(); ++i) {
    uint64_t sum;
    if (__builtin_add_overflow(into[i], counts[i], &sum)) {
      sum = std::numeric_limits<uint64_t>::max();
      overflow = true;
    }
    into[i] = sum;
  }
  return overflow ? ProfileCounts::Added::kOverflow : ProfileCounts::Added::kMerged;
}

}  // namespace

ProfileCounts::Added ProfileCounts::add_at(Slot at, std::span<const uint64_t> counts) {
  return merge_into(named_[at.named].entries[at.entry].counts, counts);
}

ProfileCounts::Added ProfileCounts::add(std::string_view name, uint64_t ref, uint64_t hash,
                                        std::span<const uint64_t> counts, Slot& slot) {
  uint32_t at = index_of(name, ref);
  if (at == kNone) {
    at = uint32_t(named_.size());
    auto [it, fresh] = by_ref_.try_emplace(ref, at);
    Named n;
    n.name = std::string(name);
    if (!fresh) {  // another name with this NameRef: chained after the first
      n.next = it->second;
      it->second = at;
    }
    named_.push_back(std::move(n));
  }
  std::vector<Entry>& entries = named_[at].entries;
  slot.named = at;
  for (size_t e = 0; e < entries.size(); ++e) {
    if (entries[e].hash != hash) continue;
    slot.entry = uint32_t(e);
    return merge_into(entries[e].counts, counts);
  }
  slot.entry = uint32_t(entries.size());
  entries.push_back(Entry{hash, std::vector<uint64_t>(counts.begin(), counts.end())});
  ++functions_;
  return Added::kNew;
}

ProfileCounts::Lookup ProfileCounts::find(std::string_view name, uint64_t hash, MismatchRule rule) const {
  return find(name, name_ref(name), hash, rule);
}

ProfileCounts::Lookup ProfileCounts::find(std::string_view name, uint64_t ref, uint64_t hash,
                                          MismatchRule rule) const {
  const uint32_t at = index_of(name, ref);
  if (at == kNone) return {};
  constexpr uint64_t kContextFlag = 1ull << 60;
  bool same_flag = false;
  for (const Entry& e : named_[at].entries) {
    if (e.hash == hash) return {Found::kCounts, &e.counts};
    same_flag |= (e.hash & kContextFlag) == (hash & kContextFlag);
  }
  if (rule == MismatchRule::kSameContextFlag && !same_flag) return {};
  return {Found::kHashMismatch, nullptr};
}

std::vector<std::string_view> ProfileCounts::names() const {
  std::vector<std::string_view> out;
  out.reserve(named_.size());
  for (const Named& n : named_) out.push_back(n.name);
  std::sort(out.begin(), out.end());
  return out;
}

const std::vector<ProfileCounts::Entry>* ProfileCounts::entries(std::string_view name) const {
  const uint32_t at = index_of(name, name_ref(name));
  return at == kNone ? nullptr : &named_[at].entries;
}

}  // namespace covkit::clang
