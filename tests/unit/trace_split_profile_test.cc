// A thread stream read in parallel parts (trace/split_profile.h) against the
// same stream replayed front to back: streams written as the runtime writes
// them (a sync after the event that crosses each chunk boundary), with
// boundaries everywhere (chunks of 48 bytes up), random call trees, deep
// recursion across chunks, calls open at the end, a stream still being
// written; and an old (version 1) stream, which has no restart points.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "format/trace_stream_decoder.h"
#include "format/trace_stream_ranges.h"
#include "runtime/trace/trace_contract.h"
#include "trace/call_profile.h"
#include "trace/split_profile.h"
#include "trace/symbolizer.h"
#include "util/sanitizer.h"
#include "trace_stream_writer.h"

namespace covkit::trace {
namespace trace_split_profile_test {

using namespace covkit::test_streams;

void expect_same(const std::vector<FunctionStats>& a, const std::vector<FunctionStats>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].calls, b[i].calls) << a[i].name;
    EXPECT_EQ(a[i].inclusive_ns, b[i].inclusive_ns) << a[i].name;
    EXPECT_EQ(a[i].exclusive_ns, b[i].exclusive_ns) << a[i].name;
    EXPECT_EQ(a[i].min_ns, b[i].min_ns) << a[i].name;
    EXPECT_EQ(a[i].max_ns, b[i].max_ns) << a[i].name;
  }
}

void expect_same_tree(const CallTreeNode& a, const CallTreeNode& b, size_t depth = 0) {
  EXPECT_EQ(a.name, b.name) << "depth " << depth;
  EXPECT_EQ(a.calls, b.calls) << a.name << " depth " << depth;
  EXPECT_EQ(a.inclusive_ns, b.inclusive_ns) << a.name << " depth " << depth;
  EXPECT_EQ(a.exclusive_ns, b.exclusive_ns) << a.name << " depth " << depth;
  ASSERT_EQ(a.children.size(), b.children.size()) << a.name << " depth " << depth;
  for (size_t i = 0; i < a.children.size(); ++i) expect_same_tree(a.children[i], b.children[i], depth + 1);
}

// All of a stream's restart points (the finder read to its end).
std::vector<format::StreamRestart> find_restarts(const format::StreamBytes& bytes, const format::StreamHeader& header) {
  format::RestartFinder finder(bytes, header);
  std::vector<format::StreamRestart> out;
  while (auto r = finder.next()) out.push_back(*r);
  return out;
}

// The stream read in parts and front to back: the same profile. `split`:
// whether the parts were used (else the stream was read in order anyway).
void check(const std::vector<uint8_t>& bytes, bool split, bool tsc = false) {
  TempFile file(bytes);
  format::StreamHeader header;
  std::vector<std::string> warnings;
  ASSERT_EQ(format::parse_stream_header(bytes, file.path, header, warnings), format::StreamStatus::kOk);
  format::StreamBytes memory(bytes);
  std::vector<std::string> split_warnings;
  const format::TraceSet set = trace_of(file.path, header.start, tsc);
  auto parts = split_profile(memory, header, file.path, set.processes[0].clock(), std::nullopt, 2, split_warnings);
  EXPECT_EQ(parts.has_value(), split);
  std::vector<std::string> one_core_warnings;
  EXPECT_EQ(split_profile(memory, header, file.path, set.processes[0].clock(), std::nullopt, 1, one_core_warnings)
                .has_value(),
            split);
  std::vector<std::string> paths_warnings;
  EXPECT_EQ(split_profile(memory, header, file.path, set.processes[0].clock(), std::nullopt, 2, paths_warnings, true)
                .has_value(),
            split);

  Symbolizer s1, s2, s3;
  const CallProfile in_order = build_profile(set, s1, 1, true);
  // The flat profile: parts on two cores, and parts one after the other
  // on one (as when there are as many streams as cores).
  for (unsigned cores : {2u, 1u}) {
    SCOPED_TRACE(fmt::format("{} cores", cores));
    const CallProfile in_parts = build_profile(set, cores == 2 ? s2 : s3, cores, false);
    expect_same(in_order.functions, in_parts.functions);
    ASSERT_EQ(in_order.threads.size(), 1u);
    ASSERT_EQ(in_parts.threads.size(), 1u);
    expect_same(in_order.threads[0].functions, in_parts.threads[0].functions);
    EXPECT_EQ(in_order.max_depth, in_parts.max_depth);
    EXPECT_EQ(in_order.deepest_chain, in_parts.deepest_chain);
    EXPECT_EQ(in_order.total_ns, in_parts.total_ns);
    EXPECT_EQ(in_order.threads[0].wall_ns, in_parts.threads[0].wall_ns);
    EXPECT_EQ(in_order.lost_events, in_parts.lost_events);
    EXPECT_EQ(in_order.warnings, in_parts.warnings);
  }
  // The call paths, in parts on two cores: edges and the call tree too.
  Symbolizer s4;
  const CallProfile paths = build_profile(set, s4, 2, true);
  expect_same(in_order.functions, paths.functions);
  ASSERT_EQ(in_order.edges.size(), paths.edges.size());
  for (size_t i = 0; i < paths.edges.size(); ++i) {
    const EdgeStats &a = in_order.edges[i], &b = paths.edges[i];
    EXPECT_EQ(a.caller, b.caller);
    EXPECT_EQ(a.callee, b.callee);
    EXPECT_EQ(a.calls, b.calls) << a.caller << " -> " << a.callee;
    EXPECT_EQ(a.inclusive_ns, b.inclusive_ns) << a.caller << " -> " << a.callee;
  }
  ASSERT_EQ(paths.threads.size(), 1u);
  expect_same_tree(in_order.threads[0].tree, paths.threads[0].tree);
  EXPECT_EQ(in_order.max_depth, paths.max_depth);
  EXPECT_EQ(in_order.deepest_chain, paths.deepest_chain);
  EXPECT_EQ(in_order.total_ns, paths.total_ns);
  EXPECT_EQ(in_order.warnings, paths.warnings);
}

