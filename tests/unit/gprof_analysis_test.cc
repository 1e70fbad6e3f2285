// trace/gprof_cycles, gprof_symbols and gprof_profile on graphs and
// profiles built by hand, whose answers are known by construction.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include "gprof/gprof_cycles.h"
#include "gprof/gprof_profile.h"
#include "gprof/gprof_symbols.h"
#include "gprof/gprof_text.h"

namespace gprof_analysis_test {

using namespace covkit::trace;
using Graph = std::vector<std::vector<size_t>>;

std::set<std::set<size_t>> cycles_of(const CycleNumbering& c) {
  std::set<std::set<size_t>> out;
  for (const auto& m : c.members) out.insert(std::set<size_t>(m.begin(), m.end()));
  return out;
}

// Every arc between different components goes from a higher number to a
// lower one; members of one cycle share their number.
void expect_topological(const Graph& g, const CycleNumbering& c) {
  for (size_t u = 0; u < g.size(); ++u) {
    EXPECT_GT(c.top_order[u], 0);
    for (size_t v : g[u]) {
      if (u == v) continue;
      if (c.cycle[u] != 0 && c.cycle[u] == c.cycle[v])
        EXPECT_EQ(c.top_order[u], c.top_order[v]);
      else
        EXPECT_GT(c.top_order[u], c.top_order[v]) << u << "->" << v;
    }
  }
}

TEST(GprofCycles, ChainHasNoCycle) {
  Graph g = {{1}, {2}, {}};
  auto c = number_cycles(g);
  EXPECT_TRUE(c.members.empty());
  EXPECT_EQ(c.top_order, (std::vector<int>{3, 2, 1}));
  expect_topological(g, c);
}

TEST(GprofCycles, SelfCallIsNoCycle) {
  Graph g = {{0, 1}, {1}};
  auto c = number_cycles(g);
  EXPECT_TRUE(c.members.empty());
  expect_topological(g, c);
}

TEST(GprofCycles, MutualRecursion) {
  // 0 -> 1 <-> 2 -> 3
  Graph g = {{1}, {2}, {1, 3}, {}};
  auto c = number_cycles(g);
  EXPECT_EQ(cycles_of(c), (std::set<std::set<size_t>>{{1, 2}}));
  EXPECT_EQ(c.cycle[0], 0);
  EXPECT_EQ(c.cycle[3], 0);
  EXPECT_EQ(c.members[0].front(), 1u);  // the head: where the walk entered
  expect_topological(g, c);
}

TEST(GprofCycles, CyclesSharingANodeAreOne) {
  // 0 <-> 1 and 1 <-> 2: one component {0, 1, 2}; 3 <-> 4 another.
  Graph g = {{1}, {0, 2}, {1, 3}, {4}, {3}};
  auto c = number_cycles(g);
  EXPECT_EQ(cycles_of(c), (std::set<std::set<size_t>>{{0, 1, 2}, {3, 4}}));
  expect_topological(g, c);
}

TEST(GprofCycles, NumberedByTheirHeadsInNodeOrder) {
  // Node 0 calls into the cycle {3, 4} first, then {1, 2}; heads are 3 and
  // 1, so {1, 2} is cycle 1.
  Graph g = {{3, 1}, {2}, {1}, {4}, {3}};
  auto c = number_cycles(g);
  ASSERT_EQ(c.members.size(), 2u);
  EXPECT_EQ(c.cycle[1], 1);
  EXPECT_EQ(c.cycle[3], 2);
  expect_topological(g, c);
}

TEST(GprofCycles, LongCycleNeedsNoRecursion) {
  const size_t n = 200000;
  Graph g(n);
  for (size_t i = 0; i < n; ++i) g[i].push_back((i + 1) % n);
  auto c = number_cycles(g);
  ASSERT_EQ(c.members.size(), 1u);
  EXPECT_EQ(c.members[0].size(), n);
}

TEST(GprofSymbols, StaticNamesGprofAccepts) {
  EXPECT_TRUE(gprof_static_name_ok("helper"));
  EXPECT_TRUE(gprof_static_name_ok("helper.0"));
  EXPECT_TRUE(gprof_static_name_ok("helper.constprop.0"));
  EXPECT_TRUE(gprof_static_name_ok("helper.clone.3"));
  EXPECT_TRUE(gprof_static_name_ok("helper.constprop.0.1"));
  EXPECT_FALSE(gprof_static_name_ok("helper.part.0"));
  EXPECT_FALSE(gprof_static_name_ok("helper.cold"));
  EXPECT_FALSE(gprof_static_name_ok("a$b"));
  EXPECT_FALSE(gprof_static_name_ok(""));
  EXPECT_FALSE(gprof_static_name_ok(".text"));
  EXPECT_FALSE(gprof_static_name_ok("__gnu_compiled_c"));
  // After a dotted suffix gprof's scan runs on into the next name.
  const char table[] = "f.1\0g$\0";
  EXPECT_FALSE(gprof_static_name_ok(table, table + sizeof table));
  const char table2[] = "f.1\0g\0";
  EXPECT_TRUE(gprof_static_name_ok(table2, table2 + sizeof table2));
}

GprofSymbol sym(std::string name, uint64_t addr, bool is_static = false, bool is_func = true) {
  GprofSymbol s;
  s.name = std::move(name);
  s.addr = addr;
  s.is_static = is_static;
  s.is_func = is_func;
  return s;
}

TEST(GprofSymbols, OnePerAddressByGprofsPreferences) {
  std::vector<GprofSymbol> s = {sym("_alias", 0x10), sym("local", 0x10, true), sym("main", 0x10),
                                sym("__x", 0x20), sym("_y", 0x20), sym("label", 0x30, false, false),
                                sym("func", 0x30)};
  finalize_gprof_symbols(s, 0x40);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].name, "main");  // global over static, no '_' over '_'
  EXPECT_EQ(s[1].name, "_y");    // one '_' over two
  EXPECT_EQ(s[2].name, "func");  // function over non-function
  EXPECT_EQ(s[0].end_addr, 0x1fu);
  EXPECT_EQ(s[2].end_addr, 0x3fu);
  EXPECT_EQ(gprof_symbol_at(s, 0x25), 1);
  EXPECT_EQ(gprof_symbol_at(s, 0x3f), 2);
  EXPECT_EQ(gprof_symbol_at(s, 0x40), -1);
  EXPECT_EQ(gprof_symbol_at(s, 0x0f), -1);
}

