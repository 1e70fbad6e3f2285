#include "model/flow_solver.h"

#include <algorithm>

#include "model/counts.h"
#include "model/small_sort.h"

namespace covkit::model {

namespace {

// Per-block bookkeeping of the solver: arcs still unknown on each side.
struct BlockState {
  int64_t num_succ = 0;
  int64_t num_pred = 0;
  bool on_valid_stack = false;
  bool on_invalid_stack = false;
};

// The solver's lists, kept by the thread from function to function (three
// fresh vectors per function, grown as they filled, were a fifth of the
// solver's instructions).
struct SolverScratch {
  std::vector<BlockState> st;
  std::vector<uint32_t> valid, invalid;
};

class Solver {
 public:
  explicit Solver(Function& fn, SolverScratch& scratch)
      : fn_(fn), st_(scratch.st), valid_(scratch.valid), invalid_(scratch.invalid) {}
  SolveProblems run();

 private:
  // kPropagate: also the block states and stacks propagate() works on.
  template <bool kPropagate>
  void prepare_block(uint32_t i, size_t& next_counter);
  void propagate();
  void sort_by_destination(std::span<uint32_t> arcs) const;
  void resolve_single_unknown(uint32_t b, bool successors);
  void push_valid(uint32_t b) {
    st_[b].on_valid_stack = true;
    valid_.push_back(b);
  }
  void push_invalid(uint32_t b) {
    st_[b].on_invalid_stack = true;
    invalid_.push_back(b);
  }

