#include "clang/function_records.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <optional>
#include <utility>

#include "util/thread_pool.h"

namespace covkit::clang {

namespace {

// getFuncNameWithoutPrefix: "file.c:name" becomes "name" when file.c is
// the function's first file, as spelt there.
std::string name_without_file_prefix(const std::string& pgo_name, const std::vector<std::string>& filenames) {
  const std::string_view file = filenames.empty() ? std::string_view("<unknown>") : std::string_view(filenames[0]);
  if (file.empty() || !std::string_view(pgo_name).starts_with(file)) return pgo_name;
  return pgo_name.size() > file.size() ? pgo_name.substr(file.size() + 1) : std::string();
}

// The highest counter a region's count refers to (llvm-cov sizes the zero
// counts of a function absent from the profile by it). Memoized over the
// expressions, without recursion: they may nest deeply.
class MaxCounterId {
 public:
  explicit MaxCounterId(const std::vector<CounterExpression>& e) : e_(e), memo_(e.size(), kUnknown) {}
  uint32_t of(const Counter& c) {
    if (c.kind == Counter::kCounter) return c.id;
    if (c.kind != Counter::kExpression || c.id >= e_.size()) return 0;
    std::vector<uint32_t> stack{c.id};
    while (!stack.empty()) {
      const uint32_t id = stack.back();
      if (memo_[id] != kUnknown && memo_[id] != kOpen) {
        stack.pop_back();
        continue;
      }
      uint32_t best = 0;
      bool waiting = false;
      for (const Counter* o : {&e_[id].lhs, &e_[id].rhs}) {
        if (o->kind == Counter::kCounter) best = std::max(best, o->id);
        if (o->kind != Counter::kExpression || o->id >= e_.size()) continue;
        if (memo_[o->id] == kUnknown) {
          stack.push_back(o->id);
          waiting = true;
        } else if (memo_[o->id] != kOpen) {
          best = std::max(best, uint32_t(memo_[o->id]));
        }
      }
      if (waiting && memo_[id] == kUnknown) {
        memo_[id] = kOpen;
        continue;
      }
      memo_[id] = best;  // a cycle's open member counts as nothing
      stack.pop_back();
    }
    return uint32_t(memo_[c.id]);
  }