// main [0x1000, 0x1010), f [0x1010, 0x1014), g [0x1014, 0x1020), h [0x1020,
// 0x1030), then end [0x1030, 0x1038) past the histogram, as _fini is in
// real programs: gprof reads past its table for the last symbol's end, and
// covkit credits that symbol with nothing.
GprofSymbolTable table() {
  GprofSymbolTable t;
  t.symbols = {sym("main", 0x1000), sym("f", 0x1010), sym("g", 0x1014), sym("h", 0x1020), sym("end", 0x1030)};
  t.text_vma = 0x1000;
  t.text_size = 0x38;
  finalize_gprof_symbols(t.symbols, 0x1038);
  return t;
}

covkit::format::GmonFile gmon(std::vector<uint16_t> buckets, std::vector<covkit::format::GmonArc> arcs) {
  covkit::format::GmonFile f;
  f.version = 1;
  covkit::format::GmonHistogram h;
  h.low_pc = 0x1000;
  h.high_pc = 0x1030;
  h.prof_rate = 100;
  h.dimension = "seconds";
  h.dimension_abbrev = 's';
  h.buckets = std::move(buckets);
  f.histograms.push_back(h);
  f.arcs = std::move(arcs);
  return f;
}

TEST(GprofProfile, BucketSpanningTwoFunctionsIsSplitByOverlap) {
  // 6 buckets of 8 bytes: bucket 2 = [0x1010, 0x1018) is half f, half g.
  auto t = table();
  auto f = gmon({0, 0, 10, 0, 4, 0}, {});
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->nodes[1].time, 5.0);  // f: 4 of 8 bytes
  EXPECT_DOUBLE_EQ(p->nodes[2].time, 5.0);  // g
  EXPECT_DOUBLE_EQ(p->nodes[3].time, 4.0);  // h
  EXPECT_DOUBLE_EQ(p->total_time, 14.0);
  EXPECT_EQ(p->hist_scale, 4.0);  // 8 bytes = 4 units per bucket
}

