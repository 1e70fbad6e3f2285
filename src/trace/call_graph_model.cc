#include "trace/call_graph_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string_view>
#include <unordered_map>

#include "util/printable.h"

namespace covkit::trace {

namespace {

double share_of(uint64_t part, uint64_t total) { return total == 0 ? 0.0 : double(part) / double(total); }

bool ends_with_component(std::string_view name, std::string_view tail) {
  if (name.size() <= tail.size() || !name.ends_with(tail)) return false;
  std::string_view before = name.substr(0, name.size() - tail.size());
  return before.ends_with("::") || before.ends_with(' ');
}

// The functions `focus` names: exact names win; then names whose base name
// (no parameter list) is it or ends in "::focus" (or " focus", after a
// template's return type); then names containing it (as `trace report
// --callers` matches).
std::vector<size_t> match_focus(const std::vector<GraphNode>& nodes, const std::string& focus) {
  std::vector<size_t> exact, bare, partial;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const std::string& name = nodes[i].name;
    std::string base = function_base_name(name);
    if (name == focus)
      exact.push_back(i);
    else if (base == focus || ends_with_component(base, focus) || ends_with_component(name, focus))
      bare.push_back(i);
    else if (name.find(focus) != std::string::npos)
      partial.push_back(i);
  }
  return !exact.empty() ? exact : !bare.empty() ? bare : partial;
}

// Breadth-first from `starts` along `next`, at most `depth` steps (negative:
// no limit); marks what it reaches in `seen`.
void reach(const std::vector<std::vector<size_t>>& next, const std::vector<size_t>& starts, int depth,
           std::vector<bool>& seen) {
  std::deque<std::pair<size_t, int>> queue;
  for (size_t s : starts) {
    if (!seen[s]) {
      seen[s] = true;
      queue.emplace_back(s, 0);
    }
  }
  while (!queue.empty()) {
    auto [n, d] = queue.front();
    queue.pop_front();
    if (depth >= 0 && d >= depth) continue;
    for (size_t m : next[n]) {
      if (seen[m]) continue;
      seen[m] = true;
      queue.emplace_back(m, d + 1);
    }
  }
}

// A shown function whose calls all fall below the threshold would be a box
// without arrows, cut off from where its time comes from: it keeps the arrow
// from its heaviest (selected) caller, and that caller is shown too, up to a
// function that has an arrow or no caller.
void keep_callers_of_shown(const std::vector<GraphEdge>& edges, const std::vector<std::vector<size_t>>& incoming,
                           const std::vector<bool>& selected, std::vector<bool>& keep, std::vector<bool>& keep_edge) {
  std::vector<size_t> work;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) work.push_back(i);
  while (!work.empty()) {
    size_t n = work.back();
    work.pop_back();
    size_t best = SIZE_MAX;
    bool has_arrow = false;
    for (size_t k : incoming[n]) {
      const GraphEdge& e = edges[k];
      if (e.caller == n) continue;  // recursion says nothing about where the time comes from
      has_arrow = has_arrow || keep_edge[k];
      if (!selected[e.caller]) continue;
      if (best == SIZE_MAX || e.inclusive_ns > edges[best].inclusive_ns ||
          (e.inclusive_ns == edges[best].inclusive_ns && e.calls > edges[best].calls))
        best = k;
    }
    if (has_arrow || best == SIZE_MAX) continue;
    keep_edge[best] = true;
    size_t caller = edges[best].caller;
    if (!keep[caller]) {
      keep[caller] = true;
      work.push_back(caller);
    }
  }
}

}  // namespace

std::string function_base_name(const std::string& name) {
  // The parameter list is the last parenthesised group at the top level;
  // what follows it are qualifiers (" const", " &&", " [clone .cold]"...).
  // Scanning from the end, its ')' is the last ')' not inside a [...] suffix.
  size_t end = name.size();
  while (end > 0) {
    size_t close = name.rfind(')', end - 1);
    if (close == std::string::npos) return name;
    // A ')' inside a trailing " [clone ...]" or "[abi:cxx11]" is not it.
    size_t bracket = name.rfind('[', end - 1);
    if (bracket != std::string::npos && bracket > close) {
      end = bracket;
      continue;
    }
    int depth = 0;
    for (size_t i = close + 1; i-- > 0;) {
      if (name[i] == ')') ++depth;
      if (name[i] == '(' && --depth == 0) {
        // "(anonymous namespace)" alone is not a parameter list.
        if (i == 0) return name;
        return name.substr(0, i);
      }
    }
    return name;
  }
  return name;
}

