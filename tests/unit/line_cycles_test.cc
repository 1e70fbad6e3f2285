// model/line_cycles: the count of a source line from the blocks on it.
#include "model/line_cycles.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "graph_fixtures.h"

namespace covkit::model {
namespace line_cycles_test {

using namespace covkit::testing;

std::vector<LineBlockRef> refs(const Function& fn, std::initializer_list<uint32_t> blocks) {
  std::vector<LineBlockRef> out;
  for (uint32_t b : blocks) out.push_back(LineBlockRef{&fn, b});
  return out;
}

// `for (i = 0; i < N; i++) for (j = 0; j < M; j++) s++;` on one line: the
// line runs once on entry, once per outer iteration and once per inner one,
// 1 + N + N*M times (gcov prints 16 for N = 3, M = 4), not the sum of its
// block counts.
TEST(LineCycles, NestedLoopsOnOneLine) {
  for (auto [n, m] : {std::pair<int64_t, int64_t>{3, 4}, {1, 1}, {10, 7}, {5, 0}}) {
    Function fn = solved(nested_loops(), {1, n, n * m});
    auto line = refs(fn, {2, 3, 4, 5, 6, 7});
    EXPECT_EQ(line_count_from_blocks(line), 1 + n + n * m) << n << "x" << m;
  }
}

TEST(LineCycles, NestedLoopsOnOneLineCalledTwice) {
  // Two calls of 3 x 4 iterations each.
  Function fn = solved(nested_loops(), {2, 6, 24});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {2, 3, 4, 5, 6, 7})), 2 + 6 + 24);
}

TEST(LineCycles, BlockOrderDoesNotMatter) {
  Function fn = solved(nested_loops(), {1, 3, 12});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {7, 6, 5, 4, 3, 2})), 16);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {5, 2, 7, 3, 6, 4})), 16);
}

TEST(LineCycles, InnerLoopAloneOnALine) {
  // `for (j..) s++;` alone: entered N times from outside, plus M*N circuits 5 -> 6 -> 5.
  Function fn = solved(nested_loops(), {1, 3, 12});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {5, 6})), 3 + 12);
}

TEST(LineCycles, LoopConditionAndBody) {
  // while (cond) body; on one line, 2 calls x 5 iterations: 2 entries + 10 circuits.
  Function fn = solved(loop(), {2, 10});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {3, 4})), 12);
  // The condition alone is entered from 2 and from 4, both off the line.
  EXPECT_EQ(line_count_from_blocks(refs(fn, {3})), 12);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {4})), 10);
}

TEST(LineCycles, BlocksEnteredFromOutsideOnly) {
  // if (c) a(); else b(); with both branches on one line: the entries 2->3
  // (7) and 2->4 (3) come from outside the line, and there is no loop.
  Function fn = solved(diamond(), {10, 7});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {3, 4})), 10);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {3})), 7);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {4})), 3);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {5})), 10);
  // Blocks in sequence on one line: only the first is entered from outside.
  EXPECT_EQ(line_count_from_blocks(refs(fn, {2, 3})), 10);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {2, 3, 4, 5})), 10);
}

TEST(LineCycles, SelfLoop) {
  // Block 2 loops on itself 5 times after 1 entry.
  auto n = notes_function(3, {{0, 2, kFall}, {2, 2, 0}, {2, 1, kTree}});
  Function fn = solved(n, {1, 5});
  ASSERT_EQ(fn.blocks[2].count, 6);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {2})), 6);
}

TEST(LineCycles, NeverExecutedLine) {
  Function fn = solved(nested_loops(), {0, 0, 0});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {2, 3, 4, 5, 6, 7})), 0);
}

TEST(LineCycles, EmptyLine) { EXPECT_EQ(line_count_from_blocks({}), 0); }

TEST(LineCycles, DuplicateBlockEntriesCountTheirEntriesTwice) {
  // gcov sums the entries of line->blocks as listed, duplicates included.
  Function fn = solved(diamond(), {10, 7});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {3, 3})), 14);
}

TEST(LineCycles, BlocksOfTwoFunctionsOnOneLine) {
  Function a = solved(diamond(), {10, 7});
  Function b = solved(loop(), {2, 10});
  std::vector<LineBlockRef> line{{&a, 3}, {&b, 3}, {&b, 4}};
  EXPECT_EQ(line_count_from_blocks(line), 7 + 12);
}

TEST(LineCycles, NeverRunFunctionBesideOneThatRan) {
  // A header's line: one object's instance ran, another's never did (its
  // counters all 0: counted as 0 without looking at its blocks).
  Function ran = solved(loop(), {2, 10});
  Function idle = solved(nested_loops(), {0, 0, 0});
  ASSERT_TRUE(idle.never_ran);
  ASSERT_FALSE(ran.never_ran);
  std::vector<LineBlockRef> line{{&idle, 2}, {&ran, 3}, {&idle, 5}, {&ran, 4}, {&idle, 6}};
  EXPECT_EQ(line_count_from_blocks(line), 12);
}

TEST(LineCycles, LineOfFunctionsThatNeverRanCountsZero) {
  // Several instances on one line, none of which ran: 0, whatever the
  // shapes (they are left out before the line is split by function).
  Function a = solved(nested_loops(), {0, 0, 0});
  Function b = solved(loop(), {0, 0});
  ASSERT_TRUE(a.never_ran && b.never_ran);
  std::vector<LineBlockRef> line{{&a, 2}, {&b, 3}, {&a, 3}, {&b, 4}, {&a, 6}, {&b, 3}};
  EXPECT_EQ(line_count_from_blocks(line), 0);
  // One that ran among them keeps its own count, wherever it is listed.
  Function c = solved(loop(), {2, 10});
  line.insert(line.begin() + 2, {&c, 3});
  line.push_back({&c, 4});
  EXPECT_EQ(line_count_from_blocks(line), 12);
}

TEST(LineCycles, LoopNeverTakenHasNoCircuit) {
  // while (cond) body; on one line, called twice, the body never run: the
  // arc back from the body has no count, so the line is entered twice and
  // loops nowhere.
  Function fn = solved(loop(), {2, 0});
  EXPECT_EQ(line_count_from_blocks(refs(fn, {3, 4})), 2);
  EXPECT_EQ(line_count_from_blocks(refs(fn, {4, 3})), 2);
}

// A header's line in many objects: blocks of several functions interleaved,
// loops among each function's own blocks. Counted per function and summed,
// whatever the interleaving.
TEST(LineCycles, InterleavedFunctionsCountAsTheirSum) {
  Function a = solved(nested_loops(), {1, 3, 12});
  Function b = solved(nested_loops(), {2, 6, 24});
  Function c = solved(loop(), {2, 10});
  const int64_t alone = line_count_from_blocks(refs(a, {2, 3, 4, 5, 6, 7})) +
                        line_count_from_blocks(refs(b, {5, 6})) + line_count_from_blocks(refs(c, {3, 4, 3}));
  EXPECT_EQ(alone, 16 + (6 + 24) + (2 + 2 + 10));
  std::vector<LineBlockRef> line{{&c, 3}, {&a, 2}, {&b, 5}, {&a, 3}, {&c, 4}, {&a, 4}, {&b, 6},
                                 {&a, 5}, {&a, 6}, {&c, 3}, {&a, 7}};
  EXPECT_EQ(line_count_from_blocks(line), alone);
  std::reverse(line.begin(), line.end());
  EXPECT_EQ(line_count_from_blocks(line), alone);
}

}  // namespace
}  // namespace covkit::model