  Function& fn_;
  std::vector<BlockState>& st_;
  std::vector<uint32_t>& valid_;    // known count, arcs to propagate
  std::vector<uint32_t>& invalid_;  // count may now be inferable
};

// A block's arcs by destination, ties in notes order. Blocks have a handful
// of successors: an insertion sort allocates nothing (std::stable_sort took a
// buffer from the heap for every block of every function).
void Solver::sort_by_destination(std::span<uint32_t> arcs) const {
  auto before = [this](uint32_t a, uint32_t b) { return fn_.arcs[a].dst < fn_.arcs[b].dst; };
  if (arcs.size() == 2) {  // the commonest: a branch, or a call and its exceptional exit
    if (before(arcs[1], arcs[0])) std::swap(arcs[0], arcs[1]);
    return;
  }
  small_stable_sort(arcs, before);
}

SolveProblems Solver::run() {
  SolveProblems problems;
  // A function that never ran in this program (most of a library linked
  // into a test, ~70% of zstd's) has only zero counters: every count the
  // propagation could find is a sum or difference of zeros, and every
  // count is 0 already. Its arcs still get their counters, kinds and order;
  // no block state is kept for it.
  fn_.never_ran = std::all_of(fn_.counts.begin(), fn_.counts.end(), [](int64_t c) { return c == 0; });
  if (fn_.never_ran) {
    if (fn_.blocks.size() < 2) {
      problems.lacks_entry_or_exit = true;
    } else {
      problems.arcs_to_entry = !fn_.blocks[kEntryBlock].pred.empty();
      problems.arcs_from_exit = !fn_.blocks[kExitBlock].succ.empty();
    }
    size_t next_counter = 0;
    for (uint32_t i = 0; i < fn_.blocks.size(); ++i) prepare_block<false>(i, next_counter);
    return problems;
  }
  st_.assign(fn_.blocks.size(), BlockState{});
  valid_.clear();
  invalid_.clear();
  for (size_t b = 0; b < fn_.blocks.size(); ++b) {
    st_[b].num_succ = int64_t(fn_.blocks[b].succ.size());
    st_[b].num_pred = int64_t(fn_.blocks[b].pred.size());
  }
  if (fn_.blocks.size() < 2) {
    problems.lacks_entry_or_exit = true;
  } else {
    // Entry and exit counts cannot be deduced from their missing neighbours.
    if (st_[kEntryBlock].num_pred)
      problems.arcs_to_entry = true;
    else
      st_[kEntryBlock].num_pred = 0xffffffff;
    if (st_[kExitBlock].num_succ)
      problems.arcs_from_exit = true;
    else
      st_[kExitBlock].num_succ = 0xffffffff;
  }
  size_t next_counter = 0;
  for (uint32_t i = 0; i < fn_.blocks.size(); ++i) prepare_block<true>(i, next_counter);
  propagate();
  return problems;
}

template <bool kPropagate>
void Solver::prepare_block(uint32_t i, size_t& next_counter) {
  Block& blk = fn_.blocks[i];
  int non_fake_succ = 0;
  // Counters belong to the non-tree arcs in notes order, as profile.cc emitted them.
  for (uint32_t idx : blk.succ) {
    Arc& arc = fn_.arcs[idx];
    if (!arc.fake) non_fake_succ++;
    if (!arc.on_tree) {
      if (next_counter < fn_.counts.size()) arc.count = fn_.counts[next_counter++];
      arc.count_valid = true;
      if constexpr (kPropagate) {
        st_[i].num_succ--;
        st_[arc.dst].num_pred--;
      }
    }
  }
  if (non_fake_succ == 1) {
    for (uint32_t idx : blk.succ) {
      Arc& arc = fn_.arcs[idx];
      if (arc.fake) continue;
      arc.is_unconditional = true;
      // The block a call falls into is artificial when it is the call's only
      // way out and has no other entry: gcov hides it in -a/-u output.
      const Block& dst = fn_.blocks[arc.dst];
      if (blk.is_call_site && arc.fall_through && dst.pred.size() == 1 && dst.pred.front() == idx)
        fn_.blocks[arc.dst].is_call_return = true;
    }
  }
  if (blk.succ.size() > 1) sort_by_destination(blk.succ);  // most blocks have one successor
  if constexpr (kPropagate) push_invalid(i);
}

void Solver::propagate() {
  while (!invalid_.empty() || !valid_.empty()) {
    while (!invalid_.empty()) {
      uint32_t b = invalid_.back();
      invalid_.pop_back();
      st_[b].on_invalid_stack = false;
      Block& blk = fn_.blocks[b];
      int64_t total = 0;
      if (st_[b].num_succ == 0) {
        for (uint32_t idx : blk.succ) total = add_counts(total, fn_.arcs[idx].count);
      } else if (st_[b].num_pred == 0) {
        for (uint32_t idx : blk.pred) total = add_counts(total, fn_.arcs[idx].count);
      } else {
        continue;
      }
      blk.count = total;
      blk.count_valid = true;
      push_valid(b);
    }
    while (!valid_.empty()) {
      uint32_t b = valid_.back();
      valid_.pop_back();
      st_[b].on_valid_stack = false;
      if (st_[b].num_succ == 1) resolve_single_unknown(b, true);
      if (st_[b].num_pred == 1) resolve_single_unknown(b, false);
    }
  }
}

// Block b has a known count and exactly one unknown arc on one side: that
// arc's count is the block's count minus the known arcs.
void Solver::resolve_single_unknown(uint32_t b, bool successors) {
  const Block& blk = fn_.blocks[b];
  const auto& arcs = successors ? blk.succ : blk.pred;
  int64_t total = blk.count;
  Arc* unknown = nullptr;
  for (uint32_t idx : arcs) {
    Arc& arc = fn_.arcs[idx];
    total = sub_counts(total, arc.count);
    if (!arc.count_valid) unknown = &arc;
  }
  if (!unknown) return;  // only on malformed graphs
  unknown->count_valid = true;
  unknown->count = total;
  uint32_t other = successors ? unknown->dst : unknown->src;
  if (successors) {
    st_[b].num_succ--;
    st_[other].num_pred--;
  } else {
    st_[b].num_pred--;
    st_[other].num_succ--;
  }
  int64_t other_unknown_same_side = successors ? st_[other].num_pred : st_[other].num_succ;
  if (fn_.blocks[other].count_valid) {
    if (other_unknown_same_side == 1 && !st_[other].on_valid_stack) push_valid(other);
  } else {
    if (other_unknown_same_side == 0 && !st_[other].on_invalid_stack) push_invalid(other);
  }
}

}  // namespace

SolveProblems solve_flow_graph(Function& fn) {
  thread_local SolverScratch scratch;
  return Solver(fn, scratch).run();
}

void find_exception_blocks(Function& fn) {
  for (Block& b : fn.blocks) b.exceptional = true;
  if (fn.blocks.empty()) return;
  // Kept by the thread: an allocation (or two) per function with a catch less.
  thread_local std::vector<uint32_t> stack;
  stack.assign(1, kEntryBlock);
  fn.blocks[kEntryBlock].exceptional = false;
  while (!stack.empty()) {
    uint32_t b = stack.back();
    stack.pop_back();
    for (uint32_t idx : fn.blocks[b].succ) {
      const Arc& arc = fn.arcs[idx];
      if (!arc.fake && !arc.is_throw && fn.blocks[arc.dst].exceptional) {
        fn.blocks[arc.dst].exceptional = false;
        stack.push_back(arc.dst);
      }
    }
  }
}

}  // namespace covkit::model