TEST(GprofProfile, TimePropagatesByCallFractions) {
  // main calls f 3 times and g once; f calls h 2 times, g calls h 6 times.
  // h's 8 ticks go 2/8 to f and 6/8 to g; f passes all of its own and its
  // share to main.
  auto t = table();
  using covkit::format::GmonArc;
  auto f = gmon({0, 0, 0, 0, 8, 0}, {{0x1004, 0x1010, 3}, {0x1008, 0x1014, 1}, {0x1011, 0x1020, 2},
                                     {0x1016, 0x1020, 6}});
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p);
  const auto& n = p->nodes;
  EXPECT_EQ(n[3].ncalls, 8u);
  EXPECT_DOUBLE_EQ(n[1].child_time, 2.0);
  EXPECT_DOUBLE_EQ(n[2].child_time, 6.0);
  EXPECT_DOUBLE_EQ(n[0].child_time, 8.0);
  EXPECT_DOUBLE_EQ(p->print_time, 8.0);
  // Index numbers by total time: main (8), then g (6), f (2), h (8 self!).
  // h and main tie at 8; no leading '_' either, h has more calls.
  EXPECT_EQ(n[3].index, 1);
  EXPECT_EQ(n[0].index, 2);
  EXPECT_EQ(n[2].index, 3);
  EXPECT_EQ(n[1].index, 4);
}

TEST(GprofProfile, CycleAsAWhole) {
  // main -> f (1 call); f <-> g calling each other 5 and 4 times; g -> h 2.
  auto t = table();
  auto f = gmon({0, 0, 0, 0, 6, 0}, {{0x1004, 0x1010, 1}, {0x1011, 0x1014, 5}, {0x1015, 0x1010, 4},
                                     {0x1016, 0x1020, 2}});
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p);
  ASSERT_EQ(p->nodes.size(), 6u);  // five functions and one cycle
  const auto& cyc = p->nodes[5];
  EXPECT_TRUE(cyc.is_cycle);
  EXPECT_EQ(cyc.ncalls, 1u);       // from main
  EXPECT_EQ(cyc.self_calls, 9u);   // among f and g
  EXPECT_EQ(p->nodes[1].cycle, 1);
  EXPECT_EQ(p->nodes[2].cycle, 1);
  EXPECT_DOUBLE_EQ(cyc.prop_child, 6.0);  // h's time through g
  EXPECT_DOUBLE_EQ(p->nodes[0].child_time, 6.0);
}

TEST(GprofProfile, LastSymbolGetsNoSamples) {
  GprofSymbolTable t;
  t.symbols = {sym("main", 0x1000), sym("last", 0x1010)};
  finalize_gprof_symbols(t.symbols, 0x1020);
  auto f = gmon({0, 0, 0, 0, 0, 0}, {});
  f.histograms[0].buckets = {3, 5};  // [0x1000, 0x1010) and [0x1010, 0x1020)
  f.histograms[0].high_pc = 0x1020;
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->nodes[0].time, 3.0);
  EXPECT_DOUBLE_EQ(p->nodes[1].time, 0.0);
  EXPECT_DOUBLE_EQ(p->total_time, 8.0);  // counted in the total all the same
}

TEST(GprofProfile, TwoFilesAddUp) {
  auto t = table();
  auto a = gmon({0, 0, 0, 0, 3, 0}, {{0x1004, 0x1010, 3}});
  auto b = gmon({0, 0, 0, 0, 5, 0}, {{0x1004, 0x1010, 4}});
  auto p = build_gprof_profile(t, {{"a", a}, {"b", b}});
  ASSERT_TRUE(p);
  EXPECT_DOUBLE_EQ(p->nodes[3].time, 8.0);
  EXPECT_EQ(p->nodes[1].ncalls, 7u);
  ASSERT_EQ(p->arcs.size(), 1u);
}

TEST(GprofProfile, DisagreeingHistogramsNameTheFile) {
  auto t = table();
  auto a = gmon({0, 0, 0, 0, 3, 0}, {});
  auto b = gmon({0, 0, 0, 0, 5, 0, 1, 1, 1, 1, 1, 1}, {});  // other scale
  auto p = build_gprof_profile(t, {{"a", a}, {"b", b}});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "b");
}

