// model/flow_solver: counts of every block and arc from the instrumented
// arcs, on graphs whose answers are known by construction.
#include "model/flow_solver.h"

#include <gtest/gtest.h>

#include <limits>

#include "format/gcno_reader.h"
#include "graph_fixtures.h"
#include "test_support.h"

namespace covkit::model {
namespace flow_solver_test {

using namespace covkit::testing;

void expect_blocks(const Function& fn, const std::vector<int64_t>& counts) {
  ASSERT_EQ(fn.blocks.size(), counts.size());
  for (size_t b = 0; b < counts.size(); ++b) {
    EXPECT_TRUE(fn.blocks[b].count_valid) << "block " << b;
    EXPECT_EQ(fn.blocks[b].count, counts[b]) << "block " << b;
  }
}

void expect_arc(const Function& fn, uint32_t src, uint32_t dst, int64_t count) {
  const Arc& a = arc(fn, src, dst);
  EXPECT_TRUE(a.count_valid) << src << "->" << dst;
  EXPECT_EQ(a.count, count) << src << "->" << dst;
}

TEST(FlowSolver, Diamond) {
  // Called 10 times, the then-branch taken 7 times.
  SolveProblems problems;
  Function fn = solved(diamond(), {10, 7}, &problems);
  EXPECT_FALSE(problems.lacks_entry_or_exit);
  EXPECT_FALSE(problems.arcs_to_entry);
  EXPECT_FALSE(problems.arcs_from_exit);
  expect_blocks(fn, {10, 10, 10, 7, 3, 10});
  expect_arc(fn, 0, 2, 10);
  expect_arc(fn, 2, 3, 7);
  expect_arc(fn, 2, 4, 3);
  expect_arc(fn, 3, 5, 7);
  expect_arc(fn, 4, 5, 3);
  expect_arc(fn, 5, 1, 10);
}

TEST(FlowSolver, DiamondUnconditionalArcs) {
  Function fn = solved(diamond(), {10, 7});
  EXPECT_FALSE(fn.never_ran);
  EXPECT_TRUE(arc(fn, 0, 2).is_unconditional);
  EXPECT_FALSE(arc(fn, 2, 3).is_unconditional);
  EXPECT_FALSE(arc(fn, 2, 4).is_unconditional);
  EXPECT_TRUE(arc(fn, 3, 5).is_unconditional);
  EXPECT_TRUE(arc(fn, 4, 5).is_unconditional);
  EXPECT_TRUE(arc(fn, 5, 1).is_unconditional);
  for (const Block& b : fn.blocks) {
    EXPECT_FALSE(b.is_call_return);
    EXPECT_FALSE(b.exceptional);
  }
}

TEST(FlowSolver, DiamondNeverRun) {
  Function fn = solved(diamond(), {0, 0});
  // Every count 0, without propagating zeros (count_valid is the solver's
  // own bookkeeping); the flags do not depend on the counts.
  EXPECT_TRUE(fn.never_ran);
  ASSERT_EQ(fn.blocks.size(), 6u);
  for (const Block& b : fn.blocks) EXPECT_EQ(b.count, 0);
  for (const Arc& a : fn.arcs) EXPECT_EQ(a.count, 0) << a.src << "->" << a.dst;
  EXPECT_TRUE(arc(fn, 0, 2).is_unconditional);
  EXPECT_FALSE(arc(fn, 2, 3).is_unconditional);
}

TEST(FlowSolver, LoopExecutedNTimes) {
  // Called twice, 5 iterations per call.
  constexpr int64_t kCalls = 2, kIterations = 5;
  Function fn = solved(loop(), {kCalls, kCalls * kIterations});
  expect_blocks(fn, {kCalls, kCalls, kCalls, kCalls * kIterations + kCalls, kCalls * kIterations, kCalls});
  expect_arc(fn, 2, 3, kCalls);
  expect_arc(fn, 3, 4, kCalls * kIterations);
  expect_arc(fn, 4, 3, kCalls * kIterations);
  expect_arc(fn, 3, 5, kCalls);
  expect_arc(fn, 5, 1, kCalls);
  EXPECT_FALSE(arc(fn, 3, 4).is_unconditional);
  EXPECT_FALSE(arc(fn, 3, 5).is_unconditional);
  EXPECT_TRUE(arc(fn, 4, 3).is_unconditional);
}

TEST(FlowSolver, NestedLoops) {
  // One call; the outer loop runs N = 3 times, the inner M = 4 times per outer iteration.
  constexpr int64_t N = 3, M = 4;
  Function fn = solved(nested_loops(), {1, N, N * M});
  //                   0  1  2  3 (i<N)  4  5 (j<M)       6      7  8
  expect_blocks(fn, {1, 1, 1, N + 1, N, N * M + N, N * M, N, 1});
  expect_arc(fn, 3, 4, N);
  expect_arc(fn, 3, 8, 1);
  expect_arc(fn, 5, 6, N * M);
  expect_arc(fn, 5, 7, N);
  expect_arc(fn, 6, 5, N * M);
  expect_arc(fn, 7, 3, N);
  expect_arc(fn, 4, 5, N);
}

TEST(FlowSolver, CallThatMayNotReturn) {
  // 5 calls, 4 returned (one exited through the fake arc).
  Function fn = solved(call_with_fake_exit(), {5, 4});
  expect_blocks(fn, {5, 5, 5, 4});
  expect_arc(fn, 2, 3, 4);
  expect_arc(fn, 2, 1, 1);
  expect_arc(fn, 3, 1, 4);
  const Arc& fake = arc(fn, 2, 1);
  EXPECT_TRUE(fake.is_call_non_return);
  EXPECT_FALSE(fake.is_unconditional);
  // The fallthrough is the only non-fake exit: unconditional, and block 3,
  // entered only from it, is the artificial block the call returns to.
  EXPECT_TRUE(arc(fn, 2, 3).is_unconditional);
  EXPECT_TRUE(fn.blocks[3].is_call_return);
  EXPECT_FALSE(fn.blocks[2].is_call_return);
  EXPECT_FALSE(fn.has_catch);
}

TEST(FlowSolver, CallReturnBlockNeedsSinglePredecessor) {
  // Like call_with_fake_exit, but block 3 is also entered from block 4.
  auto n = notes_function(5, {{0, 2, kFall}, {0, 4, 0}, {2, 3, kFall}, {2, 1, kTree | kFake}, {4, 3, kTree},
                              {3, 1, kTree}});
  Function fn = solved(n, {3, 2, 3});
  expect_blocks(fn, {5, 5, 3, 5, 2});
  expect_arc(fn, 2, 1, 0);
  EXPECT_FALSE(fn.blocks[3].is_call_return);
}

TEST(FlowSolver, CallWithCatch) {
  // 10 calls: 7 returned, 2 threw into the handler, 1 left the function.
  Function fn = solved(call_with_catch(), {10, 7, 2});
  expect_blocks(fn, {10, 10, 10, 7, 2, 9});
  expect_arc(fn, 2, 1, 1);
  expect_arc(fn, 2, 3, 7);
  expect_arc(fn, 2, 4, 2);
  expect_arc(fn, 3, 5, 7);
  expect_arc(fn, 4, 5, 2);
  expect_arc(fn, 5, 1, 9);
  EXPECT_TRUE(fn.has_catch);
  EXPECT_TRUE(arc(fn, 2, 4).is_throw);
  EXPECT_TRUE(arc(fn, 2, 1).is_call_non_return);
  // Two non-fake exits: neither is unconditional, no call-return block.
  EXPECT_FALSE(arc(fn, 2, 3).is_unconditional);
  EXPECT_FALSE(arc(fn, 2, 4).is_unconditional);
  EXPECT_FALSE(fn.blocks[3].is_call_return);
  // The handler is reached only by a throw.
  EXPECT_TRUE(fn.blocks[4].exceptional);
  for (uint32_t b : {0u, 1u, 2u, 3u, 5u}) EXPECT_FALSE(fn.blocks[b].exceptional) << b;
}

TEST(FlowSolver, ExceptionalBlocksFollowOnlyThrowAndFakeArcs) {
  // 2 throws to 4, 4 -> 6 (only reachable via 4), 3 -> 5, 6 -> 5.
  auto n = notes_function(7, {{0, 2, kFall},
                              {2, 3, kFall},
                              {2, 4, 0},
                              {2, 1, kTree | kFake},
                              {3, 5, kTree},
                              {4, 6, kTree},
                              {6, 5, kTree},
                              {5, 1, kTree}});
  Function fn = solved(n, {4, 3, 1});
  expect_blocks(fn, {4, 4, 4, 3, 1, 4, 1});
  EXPECT_TRUE(fn.blocks[4].exceptional);
  EXPECT_TRUE(fn.blocks[6].exceptional);
  EXPECT_FALSE(fn.blocks[5].exceptional);
  EXPECT_FALSE(fn.blocks[1].exceptional);
}

TEST(FlowSolver, SetjmpFakeArcFromEntry) {
  // 3 calls and 2 longjmps back into the receiver block.
  Function fn = solved(setjmp_receiver(), {3, 2});
  expect_blocks(fn, {5, 5, 3, 5});
  expect_arc(fn, 0, 2, 3);
  expect_arc(fn, 0, 3, 2);
  expect_arc(fn, 2, 3, 3);
  expect_arc(fn, 3, 1, 5);
  const Arc& nl = arc(fn, 0, 3);
  EXPECT_TRUE(nl.is_nonlocal_return);
  EXPECT_FALSE(nl.is_call_non_return);
  EXPECT_FALSE(nl.is_unconditional);
  EXPECT_TRUE(arc(fn, 0, 2).is_unconditional);  // the only non-fake successor of ENTRY
  EXPECT_TRUE(fn.blocks[3].is_nonlocal_return);
  EXPECT_FALSE(fn.has_catch);
  for (const Block& b : fn.blocks) EXPECT_FALSE(b.is_call_return);
}

TEST(FlowSolver, SuccessorsSortedByDestination) {
  // Arcs of block 2 listed as 5, 3, 4.
  auto n = notes_function(6, {{0, 2, kFall}, {2, 5, 0}, {2, 3, 0}, {2, 4, kTree | kFall}, {3, 1, kTree},
                              {4, 1, kTree}, {5, 1, kTree}});
  Function fn = solved(n, {6, 1, 2});
  ASSERT_EQ(fn.blocks[2].succ.size(), 3u);
  EXPECT_EQ(fn.arcs[fn.blocks[2].succ[0]].dst, 3u);
  EXPECT_EQ(fn.arcs[fn.blocks[2].succ[1]].dst, 4u);
  EXPECT_EQ(fn.arcs[fn.blocks[2].succ[2]].dst, 5u);
  // Counters still went to the arcs in notes order: 0->2, 2->5, 2->3.
  expect_arc(fn, 2, 5, 1);
  expect_arc(fn, 2, 3, 2);
  expect_arc(fn, 2, 4, 3);
  expect_blocks(fn, {6, 6, 6, 2, 3, 1});
}

// A function that never ran takes the solver's short way (no block states,
// no propagation): its arcs get the same kinds, order and counter slots as
// the same graph that ran, and the same problems are found.
TEST(FlowSolver, NeverRunGetsTheSameArcsAsRun) {
  const std::vector<std::pair<format::NotesFunction, size_t>> graphs = {
      {diamond(), 2},
      {call_with_fake_exit(), 2},
      {setjmp_receiver(), 2},
      {notes_function(6, {{0, 2, kFall}, {2, 5, 0}, {2, 3, 0}, {2, 4, kTree | kFall}, {3, 1, kTree},
                          {4, 1, kTree}, {5, 1, kTree}}),
       3},
      {notes_function(3, {{0, 2, 0}, {2, 0, kTree}, {1, 2, kTree}, {2, 1, kTree}}), 1},
      {notes_function(1, {}), 0}};
  for (size_t g = 0; g < graphs.size(); ++g) {
    const auto& [notes, ncounters] = graphs[g];
    SolveProblems ran_problems, idle_problems;
    Function ran = solved(notes, std::vector<int64_t>(ncounters, 3), &ran_problems);
    Function idle = solved(notes, std::vector<int64_t>(ncounters, 0), &idle_problems);
    EXPECT_EQ(idle.never_ran, true) << g;
    EXPECT_EQ(ran.never_ran, ncounters == 0) << g;
    EXPECT_EQ(idle_problems.lacks_entry_or_exit, ran_problems.lacks_entry_or_exit) << g;
    EXPECT_EQ(idle_problems.arcs_to_entry, ran_problems.arcs_to_entry) << g;
    EXPECT_EQ(idle_problems.arcs_from_exit, ran_problems.arcs_from_exit) << g;
    ASSERT_EQ(idle.blocks.size(), ran.blocks.size()) << g;
    for (size_t b = 0; b < idle.blocks.size(); ++b) {
      EXPECT_EQ(idle.blocks[b].count, 0) << g << " block " << b;
      EXPECT_EQ(idle.blocks[b].is_call_return, ran.blocks[b].is_call_return) << g << " block " << b;
      ASSERT_EQ(idle.blocks[b].succ.size(), ran.blocks[b].succ.size()) << g << " block " << b;
      for (size_t i = 0; i < idle.blocks[b].succ.size(); ++i) {
        EXPECT_EQ(idle.blocks[b].succ[i], ran.blocks[b].succ[i]) << g << " block " << b;
        const Arc& ia = idle.arcs[idle.blocks[b].succ[i]];
        const Arc& ra = ran.arcs[ran.blocks[b].succ[i]];
        EXPECT_EQ(ia.count, 0) << g << " block " << b;
        EXPECT_EQ(ia.is_unconditional, ra.is_unconditional) << g << " block " << b;
        EXPECT_EQ(ia.is_call_non_return, ra.is_call_non_return) << g << " block " << b;
        // The counted arcs' counts are known either way.
        EXPECT_TRUE(ia.on_tree || ia.count_valid) << g << " block " << b;
      }
    }
  }
}

TEST(FlowSolver, CountersWrapInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // Two arcs into block 4: kMax + 1 wraps to kMin, as gcov's arithmetic does.
  auto n = notes_function(5, {{0, 2, 0}, {0, 3, 0}, {2, 4, kTree}, {3, 4, kTree}, {4, 1, kTree}});
  Function fn = solved(n, {kMax, 1});
  EXPECT_EQ(fn.blocks[0].count, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(fn.blocks[4].count, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(fn.blocks[1].count, std::numeric_limits<int64_t>::min());
}

TEST(FlowSolver, NegativeCountersAreKept) {
  Function fn = solved(diamond(), {-5, 7});
  expect_blocks(fn, {-5, -5, -5, 7, -12, -5});
}

TEST(FlowSolver, ReportsMissingEntryOrExit) {
  SolveProblems p;
  solved(notes_function(1, {}), {}, &p);
  EXPECT_TRUE(p.lacks_entry_or_exit);
  solved(notes_function(0, {}), {}, &p);
  EXPECT_TRUE(p.lacks_entry_or_exit);
}

TEST(FlowSolver, ReportsArcsToEntryAndFromExit) {
  SolveProblems p;
  solved(notes_function(3, {{0, 2, 0}, {2, 0, kTree}, {1, 2, kTree}, {2, 1, kTree}}), {1}, &p);
  EXPECT_TRUE(p.arcs_to_entry);
  EXPECT_TRUE(p.arcs_from_exit);
  EXPECT_FALSE(p.lacks_entry_or_exit);
}

TEST(FlowSolver, UnsolvableGraphLeavesCountsInvalid) {
  // Every arc on the tree and a cycle: nothing can be inferred, and solving terminates.
  auto n = notes_function(4, {{0, 2, kTree}, {2, 3, kTree}, {3, 2, kTree}, {3, 1, kTree}});
  Function fn = solved(n, {});
  EXPECT_FALSE(fn.blocks[2].count_valid);
  EXPECT_FALSE(fn.blocks[3].count_valid);
}

TEST(FlowSolver, FewerCountersThanArcsTreatsTheRestAsZero) {
  format::NotesFunction n = diamond();
  Function fn = build_graph(n);
  fn.counts = {4};  // one counter short
  solve_flow_graph(fn);
  EXPECT_EQ(fn.blocks[0].count, 4);
  expect_arc(fn, 2, 3, 0);
}

// The solved graph of the real program compiled with gcc-12: block counts
// are the iteration counts of its loops.
TEST(FlowSolverReal, KnownProgramGcc12) {
  COVKIT_REQUIRE_PROGRAM(p, "gcc-12");
  auto notes = format::read_notes(p.gcno);
  ASSERT_TRUE(notes.has_value());
  const auto& nf = (*notes);
  ASSERT_EQ(nf.functions.size(), 3u);
  // main's counters as the data file holds them (see GcdaReaderReal).
  Function fn = solved(nf.functions[0], {1, 10, 10, 3, 12, 0, 0});
  ASSERT_EQ(fn.blocks.size(), 17u);
  EXPECT_EQ(fn.blocks[0].count, 1);   // entry
  EXPECT_EQ(fn.blocks[1].count, 1);   // exit
  EXPECT_EQ(fn.blocks[3].count, 10);  // s += sq(i): the call
  EXPECT_EQ(fn.blocks[5].count, 11);  // i < 10
  EXPECT_EQ(fn.blocks[13].count, 0);  // never() is not called
  EXPECT_EQ(fn.blocks[15].count, 1);  // return
  for (const Block& b : fn.blocks) EXPECT_TRUE(b.count_valid);
  // The call to sq may not return: fake arc 3 -> EXIT with count 0.
  const Arc& fake = arc(fn, 3, 1);
  EXPECT_TRUE(fake.is_call_non_return);
  EXPECT_EQ(fake.count, 0);
  EXPECT_TRUE(fn.blocks[4].is_call_return);
  // The blocks of line 10 (6..11) add up to the one-line nested loops.
  int64_t sum = 0;
  for (uint32_t b = 6; b <= 11; ++b) sum += fn.blocks[b].count;
  EXPECT_EQ(sum, 1 + 4 + 3 + 15 + 12 + 3);
}

}  // namespace
}  // namespace covkit::model