// Under the sanitizers (CI's second pass, ~3x slower) fewer random
// streams: that pass looks for memory errors, the plain one for wrong numbers.
constexpr unsigned kSanitizedDivisor = COVKIT_ASAN ? 3 : 1;

TEST(TraceSplitProfileTest, RandomCallTreesMatchTheReplayInOrder) {
  for (unsigned seed = 0; seed < 12 / kSanitizedDivisor; ++seed)
    for (uint32_t chunk : {48u, 61u, 200u, 1024u}) {
      SCOPED_TRACE(fmt::format("seed {} chunk {}", seed, chunk));
      check(random_stream(seed, chunk, 4000, seed % 2 == 0).b, true);
    }
}

TEST(TraceSplitProfileTest, TicksConvertedToNanosecondsMatchTheReplayInOrder) {
  for (unsigned seed = 20; seed < 20 + 6 / kSanitizedDivisor; ++seed)
    for (uint32_t chunk : {48u, 333u}) {
      SCOPED_TRACE(fmt::format("seed {} chunk {}", seed, chunk));
      check(random_stream(seed, chunk, 4000, seed % 2 == 0).b, true, true);
    }
}

TEST(TraceSplitProfileTest, ManyFunctionsAndLongGaps) {
  for (unsigned seed = 0; seed < 4 / kSanitizedDivisor; ++seed) {
    SCOPED_TRACE(seed);
    check(random_stream(100 + seed, 97, 20000, true, false, 300).b, true);
  }
}

TEST(TraceSplitProfileTest, PartsLongerThanTheDecodersWindow) {
  // Parts of 1.25 MiB are read a 1 MiB window at a time.
  check(random_stream(11, 5 << 18, 500000, true).b, true);
}

TEST(TraceSplitProfileTest, DeepRecursionAcrossChunksAndOpenAtTheEnd) {
  StreamWriter w(0, 64);
  uint64_t now = 0;
  for (int i = 0; i < 2000; ++i) w.enter(1 + i % 2, 0x1000 * (1 + i % 2), now += 3);  // mutual recursion
  for (int i = 0; i < 1500; ++i) w.exit(now += 40);  // 500 left open
  w.enter(3, 0x3000, now += 1);
  w.b.resize(w.b.size() + 32, 0);
  check(w.b, true);
}