// gprof reads a histogram whose high pc is below its low pc (its range
// wraps: near 2^63 units a bucket) and one with no buckets (an infinite
// scale), and prints a report: their samples count in the total and credit
// no function.
TEST(GprofProfile, UpsideDownHistogramCreditsNoFunction) {
  auto t = table();
  auto f = gmon({4, 0, 10, 0, 0, 1}, {{0x1004, 0x1010, 3}});
  std::swap(f.histograms[0].low_pc, f.histograms[0].high_pc);
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p) << p.error().describe();
  for (size_t i = 0; i < p->function_count; ++i) EXPECT_EQ(p->nodes[i].time, 0.0) << p->nodes[i].name;
  EXPECT_DOUBLE_EQ(p->total_time, 15.0);
  EXPECT_EQ(p->nodes[1].ncalls, 3u);
}

// Records of disjoint ranges in any order are each a histogram; one
// overlapping the record before or after it (by address, not by file
// order), or sharing its low pc, is refused naming the file.
TEST(GprofProfile, HistogramRecordsOverlapOnlyTheirNeighbours) {
  auto t = table();
  auto f = gmon({0, 0}, {});  // [0x1000, 0x1030): 2 buckets of 24 bytes
  auto record = [](uint64_t low, uint64_t high, std::vector<uint16_t> buckets) {
    covkit::format::GmonHistogram h;
    h.low_pc = low;
    h.high_pc = high;
    h.prof_rate = 100;
    h.dimension = "seconds";
    h.dimension_abbrev = 's';
    h.buckets = std::move(buckets);
    return h;
  };
  f.histograms = {record(0x1018, 0x1030, {0, 2}), record(0x1000, 0x1018, {3, 0})};
  f.histograms[0].buckets = {0};
  f.histograms[0].high_pc = 0x1024;  // 12 bytes: the scale of 0x1000's buckets
  f.histograms[1].buckets = {3, 0};
  f.histograms.push_back(record(0x1024, 0x1030, {2}));
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_EQ(p->histograms.size(), 3u);
  EXPECT_DOUBLE_EQ(p->nodes[0].time, 3.0);  // main [0x1000, 0x1010): 3 in [0x1000, 0x100c)
  EXPECT_DOUBLE_EQ(p->nodes[3].time, 2.0);  // h [0x1020, 0x1030): [0x1024, 0x1030)
  EXPECT_DOUBLE_EQ(p->total_time, 5.0);
  for (auto [low, high, n] : {std::tuple<uint64_t, uint64_t, size_t>{0x1010, 0x101c, 1},  // into the one before
                              {0x1020, 0x102c, 1},                                        // into the one after
                              {0x1018, 0x1030, 2},                                        // the same low pc
                              {0x0ff8, 0x1004, 1}}) {                                     // below all, into the first
    auto g = f;
    g.histograms.push_back(record(low, high, std::vector<uint16_t>(n, 1)));
    auto q = build_gprof_profile(t, {{"hostile.out", g}});
    ASSERT_FALSE(q) << std::hex << low;
    EXPECT_EQ(q.error().path, "hostile.out");
    EXPECT_NE(q.error().describe().find("overlapping histogram records"), std::string::npos) << q.error().describe();
  }
  auto g = f;
  g.histograms.push_back(record(0x0ff4, 0x1000, {1}));  // just below: kept
  EXPECT_TRUE(build_gprof_profile(t, {{"gmon.out", g}}));
}

// One upside-down record is read as gprof reads it (above); each bucket of
// one covers nearly the whole address space, and such records overlap no
// other: thousands of them cost thousands x the program's functions. A
// second is refused, naming the file.
TEST(GprofProfile, SecondUpsideDownHistogramIsRefused) {
  auto t = table();
  auto f = gmon({1}, {});
  f.histograms[0].low_pc = 2;
  f.histograms[0].high_pc = 0;
  auto h = f.histograms[0];
  h.low_pc = 4;
  h.high_pc = 2;  // the same scale
  f.histograms.push_back(h);
  auto p = build_gprof_profile(t, {{"hostile.out", f}});
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().path, "hostile.out");
  EXPECT_NE(p.error().describe().find("a second histogram record whose high pc is below its low pc"), std::string::npos)
      << p.error().describe();
}

