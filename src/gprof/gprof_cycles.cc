// The walk of gprof_cycles.h, with gprof's explicit stack of busy nodes
// (find_cycle searches it for the top of a cycle) and an explicit stack of
// arc positions instead of recursion.
#include "gprof/gprof_cycles.h"

#include <cstdint>

namespace covkit::trace {

namespace {

constexpr int kUnvisited = 0;  // gprof's DFN_NAN
constexpr int kBusy = -1;      // DFN_BUSY
constexpr size_t kNoCycle = SIZE_MAX;

struct Walk {
  const std::vector<std::vector<size_t>>& children;
  std::vector<int> top_order;
  std::vector<size_t> head, next;  // cycle head (itself when on none) and the chain of members
  std::vector<size_t> stack{kNoCycle};  // busy nodes, from index 1 as gprof's dfn_stack
  int counter = 0;

  explicit Walk(const std::vector<std::vector<size_t>>& c)
      : children(c), top_order(c.size(), kUnvisited), head(c.size()), next(c.size(), kNoCycle) {
    for (size_t n = 0; n < c.size(); ++n) head[n] = n;
  }

  // `child` is busy: it and every node above it on the stack are one cycle.
  void find_cycle(size_t child) {
    size_t depth = stack.size() - 1, top = depth;
    size_t h = kNoCycle;
    for (; top > 0; --top) {
      h = stack[top];
      if (child == h) break;
      if (head[child] != child && head[child] == h) break;
    }
    if (top == 0 || top == depth) return;  // top == depth: a self-call, counted elsewhere
    size_t tail = h;
    while (next[tail] != kNoCycle) tail = next[tail];
    if (head[h] != h) h = head[h];
    for (size_t i = top + 1; i <= depth; ++i) {
      size_t member = stack[i];
      if (head[member] == member) {
        // Not yet in a cycle: append it and what it had gathered.
        next[tail] = member;
        head[member] = h;
        for (tail = member; next[tail] != kNoCycle; tail = next[tail]) head[next[tail]] = h;
      }
    }
  }

  void post_visit(size_t n) {
    if (head[n] == n) {
      ++counter;
      for (size_t m = n; m != kNoCycle; m = next[m]) top_order[m] = counter;
    }
    stack.pop_back();
  }

  void visit(size_t root) {
    struct Frame {
      size_t node, arc;
    };
    std::vector<Frame> frames;
    auto enter = [&](size_t n) {
      if (top_order[n] != kUnvisited && top_order[n] != kBusy) return;  // numbered
      if (top_order[n] == kBusy) {
        find_cycle(n);
        return;
      }
      stack.push_back(n);
      top_order[n] = kBusy;
      frames.push_back({n, 0});
    };
    enter(root);
    while (!frames.empty()) {
      Frame& f = frames.back();
      if (f.arc < children[f.node].size()) {
        size_t child = children[f.node][f.arc++];
        enter(child);
      } else {
        size_t n = f.node;
        frames.pop_back();
        post_visit(n);
      }
    }
  }
};

}  // namespace

CycleNumbering number_cycles(const std::vector<std::vector<size_t>>& children) {
  Walk w(children);
  for (size_t n = 0; n < children.size(); ++n)
    if (w.top_order[n] == kUnvisited) w.visit(n);
  CycleNumbering out;
  out.top_order = std::move(w.top_order);
  out.cycle.assign(children.size(), 0);
  for (size_t n = 0; n < children.size(); ++n) {
    if (w.head[n] != n || w.next[n] == kNoCycle) continue;
    out.members.emplace_back();
    const int number = int(out.members.size());
    for (size_t m = n; m != kNoCycle; m = w.next[m]) {
      out.cycle[m] = number;
      out.members.back().push_back(m);
    }
  }
  return out;
}

}  // namespace covkit::trace
