#pragma once
// Dominators and post-dominators of small directed graphs (one function's
// basic blocks), by Cooper, Harvey and Kennedy's iterative algorithm ("A
// Simple, Fast Dominance Algorithm"): reverse postorder plus a two-finger
// intersect. Per-function CFGs are small, where it is the simplest and fast
// enough; a function of tens of thousands of blocks would want Semi-NCA.
#include <cstdint>
#include <vector>

namespace covkit::sample {

// Nodes are 0..size-1; succ[n] lists n's successors (duplicates allowed).
struct Graph {
  std::vector<std::vector<int>> succ;
  int entry = 0;

  int size() const { return int(succ.size()); }
};

// idom[n] is n's immediate dominator; idom[entry] == entry; -1 for nodes
// the entry cannot reach (they have no dominators).
struct DominatorTree {
  std::vector<int> idom;

  // Whether a dominates b (reflexive); false when either is unreachable.
  bool dominates(int a, int b) const;
  // b's dominators, b first, the root last; empty when b is unreachable.
  std::vector<int> dominators_of(int b) const;
};

DominatorTree compute_dominators(const Graph& g);

// Post-dominators: dominators of the reversed graph rooted at a virtual exit
// (node index g.size() in the result, so idom has size()+1 entries and a
// node whose only post-dominator is the exit has idom == size()). Edges to
// the exit come from every node with exits[n] set (ret, tail call, noreturn
// call, unknown successors), plus "fake" exit edges from nodes of infinite
// loops that cannot reach any exit, so that every node the entry reaches
// has a post-dominator (as LLVM adds extra roots). Nodes the entry cannot
// reach are left out (-1), as in the forward tree.
struct PostDominatorTree {
  DominatorTree tree;             // over size()+1 nodes, root = exit
  std::vector<int> fake_exits;    // the nodes given a fake exit edge, in the order chosen
  int exit = 0;                   // == g.size()

  bool post_dominates(int a, int b) const { return tree.dominates(a, b); }
  // b's post-dominators, b first, the virtual exit excluded.
  std::vector<int> post_dominators_of(int b) const;
};

PostDominatorTree compute_post_dominators(const Graph& g, const std::vector<bool>& exits);

}  // namespace covkit::sample
