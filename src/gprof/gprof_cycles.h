#pragma once
// gprof's cycle finder (binutils cg_dfn.c and cycle_link): a depth-first
// numbering of the call graph in which every strongly connected component
// (a cycle of mutual calls; self-calls do not count) is collapsed into one
// node. Members of a cycle share one topological number; callees get
// smaller numbers than their callers. Cycles are numbered 1, 2, ... in the
// order of their heads in the symbol table (by address), as gprof numbers
// them, and each cycle's members are listed in gprof's chain order (head
// first), which decides the order gprof's ties come out in.
#include <cstddef>
#include <vector>

namespace covkit::trace {

struct CycleNumbering {
  std::vector<int> top_order;              // per node, from 1: callees before callers
  std::vector<int> cycle;                  // per node: its cycle's number, 0 when on none
  std::vector<std::vector<size_t>> members;  // per cycle (index number - 1): its nodes, chain order
};

// `children[n]` lists the callees of node n in the order gprof walks them
// (its arc lists: the most recently added arc first). Nodes are visited from
// 0 up, each not yet numbered starting a new walk. No recursion: the depth of
// the walk is bounded by memory only.
CycleNumbering number_cycles(const std::vector<std::vector<size_t>>& children);

}  // namespace covkit::trace