TEST(TraceSplitProfileTest, CallsAroundTheTreesDepthLimit) {
  // Frames at depth 1000 (the tree's last level), 1001 (one "[deeper
  // calls]" node, its exclusive time their inclusive time) and 1002 (no
  // node), opened and closed within parts and across them.
  for (uint32_t chunk : {48u, 200u, 4096u}) {
    SCOPED_TRACE(chunk);
    StreamWriter w(0, chunk);
    uint64_t now = 0;
    for (int i = 0; i < 999; ++i) w.enter(1, 0x1000, now += 2);
    for (int i = 0; i < 300; ++i) {
      w.enter(2, 0x2000, now += 3);  // depth 1000
      w.enter(3 + i % 2, 0x3000 + 0x1000 * (i % 2), now += 5);  // 1001
      if (i % 3 == 0) {
        w.enter(5, 0x5000, now += 7);  // 1002
        w.exit(now += 11);
      }
      w.exit(now += 13);
      w.enter(6, 0x6000, now += 1);  // 1001 again, another function
      w.exit(now += 17);
      w.exit(now += 19);
    }
    for (int i = 0; i < 999; ++i) w.exit(now += 3);
    w.end(now += 1);
    check(w.b, true);
  }
}

TEST(TraceSplitProfileTest, RecursionDeeperThanTheTreeWithinOnePart) {
  // Parts of 8 KiB hold whole recursions 3000 deep: a part makes no node
  // below the tree's depth, and its deeper calls still count in the edges.
  StreamWriter w(0, 8192);
  uint64_t now = 0;
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 3000; ++i) w.enter(1 + i % 2, 0x1000 * (1 + i % 2), now += 2);
    for (int i = 0; i < 5; ++i) {
      w.enter(3, 0x3000, now += 4);
      w.exit(now += 9);
    }
    for (int i = 0; i < 3000; ++i) w.exit(now += 1 + i % 3);
  }
  w.end(now += 1);
  check(w.b, true);
}

TEST(TraceSplitProfileTest, TwoIdsOfOneFunctionShareItsRecursion) {
  // Ids 1 and 2 name one function (one address, as a static inline
  // function's copies share a name) and nest in each other: recursion is
  // judged by function, as in order. Id 2 first appears many parts after id
  // 1 (a later batch, whose parts first treat it as a function of its own
  // and are replayed again once its define is known); id 3 is another
  // function around them.
  StreamWriter w(0, 48);
  uint64_t now = 0;
  for (int i = 0; i < 150; ++i) {  // 1 calls 3
    w.enter(1, 0x5000, now += 7);
    w.enter(3, 0x6000, now += 5);
    w.exit(now += 11);
    w.exit(now += 3);
  }
  for (int i = 0; i < 150; ++i) {  // 2 calls 1 (the same function: not an outermost call), then 3
    w.enter(2, 0x5000, now += 7);
    w.enter(1, 0x5000, now += 5);
    w.exit(now += 11);
    w.enter(3, 0x6000, now += 2);
    w.exit(now += 13);
    w.exit(now += 3);
  }
  w.end(now += 5);
  TempFile file(w.b);
  format::StreamHeader header;
  std::vector<std::string> warnings;
  ASSERT_EQ(format::parse_stream_header(w.b, file.path, header, warnings), format::StreamStatus::kOk);
  format::StreamBytes memory(w.b);
  const format::TraceSet set = trace_of(file.path, 0, false);
  // The parts are used, with call paths and without, on one core and on two.
  const SplitKeyOf by_address = [](uint64_t address, uint64_t) { return uint32_t(address >> 12); };
  for (unsigned cores : {1u, 2u})
    for (bool paths : {false, true}) {
      auto sp = split_profile(memory, header, file.path, set.processes[0].clock(), std::nullopt, cores, warnings, paths,
                              by_address);
      ASSERT_TRUE(sp);
      // The call paths name the two functions by their keys (0x5000 >> 12,
      // 0x6000 >> 12), also where a part met them before they were known.
      auto function = [](uint32_t key) { return key == 5 || key == 6; };
      for (const PathNode& n : sp->paths.nodes)
        EXPECT_TRUE(n.fn == kThreadRoot || n.fn == kDeeperCalls || function(n.fn)) << n.fn;
      for (const auto& [key, e] : sp->paths.edges)
        EXPECT_TRUE(function(uint32_t(key >> 32)) && function(uint32_t(key))) << std::hex << key;
      if (paths) {
        EXPECT_FALSE(sp->paths.nodes.empty());
      }
    }
  // The same numbers, call tree and edges as the replay in order.
  Symbolizer s1;
  const CallProfile a = build_profile(set, s1, 1, true);
  ASSERT_EQ(a.threads.size(), 1u);
  for (unsigned cores : {1u, 2u})
    for (bool paths : {false, true}) {
      SCOPED_TRACE(fmt::format("{} cores, call paths {}", cores, paths));
      Symbolizer s2;
      const CallProfile b = build_profile(set, s2, cores, paths);
      expect_same(a.functions, b.functions);
      EXPECT_EQ(a.deepest_chain, b.deepest_chain);
      EXPECT_EQ(a.max_depth, b.max_depth);
      if (!paths) continue;
      ASSERT_EQ(b.threads.size(), 1u);
      expect_same_tree(a.threads[0].tree, b.threads[0].tree);
      ASSERT_EQ(a.edges.size(), b.edges.size());
      for (size_t i = 0; i < a.edges.size(); ++i) {
        EXPECT_EQ(a.edges[i].caller, b.edges[i].caller);
        EXPECT_EQ(a.edges[i].callee, b.edges[i].callee);
        EXPECT_EQ(a.edges[i].calls, b.edges[i].calls) << a.edges[i].caller << " -> " << a.edges[i].callee;
        EXPECT_EQ(a.edges[i].inclusive_ns, b.edges[i].inclusive_ns) << a.edges[i].caller << " -> " << a.edges[i].callee;
      }
    }
}

