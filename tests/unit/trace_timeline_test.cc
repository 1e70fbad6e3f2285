// `covkit trace timeline`: Chrome trace-event JSON from a hand-built TraceSet
// (exact text, µs formatting, nesting, thread and process names, limits).
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <deque>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "format/trace_reader.h"
#include "trace/timeline_writer.h"

namespace trace_timeline_test {

using covkit::format::TraceEvent;
using covkit::format::TraceModule;
using covkit::format::TraceProcess;
using covkit::format::TraceSet;
using covkit::format::TraceThread;
using covkit::trace::SymbolInfo;
using covkit::trace::TimelineOptions;
using covkit::trace::TimelineStats;
using covkit::trace::write_timeline;

TraceEvent enter(uint64_t t, uint64_t address) { return {.kind = TraceEvent::Kind::kEnter, .time = t, .address = address}; }
TraceEvent leave(uint64_t t) { return {.kind = TraceEvent::Kind::kExit, .time = t}; }

// A table instead of ELF files.
class Symbols {
 public:
  Symbols() {
    add(0x10, "main", "/src/m.cc", 3);
    add(0x20, "std::vector<int>::operator[](unsigned long)", "", 0);
    add(0x30, "work(int)", "/src/w.cc", 10);
    add(0x40, "a\"b\\c", "/src/x.cc", 1);
  }
  covkit::trace::SymbolLookup lookup() {
    return [this](const TraceProcess&, uint64_t address, uint64_t) -> const SymbolInfo& { return table_.at(address); };
  }

 private:
  void add(uint64_t address, std::string name, std::string file, uint32_t line) {
    SymbolInfo s;
    s.name = std::move(name);
    s.file = std::move(file);
    s.line = line;
    s.known = true;
    table_[address] = s;
  }
  std::map<uint64_t, SymbolInfo> table_;
};

// Counters are CLOCK_MONOTONIC ns (clock mono).
//   tid 100: main [1000, end) { vector[] [1000, 2500), work [2500, 4000),
//                               vector[] [4200, end) { work [5000, 6234) } }
//   the stream ends at 6234 with main and vector[] still open.
//   tid 101 (no name): a"b\c [2000, 2001)
TraceSet sample_trace() {
  TraceSet set;
  TraceProcess p;
  p.pid = 100;
  p.exe = "/usr/local/bin/prog";
  TraceThread t;
  t.tid = 100;
  t.name = "prog";
  t.start = 1000;
  t.events = {enter(1000, 0x10), enter(1000, 0x20), leave(2500), enter(2500, 0x30), leave(4000),
              enter(4200, 0x20), enter(5000, 0x30), leave(6234)};
  p.threads.push_back(t);
  TraceThread u;
  u.tid = 101;
  u.start = 1500;
  u.events = {enter(2000, 0x40), leave(2001)};
  p.threads.push_back(u);
  set.processes.push_back(p);
  return set;
}

// Per thread: ts never decreases, and every event lies within the enclosing
// open event or after it (never across its end).
void expect_nested(const std::string& text) {
  nlohmann::json doc = nlohmann::json::parse(text);
  ASSERT_TRUE(doc.contains("traceEvents"));
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>> stacks;
  std::map<std::pair<int, int>, int64_t> last_ts;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    auto key = std::make_pair(e["pid"].get<int>(), e["tid"].get<int>());
    int64_t ts = std::llround(e["ts"].get<double>() * 1000), end = ts + std::llround(e["dur"].get<double>() * 1000);
    if (last_ts.count(key)) {
      EXPECT_GE(ts, last_ts[key]) << e.dump();
    }
    last_ts[key] = ts;
    auto& stack = stacks[key];
    while (!stack.empty() && !(stack.back().first <= ts && end <= stack.back().second)) {
      EXPECT_GE(ts, stack.back().second) << "overlaps its parent: " << e.dump();
      stack.pop_back();
    }
    stack.emplace_back(ts, end);
  }
}

TEST(TimelineWriter, Microseconds) {
  using covkit::trace::format_microseconds;
  EXPECT_EQ(format_microseconds(0), "0.000");
  EXPECT_EQ(format_microseconds(1), "0.001");
  EXPECT_EQ(format_microseconds(999), "0.999");
  EXPECT_EQ(format_microseconds(1000), "1.000");
  EXPECT_EQ(format_microseconds(1234567), "1234.567");
  EXPECT_EQ(format_microseconds(18446744073709551615ull), "18446744073709551.615");
}

