#include "model/line_cycles.h"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "model/counts.h"
#include "model/small_sort.h"

namespace covkit::model {

namespace {

// The line's blocks as a small graph: node = distinct block, with its
// successor arcs and a private copy of their counts that circuits consume.
struct LocalArc {
  int dst;  // node index, or -1 when the destination is not on the line
  int64_t cs_count;
};

struct LocalNode {
  LineBlockRef ref;
  std::vector<LocalArc> succ;
};

class CircuitFinder {
 public:
  explicit CircuitFinder(std::vector<LocalNode>& nodes) : nodes_(nodes) {}

  int64_t count_from(int start) {
    path_.clear();
    blocked_.clear();
    block_lists_.clear();
    start_ = start;
    circuit(start);
    return count_;
  }

 private:
  // An arc can extend a circuit from `start_` when it stays on the line, still
  // carries count, and does not lead to a block ordered before the start.
  bool usable(const LocalArc& a) const {
    return a.dst >= 0 && a.cs_count > 0 && nodes_[a.dst].ref.block >= nodes_[start_].ref.block;
  }
  bool is_blocked(int v) const { return std::find(blocked_.begin(), blocked_.end(), v) != blocked_.end(); }

  void take_cycle() {
    int64_t least = std::numeric_limits<int64_t>::max();
    for (LocalArc* a : path_) least = std::min(least, a->cs_count);
    count_ = add_counts(count_, least);
    for (LocalArc* a : path_) a->cs_count = sub_counts(a->cs_count, least);
  }

  void unblock(int u) {
    auto it = std::find(blocked_.begin(), blocked_.end(), u);
    if (it == blocked_.end()) return;
    size_t index = size_t(it - blocked_.begin());
    blocked_.erase(it);
    std::vector<int> to_unblock = std::move(block_lists_[index]);
    block_lists_.erase(block_lists_.begin() + long(index));
    for (int w : to_unblock) unblock(w);
  }

  bool circuit(int v) {
    bool found = false;
    blocked_.push_back(v);
    block_lists_.emplace_back();
    for (LocalArc& a : nodes_[v].succ) {
      if (!usable(a)) continue;
      path_.push_back(&a);
      if (a.dst == start_) {
        take_cycle();
        found = true;
      } else if (std::none_of(path_.begin(), path_.end(), [](LocalArc* p) { return p->cs_count <= 0; }) &&
                 !is_blocked(a.dst)) {
        found |= circuit(a.dst);
      }
      path_.pop_back();
    }
    if (found) {
      unblock(v);
    } else {
      for (LocalArc& a : nodes_[v].succ) {
        if (!usable(a)) continue;
        auto it = std::find(blocked_.begin(), blocked_.end(), a.dst);
        if (it == blocked_.end()) continue;
        auto& list = block_lists_[size_t(it - blocked_.begin())];
        if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
      }
    }
    return found;
  }

  std::vector<LocalNode>& nodes_;
  std::vector<LocalArc*> path_;
  std::vector<int> blocked_;
  std::vector<std::vector<int>> block_lists_;
  int start_ = 0;
  int64_t count_ = 0;
};

}  // namespace

namespace {

// Maps a block to its node; linear for the usual handful of blocks, hashed
// for the lines (long macros, generated code) that carry hundreds.
class NodeIndex {
 public:
  int find(const LineBlockRef& r) const {
    if (!hashed_.empty()) {
      auto it = hashed_.find(key(r));
      return it == hashed_.end() ? -1 : it->second;
    }
    for (size_t i = 0; i < refs_.size(); ++i)
      if (refs_[i] == r) return int(i);
    return -1;
  }
  int add(const LineBlockRef& r) {
    int n = int(refs_.size());
    refs_.push_back(r);
    if (!hashed_.empty()) {
      hashed_.emplace(key(r), n);
    } else if (refs_.size() > kLinearLimit) {
      for (size_t i = 0; i < refs_.size(); ++i) hashed_.emplace(key(refs_[i]), int(i));
    }
    return n;
  }

 private:
  static constexpr size_t kLinearLimit = 16;
  struct Key {
    const Function* fn;
    uint32_t block;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.fn) * 31u + k.block;
    }
  };
  static Key key(const LineBlockRef& r) { return Key{r.fn, r.block}; }
  std::vector<LineBlockRef> refs_;
  std::unordered_map<Key, int, KeyHash> hashed_;
};

}  // namespace

