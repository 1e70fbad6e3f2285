// `covkit trace replay`: the text of hand-built traces, exactly (leaf lines,
// interleaved threads, the filters, calls open at the end, fork frames).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "format/trace_reader.h"
#include "trace/call_replay.h"

namespace trace_replay_test {

using covkit::format::TraceEvent;
using covkit::format::TraceProcess;
using covkit::format::TraceSet;
using covkit::format::TraceThread;
using covkit::trace::ReplayOptions;
using covkit::trace::ReplayStats;
using covkit::trace::SymbolInfo;

TraceEvent enter(uint64_t t, uint64_t address) { return {.kind = TraceEvent::Kind::kEnter, .time = t, .address = address}; }
TraceEvent leave(uint64_t t) { return {.kind = TraceEvent::Kind::kExit, .time = t}; }

class Symbols {
 public:
  Symbols() {
    add(0x10, "main");
    add(0x20, "work(int)");
    add(0x30, "leaf");
    add(0x40, "ns::Parser::parse(char const*) const");
  }
  covkit::trace::SymbolLookup lookup() {
    return [this](const TraceProcess&, uint64_t address, uint64_t) -> const SymbolInfo& { return table_.at(address); };
  }

 private:
  void add(uint64_t address, std::string name) {
    SymbolInfo s;
    s.name = std::move(name);
    s.known = true;
    table_[address] = s;
  }
  std::map<uint64_t, SymbolInfo> table_;
};

TraceThread thread(uint32_t tid, uint64_t start, std::vector<TraceEvent> events) {
  TraceThread t;
  t.tid = tid;
  t.start = start;
  t.events = std::move(events);
  t.last_time = t.events.empty() ? start : t.events.back().time;
  t.ended = true;
  return t;
}

// Counters are ns (clock mono).
//   tid 7: main [1000, 9000) { work [2000, 5000) { leaf [2100, 2150), leaf [3000, 4000) },
//                              parse [6000, 6010) }
//   tid 8: work [2500, 2600) (between tid 7's lines)
TraceSet two_threads() {
  TraceSet set;
  TraceProcess p;
  p.pid = 7;
  p.threads.push_back(thread(7, 1000,
                             {enter(1000, 0x10), enter(2000, 0x20), enter(2100, 0x30), leave(2150), enter(3000, 0x30),
                              leave(4000), leave(5000), enter(6000, 0x40), leave(6010), leave(9000)}));
  p.threads.push_back(thread(8, 2500, {enter(2500, 0x20), leave(2600)}));
  set.processes.push_back(std::move(p));
  return set;
}

std::string replay(const TraceSet& set, const ReplayOptions& o, ReplayStats* stats = nullptr) {
  Symbols symbols;
  std::string text;
  covkit::trace::write_replay(set, symbols.lookup(), o, [&](std::string_view s) { text += s; }, stats);
  return text;
}

TEST(TraceReplay, InterleavesThreadsInTimeOrderWithLeafLines) {
  EXPECT_EQ(replay(two_threads(), {}),
            "# DURATION     TID     FUNCTION\n"
            "            [     7] | main() {\n"
            "            [     7] |   work(int) {\n"
            "   0.050 us [     7] |     leaf();\n"
            "   0.100 us [     8] | work(int);\n"
            "   1.000 us [     7] |     leaf();\n"
            "   3.000 us [     7] |   } /* work */\n"
            "   0.010 us [     7] |   ns::Parser::parse(char const*) const;\n"
            "   8.000 us [     7] | } /* main */\n");
}

TEST(TraceReplay, NoDurationAndTimestamps) {
  ReplayOptions o;
  o.duration = false;
  o.timestamp = true;
  o.tids = {8};
  EXPECT_EQ(replay(two_threads(), o),
            "#    TID          TIMESTAMP   FUNCTION\n"
            "[     8]        0.000002500 | work(int);\n");
}

TEST(TraceReplay, Filters) {
  ReplayOptions o;
  o.duration = false;
  o.filters = {"work"};
  o.tids = {7};
  EXPECT_EQ(replay(two_threads(), o),
            "#    TID   FUNCTION\n"
            "[     7] | work(int) {\n"
            "[     7] |   leaf();\n"
            "[     7] |   leaf();\n"
            "[     7] | } /* work */\n");
  o.depth = 1;  // work alone, now a leaf line
  EXPECT_EQ(replay(two_threads(), o), "#    TID   FUNCTION\n[     7] | work(int);\n");
  o = {};
  o.duration = false;
  o.tids = {7};
  o.notrace = {"Parser::parse", "leaf"};
  EXPECT_EQ(replay(two_threads(), o),
            "#    TID   FUNCTION\n"
            "[     7] | main() {\n"
            "[     7] |   work(int);\n"
            "[     7] | } /* main */\n");
  ReplayStats stats;
  o.notrace = {"nothing", "leaf"};
  replay(two_threads(), o, &stats);
  EXPECT_EQ(stats.unmatched, std::vector<std::string>{"nothing"});
}

TEST(TraceReplay, TimeFilterHidesShortCallsAcrossThreads) {
  ReplayOptions o;
  o.min_ns = 500;  // hides leaf [2100, 2150), tid 8's work and parse
  EXPECT_EQ(replay(two_threads(), o),
            "# DURATION     TID     FUNCTION\n"
            "            [     7] | main() {\n"
            "            [     7] |   work(int) {\n"
            "   1.000 us [     7] |     leaf();\n"
            "   3.000 us [     7] |   } /* work */\n"
            "   8.000 us [     7] | } /* main */\n");
  o.min_ns = 3001;  // work lasted 3000 ns: only main stays
  EXPECT_EQ(replay(two_threads(), o),
            "# DURATION     TID     FUNCTION\n"
            "   8.000 us [     7] | main();\n");
}

TEST(TraceReplay, OpenAtTheEndAndForkFrames) {
  TraceSet set;
  TraceProcess p;
  p.pid = 9;
  // A forked child: starts inside main > work, calls leaf, returns from
  // work, and is killed inside main.
  TraceThread t = thread(9, 100, {enter(200, 0x30), leave(300), leave(400)});
  t.initial_stack = {0x10, 0x20};
  t.ended = false;
  t.last_time = 1500;
  p.threads.push_back(t);
  set.processes.push_back(std::move(p));
  ReplayOptions o;
  EXPECT_EQ(replay(set, o),
            "# DURATION     TID     FUNCTION\n"
            "            [     9] | main() { /* before fork */\n"
            "            [     9] |   work(int) { /* before fork */\n"
            "   0.100 us [     9] |     leaf();\n"
            "   0.300 us [     9] |   } /* work */\n"
            "   1.400 us [     9] | } /* main (open at the end) */\n");
}

TEST(TraceReplay, Durations) {
  EXPECT_EQ(covkit::trace::format_replay_duration(0), "   0.000 us");
  EXPECT_EQ(covkit::trace::format_replay_duration(999999), " 999.999 us");
  EXPECT_EQ(covkit::trace::format_replay_duration(1000000), "   1.000 ms");
  EXPECT_EQ(covkit::trace::format_replay_duration(2288000000), "   2.288  s");
  EXPECT_TRUE(covkit::trace::replay_name_matches("ns::Parser::parse(int)", "Parser::parse"));
  EXPECT_TRUE(covkit::trace::replay_name_matches("ns::Parser::parse(int)", "parse"));
  EXPECT_FALSE(covkit::trace::replay_name_matches("ns::Parser::parse(int)", "arse"));
  EXPECT_FALSE(covkit::trace::replay_name_matches("reparse(int)", "parse"));
}

}  // namespace
