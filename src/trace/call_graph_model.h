#pragma once
// The call graph that `covkit trace graph` draws: the functions and
// caller->callee edges of a CallProfile, each with its share of the total
// time, pruned to what is worth looking at (gprof2dot's rules: a threshold on
// the share of inclusive time, for nodes and edges), optionally focused on one
// function (its callers chain and its callees down to a depth).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "trace/call_profile.h"
#include "util/expected.h"

namespace covkit::trace {

struct GraphOptions {
  // Nodes and edges whose inclusive time is below this percentage of the
  // total are dropped (not the focused functions and their callers chain).
  double threshold_percent = 0.5;
  // Keep only this function, all functions that lead to it, and its callees
  // down to `depth` levels. It names functions by their exact demangled name,
  // else by the name without its parameter list or the last components of
  // that ("f", "C::f" for "ns::C::f(int)"), else by any part of the name;
  // every match of the first kind that matches counts.
  std::string focus;
  // Levels of callees kept below the focused function, or, without a focus,
  // below the functions each thread starts in. Negative: no limit.
  int depth = -1;
};

struct GraphNode {
  std::string name, file;
  uint32_t line = 0;
  uint64_t calls = 0, inclusive_ns = 0, exclusive_ns = 0;
  double inclusive_share = 0, exclusive_share = 0;  // of CallGraph::total_ns (0..1, 0 when the total is 0)
  bool focus = false;                               // named by GraphOptions::focus
};

struct GraphEdge {
  size_t caller = 0, callee = 0;  // indexes into CallGraph::nodes
  uint64_t calls = 0, inclusive_ns = 0;
  double share = 0;  // inclusive_ns of the total
};

struct CallGraph {
  std::vector<GraphNode> nodes;  // by inclusive time, descending (the profile's order)
  std::vector<GraphEdge> edges;  // by caller, then callee (node order)
  uint64_t total_ns = 0;         // what the shares are of: the profile's total_ns, else the sum of exclusive times
  size_t dropped_nodes = 0, dropped_edges = 0;  // pruned away
};

// An Error only when `focus` names no function.
Expected<CallGraph> build_call_graph(const CallProfile& profile, const GraphOptions& options);

// "ns::C<int>::f(int) const" -> "ns::C<int>::f": the name without its
// parameter list and qualifiers (template arguments kept).
std::string function_base_name(const std::string& name);

}  // namespace covkit::trace