TEST(TimelineWriter, JsonQuote) {
  using covkit::trace::json_quote;
  EXPECT_EQ(json_quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_quote("std::vector<int>::operator[](unsigned long)"),
            "\"std::vector<int>::operator[](unsigned long)\"");
  EXPECT_EQ(json_quote("x\x01y\nz"), "\"x\\u0001y\\nz\"");
  EXPECT_EQ(json_quote("bad\xFF"), "\"bad\xEF\xBF\xBD\"");
  EXPECT_EQ(json_quote("caf\xC3\xA9"), "\"caf\xC3\xA9\"");
}

TEST(TimelineWriter, ExactOutput) {
  Symbols symbols;
  TimelineStats stats;
  std::string json = write_timeline(sample_trace(), symbols.lookup(), {}, &stats);
  EXPECT_EQ(json,
            "{\"traceEvents\":[\n"
            "{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":100,\"tid\":100,\"args\":{\"name\":\"prog (100)\"}},\n"
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":100,\"tid\":100,\"args\":{\"name\":\"prog\"}},\n"
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":100,\"tid\":101,\"args\":{\"name\":\"thread 101\"}},\n"
            "{\"name\":\"main\",\"ph\":\"X\",\"ts\":0.000,\"dur\":5.234,\"pid\":100,\"tid\":100,"
            "\"args\":{\"file\":\"/src/m.cc\",\"line\":3}},\n"
            "{\"name\":\"std::vector<int>::operator[](unsigned long)\",\"ph\":\"X\",\"ts\":0.000,\"dur\":1.500,"
            "\"pid\":100,\"tid\":100},\n"
            "{\"name\":\"work(int)\",\"ph\":\"X\",\"ts\":1.500,\"dur\":1.500,\"pid\":100,\"tid\":100,"
            "\"args\":{\"file\":\"/src/w.cc\",\"line\":10}},\n"
            "{\"name\":\"std::vector<int>::operator[](unsigned long)\",\"ph\":\"X\",\"ts\":3.200,\"dur\":2.034,"
            "\"pid\":100,\"tid\":100},\n"
            "{\"name\":\"work(int)\",\"ph\":\"X\",\"ts\":4.000,\"dur\":1.234,\"pid\":100,\"tid\":100,"
            "\"args\":{\"file\":\"/src/w.cc\",\"line\":10}},\n"
            "{\"name\":\"a\\\"b\\\\c\",\"ph\":\"X\",\"ts\":1.000,\"dur\":0.001,\"pid\":100,\"tid\":101,"
            "\"args\":{\"file\":\"/src/x.cc\",\"line\":1}}\n"
            "],\n"
            "\"displayTimeUnit\":\"ns\"}\n");
  EXPECT_EQ(stats.calls, 6u);
  EXPECT_EQ(stats.written, 6u);
  expect_nested(json);
}

TEST(TimelineWriter, EqualStartParentFirst) {
  TraceSet set;
  TraceProcess p;
  p.pid = 7;
  TraceThread t;
  t.tid = 7;
  t.start = 50;
  // Three frames entered at the same time, left at the same time.
  t.events = {enter(50, 0x10), enter(50, 0x20), enter(50, 0x30), leave(80), leave(80), leave(80)};
  p.threads.push_back(t);
  set.processes.push_back(p);
  Symbols symbols;
  std::string json = write_timeline(set, symbols.lookup());
  size_t a = json.find("\"main\""), b = json.find("operator[]"), c = json.find("work(int)");
  ASSERT_NE(c, std::string::npos);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(json.find("\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":7,\"tid\":7,\"args\":{\"name\":\"process (7)\"}"),
            std::string::npos)
      << json;
  expect_nested(json);
}

TEST(TimelineWriter, ForkedChildStartsInsideItsParentsFrames) {
  TraceSet set = sample_trace();
  TraceProcess child;
  child.pid = 200;
  child.ppid = 100;
  child.exe = "/usr/local/bin/prog";
  TraceThread t;
  t.tid = 200;
  t.name = "prog";
  t.start = 3000;
  t.initial_stack = {0x10, 0x30};
  t.events = {enter(3100, 0x40), leave(3200), leave(3300)};  // the second exit closes work(int)
  child.threads.push_back(t);
  set.processes.push_back(child);
  Symbols symbols;
  std::string json = write_timeline(set, symbols.lookup());
  EXPECT_NE(json.find("{\"name\":\"main\",\"ph\":\"X\",\"ts\":2.000,\"dur\":0.300,\"pid\":200,\"tid\":200,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\":\"work(int)\",\"ph\":\"X\",\"ts\":2.000,\"dur\":0.300,\"pid\":200,\"tid\":200,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\":\"a\\\"b\\\\c\",\"ph\":\"X\",\"ts\":2.100,\"dur\":0.100,\"pid\":200,\"tid\":200,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":200,\"tid\":200,\"args\":{\"name\":\"prog (200)\"}}"),
            std::string::npos);
  expect_nested(json);
}

