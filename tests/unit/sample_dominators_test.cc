// sample/dominators: the CHK dominators and the post-dominators (virtual
// exit, fake exit edges) against dominance by its definition - d dominates
// n iff n is reachable and removing d makes n unreachable - on hundreds of
// seeded random graphs, plus hand graphs whose trees are known.
#include "sample/dominators.h"

#include <gtest/gtest.h>

#include <random>

namespace covkit::sample {
namespace sample_dominators_test {

// Nodes reachable from `from` in g without passing through `removed`.
std::vector<char> reachable_without(const Graph& g, int from, int removed) {
  std::vector<char> seen(size_t(g.size()), 0);
  if (from == removed) return seen;
  std::vector<int> work{from};
  seen[size_t(from)] = 1;
  while (!work.empty()) {
    int n = work.back();
    work.pop_back();
    for (int m : g.succ[size_t(n)])
      if (m != removed && !seen[size_t(m)]) {
        seen[size_t(m)] = 1;
        work.push_back(m);
      }
  }
  return seen;
}

// naive[d][n]: d dominates n, by definition.
std::vector<std::vector<char>> naive_dominance(const Graph& g) {
  std::vector<char> live = reachable_without(g, g.entry, -1);
  std::vector<std::vector<char>> dom(size_t(g.size()), std::vector<char>(size_t(g.size()), 0));
  for (int d = 0; d < g.size(); ++d) {
    std::vector<char> r = reachable_without(g, g.entry, d);
    for (int n = 0; n < g.size(); ++n) dom[size_t(d)][size_t(n)] = live[size_t(n)] && live[size_t(d)] && (d == n || !r[size_t(n)]);
  }
  return dom;
}

Graph random_graph(std::mt19937& rng, int n, double density) {
  Graph g;
  g.succ.resize(size_t(n));
  std::uniform_int_distribution<int> node(0, n - 1);
  std::bernoulli_distribution edge(density);
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (edge(rng)) g.succ[size_t(a)].push_back(b);
  // A spine so that most nodes are reachable, with back edges and skips from above.
  for (int a = 0; a + 1 < n; ++a)
    if (std::bernoulli_distribution(0.7)(rng)) g.succ[size_t(a)].push_back(a + 1);
  g.entry = node(rng) % 3;
  return g;
}

void expect_matches_naive(const Graph& g, const DominatorTree& t, const std::string& what) {
  auto naive = naive_dominance(g);
  for (int d = 0; d < g.size(); ++d)
    for (int n = 0; n < g.size(); ++n)
      ASSERT_EQ(t.dominates(d, n), bool(naive[size_t(d)][size_t(n)])) << what << ": d=" << d << " n=" << n;
}

TEST(SampleDominators, RandomGraphsMatchTheDefinition) {
  std::mt19937 rng(20261124);
  for (int i = 0; i < 400; ++i) {
    int n = 1 + int(rng() % 24);
    Graph g = random_graph(rng, n, 0.02 + 0.1 * double(rng() % 4));
    expect_matches_naive(g, compute_dominators(g), "graph " + std::to_string(i));
  }
}

// The post-dominator tree is the dominator tree of the reversed graph with
// the exit edges (the real ones, and the fake ones the result reports).
TEST(SampleDominators, RandomPostDominatorsMatchTheDefinition) {
  std::mt19937 rng(424242);
  int with_fake_exits = 0;
  for (int i = 0; i < 400; ++i) {
    int n = 1 + int(rng() % 20);
    Graph g = random_graph(rng, n, 0.03 + 0.05 * double(rng() % 3));
    std::vector<bool> exits(static_cast<size_t>(n), false);
    for (int k = 0; k < n; ++k) exits[size_t(k)] = rng() % 5 == 0;
    PostDominatorTree pd = compute_post_dominators(g, exits);
    ASSERT_EQ(pd.exit, n);
    std::vector<char> live = reachable_without(g, g.entry, -1);
    // Reversed, with the exit as the entry; dead nodes keep no edges.
    Graph r;
    r.succ.resize(size_t(n) + 1);
    r.entry = n;
    for (int a = 0; a < n; ++a) {
      if (!live[size_t(a)]) continue;
      for (int b : g.succ[size_t(a)]) r.succ[size_t(b)].push_back(a);
      if (exits[size_t(a)]) r.succ[size_t(n)].push_back(a);
    }
    for (int f : pd.fake_exits) {
      ASSERT_TRUE(live[size_t(f)]);
      r.succ[size_t(n)].push_back(f);
    }
    with_fake_exits += !pd.fake_exits.empty();
    expect_matches_naive(r, pd.tree, "post graph " + std::to_string(i));
    // Every node the entry reaches has a post-dominator chain to the exit.
    for (int a = 0; a < n; ++a) {
      if (live[size_t(a)]) {
        EXPECT_TRUE(pd.post_dominates(n, a)) << i << " node " << a;
      }
    }
  }
  EXPECT_GT(with_fake_exits, 20);  // the fake-exit path was exercised
}

TEST(SampleDominators, Diamond) {
  // 0 -> 1, 2 -> 3 (exit)
  Graph g{{{1, 2}, {3}, {3}, {}}, 0};
  DominatorTree d = compute_dominators(g);
  EXPECT_EQ(d.idom, (std::vector<int>{0, 0, 0, 0}));
  PostDominatorTree pd = compute_post_dominators(g, {false, false, false, true});
  EXPECT_EQ(pd.post_dominators_of(0), (std::vector<int>{0, 3}));
  EXPECT_EQ(pd.post_dominators_of(1), (std::vector<int>{1, 3}));
  EXPECT_TRUE(pd.fake_exits.empty());
}

TEST(SampleDominators, InfiniteLoopGetsAFakeExitInsideTheLoop) {
  // 0 -> 1 (ret) or 2; 2 <-> 3 forever.
  Graph g{{{1, 2}, {}, {3}, {2}}, 0};
  PostDominatorTree pd = compute_post_dominators(g, {false, true, false, false});
  ASSERT_EQ(pd.fake_exits.size(), 1u);
  EXPECT_TRUE(pd.fake_exits[0] == 2 || pd.fake_exits[0] == 3);
  // Every node has a post-dominator; 0 is post-dominated by nothing but the exit.
  EXPECT_EQ(pd.post_dominators_of(0), (std::vector<int>{0}));
  for (int n = 0; n < 4; ++n) EXPECT_NE(pd.tree.idom[size_t(n)], -1);
}

TEST(SampleDominators, UnreachableNodesHaveNoDominators) {
  Graph g{{{1}, {}, {1}}, 0};
  DominatorTree d = compute_dominators(g);
  EXPECT_EQ(d.idom[2], -1);
  EXPECT_TRUE(d.dominators_of(2).empty());
  EXPECT_FALSE(d.dominates(0, 2));
}

}  // namespace
}  // namespace covkit::sample
