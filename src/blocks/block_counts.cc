#include "blocks/block_counts.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string_view>

namespace covkit::blocks {

namespace {

bool is_hook_name(std::string_view name) {
  return name == "__sanitizer_cov_trace_pc" || name == "__sanitizer_cov_trace_pc_guard";
}

// Calls after which control arrives more often than the call was made: the
// second return of setjmp, a forked child's (its counts start at zero in
// the runtime, so the parent's and the child's files together enter the
// block after the call twice for one call).
bool returns_twice(std::string_view name) {
  static constexpr std::string_view kNames[] = {"setjmp",  "_setjmp", "__sigsetjmp", "sigsetjmp", "savectx",
                                                "vfork",   "fork",    "__fork",      "getcontext", "clone"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// A block that ran with no hook of its own to say so.
sample::BlockState implied(int64_t count) {
  sample::BlockState s;
  s.executed = true;
  s.count = count;
  return s;
}

struct FlowGraph {
  struct Edge {
    int from = 0, to = 0;
  };
  std::vector<Edge> edges;
  std::vector<std::vector<int>> in, out;  // edge indices per block
  std::vector<char> closed_in;            // every entry is an edge of `in`
  std::vector<char> closed_out;           // every exit is an edge of `out`
};

FlowGraph flow_graph(const sample::FunctionCfg& f, const std::vector<char>& unseen) {
  const int n = int(f.blocks.size());
  FlowGraph g;
  g.in.resize(size_t(n));
  g.out.resize(size_t(n));
  g.closed_in.assign(size_t(n), 1);
  g.closed_out.assign(size_t(n), 1);
  for (int b = 0; b < n; ++b) {
    const sample::BasicBlock& blk = f.blocks[size_t(b)];
    if (size_t(b) >= unseen.size() || unseen[size_t(b)]) g.closed_in[size_t(b)] = 0;
    if (blk.exits || blk.kind == sample::BlockEnd::unknown_jump) g.closed_out[size_t(b)] = 0;
    for (int s : blk.succ) {
      if (s < 0 || s >= n) continue;
      g.out[size_t(b)].push_back(int(g.edges.size()));
      g.in[size_t(s)].push_back(int(g.edges.size()));
      g.edges.push_back({b, s});
      if (blk.kind == sample::BlockEnd::call && returns_twice(blk.callee_name)) g.closed_in[size_t(s)] = 0;
    }
  }
  return g;
}

// Code addresses of `f` its instructions take (`lea label(%rip)`, an
// immediate), directly or through a data object they name whose pointers
// lead into it (a computed goto's table of labels).
std::set<uint64_t> taken_addresses(const sample::BinaryImage& image, const sample::FunctionCfg& f) {
  constexpr uint64_t kMaxTableSlots = 1 << 16;
  std::set<uint64_t> out;
  std::set<uint64_t> tables;
  auto inside = [&](uint64_t a) { return a >= f.address && a - f.address < f.size; };
  for (const sample::DecodedInsn& in : f.insns)
    for (int i = 0; i < in.op_count && i < 3; ++i) {
      const sample::Operand& op = in.ops[i];
      uint64_t a = 0;
      if (op.kind == sample::Operand::kImm) a = uint64_t(op.imm);
      else if (op.kind == sample::Operand::kMem && in.op == sample::Op::lea && op.base == sample::Reg::none &&
               op.index == sample::Reg::none)
        a = uint64_t(op.disp);
      else continue;
      if (inside(a)) out.insert(a);
      else if (tables.insert(a).second) {
        std::optional<uint64_t> end = image.object_end(a);
        if (!end || *end <= a) continue;
        for (uint64_t slot = a, k = 0; slot + 8 <= *end && k < kMaxTableSlots; slot += 8, ++k)
          if (auto p = image.pointer_at(slot); p && inside(*p)) out.insert(*p);
      }
    }
  return out;
}

}  // namespace

std::vector<char> entered_unseen(const sample::BinaryImage& image, const sample::FunctionCfg& f) {
  std::vector<char> unseen(f.blocks.size(), 0);
  if (unseen.empty()) return unseen;
  unseen[0] = 1;  // called
  for (int r : f.roots)
    if (r >= 0 && size_t(r) < unseen.size()) unseen[size_t(r)] = 1;
  bool candidates = false;
  for (const sample::BasicBlock& b : f.blocks) candidates |= b.candidate;
  if (!candidates) return unseen;
  const std::set<uint64_t> taken = taken_addresses(image, f);
  for (size_t b = 0; b < f.blocks.size(); ++b)
    if (f.blocks[b].candidate && (taken.empty() || taken.count(f.blocks[b].start))) unseen[b] = 1;
  return unseen;
}

namespace {

// gcov's reasoning over arcs: a block's count is the sum of the edges into
// it and of those out of it; one unknown among them is the difference.
// Returns nullopt when an equation gives a negative count or two disagree
// (an assumption failed: a call that did not return, control that entered
// unseen).
std::optional<std::vector<std::optional<int64_t>>> solve_flow(const FlowGraph& g,
                                                              std::vector<std::optional<int64_t>> count) {
  const size_t n = count.size();
  std::vector<std::optional<int64_t>> edge(g.edges.size());
  // Sums one side's edges: the sum, and the one unknown edge (-1: none,
  // -2: more than one).
  auto side = [&](const std::vector<int>& es, int64_t& sum) {
    int unknown = -1;
    sum = 0;
    for (int e : es) {
      if (edge[size_t(e)]) sum += *edge[size_t(e)];
      else unknown = unknown == -1 ? e : -2;
    }
    return unknown;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < n; ++b) {
      for (int pass = 0; pass < 2; ++pass) {
        const bool closed = pass == 0 ? g.closed_in[b] : g.closed_out[b];
        const std::vector<int>& es = pass == 0 ? g.in[b] : g.out[b];
        if (!closed || es.empty()) continue;
        int64_t sum = 0;
        const int unknown = side(es, sum);
        if (unknown == -2) continue;
        if (unknown == -1) {
          if (!count[b]) {
            count[b] = sum;
            changed = true;
          } else if (*count[b] != sum) {
            return std::nullopt;
          }
        } else if (count[b]) {
          if (*count[b] < sum) return std::nullopt;
          edge[size_t(unknown)] = *count[b] - sum;
          changed = true;
        }
      }
    }
  }
  return count;
}

}  // namespace

bool is_hook_block(const sample::FunctionCfg& f, const sample::BasicBlock& b) {
  if (b.kind != sample::BlockEnd::call || !is_hook_name(b.callee_name) || b.insn_count == 0) return false;
  // trace-pc-guard passes the guard's address in %rdi: that setup is part of the hook.
  for (size_t i = b.first_insn; i + 1 < b.first_insn + b.insn_count; ++i) {
    const sample::DecodedInsn& in = f.insns[i];
    if ((in.op != sample::Op::lea && in.op != sample::Op::mov) || in.writes != sample::reg_bit(sample::Reg::rdi))
      return false;
  }
  return true;
}

void exact_counts(const sample::FunctionCfg& f, const std::map<int, int64_t>& observed, bool exact,
                  const std::vector<char>& unseen, std::vector<sample::BlockState>& states) {
  const sample::Graph g = f.graph();
  const int n = int(f.blocks.size());
  std::vector<std::vector<int>> preds(size_t(g.size()));
  for (int b = 0; b < g.size(); ++b)
    for (int s : g.succ[size_t(b)]) preds[size_t(s)].push_back(b);
  // Straight runs of code ran as a whole: a block whose one successor has
  // it as its one predecessor ran with it, both ways (the inference's
  // dominators stop at a function with computed-goto targets, whose
  // virtual root dominates everything; a line-table row may split a block).
  if (int(states.size()) < n) return;
  // A function that ran was entered at its entry (its computed-goto
  // targets are reached from inside it): the entry block ran as often as
  // the first hooked block its straight run leads to.
  if (!states[0].executed && std::any_of(states.begin(), states.end(), [](const auto& x) { return x.executed; })) {
    int64_t count = 1;
    for (int at = 0, step = 0; step < n && g.succ[size_t(at)].size() == 1 && g.succ[size_t(at)][0] < n; ++step) {
      at = g.succ[size_t(at)][0];
      if (auto it = observed.find(at); it != observed.end()) {
        count = it->second;
        break;
      }
    }
    states[0] = implied(count);
  }
  auto straight = [&](int p, int b) {
    return g.succ[size_t(p)].size() == 1 && g.succ[size_t(p)][0] == b && preds[size_t(b)].size() == 1 &&
           preds[size_t(b)][0] == p;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < n; ++b) {
      if (!states[size_t(b)].executed) continue;
      if (preds[size_t(b)].size() == 1 && preds[size_t(b)][0] < n && straight(preds[size_t(b)][0], b) &&
          !states[size_t(preds[size_t(b)][0])].executed) {
        states[size_t(preds[size_t(b)][0])] = implied(states[size_t(b)].count);
        changed = true;
      }
      if (g.succ[size_t(b)].size() == 1 && g.succ[size_t(b)][0] < n && straight(b, g.succ[size_t(b)][0]) &&
          !states[size_t(g.succ[size_t(b)][0])].executed) {
        states[size_t(g.succ[size_t(b)][0])] = implied(states[size_t(b)].count);
        changed = true;
      }
    }
  }
  // A block that ran and that control enters only from one block (not
  // from outside, nor by an indirect jump) was entered from it: clang
  // leaves without a hook a block that dominates its successors, and the
  // dominators above give up in a function with computed-goto targets.
  std::vector<std::vector<int>> from(static_cast<size_t>(n));
  for (int b = 0; b < n; ++b)
    for (int s : f.blocks[size_t(b)].succ)
      if (s >= 0 && s < n) from[size_t(s)].push_back(b);
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 0; b < n; ++b) {
      if (!states[size_t(b)].executed || size_t(b) >= unseen.size() || unseen[size_t(b)] || from[size_t(b)].size() != 1)
        continue;
      const int p = from[size_t(b)][0];
      if (states[size_t(p)].executed) continue;
      states[size_t(p)] = implied(states[size_t(b)].count);
      changed = true;
    }
  }
  for (int b = 0; b < n; ++b) {
    sample::BlockState& st = states[size_t(b)];
    if (!st.executed) continue;
    if (auto it = observed.find(b); it != observed.end()) {
      st.count = it->second;
      continue;
    }
    int at = b;
    for (int step = 0; step < n; ++step) {
      const auto& p = preds[size_t(at)];
      if (p.size() != 1 || p[0] >= n || g.succ[size_t(p[0])].size() != 1) break;
      at = p[0];
      if (auto it = observed.find(at); it != observed.end()) {
        st.count = it->second;
        break;
      }
    }
  }
  if (!exact) return;
  // Flow: every hooked block's count is known (0 when absent); the
  // equations give the blocks without a hook.
  std::vector<std::optional<int64_t>> known(static_cast<size_t>(n));
  for (int b = 0; b < n; ++b)
    if (auto it = observed.find(b); it != observed.end()) known[size_t(b)] = it->second;
    else if (is_hook_block(f, f.blocks[size_t(b)])) known[size_t(b)] = 0;
  auto solved = solve_flow(flow_graph(f, unseen), std::move(known));
  if (!solved) return;
  for (int b = 0; b < n; ++b) {
    const std::optional<int64_t>& c = (*solved)[size_t(b)];
    if (!c || *c <= 0 || observed.count(b)) continue;
    sample::BlockState& st = states[size_t(b)];
    st.executed = true;
    st.count = *c;
  }
}