TEST(TimelineWriter, OpenFramesEndWithTheirProcess) {
  TraceSet set = sample_trace();
  TraceProcess& p = set.processes[0];
  p.end = 9000;                       // exit() after the last event of tid 100
  p.threads[1].events.pop_back();     // tid 101 still inside a"b\c
  p.threads[1].ended = true;          // ... but its stream says it ended: not extended
  p.threads[1].last_time = 2500;      // its `end` special came later than its enter
  Symbols symbols;
  std::string json = write_timeline(set, symbols.lookup());
  EXPECT_NE(json.find("{\"name\":\"main\",\"ph\":\"X\",\"ts\":0.000,\"dur\":8.000,\"pid\":100,\"tid\":100,"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"ts\":3.200,\"dur\":4.800,\"pid\":100,\"tid\":100}"), std::string::npos) << json;
  EXPECT_NE(json.find("{\"name\":\"a\\\"b\\\\c\",\"ph\":\"X\",\"ts\":1.000,\"dur\":0.500,\"pid\":100,\"tid\":101,"),
            std::string::npos)
      << json;
  expect_nested(json);
}

TEST(TimelineWriter, TscCountersAreConvertedToNanoseconds) {
  TraceSet set;
  TraceProcess p;
  p.pid = 9;
  p.tsc = true;
  p.calib = {{10000, 1000000}, {30000, 1010000}};  // 2 ticks per ns
  TraceThread t;
  t.tid = 9;
  t.start = 10000;
  t.events = {enter(10000, 0x10), enter(12000, 0x30), leave(14002), leave(20000)};
  p.threads.push_back(t);
  set.processes.push_back(p);
  Symbols symbols;
  std::string json = write_timeline(set, symbols.lookup());
  EXPECT_NE(json.find("\"name\":\"main\",\"ph\":\"X\",\"ts\":0.000,\"dur\":5.000,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"work(int)\",\"ph\":\"X\",\"ts\":1.000,\"dur\":1.001,"), std::string::npos) << json;
}

TEST(TimelineWriter, MinDuration) {
  Symbols symbols;
  TimelineOptions o;
  o.min_duration_ns = 1500;
  TimelineStats stats;
  std::string json = write_timeline(sample_trace(), symbols.lookup(), o, &stats);
  EXPECT_EQ(stats.written, 4u);
  EXPECT_EQ(stats.too_short, 2u);
  EXPECT_EQ(json.find("\"dur\":1.234"), std::string::npos);
  EXPECT_EQ(json.find("\"dur\":0.001"), std::string::npos);
  EXPECT_NE(json.find("\"dur\":1.500"), std::string::npos);
  // The thread without events still has its name.
  EXPECT_NE(json.find("\"tid\":101,\"args\":{\"name\":\"thread 101\"}"), std::string::npos);
  expect_nested(json);
}

TEST(TimelineWriter, MaxEventsKeepsTheLongest) {
  Symbols symbols;
  TimelineOptions o;
  o.max_events = 3;
  TimelineStats stats;
  std::string json = write_timeline(sample_trace(), symbols.lookup(), o, &stats);
  EXPECT_EQ(stats.calls, 6u);
  EXPECT_EQ(stats.written, 3u);
  EXPECT_EQ(stats.over_limit, 3u);
  // main (5.234), the second vector[] (2.034), and of the two 1.500 calls
  // the first (the parent-first order).
  EXPECT_NE(json.find("\"ts\":0.000,\"dur\":5.234"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ts\":3.200,\"dur\":2.034"), std::string::npos) << json;
  EXPECT_NE(json.find("\"ts\":0.000,\"dur\":1.500"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"ts\":1.500,\"dur\":1.500"), std::string::npos) << json;
  expect_nested(json);
}