TEST(TraceSplitProfileTest, RestartPointsAreFoundWhereTheRuntimeWritesThem) {
  StreamWriter w = random_stream(7, 128, 3000, true);
  format::StreamHeader header;
  std::vector<std::string> warnings;
  ASSERT_EQ(format::parse_stream_header(w.b, "s", header, warnings), format::StreamStatus::kOk);
  EXPECT_EQ(header.chunk, 128u);
  format::StreamBytes bytes(w.b);
  const auto restarts = find_restarts(bytes, header);
  // One per boundary with an event starting past it (the last may have none).
  EXPECT_GE(restarts.size(), (w.b.size() - 1) / 128);
  EXPECT_LE(restarts.size(), 1 + (w.b.size() - 1) / 128);
  for (size_t i = 1; i < restarts.size(); ++i) {
    EXPECT_GE(restarts[i].offset, i * 128);
    EXPECT_LT(restarts[i].offset, i * 128 + 32);
  }
  // Read front to back, a sync is no event of the profile.
  format::TraceThread thread;
  EXPECT_EQ(format::decode_trace_stream(w.b, "s", thread, header, warnings), format::StreamStatus::kOk);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(thread.ended);
}

TEST(TraceSplitProfileTest, VersionOneStreamsStillRead) {
  // CKTRACE1 (traces made before restart points): no syncs, read in order.
  StreamWriter w = random_stream(3, 64, 3000, true, /*v1=*/true);
  format::TraceThread thread;
  format::StreamHeader header;
  std::vector<std::string> warnings;
  EXPECT_EQ(format::decode_trace_stream(w.b, "s", thread, header, warnings), format::StreamStatus::kOk);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(header.chunk, 0u);
  EXPECT_TRUE(thread.ended);
  EXPECT_FALSE(thread.events.empty());
  check(w.b, false);
}

TEST(TraceSplitProfileTest, DamageInAPartReadsInOrder) {
  // An unknown special in the middle: the parts refuse, the replay in order
  // stops there with its warning; both give the same.
  StreamWriter w = random_stream(5, 100, 3000, true);
  const size_t at = w.b.size() / 2;
  // Find an event start after `at`: the sync of the chunk there.
  format::StreamHeader header;
  std::vector<std::string> warnings;
  ASSERT_EQ(format::parse_stream_header(w.b, "s", header, warnings), format::StreamStatus::kOk);
  format::StreamBytes bytes(w.b);
  const auto restarts = find_restarts(bytes, header);
  for (const auto& r : restarts)
    if (r.offset > at) {
      w.b[r.offset + 1] = 9;  // sync -> an unknown subtype
      break;
    }
  check(w.b, false);
}

}  // namespace
}  // namespace covkit::trace
