#pragma once
// Turns the counters of the instrumented arcs into counts for every arc and
// block, by flow conservation (what enters a block leaves it), the way GCC's
// profile.cc placed the counters and gcov solves them.
#include <string>
#include <vector>

#include "model/function_graph.h"

namespace covkit::model {

struct SolveProblems {
  bool lacks_entry_or_exit = false;
  bool arcs_to_entry = false;
  bool arcs_from_exit = false;
};

// Assigns fn.counts to the non-tree arcs, sorts successors by destination,
// marks unconditional arcs and call-return blocks, then solves all counts.
SolveProblems solve_flow_graph(Function& fn);

// Marks blocks reachable from the entry only through fake or throw arcs.
void find_exception_blocks(Function& fn);

}  // namespace covkit::model
