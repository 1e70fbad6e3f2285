#include "sample/dominators.h"

#include <algorithm>

namespace covkit::sample {

namespace {

// Reverse postorder of the nodes `entry` reaches (iterative DFS, so deep
// graphs cannot overflow the stack).
std::vector<int> reverse_postorder(const Graph& g) {
  std::vector<int> order;
  std::vector<char> seen(size_t(g.size()), 0);
  if (g.size() == 0) return order;
  std::vector<std::pair<int, size_t>> stack{{g.entry, 0}};
  seen[size_t(g.entry)] = 1;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    const auto& s = g.succ[size_t(node)];
    if (next < s.size()) {
      int m = s[next++];
      if (!seen[size_t(m)]) {
        seen[size_t(m)] = 1;
        stack.push_back({m, 0});
      }
      continue;
    }
    order.push_back(node);
    stack.pop_back();
  }
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<std::vector<int>> predecessors(const Graph& g) {
  std::vector<std::vector<int>> pred(size_t(g.size()));
  for (int n = 0; n < g.size(); ++n)
    for (int m : g.succ[size_t(n)]) pred[size_t(m)].push_back(n);
  return pred;
}

Graph reversed(const Graph& g, int entry) {
  Graph r;
  r.succ = predecessors(g);
  r.entry = entry;
  return r;
}

// Nodes from which `target` is reachable in g.
std::vector<char> reaching(const Graph& g, int target) {
  std::vector<std::vector<int>> pred = predecessors(g);
  std::vector<char> seen(size_t(g.size()), 0);
  std::vector<int> work{target};
  seen[size_t(target)] = 1;
  while (!work.empty()) {
    int n = work.back();
    work.pop_back();
    for (int p : pred[size_t(n)])
      if (!seen[size_t(p)]) {
        seen[size_t(p)] = 1;
        work.push_back(p);
      }
  }
  return seen;
}

// A node of a sink strongly connected component among the `candidates`
// (each a node that cannot reach the exit): the last to finish a DFS of the
// reversed candidate subgraph lies in a source component of the reversal,
// i.e. a sink component of the original (Kosaraju). Giving the fake exit
// edge to an innermost endless loop keeps it from post-dominating the code
// that leads to it.
int sink_component_node(const Graph& g, const std::vector<char>& candidate) {
  std::vector<std::vector<int>> pred = predecessors(g);
  std::vector<char> seen(size_t(g.size()), 0);
  int last = -1;
  for (int start = 0; start < g.size(); ++start) {
    if (!candidate[size_t(start)] || seen[size_t(start)]) continue;
    std::vector<std::pair<int, size_t>> stack{{start, 0}};
    seen[size_t(start)] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      const auto& p = pred[size_t(node)];
      if (next < p.size()) {
        int m = p[next++];
        if (candidate[size_t(m)] && !seen[size_t(m)]) {
          seen[size_t(m)] = 1;
          stack.push_back({m, 0});
        }
        continue;
      }
      last = node;
      stack.pop_back();
    }
  }
  return last;
}

}  // namespace

DominatorTree compute_dominators(const Graph& g) {
  DominatorTree t;
  t.idom.assign(size_t(g.size()), -1);
  if (g.size() == 0) return t;
  std::vector<int> rpo = reverse_postorder(g);
  std::vector<int> index(size_t(g.size()), -1);  // position in rpo
  for (size_t i = 0; i < rpo.size(); ++i) index[size_t(rpo[i])] = int(i);
  std::vector<std::vector<int>> pred = predecessors(g);
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (index[size_t(a)] > index[size_t(b)]) a = t.idom[size_t(a)];
      while (index[size_t(b)] > index[size_t(a)]) b = t.idom[size_t(b)];
    }
    return a;
  };
  t.idom[size_t(g.entry)] = g.entry;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 1; i < rpo.size(); ++i) {
      int n = rpo[i];
      int new_idom = -1;
      for (int p : pred[size_t(n)]) {
        if (t.idom[size_t(p)] == -1) continue;  // unprocessed or unreachable
        new_idom = new_idom == -1 ? p : intersect(p, new_idom);
      }
      if (new_idom != t.idom[size_t(n)]) {
        t.idom[size_t(n)] = new_idom;
        changed = true;
      }
    }
  }
  return t;
}

bool DominatorTree::dominates(int a, int b) const {
  if (a < 0 || b < 0 || size_t(a) >= idom.size() || size_t(b) >= idom.size()) return false;
  if (idom[size_t(a)] == -1 || idom[size_t(b)] == -1) return false;
  for (int n = b;; n = idom[size_t(n)]) {
    if (n == a) return true;
    if (idom[size_t(n)] == n) return false;
  }
}

std::vector<int> DominatorTree::dominators_of(int b) const {
  std::vector<int> out;
  if (b < 0 || size_t(b) >= idom.size() || idom[size_t(b)] == -1) return out;
  for (int n = b;; n = idom[size_t(n)]) {
    out.push_back(n);
    if (idom[size_t(n)] == n) break;
  }
  return out;
}

std::vector<int> PostDominatorTree::post_dominators_of(int b) const {
  std::vector<int> out = tree.dominators_of(b);
  if (!out.empty() && out.back() == exit) out.pop_back();
  return out;
}

PostDominatorTree compute_post_dominators(const Graph& g, const std::vector<bool>& exits) {
  PostDominatorTree pd;
  pd.exit = g.size();
  // The graph the entry reaches, plus the exit node and its edges.
  std::vector<char> live(size_t(g.size()), 0);
  for (int n : reverse_postorder(g)) live[size_t(n)] = 1;
  Graph aug;
  aug.succ.resize(size_t(g.size()) + 1);
  for (int n = 0; n < g.size(); ++n) {
    if (!live[size_t(n)]) continue;
    aug.succ[size_t(n)] = g.succ[size_t(n)];
    if (size_t(n) < exits.size() && exits[size_t(n)]) aug.succ[size_t(n)].push_back(pd.exit);
  }
  // Fake exit edges until every live node reaches the exit.
  for (;;) {
    std::vector<char> reach = reaching(aug, pd.exit);
    std::vector<char> stuck(aug.succ.size(), 0);
    bool any = false;
    for (int n = 0; n < g.size(); ++n)
      if (live[size_t(n)] && !reach[size_t(n)]) stuck[size_t(n)] = any = 1;
    if (!any) break;
    int n = sink_component_node(aug, stuck);
    aug.succ[size_t(n)].push_back(pd.exit);
    pd.fake_exits.push_back(n);
  }
  pd.tree = compute_dominators(reversed(aug, pd.exit));
  return pd;
}

}  // namespace covkit::sample