namespace {

// The usual line, a statement in one block (listed once or more): what
// enters it from other blocks, once per listing as below, and its loops
// onto itself; the same numbers as the general case, without building a graph.
int64_t one_block_count(std::span<const LineBlockRef> blocks) {
  const Function& fn = *blocks.front().fn;
  const uint32_t b = blocks.front().block;
  int64_t count = 0;
  for (size_t listed = 0; listed < blocks.size(); ++listed)
    for (uint32_t idx : fn.blocks[b].pred)
      if (fn.arcs[idx].src != b) count = add_counts(count, fn.arcs[idx].count);
  int64_t cycles = 0;
  for (uint32_t idx : fn.blocks[b].succ)
    if (fn.arcs[idx].dst == b && fn.arcs[idx].count > 0) cycles = add_counts(cycles, fn.arcs[idx].count);
  return add_counts(count, cycles);
}

// Most lines of several blocks have no loop among them (a condition and the
// statement after it): their count is what enters them from off the line,
// and no circuit exists to look for. Found with bit sets, nothing
// allocated. nullopt: a loop on the line (a circuit needs a cycle of arcs
// with count between the line's blocks), or more blocks than the sets hold.
std::optional<int64_t> acyclic_count(std::span<const LineBlockRef> blocks) {
  constexpr size_t kMaxNodes = 64;
  const Function& fn = *blocks.front().fn;
  std::array<uint32_t, kMaxNodes> ids;
  size_t n = 0;
  const auto node_of = [&](uint32_t block) -> int {
    for (size_t i = 0; i < n; ++i)
      if (ids[i] == block) return int(i);
    return -1;
  };
  for (const LineBlockRef& r : blocks) {
    if (node_of(r.block) >= 0) continue;
    if (n == kMaxNodes) return std::nullopt;
    ids[n++] = r.block;
  }
  std::array<uint64_t, kMaxNodes> into;  // per node: the nodes with an arc of count into it
  std::fill_n(into.begin(), n, 0);
  for (size_t i = 0; i < n; ++i)
    for (uint32_t idx : fn.blocks[ids[i]].succ) {
      const Arc& a = fn.arcs[idx];
      if (a.count <= 0) continue;
      if (const int d = node_of(a.dst); d >= 0) into[size_t(d)] |= uint64_t(1) << i;
    }
  // Peel off nodes that nothing left enters; what cannot be peeled is a cycle.
  uint64_t left = n == kMaxNodes ? ~uint64_t(0) : (uint64_t(1) << n) - 1;
  while (left) {
    uint64_t peel = 0;
    for (size_t i = 0; i < n; ++i)
      if ((left >> i & 1) && !(into[i] & left)) peel |= uint64_t(1) << i;
    if (!peel) return std::nullopt;
    left &= ~peel;
  }
  int64_t count = 0;
  for (const LineBlockRef& r : blocks)
    for (uint32_t idx : fn.blocks[r.block].pred)
      if (node_of(fn.arcs[idx].src) < 0) count = add_counts(count, fn.arcs[idx].count);
  return count;
}

// The count of one function's blocks on the line (all of `blocks` are in one function).
int64_t one_function_count(std::span<const LineBlockRef> blocks) {
  // Nothing enters the line and no loop on it carries a count.
  if (!blocks.empty() && blocks.front().fn->never_ran) return 0;
  if (!blocks.empty() && std::all_of(blocks.begin(), blocks.end(), [&](const LineBlockRef& r) { return r == blocks.front(); }))
    return one_block_count(blocks);
  if (!blocks.empty())
    if (auto count = acyclic_count(blocks)) return *count;
  std::vector<LocalNode> nodes;
  std::vector<int> order;  // node of each entry of `blocks`
  order.reserve(blocks.size());
  NodeIndex index;
  for (const LineBlockRef& r : blocks) {
    int n = index.find(r);
    if (n < 0) {
      n = index.add(r);
      nodes.push_back(LocalNode{r, {}});
    }
    order.push_back(n);
  }

  int64_t count = 0;
  for (int n : order) {
    const Function& fn = *nodes[n].ref.fn;
    for (uint32_t idx : fn.blocks[nodes[n].ref.block].pred) {
      const Arc& a = fn.arcs[idx];
      if (index.find(LineBlockRef{&fn, a.src}) < 0) count = add_counts(count, a.count);
    }
  }
  for (LocalNode& node : nodes) {
    const Function& fn = *node.ref.fn;
    for (uint32_t idx : fn.blocks[node.ref.block].succ) {
      const Arc& a = fn.arcs[idx];
      node.succ.push_back(LocalArc{index.find(LineBlockRef{&fn, a.dst}), a.count});
    }
  }

  CircuitFinder finder(nodes);
  int64_t cycles = 0;
  for (int n : order) cycles = finder.count_from(n);
  return add_counts(count, cycles);
}

}  // namespace

int64_t line_count_from_blocks(std::span<const LineBlockRef> blocks) {
  const Function* first = blocks.empty() ? nullptr : blocks.front().fn;
  if (std::all_of(blocks.begin(), blocks.end(), [&](const LineBlockRef& r) { return r.fn == first; }))
    return one_function_count(blocks);
  // A header's line carries blocks of every object's instance of its
  // functions (a library's sources compiled into a hundred tests). No arc
  // joins two functions, so neither the entries from off the line nor any
  // circuit mix them: each function's blocks, in their order on the line,
  // are counted apart and the counts summed (wrapping sums: the order of
  // adding does not matter). The same number as one graph of all of them,
  // without hashing hundreds of blocks per line.
  // Functions that never ran count 0 (one_function_count): most of a
  // library's instances in a test program (zstd: macro-made functions that
  // share their lines, ~70% never ran) are left out before the sort.
  // In a buffer kept by the thread (one allocation per such line, and
  // stable_sort's buffer, were most of its cost), sorted by insertion when
  // short (stable, as stable_sort).
  thread_local std::vector<LineBlockRef> by_function;
  by_function.clear();
  for (const LineBlockRef& r : blocks)
    if (!r.fn->never_ran) by_function.push_back(r);
  if (by_function.empty()) return 0;
  const auto fn_before = [](const LineBlockRef& a, const LineBlockRef& b) { return std::less<>()(a.fn, b.fn); };
  small_stable_sort(std::span(by_function), fn_before);
  int64_t total = 0;
  for (size_t i = 0; i < by_function.size();) {
    size_t j = i + 1;
    while (j < by_function.size() && by_function[j].fn == by_function[i].fn) ++j;
    total = add_counts(total, one_function_count(std::span(by_function).subspan(i, j - i)));
    i = j;
  }
  return total;
}

}  // namespace covkit::model