void mark_lineless(const sample::FunctionCfg& f, const sample::LineTable& lines,
                   std::vector<sample::BlockState>& states) {
  const size_t n = std::min(f.blocks.size(), states.size());
  auto row_starts_in = [&](const sample::BasicBlock& blk) {
    bool starts = false;
    lines.for_each_overlapping(blk.start, blk.end, [&](const sample::LineRange& r) {
      starts = starts || (r.lo >= blk.start && r.lo < blk.end);
    });
    return starts;
  };
  std::vector<int> preds(n, 0);  // how many; the one when there is one
  std::vector<int> pred(n, -1);
  for (size_t b = 0; b < n; ++b)
    for (int s : f.blocks[b].succ)
      if (s >= 0 && size_t(s) < n) {
        ++preds[size_t(s)];
        pred[size_t(s)] = int(b);
      }
  // Blocks are sorted by address: the code after a lineless hook (the
  // join's jump on) comes next, under the same row, as lineless.
  for (size_t b = 0; b < n; ++b) {
    const sample::BasicBlock& blk = f.blocks[b];
    if (row_starts_in(blk)) continue;
    if (is_hook_block(f, blk)) {
      states[b].lineless = true;
      continue;
    }
    const int p = pred[b];
    states[b].lineless = preds[b] == 1 && p >= 0 && states[size_t(p)].lineless && f.blocks[size_t(p)].succ.size() == 1 &&
                         f.blocks[size_t(p)].end == blk.start;
  }
}

}  // namespace covkit::blocks