TEST(GprofProfile, HistogramWithNoBuckets) {
  auto t = table();
  auto f = gmon({}, {{0x1004, 0x1010, 3}});
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_TRUE(p->has_histogram);
  EXPECT_TRUE(std::isinf(p->hist_scale));
  EXPECT_EQ(p->total_time, 0.0);
  EXPECT_EQ(p->nodes[1].ncalls, 3u);
  GprofTextOptions options;
  EXPECT_NE(gprof_text(*p, options).find(" no time accumulated\n"), std::string::npos);
}

// A rate of 0 makes every time inf: gprof picks its unit past the end of
// its table of prefixes (whatever byte lies there); covkit says seconds,
// and names the file for the command's warning.
TEST(GprofText, ZeroRateTimesAreInSeconds) {
  auto t = table();
  auto f = gmon({0, 0, 10, 0, 4, 0}, {{0x1004, 0x1010, 3}, {0x1004, 0x1020, 1}});
  f.histograms[0].prof_rate = 0;
  auto p = build_gprof_profile(t, {{"rate0.out", f}});
  ASSERT_TRUE(p) << p.error().describe();
  EXPECT_EQ(p->zero_rate_file, "rate0.out");
  GprofTextOptions options;
  const std::string text = gprof_text(*p, options);
  EXPECT_NE(text.find("Each sample counts as inf seconds."), std::string::npos) << text;
  EXPECT_NE(text.find("calls   s/call   s/call  name"), std::string::npos) << text;
  auto rated = build_gprof_profile(t, {{"gmon.out", gmon({0, 0, 10, 0, 4, 0}, {})}});
  ASSERT_TRUE(rated);
  EXPECT_EQ(rated->zero_rate_file, "");
}

TEST(GprofText, BlockCountsAreListedWithTheirFunction) {
  auto t = table();
  auto f = gmon({0, 0, 0, 0, 0, 0}, {});
  f.block_counts = {{0x1012, 7}, {0x1024, 1ull << 33}, {0x2000, 1}};
  auto p = build_gprof_profile(t, {{"gmon.out", f}});
  ASSERT_TRUE(p);
  std::string text = gprof_block_counts_text(*p, t);
  EXPECT_NE(text.find("0x1012                    7  f\n"), std::string::npos) << text;
  EXPECT_NE(text.find("0x1024           8589934592  h\n"), std::string::npos) << text;
  EXPECT_NE(text.find("0x2000                    1  ??\n"), std::string::npos) << text;
  EXPECT_EQ(gprof_block_counts_text(*build_gprof_profile(t, {{"g", gmon({0}, {})}}), t), "");
}

TEST(GprofText, DisplayNamesAsBfdDemangles) {
  EXPECT_EQ(gprof_display_name("main"), "main");
  EXPECT_EQ(gprof_display_name("_Z1fi"), "f(int)");
  EXPECT_EQ(gprof_display_name("_Z1fi@plt"), "f(int)@plt");
  EXPECT_EQ(gprof_display_name("_ZNK1C1gEv"), "C::g() const");
}

}  // namespace

namespace covkit::trace {
namespace gprof_granularity_test {

// fuzz_gmon found it: one bucket over a range near 2^64 bytes makes gprof's
// (long) hist_scale * 2 overflow (undefined in C++, a wrap in gprof's
// compiled C); covkit prints the wrapped number, and UBSan sees nothing.
TEST(GprofText, GranularityOfAHugeBucketWraps) {
  for (auto [scale, want] : {std::pair{9187342693153880064.0, "-72058687401791488"},
                             std::pair{9223372036854775808.0, "0"}, std::pair{4.0, "8"}}) {
    GprofProfile p;
    p.hist_scale = scale;
    GprofTextOptions options;
    const std::string text = gprof_text(p, options);
    EXPECT_NE(text.find(std::string("each sample hit covers ") + want + " byte(s)"), std::string::npos)
        << scale << ":\n" << text;
  }
}

}  // namespace gprof_granularity_test
}  // namespace covkit::trace