Expected<CallGraph> build_call_graph(const CallProfile& profile, const GraphOptions& options) {
  CallGraph graph;
  uint64_t exclusive_sum = 0;
  for (const FunctionStats& f : profile.functions) exclusive_sum += f.exclusive_ns;
  graph.total_ns = profile.total_ns != 0 ? profile.total_ns : exclusive_sum;

  std::vector<GraphNode> nodes;
  std::unordered_map<std::string, size_t> index;
  for (const FunctionStats& f : profile.functions) {
    if (index.count(f.name)) continue;  // one node per name
    index.emplace(f.name, nodes.size());
    GraphNode n;
    n.name = f.name;
    n.file = f.file;
    n.line = f.line;
    n.calls = f.calls;
    n.inclusive_ns = f.inclusive_ns;
    n.exclusive_ns = f.exclusive_ns;
    n.inclusive_share = share_of(f.inclusive_ns, graph.total_ns);
    n.exclusive_share = share_of(f.exclusive_ns, graph.total_ns);
    nodes.push_back(std::move(n));
  }
  std::vector<GraphEdge> edges;
  std::vector<std::vector<size_t>> callees(nodes.size()), callers(nodes.size());
  for (const EdgeStats& e : profile.edges) {
    auto a = index.find(e.caller), b = index.find(e.callee);
    if (a == index.end() || b == index.end()) continue;
    edges.push_back({a->second, b->second, e.calls, e.inclusive_ns, share_of(e.inclusive_ns, graph.total_ns)});
    callees[a->second].push_back(b->second);
    callers[b->second].push_back(a->second);
  }

  // What the focus / depth options select, and what no threshold removes.
  std::vector<bool> selected(nodes.size(), true), protect(nodes.size(), false);
  if (!options.focus.empty()) {
    std::vector<size_t> focus = match_focus(nodes, options.focus);
    if (focus.empty()) return Error(fmt::format("no function named '{}' in the trace", util::printable(options.focus)));
    for (size_t f : focus) nodes[f].focus = true;
    reach(callers, focus, -1, protect);
    std::vector<bool> below(nodes.size(), false);
    reach(callees, focus, options.depth, below);
    for (size_t i = 0; i < nodes.size(); ++i) selected[i] = protect[i] || below[i];
  } else if (options.depth >= 0) {
    // The functions threads start in; without thread trees, the functions
    // nothing else calls.
    std::vector<size_t> roots;
    std::vector<bool> is_root(nodes.size(), false);
    for (const ThreadProfile& t : profile.threads)
      for (const CallTreeNode& c : t.tree.children)
        if (auto it = index.find(c.name); it != index.end() && !is_root[it->second]) {
          is_root[it->second] = true;
          roots.push_back(it->second);
        }
    if (roots.empty())
      for (size_t i = 0; i < nodes.size(); ++i) {
        bool called = false;
        for (size_t c : callers[i]) called = called || c != i;
        if (!called) roots.push_back(i);
      }
    std::fill(selected.begin(), selected.end(), false);
    reach(callees, roots, options.depth, selected);
  }

  // A zero total gives every share 0: the threshold then means nothing.
  const bool thresholds = graph.total_ns != 0 && options.threshold_percent > 0;
  auto above = [&](double share) { return !thresholds || share * 100.0 >= options.threshold_percent; };
  std::vector<bool> keep(nodes.size(), false), keep_edge(edges.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) keep[i] = selected[i] && (protect[i] || above(nodes[i].inclusive_share));
  std::vector<std::vector<size_t>> incoming(nodes.size());
  for (size_t k = 0; k < edges.size(); ++k) {
    const GraphEdge& e = edges[k];
    incoming[e.callee].push_back(k);
    keep_edge[k] = keep[e.caller] && keep[e.callee] && ((protect[e.caller] && protect[e.callee]) || above(e.share));
  }
  keep_callers_of_shown(edges, incoming, selected, keep, keep_edge);
  std::vector<size_t> renumber(nodes.size(), SIZE_MAX);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (keep[i]) {
      renumber[i] = graph.nodes.size();
      graph.nodes.push_back(std::move(nodes[i]));
    } else {
      ++graph.dropped_nodes;
    }
  }
  for (size_t k = 0; k < edges.size(); ++k) {
    if (!keep_edge[k]) {
      ++graph.dropped_edges;
      continue;
    }
    GraphEdge kept = edges[k];
    kept.caller = renumber[kept.caller];
    kept.callee = renumber[kept.callee];
    graph.edges.push_back(kept);
  }
  std::stable_sort(graph.edges.begin(), graph.edges.end(), [](const GraphEdge& x, const GraphEdge& y) {
    return x.caller != y.caller ? x.caller < y.caller : x.callee < y.callee;
  });
  return graph;
}

}  // namespace covkit::trace