 private:
  static constexpr int64_t kUnknown = -1, kOpen = -2;
  const std::vector<CounterExpression>& e_;
  std::vector<int64_t> memo_;
};

// The first file id no expansion expands (coverage_views' main_file_id).
std::optional<uint32_t> main_file_of(const FunctionRecord& f) {
  std::vector<bool> expanded(f.filenames.size(), false);
  for (const CountedRegion& r : f.regions)
    if (r.kind == RegionKind::kExpansion && r.expanded_file_id < expanded.size()) expanded[r.expanded_file_id] = true;
  for (uint32_t i = 0; i < expanded.size(); ++i)
    if (!expanded[i]) return i;
  return std::nullopt;
}

// Where each file id's run of regions and of branches starts: both are
// stored by file id (the decoder reads a file id's regions in one go).
void index_runs(FunctionRecord& f) {
  const size_t files = f.filenames.size();
  auto starts = [files](const std::vector<CountedRegion>& v, std::vector<uint32_t>& at) {
    at.assign(files + 1, uint32_t(v.size()));
    size_t i = 0;
    for (uint32_t id = 0; id < files; ++id) {
      while (i < v.size() && v[i].file_id < id) ++i;
      at[id] = uint32_t(i);
    }
  };
  starts(f.regions, f.region_at);
  starts(f.branches, f.branch_at);
}

// `hashes` gets each file name's hash (std::hash, as CoverageSet's map of
// files hashes them).
uint64_t function_key(const std::vector<std::string>& filenames, const std::string& name,
                      std::vector<size_t>& hashes) {
  uint64_t key = std::hash<std::string_view>{}(name);
  hashes.clear();
  hashes.reserve(filenames.size());
  for (const std::string& f : filenames) {
    hashes.push_back(std::hash<std::string_view>{}(f));
    key = key * 0x100000001b3ull ^ hashes.back();
  }
  return key ^ filenames.size();
}

}  // namespace

std::optional<uint64_t> ExpressionValues::evaluate(const Counter& c) {
  switch (c.kind) {
    case Counter::kZero:
      return 0;
    case Counter::kCounter:
      if (c.id >= size_) return std::nullopt;
      return counts_ ? (*counts_)[c.id] : 0;
    case Counter::kExpression:
      break;
  }
  if (c.id >= expressions_.size()) return std::nullopt;
  // Each expression is computed once (a hostile mapping may share
  // subexpressions exponentially), depth first with an explicit stack (or
  // chain them deeply), a cycle being an error.
  enum State : uint8_t { kNew, kOpen, kDone, kBad };
  if (state_.empty()) {
    state_.assign(expressions_.size(), kNew);
    value_.assign(expressions_.size(), 0);
  }
  // Most regions refer to an expression another region's count computed.
  if (state_[c.id] == kDone) return value_[c.id];
  if (state_[c.id] == kBad) return std::nullopt;
  // Reused: only expressions come here, and an operand that is not one
  // (the recursive call below) returns before.
  std::vector<uint32_t>& stack = stack_;
  stack.assign(1, c.id);
  while (!stack.empty()) {
    const uint32_t e = stack.back();
    if (state_[e] == kDone || state_[e] == kBad) {
      stack.pop_back();
      continue;
    }
    const CounterExpression& x = expressions_[e];
    std::optional<uint64_t> side[2];
    bool waiting = false, bad = false;
    const Counter* operands[2] = {&x.lhs, &x.rhs};
    for (int i = 0; i < 2; ++i) {
      const Counter& o = *operands[i];
      if (o.kind != Counter::kExpression) {
        side[i] = evaluate(o);
        bad |= !side[i];
        continue;
      }
      if (o.id >= expressions_.size() || state_[o.id] == kBad) {
        bad = true;
      } else if (state_[o.id] == kDone) {
        side[i] = value_[o.id];
      } else if (state_[o.id] == kOpen) {
        bad = true;  // a cycle
      } else {
        waiting = true;
      }
    }
    if (bad) {
      state_[e] = kBad;
      stack.pop_back();
      continue;
    }
    if (waiting) {
      state_[e] = kOpen;
      for (const Counter* o : operands)
        if (o->kind == Counter::kExpression && state_[o->id] == kNew) stack.push_back(o->id);
      continue;
    }
    value_[e] = x.subtract ? *side[0] - *side[1] : *side[0] + *side[1];
    state_[e] = kDone;
    stack.pop_back();
  }
  if (state_[c.id] != kDone) return std::nullopt;
  return value_[c.id];
}

namespace {

// count_function, `filenames` being m's own or a copy to keep.
template <typename Filenames>
CountedFunction count_mapping(const FunctionMapping& m, Filenames&& filenames, const ProfileCounts& profile,
                              ProfileCounts::MismatchRule rule) {
  using Outcome = CountedFunction::Outcome;
  CountedFunction out;
  if (m.regions.empty()) return out;
  out.pgo_name = m.name;
  out.hash = m.hash;
  const ProfileCounts::Lookup found =
      m.name_ref ? profile.find(m.name, *m.name_ref, m.hash, rule) : profile.find(m.name, m.hash, rule);
  if (found.found == ProfileCounts::Found::kHashMismatch) {
    out.outcome = Outcome::kMismatched;
    return out;
  }
  const std::vector<uint64_t>* counts = found.counts;
  // A unit's dummy record of a function that ran elsewhere.
  if (m.regions.size() == 1 && m.regions[0].count.is_zero() && counts && !counts->empty() && (*counts)[0] > 0) {
    out.outcome = Outcome::kUnused;
    return out;
  }
  uint64_t zero_counts = 0;
  if (!counts) {
    uint32_t top = 0;
    MaxCounterId max_id(m.expressions);
    for (const MappingRegion& r : m.regions) top = std::max(top, max_id.of(r.count));
    zero_counts = uint64_t(top) + 1;
  }

  FunctionRecord& rec = out.record;
  rec.name = name_without_file_prefix(m.name, m.filenames);
  rec.filenames = std::forward<Filenames>(filenames);
  const size_t branches = size_t(std::count_if(m.regions.begin(), m.regions.end(), [](const MappingRegion& r) {
    return r.kind == RegionKind::kBranch;
  }));
  rec.regions.reserve(m.regions.size() - branches);
  rec.branches.reserve(branches);
  ExpressionValues values = counts ? ExpressionValues(m.expressions, *counts)
                                   : ExpressionValues(m.expressions, zero_counts);
  for (const MappingRegion& r : m.regions) {
    auto count = values.evaluate(r.count);
    auto false_count = values.evaluate(r.false_count);
    if (!count || !false_count) {
      out.outcome = Outcome::kUnused;
      out.record = FunctionRecord{};
      return out;
    }
    CountedRegion cr;
    cr.line_start = r.line_start;
    cr.column_start = r.column_start;
    cr.line_end = r.line_end;
    cr.column_end = r.column_end;
    cr.file_id = r.file_id;
    cr.expanded_file_id = r.expanded_file_id;
    cr.kind = r.kind;
    cr.execution_count = *count;
    cr.false_execution_count = *false_count;
    if (r.kind == RegionKind::kBranch) {
      cr.folded = r.count.is_zero() && r.false_count.is_zero();
      rec.branches.push_back(cr);
      continue;
    }
    if (rec.regions.empty()) rec.execution_count = *count;
    rec.regions.push_back(cr);
  }
  rec.main_file = main_file_of(rec);
  index_runs(rec);
  out.key = function_key(rec.filenames, rec.name, out.file_hashes);
  out.outcome = Outcome::kCounted;
  return out;
}

}  // namespace

CountedFunction count_function(const FunctionMapping& m, const ProfileCounts& profile,
                               ProfileCounts::MismatchRule rule) {
  return count_mapping(m, m.filenames, profile, rule);
}

CountedFunction count_function(FunctionMapping&& m, const ProfileCounts& profile, ProfileCounts::MismatchRule rule) {
  return count_mapping(m, std::move(m.filenames), profile, rule);
}

void CoverageSet::add(const std::vector<FunctionMapping>& functions, const ProfileCounts& profile,
                      std::vector<MismatchedFunction>& mismatched) {
  std::vector<CountedFunction> counted;
  counted.reserve(functions.size());
  for (const FunctionMapping& m : functions) counted.push_back(count_function(m, profile));
  std::vector<CountedFunction*> each;
  each.reserve(counted.size());
  for (CountedFunction& c : counted) each.push_back(&c);
  add(each, mismatched);
}

void CoverageSet::add(const std::vector<CountedFunction*>& functions, std::vector<MismatchedFunction>& mismatched) {
  using Outcome = CountedFunction::Outcome;
  // Grown geometrically here: records are large, and a binary's worth at a
  // time would move them all again for each binary.
  if (functions_.capacity() < functions_.size() + functions.size())
    functions_.reserve(std::max(functions_.size() + functions.size(), 2 * functions_.capacity()));
  for (CountedFunction* each : functions) {
    CountedFunction& c = *each;
    if (c.outcome == Outcome::kMismatched) {
      // Said again each time it is given, as each binary's copy is.
      mismatched.push_back({c.pgo_name, c.hash});
      continue;
    }
    if (c.given) continue;
    c.given = true;
    // Taken once, so a copy is not counted at all.
    if (c.outcome != Outcome::kCounted || taken(c.record.filenames, c.record.name, c.key)) continue;

    FunctionRecord& rec = c.record;
    const size_t index = functions_.size();
    auto [head, first] = taken_.try_emplace(c.key, uint32_t(index));
    next_taken_.push_back(first ? kNone : head->second);
    head->second = uint32_t(index);
    rec.file_keys.reserve(rec.filenames.size());
    const bool hashed = c.file_hashes.size() == rec.filenames.size();
    for (size_t k = 0; k < rec.filenames.size(); ++k) {
      const std::string& f = rec.filenames[k];
      auto it = hashed ? keys_.find(HashedName{f, c.file_hashes[k]}) : keys_.find(f);
      if (it == keys_.end()) {
        it = keys_.emplace(f, uint32_t(by_key_.size())).first;
        by_key_.emplace_back();
      }
      rec.file_keys.push_back(it->second);
      std::vector<size_t>& list = by_key_[it->second];
      if (list.empty() || list.back() != index) list.push_back(index);
    }
    functions_.push_back(std::move(rec));
  }
}

bool CoverageSet::taken(const std::vector<std::string>& filenames, const std::string& name, uint64_t key) const {
  auto it = taken_.find(key);
  if (it == taken_.end()) return false;
  for (uint32_t i = it->second; i != kNone; i = next_taken_[i])
    if (functions_[i].name == name && functions_[i].filenames == filenames) return true;
  return false;
}

const std::vector<size_t>& CoverageSet::records_of(const std::string& filename) const {
  static const std::vector<size_t> none;
  auto it = keys_.find(filename);
  return it == keys_.end() ? none : by_key_[it->second];
}

std::optional<uint32_t> CoverageSet::file_key(const std::string& filename) const {
  auto it = keys_.find(filename);
  if (it == keys_.end()) return std::nullopt;
  return it->second;
}

void CoverageSet::clear(unsigned threads) {
  constexpr size_t kChunk = 1024;
  try {
    util::parallel_for((functions_.size() + kChunk - 1) / kChunk, threads, [&](size_t c) {
      const size_t end = std::min(functions_.size(), (c + 1) * kChunk);
      for (size_t i = c * kChunk; i < end; ++i) functions_[i] = FunctionRecord{};
    });
  } catch (...) {  // no thread to start: freed below, on this one
  }
  *this = CoverageSet{};
}

std::vector<std::string> CoverageSet::source_files() const {
  std::vector<std::string> files;
  files.reserve(keys_.size());
  for (const auto& [name, key] : keys_) files.push_back(name);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace covkit::clang
