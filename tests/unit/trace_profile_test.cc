// build_profile on synthetic traces: what replaying nested enter/exit events
// gives per function, per edge, per call path, and for the deepest stack.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "format/trace_reader.h"
#include "trace/call_profile.h"
#include "trace/profile_json.h"
#include "trace/profile_text.h"
#include "trace/profile_view.h"
#include "trace/symbolizer.h"

namespace covkit::trace {
namespace trace_profile_test {

using format::TraceEvent;
using Kind = TraceEvent::Kind;

// Addresses in no module are named after themselves.
std::string N(uint64_t address) { return fmt::format("0x{:x} (unknown module)", address); }
constexpr uint64_t kMain = 0x1000, kF = 0x2000, kG = 0x3000, kH = 0x4000;

struct ThreadBuilder {
  format::TraceThread t;
  ThreadBuilder(uint32_t tid, uint64_t start = 0) {
    t.tid = tid;
    t.start = start;
  }
  ThreadBuilder& enter(uint64_t at, uint64_t fn) {
    t.events.push_back({.kind = Kind::kEnter, .time = at, .address = fn});
    return *this;
  }
  ThreadBuilder& exit(uint64_t at) {
    t.events.push_back({.kind = Kind::kExit, .time = at});
    return *this;
  }
};

format::TraceSet one_thread(const format::TraceThread& t) {
  format::TraceSet set;
  set.processes.emplace_back();
  set.processes[0].pid = 1;
  set.processes[0].threads.push_back(t);
  return set;
}

const FunctionStats& fn(const std::vector<FunctionStats>& fns, const std::string& name) {
  for (const auto& f : fns)
    if (f.name == name) return f;
  static FunctionStats none;
  ADD_FAILURE() << "no function " << name;
  return none;
}

uint64_t edge_calls(const CallProfile& p, const std::string& caller, const std::string& callee) {
  for (const auto& e : p.edges)
    if (e.caller == caller && e.callee == callee) return e.calls;
  return 0;
}

TEST(CallProfileTest, FlatProfileEdgesAndTree) {
  // main [0,100): f [10,20), g [30,70) which calls f [40,45), f [80,90)
  ThreadBuilder b(1);
  b.enter(0, kMain).enter(10, kF).exit(20).enter(30, kG).enter(40, kF).exit(45).exit(70).enter(80, kF).exit(90).exit(100);
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  ASSERT_EQ(p.functions.size(), 3u);
  EXPECT_EQ(p.functions[0].name, N(kMain));  // sorted by inclusive time
  const auto& main = fn(p.functions, N(kMain));
  EXPECT_EQ(main.calls, 1u);
  EXPECT_EQ(main.inclusive_ns, 100u);
  EXPECT_EQ(main.exclusive_ns, 100u - 10 - 40 - 10);
  const auto& f = fn(p.functions, N(kF));
  EXPECT_EQ(f.calls, 3u);
  EXPECT_EQ(f.inclusive_ns, 25u);
  EXPECT_EQ(f.exclusive_ns, 25u);
  EXPECT_EQ(f.min_ns, 5u);
  EXPECT_EQ(f.max_ns, 10u);
  const auto& g = fn(p.functions, N(kG));
  EXPECT_EQ(g.inclusive_ns, 40u);
  EXPECT_EQ(g.exclusive_ns, 35u);

  ASSERT_EQ(p.edges.size(), 3u);
  EXPECT_EQ(edge_calls(p, N(kMain), N(kF)), 2u);
  EXPECT_EQ(edge_calls(p, N(kMain), N(kG)), 1u);
  EXPECT_EQ(edge_calls(p, N(kG), N(kF)), 1u);
  EXPECT_EQ(p.edges[0].caller, N(kMain));  // sorted by caller, callee

  EXPECT_EQ(p.max_depth, 3u);
  EXPECT_EQ(p.deepest_chain, (std::vector<std::string>{N(kMain), N(kG), N(kF)}));
  EXPECT_EQ(p.total_ns, 100u);

  ASSERT_EQ(p.threads.size(), 1u);
  const CallTreeNode& root = p.threads[0].tree;
  EXPECT_EQ(root.inclusive_ns, 100u);
  ASSERT_EQ(root.children.size(), 1u);
  const CallTreeNode& m = root.children[0];
  ASSERT_EQ(m.children.size(), 2u);  // f (2 calls merged), then g: in order of first call
  EXPECT_EQ(m.children[0].name, N(kF));
  EXPECT_EQ(m.children[0].calls, 2u);
  EXPECT_EQ(m.children[0].inclusive_ns, 20u);
  EXPECT_EQ(m.children[1].name, N(kG));
  ASSERT_EQ(m.children[1].children.size(), 1u);
  EXPECT_EQ(m.children[1].children[0].name, N(kF));
  EXPECT_EQ(m.children[1].children[0].inclusive_ns, 5u);
}

TEST(CallProfileTest, RecursionCountsOnlyTheOutermostActivation) {
  // main [0,100) -> f [10,90) -> f [20,80) -> f [30,40)
  ThreadBuilder b(1);
  b.enter(0, kMain).enter(10, kF).enter(20, kF).enter(30, kF).exit(40).exit(80).exit(90).exit(100);
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  const auto& f = fn(p.functions, N(kF));
  EXPECT_EQ(f.calls, 3u);
  EXPECT_EQ(f.inclusive_ns, 80u);  // not 80 + 60 + 10
  EXPECT_EQ(f.exclusive_ns, 80u);  // 20 + 50 + 10
  EXPECT_EQ(f.min_ns, 10u);
  EXPECT_EQ(f.max_ns, 80u);
  EXPECT_EQ(fn(p.functions, N(kMain)).exclusive_ns, 20u);
  EXPECT_EQ(edge_calls(p, N(kF), N(kF)), 2u);
  EXPECT_EQ(edge_calls(p, N(kMain), N(kF)), 1u);
  for (const auto& e : p.edges)
    if (e.caller == N(kF) && e.callee == N(kF)) {
      EXPECT_EQ(e.inclusive_ns, 60u);
    }
  EXPECT_EQ(p.max_depth, 4u);
  EXPECT_EQ(p.deepest_chain, (std::vector<std::string>{N(kMain), N(kF), N(kF), N(kF)}));
  // The tree keeps the recursion as a path.
  const CallTreeNode* n = &p.threads[0].tree;
  for (int depth = 0; depth < 4; ++depth) {
    ASSERT_EQ(n->children.size(), 1u);
    n = &n->children[0];
  }
  EXPECT_EQ(n->name, N(kF));
  EXPECT_EQ(n->inclusive_ns, 10u);
}

TEST(CallProfileTest, MainAloneIsDepthOne) {
  ThreadBuilder b(1);
  b.enter(5, kMain).exit(9);
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(p.max_depth, 1u);
  EXPECT_EQ(p.deepest_chain, std::vector<std::string>{N(kMain)});
  EXPECT_TRUE(p.edges.empty());  // a root has no caller
  EXPECT_EQ(p.total_ns, 4u);
}

TEST(CallProfileTest, DeepestChainIsTheFirstToReachTheMaximum) {
  ThreadBuilder b(1);
  b.enter(0, kMain).enter(1, kF).enter(2, kG).exit(3).exit(4);   // main f g
  b.enter(5, kH).enter(6, kG).exit(7).exit(8);                    // main h g: as deep, later
  b.exit(9);
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(p.max_depth, 3u);
  EXPECT_EQ(p.deepest_chain, (std::vector<std::string>{N(kMain), N(kF), N(kG)}));

  ThreadBuilder c(1);
  c.enter(0, kMain).enter(1, kF).exit(2).enter(3, kH).enter(4, kG).enter(5, kF).exit(6).exit(7).exit(8).exit(9);
  CallProfile q = build_profile(one_thread(c.t), symbols);
  EXPECT_EQ(q.max_depth, 4u);
  EXPECT_EQ(q.deepest_chain, (std::vector<std::string>{N(kMain), N(kH), N(kG), N(kF)}));
}

TEST(CallProfileTest, InitialStackFramesAreOpenFromTheStart) {
  // A forked child: it starts inside main -> f, calls g, then returns.
  ThreadBuilder b(2, 100);
  b.t.initial_stack = {kMain, kF};
  b.enter(110, kG).exit(120).exit(150).exit(160);
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(fn(p.functions, N(kMain)).inclusive_ns, 60u);
  EXPECT_EQ(fn(p.functions, N(kF)).inclusive_ns, 50u);
  EXPECT_EQ(fn(p.functions, N(kF)).exclusive_ns, 40u);
  // Called in the parent: counted there, not here.
  EXPECT_EQ(fn(p.functions, N(kMain)).calls, 0u);
  EXPECT_EQ(fn(p.functions, N(kF)).calls, 0u);
  EXPECT_EQ(fn(p.functions, N(kF)).max_ns, 0u);
  EXPECT_EQ(edge_calls(p, N(kMain), N(kF)), 0u);
  EXPECT_EQ(edge_calls(p, N(kF), N(kG)), 1u);
  EXPECT_EQ(fn(p.functions, N(kG)).calls, 1u);
  EXPECT_EQ(p.max_depth, 3u);
  EXPECT_EQ(p.deepest_chain, (std::vector<std::string>{N(kMain), N(kF), N(kG)}));
  EXPECT_EQ(p.threads[0].wall_ns, 60u);

  // Only the initial stack, no event: open from start to start.
  ThreadBuilder c(3, 100);
  c.t.initial_stack = {kMain};
  CallProfile q = build_profile(one_thread(c.t), symbols);
  EXPECT_EQ(q.max_depth, 1u);
  EXPECT_EQ(fn(q.functions, N(kMain)).inclusive_ns, 0u);
}

TEST(CallProfileTest, UnclosedFramesCloseAtTheLastEventOrTheProcessEnd) {
  ThreadBuilder b(1);
  b.enter(0, kMain).enter(10, kF).enter(20, kG).exit(30);  // killed inside f
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(fn(p.functions, N(kMain)).inclusive_ns, 30u);
  EXPECT_EQ(fn(p.functions, N(kF)).inclusive_ns, 20u);
  EXPECT_EQ(fn(p.functions, N(kF)).calls, 1u);

  // The stream's own last time (an end or lost special) counts too.
  b.t.last_time = 50;
  p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(fn(p.functions, N(kMain)).inclusive_ns, 50u);

  // A thread still running when its process ended normally.
  format::TraceSet set = one_thread(b.t);
  set.processes[0].end = 200;
  p = build_profile(set, symbols);
  EXPECT_EQ(fn(p.functions, N(kMain)).inclusive_ns, 200u);
  EXPECT_EQ(p.threads[0].wall_ns, 200u);
}

// `trace attach --for`: tracing switched on at 1000 and off at 1500 in a
// process whose threads live from 0 to about 9000. What was traced is the
// events' span (issue 32 item 11: "9.732 s traced" for a 5 s attach), not
// the threads' lives, and the report says so.
TEST(CallProfileTest, WhatWasTracedIsTheEventsSpanNotTheThreadsLives) {
  format::TraceSet set;
  set.processes.emplace_back();
  set.processes[0].pid = 1;
  ThreadBuilder a(1, 0), b(2, 0);
  a.enter(1000, kF).exit(1400).enter(1450, kG).exit(1500);
  a.t.last_time = 9000;  // its end, long after tracing was switched off
  a.t.ended = true;
  b.enter(1100, kH).exit(1300);
  b.t.last_time = 9700;
  b.t.ended = true;
  set.processes[0].threads = {a.t, b.t};
  set.processes[0].end = 9800;
  Symbolizer symbols;
  CallProfile p = build_profile(set, symbols);
  EXPECT_EQ(p.threads[0].wall_ns, 500u);
  EXPECT_EQ(p.threads[1].wall_ns, 200u);
  EXPECT_EQ(p.total_ns, 700u);
  EXPECT_EQ(p.span_ns, 500u);
  const std::string text = profile_text("t", p, ProfileView{});
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "Trace t: 1 process, 2 threads, 500 ns traced (700 ns in all threads), 0 lost events");
  // A thread killed inside a call: its frames close at the process's end,
  // which is then traced too.
  ThreadBuilder c(3, 0);
  c.enter(1000, kF).enter(1100, kG);
  p = build_profile(one_thread(c.t), symbols);
  EXPECT_EQ(p.threads[0].wall_ns, 100u);
  format::TraceSet killed = one_thread(c.t);
  killed.processes[0].end = 3000;
  p = build_profile(killed, symbols);
  EXPECT_EQ(p.threads[0].wall_ns, 2000u);
  EXPECT_EQ(p.span_ns, 2000u);
  EXPECT_EQ(fn(p.functions, N(kF)).inclusive_ns, 2000u);
}

TEST(CallProfileTest, ThreadsAndProcessesAddUpByName) {
  format::TraceSet set;
  for (uint32_t pid : {1u, 2u}) {
    format::TraceProcess proc;
    proc.pid = pid;
    ThreadBuilder t1(pid), t2(pid + 100);
    t1.enter(0, kMain).enter(1, kF).exit(3).exit(10);
    t2.enter(0, kG).enter(1, kF).enter(2, kH).enter(3, kH).exit(4).exit(5).exit(7).exit(8);
    proc.threads = {t1.t, t2.t};
    set.processes.push_back(proc);
  }
  set.processes[1].threads[0].lost = 3;
  Symbolizer symbols;
  CallProfile p = build_profile(set, symbols);
  EXPECT_EQ(p.threads.size(), 4u);
  EXPECT_EQ(p.threads[1].tid, 101u);
  const auto& f = fn(p.functions, N(kF));
  EXPECT_EQ(f.calls, 4u);
  EXPECT_EQ(f.inclusive_ns, 2u * (2 + 6));
  EXPECT_EQ(f.min_ns, 2u);
  EXPECT_EQ(f.max_ns, 6u);
  EXPECT_EQ(edge_calls(p, N(kMain), N(kF)), 2u);
  EXPECT_EQ(edge_calls(p, N(kH), N(kH)), 2u);
  EXPECT_EQ(p.max_depth, 4u);
  EXPECT_EQ(p.deepest_chain, (std::vector<std::string>{N(kG), N(kF), N(kH), N(kH)}));
  EXPECT_EQ(p.lost_events, 3u);
  EXPECT_EQ(p.total_ns, 2u * (10 + 8));
  EXPECT_EQ(fn(p.threads[0].functions, N(kF)).calls, 1u);
}

TEST(CallProfileTest, TscTimesAreConvertedToNanoseconds) {
  ThreadBuilder b(1);
  b.enter(1000, kMain).enter(1100, kF).exit(1300).exit(2000);
  format::TraceSet set = one_thread(b.t);
  set.processes[0].tsc = true;
  set.processes[0].calib = {{0, 0}, {1000, 250}};  // 4 ticks per ns
  Symbolizer symbols;
  CallProfile p = build_profile(set, symbols);
  EXPECT_EQ(fn(p.functions, N(kMain)).inclusive_ns, 250u);
  EXPECT_EQ(fn(p.functions, N(kF)).inclusive_ns, 50u);
}

TEST(CallProfileTest, VeryDeepRecursionIsBoundedInTheTree) {
  ThreadBuilder b(1);
  const int depth = 20000;
  for (int i = 0; i < depth; ++i) b.enter(uint64_t(i), i == 0 ? kMain : kF);
  for (int i = 0; i < depth; ++i) b.exit(uint64_t(depth + i));
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(p.max_depth, uint32_t(depth));
  EXPECT_EQ(p.deepest_chain.size(), size_t(depth));
  EXPECT_EQ(fn(p.functions, N(kF)).calls, uint64_t(depth - 1));
  EXPECT_EQ(fn(p.functions, N(kF)).inclusive_ns, uint64_t(2 * depth - 3));  // outermost f: [1, 2*depth-2)
  size_t tree_depth = 0;
  const CallTreeNode* n = &p.threads[0].tree;
  while (!n->children.empty()) n = &n->children[0], ++tree_depth;
  EXPECT_LE(tree_depth, 1001u);
  EXPECT_EQ(n->name, "[deeper calls]");
}

TEST(CallProfileTest, StrayExitsInAHandMadeSetAreIgnored) {
  ThreadBuilder b(1);
  b.exit(1).enter(2, kMain).exit(3).exit(4);
  Symbolizer symbols;
  CallProfile p = build_profile(one_thread(b.t), symbols);
  EXPECT_EQ(fn(p.functions, N(kMain)).calls, 1u);
}

// Threads replayed in parallel give the profile of one after the other:
// the same JSON (threads, trees, file and line) for any number of workers.
TEST(CallProfileTest, ParallelReplayChangesNothing) {
  format::TraceSet set;
  std::mt19937 rng(9);
  for (uint32_t pid : {1u, 2u, 3u}) {
    format::TraceProcess proc;
    proc.pid = pid;
    for (uint32_t k = 0; k < 5; ++k) {
      ThreadBuilder t(pid * 100 + k);
      uint64_t now = 0;
      int depth = 0;
      for (int i = 0; i < 3000; ++i) {
        now += rng() % 50;
        if (depth > 0 && rng() % 2) {
          t.exit(now);
          --depth;
        } else {
          t.enter(now, 0x1000 * (1 + rng() % 6));
          ++depth;
        }
      }
      proc.threads.push_back(t.t);
    }
    set.processes.push_back(proc);
  }
  ProfileView view;
  view.threads = view.tree = true;
  Symbolizer one_symbols;
  const std::string one = profile_json(build_profile(set, one_symbols, 1), view);
  for (unsigned workers : {2u, 3u, 8u}) {
    Symbolizer symbols;
    EXPECT_EQ(profile_json(build_profile(set, symbols, workers), view), one) << workers << " workers";
  }
}

}  // namespace
}  // namespace covkit::trace