// --no-source drops exactly the file/line arguments: the same events, the
// same bytes otherwise (and the sample has arguments to drop).
TEST(TimelineWriter, NoSourceArgs) {
  Symbols symbols;
  std::string with = write_timeline(sample_trace(), symbols.lookup());
  TimelineOptions o;
  o.source_args = false;
  std::string without = write_timeline(sample_trace(), symbols.lookup(), o);
  const std::regex args(R"re(,"args":\{"file":"(?:[^"\\]|\\.)*","line":\d+\})re");
  std::string stripped = std::regex_replace(with, args, "");
  EXPECT_EQ(std::distance(std::sregex_iterator(with.begin(), with.end(), args), std::sregex_iterator()), 4);
  EXPECT_EQ(without, stripped);
  EXPECT_NE(with, without);
}

TEST(TimelineWriter, EmptyTrace) {
  TimelineStats stats;
  std::string json = write_timeline(TraceSet{}, Symbols().lookup(), {}, &stats);
  EXPECT_EQ(json, "{\"traceEvents\":[\n\n],\n\"displayTimeUnit\":\"ns\"}\n");
  EXPECT_EQ(stats.calls, 0u);
  EXPECT_TRUE(nlohmann::json::accept(json));
}

// Names are looked up once per address that one module of the process
// holds, and once per module where a library was unloaded and another
// mapped over it (the function then depends on the call's time, through
// the module that module_for picks, as in the Symbolizer).
TEST(TimelineWriter, ReloadedAddressesAreLookedUpPerModule) {
  TraceSet set;
  TraceProcess p;
  p.pid = 9;
  p.exe = "/bin/host";
  TraceModule exe, first, second;
  exe.path = "/bin/host";
  exe.segments = {{0x1000, 0x2000}};
  first.path = "/lib/first.so";
  first.seen = 0;
  first.segments = {{0x5000, 0x6000}};
  second.path = "/lib/second.so";
  second.seen = 3000;  // mapped where first.so was, after it was unloaded
  second.segments = {{0x5000, 0x6000}};
  p.modules = {exe, first, second};
  TraceThread t;
  t.tid = 9;
  t.start = 1000;
  t.events = {enter(1000, 0x1100), enter(1100, 0x5100), leave(1200), enter(1300, 0x1200), leave(1400),
              enter(1500, 0x1200), leave(1600), enter(4000, 0x5100), leave(4100), enter(4200, 0x1200), leave(4300),
              enter(4400, 0x5100), leave(4500), leave(5000)};
  p.threads.push_back(t);
  set.processes.push_back(p);

  std::map<uint64_t, int> lookups;
  std::deque<SymbolInfo> answers;
  covkit::trace::SymbolLookup lookup = [&](const TraceProcess& process, uint64_t address,
                                           uint64_t when) -> const SymbolInfo& {
    ++lookups[address];
    const covkit::format::TraceModule* m = process.module_for(address, when);
    SymbolInfo& s = answers.emplace_back();
    s.name = fmt::format("{:x}@{}", address, m ? m->path : "?");
    return s;
  };
  const nlohmann::json doc = nlohmann::json::parse(write_timeline(set, lookup));
  std::vector<std::string> names;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") names.push_back(e["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"1100@/bin/host", "5100@/lib/first.so", "1200@/bin/host",
                                             "1200@/bin/host", "5100@/lib/second.so", "1200@/bin/host",
                                             "5100@/lib/second.so"}));
  EXPECT_EQ(lookups[0x1100], 1);
  EXPECT_EQ(lookups[0x1200], 1);  // three calls, one lookup
  EXPECT_EQ(lookups[0x5100], 2);  // three calls, two modules held it: one lookup each
}

// Threads replayed in parallel write the same file, the same calls kept
// under --max-events and the same counts, for any number of workers.
TEST(TimelineWriter, ParallelReplayChangesNothing) {
  TraceSet set;
  for (uint32_t pid : {100u, 200u}) {
    TraceProcess p = sample_trace().processes[0];
    p.pid = pid;
    for (uint32_t k = 0; k < 6; ++k) {
      TraceThread t = p.threads[k % 2];
      t.tid = pid + 10 + k;
      for (TraceEvent& e : t.events) e.time += k * 7;
      p.threads.push_back(t);
    }
    set.processes.push_back(p);
  }
  Symbols symbols;
  for (uint64_t max_events : {0, 1, 5, 20}) {
    TimelineOptions o;
    o.max_events = max_events;
    o.threads = 1;
    TimelineStats one_stats;
    const std::string one = write_timeline(set, symbols.lookup(), o, &one_stats);
    for (unsigned workers : {2u, 4u}) {
      o.threads = workers;
      TimelineStats stats;
      EXPECT_EQ(write_timeline(set, symbols.lookup(), o, &stats), one) << max_events << " events, " << workers;
      EXPECT_EQ(std::tie(stats.calls, stats.written, stats.too_short, stats.over_limit),
                std::tie(one_stats.calls, one_stats.written, one_stats.too_short, one_stats.over_limit));
    }
  }
}

}  // namespace
