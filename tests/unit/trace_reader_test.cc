// The trace reader on hand-built directories: metadata lines, event
// encodings, the states a running or killed program leaves (torn last event,
// zero tail), and hostile bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "format/trace_event_reader.h"
#include "format/trace_file_names.h"
#include "format/trace_meta_parser.h"
#include "format/trace_reader.h"
#include "format/trace_stream_decoder.h"
#include "test_support.h"

namespace covkit::format {
namespace trace_reader_test {

using covkit::testing::TempDir;
using Kind = TraceEvent::Kind;

// Writes a thread stream the way docs/trace-format.md describes it.
struct StreamBuilder {
  std::vector<uint8_t> b;

  StreamBuilder(uint32_t pid, uint32_t tid, uint64_t start, uint32_t flags = 0) {
    const char magic[] = "CKTRACE1";
    b.assign(magic, magic + 8);
    u32(pid);
    u32(tid);
    u64(start);
    u32(flags);
    b.resize(64, 0);
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) b.push_back(uint8_t(v >> (8 * i)));
  }
  void varint(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      b.push_back(byte | (v ? 0x80 : 0));
    } while (v);
  }
  void lead(uint8_t kind, uint64_t delta) {
    uint64_t more = delta >> 5;
    b.push_back(uint8_t(kind | (more ? 4 : 0) | (delta & 31) << 3));
    if (more) varint(more);
  }
  StreamBuilder& define(uint64_t id, uint64_t address, uint64_t delta = 0) {
    lead(3, delta);
    varint(1);
    varint(id);
    u64(address);
    return *this;
  }
  StreamBuilder& enter(uint64_t id, uint64_t delta) {
    lead(1, delta);
    varint(id);
    return *this;
  }
  StreamBuilder& exit(uint64_t delta) {
    lead(2, delta);
    return *this;
  }
  StreamBuilder& lost(uint64_t n) {
    lead(3, 0);
    varint(2);
    varint(n);
    return *this;
  }
  StreamBuilder& stack(const std::vector<uint64_t>& ids) {
    lead(3, 0);
    varint(3);
    varint(ids.size());
    for (uint64_t id : ids) varint(id);
    return *this;
  }
  StreamBuilder& end(uint64_t delta = 0) {
    lead(3, delta);
    varint(4);
    return *this;
  }
  StreamBuilder& zeros(size_t n) {
    b.resize(b.size() + n, 0);
    return *this;
  }
};

std::string meta_text(uint32_t pid, const std::string& extra = "") {
  return "covkit-trace 1\npid " + std::to_string(pid) + "\nppid 1\nexe /bin/prog\nclock mono\n" +
         "calib 100 100\nmodule 0 100 /bin/prog\nsegment 0 1000 9000\n" + extra;
}

// A stream file's events through TraceEventReader, as the views read them.
struct ReadEvents {
  std::vector<TraceEvent> events;
  StreamSummary summary;
  std::vector<std::string> warnings;
  size_t blocks = 0;
};
ReadEvents read_events(const TraceThread& t, bool background = false) {
  ReadEvents r;
  TraceEventReader reader(t, r.warnings, background);
  for (auto block = reader.next(); !block.empty(); block = reader.next()) {
    r.events.insert(r.events.end(), block.begin(), block.end());
    ++r.blocks;
  }
  r.summary = reader.summary();
  return r;
}

struct Decoded {
  TraceThread thread;
  StreamHeader header;
  std::vector<std::string> warnings;
  StreamStatus status;
};

Decoded decode(const std::vector<uint8_t>& bytes) {
  Decoded d;
  d.status = decode_trace_stream(bytes, "t.ckt", d.thread, d.header, d.warnings);
  return d;
}

bool any_contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& w : v)
    if (w.find(s) != std::string::npos) return true;
  return false;
}

TEST(TraceStreamTest, DecodesEnterExitWithDeltasAndDefines) {
  StreamBuilder s(7, 8, 1000);
  s.define(0, 0x1000).define(200, 0x2000);
  s.enter(0, 3).enter(200, 31).exit(32).exit(uint64_t(1) << 40).end(5);
  Decoded d = decode(s.b);
  ASSERT_EQ(d.status, StreamStatus::kOk);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
  EXPECT_EQ(d.header.pid, 7u);
  EXPECT_EQ(d.header.tid, 8u);
  EXPECT_EQ(d.thread.start, 1000u);
  ASSERT_EQ(d.thread.events.size(), 4u);
  EXPECT_EQ(d.thread.events[0].kind, Kind::kEnter);
  EXPECT_EQ(d.thread.events[0].address, 0x1000u);
  EXPECT_EQ(d.thread.events[0].time, 1003u);
  EXPECT_EQ(d.thread.events[1].address, 0x2000u);  // two-byte id
  EXPECT_EQ(d.thread.events[1].time, 1034u);
  EXPECT_EQ(d.thread.events[2].kind, Kind::kExit);
  EXPECT_EQ(d.thread.events[2].time, 1066u);  // delta 32: low bits 0, varint 1
  EXPECT_EQ(d.thread.events[3].time, 1066u + (uint64_t(1) << 40));
  EXPECT_TRUE(d.thread.ended);
  EXPECT_FALSE(d.thread.truncated);
  EXPECT_EQ(d.thread.bytes, s.b.size());
  EXPECT_EQ(d.thread.last_time, 1066u + (uint64_t(1) << 40) + 5);
}

TEST(TraceStreamTest, EndedFlagInHeader) {
  StreamBuilder s(1, 1, 0, 1);
  s.define(1, 0x1000).enter(1, 1).exit(1);
  Decoded d = decode(s.b);
  EXPECT_TRUE(d.thread.ended);
  EXPECT_EQ(d.thread.events.size(), 2u);
}

TEST(TraceStreamTest, StackSpecialGivesInitialStackAndLostCounts) {
  StreamBuilder s(1, 2, 50);
  s.define(1, 0x1000).define(2, 0x2000).stack({1, 2}).lost(3).exit(10).lost(4).exit(10).enter(1, 1).exit(1);
  Decoded d = decode(s.b);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
  EXPECT_EQ(d.thread.initial_stack, (std::vector<uint64_t>{0x1000, 0x2000}));
  EXPECT_EQ(d.thread.lost, 7u);
  ASSERT_EQ(d.thread.events.size(), 4u);  // the two exits close the initial frames
  EXPECT_EQ(d.thread.events[0].kind, Kind::kExit);
  EXPECT_EQ(d.thread.events[1].time, 70u);
}

TEST(TraceStreamTest, ZeroTailEndsTheDataQuietly) {
  StreamBuilder s(1, 1, 0);
  s.define(1, 0x1000).enter(1, 1).exit(2).zeros(1 << 20);
  Decoded d = decode(s.b);
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.thread.events.size(), 2u);
  EXPECT_FALSE(d.thread.truncated);
  EXPECT_EQ(d.thread.bytes, s.b.size() - (1 << 20));
}

TEST(TraceStreamTest, EventBeingWrittenInZeroTailIsDroppedWithoutWarning) {
  // The lead byte of an enter is there, its id byte is not yet (zero); and
  // the id 0 was never defined.
  StreamBuilder s(1, 1, 0);
  s.define(1, 0x1000).enter(1, 1);
  s.b.push_back(1 | (2 << 3));  // enter, delta 2, id still 0
  s.zeros(4096);
  Decoded d = decode(s.b);
  EXPECT_TRUE(d.warnings.empty()) << d.warnings.front();
  EXPECT_TRUE(d.thread.truncated);
  ASSERT_EQ(d.thread.events.size(), 1u);

  // Id 0 is defined: the half-written enter would decode as a whole one.
  StreamBuilder u(1, 1, 0);
  u.define(0, 0x1000).enter(0, 1).exit(1);
  u.b.push_back(1 | (2 << 3));
  u.zeros(4096);
  Decoded f = decode(u.b);
  EXPECT_TRUE(f.warnings.empty());
  EXPECT_TRUE(f.thread.truncated);
  EXPECT_EQ(f.thread.events.size(), 2u);
  // A two-byte delta whose second byte is still zero.
  StreamBuilder v(1, 1, 0);
  v.define(1, 0x1000).enter(1, 1);
  v.b.push_back(2 | 4 | (1 << 3));
  v.b.push_back(0x85);
  v.zeros(100);
  Decoded g = decode(v.b);
  EXPECT_TRUE(g.thread.truncated);
  EXPECT_EQ(g.thread.events.size(), 1u);
  // The same bytes in a stream whose header says it ended are whole.
  StreamBuilder w(1, 1, 0, 1);
  w.define(0, 0x1000).enter(0, 1);
  w.zeros(10);
  Decoded h = decode(w.b);
  EXPECT_FALSE(h.thread.truncated);
  EXPECT_EQ(h.thread.events.size(), 1u);

  // A stack special whose frames are not written yet.
  StreamBuilder t(1, 1, 0);
  t.define(1, 0x1000);
  t.lead(3, 0);
  t.varint(3);
  t.varint(2);
  t.zeros(100);
  Decoded e = decode(t.b);
  EXPECT_TRUE(e.warnings.empty()) << e.warnings.front();
  EXPECT_TRUE(e.thread.truncated);
  EXPECT_TRUE(e.thread.initial_stack.empty());
}

TEST(TraceStreamTest, FileCutInsideAnEventIsAWarningWithItsOffset) {
  StreamBuilder s(1, 1, 0);
  s.define(300, 0x1000).enter(300, 1).exit(1);
  const size_t cut_event = s.b.size();
  s.enter(300, 1);
  s.b.pop_back();  // the second byte of the id is missing
  Decoded d = decode(s.b);
  EXPECT_TRUE(d.thread.truncated);
  EXPECT_EQ(d.thread.events.size(), 2u);
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("t.ckt: byte " + std::to_string(cut_event)), std::string::npos) << d.warnings[0];

  // A define cut in its address.
  StreamBuilder t(1, 1, 0);
  t.define(1, 0x1000);
  t.b.resize(t.b.size() - 3);
  Decoded e = decode(t.b);
  EXPECT_TRUE(e.thread.truncated);
  EXPECT_TRUE(any_contains(e.warnings, "byte 64"));
}

TEST(TraceStreamTest, HeaderStates) {
  EXPECT_EQ(decode({}).status, StreamStatus::kNoHeader);
  EXPECT_EQ(decode(std::vector<uint8_t>(1 << 16, 0)).status, StreamStatus::kNoHeader);
  Decoded short_header = decode({'C', 'K', 'T'});
  EXPECT_EQ(short_header.status, StreamStatus::kNotStream);
  EXPECT_FALSE(short_header.warnings.empty());
  std::vector<uint8_t> wrong(64, 'x');
  Decoded bad = decode(wrong);
  EXPECT_EQ(bad.status, StreamStatus::kNotStream);
  EXPECT_TRUE(any_contains(bad.warnings, "magic"));
  StreamBuilder only(1, 1, 5);
  Decoded empty = decode(only.b);
  EXPECT_EQ(empty.status, StreamStatus::kOk);
  EXPECT_TRUE(empty.thread.events.empty());
  EXPECT_TRUE(empty.warnings.empty());
}

TEST(TraceStreamTest, HostileStreamsStopWithAWarningAndKeepWhatCameBefore) {
  struct Case {
    const char* what;
    std::vector<uint8_t> tail;
  };
  std::vector<Case> cases = {
      {"undefined id", {1 | (1 << 3), 9}},
      {"varint overflow", {1 | 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}},
      {"delta beyond 64 bits", {2 | 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}},
      {"kind 0", {0x08}},
      {"unknown special", {3, 99}},
      // A stack that claims 2^62 frames in a few bytes: refused before any allocation.
      {"absurd stack", {3, 3, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 1, 1, 1}},
      {"stack of undefined ids", {3, 3, 2, 7, 8}},
  };
  for (const Case& c : cases) {
    StreamBuilder s(1, 1, 0);
    s.define(1, 0x1000).enter(1, 1).exit(1);
    const size_t good = s.b.size();
    s.b.insert(s.b.end(), c.tail.begin(), c.tail.end());
    s.b.push_back(0x55);  // not a zero tail: damage, not a write in progress
    Decoded d = decode(s.b);
    EXPECT_EQ(d.thread.events.size(), 2u) << c.what;
    ASSERT_FALSE(d.warnings.empty()) << c.what;
    EXPECT_NE(d.warnings[0].find("byte " + std::to_string(good)), std::string::npos) << c.what << ": " << d.warnings[0];
    EXPECT_EQ(d.thread.bytes, good) << c.what;
  }
}

TEST(TraceStreamTest, HugeIdsAndUnmatchedExitsAndClampedTime) {
  StreamBuilder s(1, 1, UINT64_MAX - 10);
  s.define(uint64_t(1) << 50, 0x1000).exit(1).enter(uint64_t(1) << 50, 1).exit(100).exit(1);
  Decoded d = decode(s.b);
  ASSERT_EQ(d.thread.events.size(), 2u);  // the stray exits are dropped
  EXPECT_EQ(d.thread.events[0].address, 0x1000u);
  EXPECT_EQ(d.thread.events[1].time, UINT64_MAX);  // clamped, never wrapped
  EXPECT_TRUE(any_contains(d.warnings, "no open frame"));
  EXPECT_TRUE(any_contains(d.warnings, "overflows"));
}

TEST(TraceStreamTest, RandomDamageNeverBreaksNesting) {
  StreamBuilder base(1, 1, 0);
  base.define(1, 0x1000).define(2, 0x2000).stack({1});
  for (int i = 0; i < 200; ++i) base.enter(1 + i % 2, uint64_t(i) * 37).exit(uint64_t(i) << (i % 50));
  base.lost(5).end();
  std::mt19937 rng(12345);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> b = base.b;
    int flips = 1 + int(rng() % 8);
    for (int f = 0; f < flips; ++f) b[64 + rng() % (b.size() - 64)] = uint8_t(rng());
    if (round % 3 == 0) b.resize(64 + rng() % (b.size() - 64));
    Decoded d = decode(b);
    ASSERT_EQ(d.status, StreamStatus::kOk);
    int64_t depth = int64_t(d.thread.initial_stack.size());
    uint64_t last = 0;
    for (const TraceEvent& e : d.thread.events) {
      depth += e.kind == Kind::kEnter ? 1 : -1;
      ASSERT_GE(depth, 0) << "round " << round;
      ASSERT_GE(e.time, last);
      last = e.time;
    }
    ASSERT_LE(d.thread.bytes, b.size());
    ASSERT_LE(d.thread.events.size(), b.size());
  }
}

TEST(TraceStreamTest, LargeStreamsAreCountedFirstAndMatchTheCounts) {
  StreamBuilder s(1, 1, 0);
  s.define(1, 0x1000);
  const int calls = 1600000;  // about 4.8 MB: above the size that is counted first
  for (int i = 0; i < calls; ++i) s.enter(1, 1).exit(1);
  s.zeros(1000);
  Decoded d = decode(s.b);
  EXPECT_EQ(d.thread.events.size(), size_t(2 * calls));
  EXPECT_EQ(d.thread.events.capacity(), d.thread.events.size());
  StreamTally counts;
  ASSERT_TRUE(count_trace_stream(s.b, counts));
  EXPECT_EQ(counts.events, uint64_t(2 * calls));
  EXPECT_EQ(counts.enters, uint64_t(calls));
  EXPECT_EQ(counts.bytes, d.thread.bytes);
  EXPECT_FALSE(count_trace_stream(std::vector<uint8_t>(10, 0), counts));
}

TEST(TraceMetaTest, BuildIdGoesToTheLatestModuleAtItsBase) {
  std::string text =
      "covkit-trace 1\n"
      "pid 42\n"
      "exe /bin/prog\n"
      "module 7f0000000000 1000 /lib/liba.so\n"
      "buildid 7f0000000000 a01cd4ec90938ace\n"
      "module 555500000000 1000 \"\"\n"
      "module 7f0000000000 2000 /lib/libb.so\n"  // dlclose + dlopen at the same base
      "buildid 7f0000000000 0badc0de\n"
      "buildid 7f0000000000 0BADC0DE\n"  // upper case: not as written
      "buildid 7f0000000000 abc\n"       // odd length
      "buildid 1234 00ff\n";             // no module there
  TraceProcess p;
  std::vector<std::pair<uint32_t, std::string>> names;
  std::vector<std::string> warnings;
  ASSERT_EQ(parse_trace_meta(text, "42.meta", p, names, warnings), MetaStatus::kOk);
  ASSERT_EQ(p.modules.size(), 3u);
  EXPECT_EQ(p.modules[0].build_id, "a01cd4ec90938ace");
  EXPECT_EQ(p.modules[1].build_id, "");  // recorded without one
  EXPECT_EQ(p.modules[2].build_id, "0badc0de");
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("a buildid line without"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[2].find("a buildid of no module"), std::string::npos) << warnings[2];
}

TEST(TraceMetaTest, ParsesEveryKeyAndIgnoresUnknownOnesAndTheUnfinishedLine) {
  std::string text =
      "covkit-trace 1\n"
      "pid 42\n"
      "ppid 41\n"
      "exe /opt/my prog\n"
      "clock tsc\n"
      "calib 1000 5000\n"
      "module 555500000000 1000 \"\"\n"
      "segment 555500000000 555500001000 555500005000\n"
      "module 7f0000000000 1000 /lib/libfoo.so\n"
      "segment 7f0000000000 7f0000010000 7f0000020000\n"
      "thread 42 main\n"
      "thread 43 worker one\n"
      "thread 42 renamed\n"
      "future-key whatever\n"
      "fork 2000 77\n"
      "calib 3000 6000\n"
      "end 4000\n"
      "calib 5000 7";  // no newline: still being written
  TraceProcess p;
  std::vector<std::pair<uint32_t, std::string>> names;
  std::vector<std::string> warnings;
  ASSERT_EQ(parse_trace_meta(text, "42.meta", p, names, warnings), MetaStatus::kOk);
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  EXPECT_EQ(p.pid, 42u);
  EXPECT_EQ(p.ppid, 41u);
  EXPECT_EQ(p.exe, "/opt/my prog");
  EXPECT_TRUE(p.tsc);
  ASSERT_EQ(p.calib.size(), 2u);
  ASSERT_EQ(p.modules.size(), 2u);
  EXPECT_EQ(p.modules[0].path, "/opt/my prog");  // "" is the main program
  EXPECT_EQ(p.modules[0].base, 0x555500000000u);
  ASSERT_EQ(p.modules[0].segments.size(), 1u);
  EXPECT_EQ(p.modules[0].segments[0].lo, 0x555500001000u);
  EXPECT_EQ(p.modules[1].path, "/lib/libfoo.so");
  ASSERT_EQ(names.size(), 3u);
  EXPECT_EQ(names[1].second, "worker one");
  ASSERT_EQ(p.forks.size(), 1u);
  EXPECT_EQ(p.forks[0].second, 77u);
  EXPECT_EQ(p.end, 4000u);
  // to_ns by the first and last pair: 0.5 ns per tick.
  EXPECT_EQ(p.to_ns(1000), 5000u);
  EXPECT_EQ(p.to_ns(2000), 5500u);
  EXPECT_EQ(p.to_ns(0), 4500u);
}

TEST(TraceMetaTest, DamagedLinesAreWarningsWithOffsets) {
  std::string text = "covkit-trace 1\npid x\nsegment 1 2\nmodule zz 1 /a\nsegment 99 10 20\nclock sundial\n";
  TraceProcess p;
  std::vector<std::pair<uint32_t, std::string>> names;
  std::vector<std::string> warnings;
  ASSERT_EQ(parse_trace_meta(text, "9.meta", p, names, warnings), MetaStatus::kOk);
  EXPECT_EQ(warnings.size(), 5u);
  EXPECT_TRUE(any_contains(warnings, "9.meta: byte 15:"));
  EXPECT_TRUE(p.modules.empty());
}

TEST(TraceMetaTest, FirstLineDecides) {
  TraceProcess p;
  std::vector<std::pair<uint32_t, std::string>> names;
  std::vector<std::string> w;
  EXPECT_EQ(parse_trace_meta("", "m", p, names, w), MetaStatus::kEmpty);
  EXPECT_EQ(parse_trace_meta("covkit-tr", "m", p, names, w), MetaStatus::kEmpty);
  EXPECT_EQ(parse_trace_meta("hello\n", "m", p, names, w), MetaStatus::kNotMeta);
  EXPECT_EQ(parse_trace_meta("covkit-trace 2\npid 1\n", "m", p, names, w), MetaStatus::kUnsupported);
}

TEST(TraceClockTest, BackwardsCalibrationIsNotUsed) {
  TraceProcess p;
  p.tsc = true;
  p.calib = {{1000, 5000}, {3000, 6000}, {2000, 4000}};  // the last pair goes backwards in time
  EXPECT_EQ(p.to_ns(3000), 6000u);
  p.calib = {{1000, 5000}};
  p.now_calib = std::make_pair(uint64_t(2000), uint64_t(7000));
  EXPECT_EQ(p.to_ns(1500), 6000u);
  EXPECT_EQ(p.to_ns(0), 3000u);
  p.calib = {{1000, 10}};
  p.now_calib = std::make_pair(uint64_t(2000), uint64_t(1010));
  EXPECT_EQ(p.to_ns(0), 0u);  // before 0 ns: clamped
  TraceProcess mono;
  EXPECT_EQ(mono.to_ns(12345), 12345u);
}

// The documented conversion, computed the plain way: what the clock's fast
// path must give for every counter.
uint64_t reference_ns(uint64_t c0, uint64_t n0, double slope, uint64_t counter) {
  const double offset = counter >= c0 ? double(counter - c0) * slope : -double(c0 - counter) * slope;
  const double ns = double(n0) + offset;
  if (ns <= 0) return 0;
  if (ns >= 18446744073709549568.0) return UINT64_MAX;
  return uint64_t(ns);
}

TEST(TraceClockTest, EveryCounterConvertsAsTheFormulaSays) {
  std::mt19937_64 random(7);
  const uint64_t edges[] = {0, 1, uint64_t(1) << 52, uint64_t(1) << 53, (uint64_t(1) << 62) - 1, uint64_t(1) << 62,
                            uint64_t(1) << 63, UINT64_MAX - 1, UINT64_MAX};
  const double slopes[] = {0.37, 1.0, 1.0 / 3.0, 2.5e-1, 1e6, 1e-9, 0.0};
  for (int round = 0; round < 2000; ++round) {
    const uint64_t c0 = round < 100 ? edges[round % 9] : random() >> (random() % 64);
    const uint64_t n0 = round < 100 ? edges[(round / 9) % 9] : random() >> (random() % 64);
    const double slope = slopes[round % 7];
    const format::TraceClock clock(c0, n0, slope);
    for (int k = 0; k < 50; ++k) {
      uint64_t counter = k < 9 ? edges[k] : random() >> (random() % 64);
      if (k % 3 == 0) counter = c0 + (counter >> 20);   // near the first pair, as traces are
      if (k % 3 == 1) counter = c0 - (counter >> 40);
      ASSERT_EQ(clock(counter), reference_ns(c0, n0, slope, counter))
          << "c0 " << c0 << " n0 " << n0 << " slope " << slope << " counter " << counter;
    }
  }
  EXPECT_EQ(format::TraceClock()(12345), 12345u);
}

// The range-restricted conversion a part uses gives what the checked one
// gives, counter for counter, wherever it is offered; and it is refused
// where a counter of the range would need the checks.
TEST(TraceClockTest, NearConvertsItsRangeAsTheCheckedClock) {
  std::mt19937_64 random(11);
  const double slopes[] = {0.37, 1.0, 1.0 / 3.0, 2.5e-1, 1e6, 1e-9, 0.0};
  int offered = 0;
  for (int round = 0; round < 3000; ++round) {
    const uint64_t c0 = random() >> (random() % 64);
    const uint64_t n0 = random() >> (random() % 64);
    const double slope = slopes[round % 7];
    const format::TraceClock clock(c0, n0, slope);
    const uint64_t lo = c0 + (random() >> (random() % 64)) - (round % 5 == 0 ? random() % 1000 : 0);
    const uint64_t hi = lo + (random() >> (20 + random() % 44));
    auto near = clock.near(lo, hi);
    if (!near) {
      // Refused only where the range needs the checks.
      const bool behind = lo < c0, far = hi < lo || hi - c0 >= (uint64_t(1) << 62);
      const double first = double(n0) + double(int64_t(lo - c0)) * slope;
      const double last = double(n0) + double(int64_t(hi - c0)) * slope;
      EXPECT_TRUE(behind || far || !(first > 0) || !(last < 0x1p62)) << c0 << " " << n0 << " " << lo << " " << hi;
      continue;
    }
    ++offered;
    for (uint64_t counter : {lo, hi, lo + (hi - lo) / 2, lo + (hi - lo) / 3})
      ASSERT_EQ((*near)(counter), clock(counter)) << "c0 " << c0 << " n0 " << n0 << " slope " << slope << " counter "
                                                  << counter;
    for (int k = 0; k < 20; ++k) {
      const uint64_t counter = lo + (hi > lo ? random() % (hi - lo + 1) : 0);
      ASSERT_EQ((*near)(counter), clock(counter)) << "c0 " << c0 << " n0 " << n0 << " counter " << counter;
    }
    // Outside the range: clamped to its ends (a part whose events leave it
    // is not used).
    if (hi < UINT64_MAX) {
      EXPECT_EQ((*near)(hi + 1), clock(hi));
    }
    if (lo > 0) {
      EXPECT_EQ((*near)(lo - 1), clock(lo));
    }
  }
  EXPECT_GT(offered, 1000);
  EXPECT_FALSE(format::TraceClock().near(0, 10));  // counters are ns already: nothing to convert
  EXPECT_FALSE(format::TraceClock(100, 5, 1.0).near(99, 200));  // behind the first pair
}

TEST(TraceModulesTest, ModuleForPicksTheOneLoadedAtThatTime) {
  TraceProcess p;
  p.modules.push_back({0x7000, 100, "/a.so", {{0x8000, 0x9000}}, ""});
  p.modules.push_back({0x7000, 500, "/b.so", {{0x8000, 0x9000}}, ""});
  p.modules.push_back({0x1000, 100, "/prog", {{0x1000, 0x2000}}, ""});
  EXPECT_EQ(p.module_for(0x8100, 200)->path, "/a.so");
  EXPECT_EQ(p.module_for(0x8100, 500)->path, "/b.so");
  EXPECT_EQ(p.module_for(0x8100, 50)->path, "/a.so");  // before both: the earliest
  EXPECT_EQ(p.module_for(0x1fff, 1000)->path, "/prog");
  EXPECT_EQ(p.module_for(0x2000, 1000), nullptr);
}

TEST(TraceDirTest, ReadsProcessesAndThreadsSorted) {
  TempDir dir;
  ASSERT_TRUE(testing::write_text(dir / "20.meta", meta_text(20, "thread 21 worker\nthread 20 prog\n")));
  ASSERT_TRUE(testing::write_text(dir / "10.meta", meta_text(10)));
  StreamBuilder a(20, 21, 100), b(20, 20, 100), c(10, 10, 100);
  a.define(1, 0x1000).enter(1, 5).exit(5);
  b.define(1, 0x2000).enter(1, 1).zeros(1000);
  c.define(1, 0x1000).end();
  ASSERT_TRUE(testing::write_bytes(dir / "20-21.ckt", a.b));
  ASSERT_TRUE(testing::write_bytes(dir / "20-20.ckt", b.b));
  ASSERT_TRUE(testing::write_bytes(dir / "10-10.ckt", c.b));
  ASSERT_TRUE(testing::write_bytes(dir / "10-11.ckt", std::vector<uint8_t>(4096, 0)));  // just created
  ASSERT_TRUE(testing::write_text(dir / "notes.txt", "ignored"));
  auto set = read_trace_dir(dir.path());
  ASSERT_TRUE(set) << set.error().describe();
  EXPECT_TRUE(set->warnings.empty()) << set->warnings.front();
  ASSERT_EQ(set->processes.size(), 2u);
  EXPECT_EQ(set->processes[0].pid, 10u);
  ASSERT_EQ(set->processes[0].threads.size(), 1u);
  EXPECT_FALSE(set->processes[0].threads[0].ended);  // no header flag: the end event says it
  EXPECT_TRUE(read_events(set->processes[0].threads[0]).summary.ended);
  const TraceProcess& p = set->processes[1];
  ASSERT_EQ(p.threads.size(), 2u);
  EXPECT_EQ(p.threads[0].tid, 20u);
  EXPECT_EQ(p.threads[0].name, "prog");
  EXPECT_EQ(p.threads[1].name, "worker");
  EXPECT_EQ(p.threads[1].file, dir / "20-21.ckt");
  EXPECT_TRUE(p.threads[1].events.empty());  // streams are read by the views
  EXPECT_EQ(read_events(p.threads[1]).events.size(), 2u);
  ASSERT_EQ(p.modules.size(), 1u);
  EXPECT_EQ(p.module_for(0x1000, 200)->path, "/bin/prog");
}

// A TSC trace whose calibration pairs do not lie on one line (a TSC that
// did not keep pace with CLOCK_MONOTONIC) is said, with the distance; one
// whose pairs agree within 0.1% is not. The clock's reason is read.
TEST(TraceDirTest, CalibrationPairsOffTheLineAreAWarning) {
  auto meta = [](const std::string& calib) {
    return "covkit-trace 1\npid 30\nppid 1\nexe /bin/prog\nclock tsc\nclock_reason cpu-flags\n"
           "clocksource kvm-clock\n" + calib + "module 0 100 /bin/prog\nsegment 0 1000 9000\n";
  };
  StreamBuilder s(30, 30, 0);
  s.define(1, 0x1000).enter(1, 5).exit(5).end();
  // 2 ticks per ns: seconds 1, 2, 3, 4 at ticks 2e9, 4e9, 6e9, 8e9.
  const std::string even =
      "calib 2000000000 1000000000\ncalib 4000000000 2000000000\ncalib 6000000000 3000000000\n"
      "calib 8000000000 4000000000\n";
  // The same, the third pair 5 ms late in CLOCK_MONOTONIC (0.25% of 2 s).
  const std::string drifting =
      "calib 2000000000 1000000000\ncalib 4000000000 2000000000\ncalib 6000000000 3005000000\n"
      "calib 8000000000 4000000000\n";
  // Within the 0.1%: 1 ms over 2 s (0.05%).
  const std::string close =
      "calib 2000000000 1000000000\ncalib 4000000000 2000000000\ncalib 6000000000 3001000000\n"
      "calib 8000000000 4000000000\n";
  for (const auto& [calib, warned] : {std::pair{even, false}, std::pair{drifting, true}, std::pair{close, false}}) {
    TempDir dir;
    ASSERT_TRUE(testing::write_text(dir / "30.meta", meta(calib)));
    ASSERT_TRUE(testing::write_bytes(dir / "30-30.ckt", s.b));
    auto set = read_trace_dir(dir.path());
    ASSERT_TRUE(set) << set.error().describe();
    ASSERT_EQ(set->processes.size(), 1u);
    EXPECT_EQ(set->processes[0].clock_reason, "cpu-flags");
    EXPECT_EQ(set->processes[0].kernel_clocksource, "kvm-clock");
    EXPECT_EQ(any_contains(set->warnings, "the TSC drifted from CLOCK_MONOTONIC by up to 5000 us (0.25%)"), warned)
        << (set->warnings.empty() ? "no warning" : set->warnings.front());
    EXPECT_EQ(any_contains(set->warnings, "drifted"), warned);
  }
}

TEST(TraceDirTest, DamagedDirectoriesGiveWarningsNotFailures) {
  TempDir dir;
  ASSERT_TRUE(testing::write_text(dir / "5.meta", "covkit-trace 9\npid 5\n"));  // another version
  StreamBuilder s5(5, 5, 0);
  ASSERT_TRUE(testing::write_bytes(dir / "5-5.ckt", s5.b));
  StreamBuilder s6(6, 6, 0);  // no 6.meta
  s6.define(1, 0x10).enter(1, 1);
  ASSERT_TRUE(testing::write_bytes(dir / "6-6.ckt", s6.b));
  StreamBuilder s7(7, 99, 0);  // header disagrees with the name
  ASSERT_TRUE(testing::write_text(dir / "7.meta", meta_text(7)));
  ASSERT_TRUE(testing::write_bytes(dir / "7-7.ckt", s7.b));
  ASSERT_TRUE(testing::write_bytes(dir / "x.ckt", s7.b));
  auto set = read_trace_dir(dir.path());
  ASSERT_TRUE(set) << set.error().describe();
  ASSERT_EQ(set->processes.size(), 2u);  // 5 is skipped
  EXPECT_EQ(set->processes[0].pid, 6u);
  EXPECT_EQ(read_events(set->processes[0].threads[0]).events.size(), 1u);
  EXPECT_EQ(set->processes[1].threads[0].tid, 7u);
  EXPECT_TRUE(any_contains(set->warnings, "version 9"));
  EXPECT_TRUE(any_contains(set->warnings, "6.meta: missing"));
  EXPECT_TRUE(any_contains(set->warnings, "7-7.ckt: byte 8"));
  EXPECT_TRUE(any_contains(set->warnings, "x.ckt: not named"));
}

TEST(TraceDirTest, NotATraceDirectory) {
  TempDir dir;
  auto empty = read_trace_dir(dir.path());
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("not a covkit trace directory"), std::string::npos);
  auto missing = read_trace_dir(dir / "missing");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no such directory");
  ASSERT_TRUE(testing::write_text(dir / "f", "x"));
  auto file = read_trace_dir(dir / "f");
  ASSERT_FALSE(file);
  EXPECT_EQ(file.error().message, "not a directory");
}

TEST(TraceFileNamesTest, ImagesAndThreadsOfTheContract) {
  auto first = parse_meta_name("123.meta");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->pid, 123u);
  EXPECT_EQ(first->sequence, 0u);
  auto later = parse_meta_name("123.2.meta");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->sequence, 2u);
  EXPECT_EQ(later->stem, "123.2");
  auto stream = parse_stream_name("123.2-456.1.ckt");
  ASSERT_TRUE(stream);
  EXPECT_EQ(stream->image.stem, "123.2");
  EXPECT_EQ(stream->tid, 456u);
  EXPECT_EQ(stream->sequence, 1u);
  for (const char* bad : {"x.meta", "123.0.meta", "12.3.4.meta", ".meta", "-1.meta", "+1.meta", "123-.ckt",
                          "123.ckt", "a-1.ckt", "1-1.0.ckt", "99999999999-1.ckt"})
    EXPECT_FALSE(parse_meta_name(bad) || parse_stream_name(bad)) << bad;
}

TEST(TraceDirTest, EachImageOfAPidIsAProcess) {
  // exec keeps the pid: the runtime names the later image 7.1.
  TempDir dir;
  ASSERT_TRUE(testing::write_text(dir / "7.meta", meta_text(7)));
  ASSERT_TRUE(testing::write_text(dir / "7.1.meta", meta_text(7)));
  StreamBuilder a(7, 7, 100), b(7, 7, 500), c(7, 7, 900);
  a.define(1, 0x1000).enter(1, 1).end();
  b.define(1, 0x2000).enter(1, 1).exit(1).end();
  c.define(1, 0x3000).end();  // the tid again in the later image
  ASSERT_TRUE(testing::write_bytes(dir / "7-7.ckt", a.b));
  ASSERT_TRUE(testing::write_bytes(dir / "7.1-7.ckt", b.b));
  ASSERT_TRUE(testing::write_bytes(dir / "7.1-7.1.ckt", c.b));
  auto set = read_trace_dir(dir.path());
  ASSERT_TRUE(set) << set.error().describe();
  EXPECT_TRUE(set->warnings.empty()) << set->warnings.front();
  ASSERT_EQ(set->processes.size(), 2u);
  EXPECT_EQ(set->processes[0].image, "7");
  EXPECT_EQ(set->processes[1].image, "7.1");
  EXPECT_EQ(set->processes[0].threads.size(), 1u);
  ASSERT_EQ(set->processes[1].threads.size(), 2u);
  EXPECT_EQ(read_events(set->processes[1].threads[0]).events.size(), 2u);
  EXPECT_EQ(set->processes[1].threads[1].start, 900u);
}

TEST(TraceDirTest, AThreadKeepsOnlyANameOfItsOwn) {
  // Threads start with their creator's name: the program's, or the main
  // thread's first one. Only a name given later is the thread's.
  TempDir dir;
  ASSERT_TRUE(testing::write_text(dir / "30.meta", meta_text(30,
      "thread 30 launcher\nthread 31 launcher\nthread 32 launcher\nthread 32 io-worker\n"
      "thread 33 prog\nthread 30 renamed\n")));
  for (uint32_t tid : {30u, 31u, 32u, 33u, 34u}) {
    StreamBuilder t(30, tid, 100);
    t.define(1, 0x1000).enter(1, 1).exit(1).end();
    ASSERT_TRUE(testing::write_bytes(dir / ("30-" + std::to_string(tid) + ".ckt"), t.b));
  }
  auto set = read_trace_dir(dir.path());
  ASSERT_TRUE(set) << set.error().describe();
  const auto& threads = set->processes.at(0).threads;
  ASSERT_EQ(threads.size(), 5u);
  EXPECT_EQ(threads[0].name, "renamed");    // the main thread's own, last one wins
  EXPECT_EQ(threads[1].name, "");           // inherited from the main thread
  EXPECT_EQ(threads[2].name, "io-worker");  // given after its start
  EXPECT_EQ(threads[3].name, "");           // the program's name (exe /bin/prog)
  EXPECT_EQ(threads[4].name, "");           // never named
  EXPECT_EQ(thread_display_name(threads[1]), "thread 31");
  EXPECT_EQ(thread_display_name(threads[2]), "io-worker");
}

TEST(TraceDirTest, HeaderCountsAreRead) {
  TempDir dir;
  ASSERT_TRUE(testing::write_text(dir / "8.meta", meta_text(8)));
  StreamBuilder t(8, 8, 100, /*flags: ended, counts*/ 3);
  t.define(1, 0x1000).enter(1, 1).exit(1).lost(4).end();
  auto put = [&](size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) t.b[at + i] = uint8_t(v >> (8 * i));
  };
  put(32, 1);
  put(40, 5);
  put(48, 4);
  ASSERT_TRUE(testing::write_bytes(dir / "8-8.ckt", t.b));
  auto set = read_trace_dir(dir.path());
  ASSERT_TRUE(set) << set.error().describe();
  const TraceThread& thread = set->processes.at(0).threads.at(0);
  ASSERT_TRUE(thread.counts);
  EXPECT_EQ(thread.counts->calls, 1u);
  EXPECT_EQ(thread.counts->events, 5u);
  EXPECT_EQ(thread.counts->lost, 4u);
  EXPECT_TRUE(thread.ended);
}

// Valid, running (zero tail), cut and damaged streams.
std::vector<std::vector<uint8_t>> assorted_streams() {
  StreamBuilder s(1, 1, 0);
  s.define(1, 0x1000).define(200, 0x7fff12345678).stack({1});
  std::mt19937 rng(3);
  for (int i = 0; i < 300; ++i) {
    s.enter(rng() % 2 ? 1 : 200, rng() % 5000).exit(rng() % (uint64_t(1) << (rng() % 40)));
    if (i % 97 == 0) s.lost(i + 1);
  }
  std::vector<std::vector<uint8_t>> cases;
  StreamBuilder ended = s;
  ended.end();
  cases.push_back(ended.b);
  StreamBuilder running = s;
  running.zeros(300);
  cases.push_back(running.b);
  for (size_t cut : {70, 71, 150, 777, 1203}) cases.emplace_back(s.b.begin(), s.b.begin() + cut);
  std::vector<uint8_t> damaged = s.b;
  damaged[900] = 0x03;  // a special...
  damaged[901] = 0x7f;  // ...of an unknown subtype
  cases.push_back(damaged);
  std::vector<uint8_t> unknown_id = s.b;
  unknown_id[1000] = 0x01;  // an enter...
  unknown_id[1001] = 0x05;  // ...of an id no define introduced
  cases.push_back(unknown_id);
  return cases;
}

// Where the read windows end does not change what is decoded: the assorted
// streams through windows of a few bytes decode as through one window,
// warnings included.
TEST(TraceStreamTest, ReadWindowsDoNotChangeTheDecoding) {
  const std::vector<std::vector<uint8_t>> cases = assorted_streams();
  for (size_t c = 0; c < cases.size(); ++c) {
    Decoded whole = decode(cases[c]);
    StreamTally tally;  // counting meets the same problems, without a place to tell them
    ASSERT_TRUE(count_trace_stream(cases[c], tally));
    EXPECT_EQ(tally.events, whole.thread.events.size()) << "case " << c;
    for (size_t window : {1, 2, 3, 7, 23, 24, 25, 64, 1000}) {
      Decoded small;
      decode_trace_stream(cases[c], "t.ckt", small.thread, small.header, small.warnings, window);
      EXPECT_TRUE(small.thread.events == whole.thread.events) << "case " << c << ", window " << window;
      EXPECT_EQ(small.warnings, whole.warnings) << "case " << c << ", window " << window;
      EXPECT_EQ(small.thread.bytes, whole.thread.bytes) << "case " << c << ", window " << window;
      EXPECT_EQ(small.thread.truncated, whole.thread.truncated) << "case " << c << ", window " << window;
      EXPECT_EQ(small.thread.lost, whole.thread.lost) << "case " << c << ", window " << window;
      EXPECT_EQ(small.thread.last_time, whole.thread.last_time) << "case " << c << ", window " << window;
    }
  }
}

// A stream file read a block at a time gives what decoding it whole gives,
// across read windows (1 MiB) and blocks (65536 events).
TEST(TraceEventReaderTest, BlocksOfAFileEqualTheWholeStream) {
  StreamBuilder s(1, 1, 0);
  s.define(1, 0x1000).define(2, 0x2000).stack({1});
  std::mt19937 rng(7);
  int depth = 1;
  for (int i = 0; i < 400000; ++i) {
    if (depth > 1 && rng() % 2) {
      s.exit(rng() % 3000);
      --depth;
    } else {
      s.enter(1 + rng() % 2, rng() % 100);
      ++depth;
    }
    if (i % 50000 == 0) s.lost(i);
  }
  s.zeros(4096);
  Decoded whole = decode(s.b);
  TempDir dir;
  ASSERT_TRUE(testing::write_bytes(dir / "1-1.ckt", s.b));
  TraceThread t;
  t.tid = 1;
  t.file = dir / "1-1.ckt";
  ReadEvents r = read_events(t);
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.events.size(), whole.thread.events.size());
  EXPECT_TRUE(r.events == whole.thread.events);
  EXPECT_EQ(r.summary.initial_stack, whole.thread.initial_stack);
  EXPECT_EQ(r.summary.lost, whole.thread.lost);
  EXPECT_EQ(r.summary.bytes, whole.thread.bytes);
  EXPECT_EQ(r.summary.last_time, whole.thread.last_time);
  EXPECT_EQ(r.summary.truncated, whole.thread.truncated);
  EXPECT_GT(r.blocks, 5u);
}

// The bulk loop (StreamDecoder::next into a span, what the views use) and
// the event-at-a-time path (next into a vector) decode the same events with
// the same warnings and summary, whatever the block and window sizes.
TEST(TraceStreamTest, TheBulkLoopDecodesAsTheCarefulPath) {
  std::vector<std::vector<uint8_t>> cases = assorted_streams();
  {
    StreamBuilder big(1, 1, 0);
    big.define(1, 0x1000);
    for (uint64_t id = 2; id < 300; ++id) big.define(id, 0x1000 + id);
    std::mt19937 rng(11);
    for (int i = 0; i < 20000; ++i) big.enter(1 + rng() % 299, rng() % 200).exit(rng() % (uint64_t(1) << (rng() % 40)));
    cases.push_back(big.b);
  }
  for (size_t c = 0; c < cases.size(); ++c) {
    StreamHeader header;
    std::vector<std::string> ignored;
    ASSERT_EQ(parse_stream_header(cases[c], "t.ckt", header, ignored), StreamStatus::kOk);
    StreamBytes bytes(cases[c]);
    std::vector<std::string> careful_warnings;
    StreamDecoder careful(bytes, "t.ckt", header.start, header.ended, careful_warnings);
    std::vector<TraceEvent> expected;
    while (careful.next(expected, 7)) {
    }
    for (size_t block : {1, 3, 1024}) {
      for (size_t window : {25, 100, 1 << 20}) {
        std::vector<std::string> warnings;
        StreamDecoder bulk(bytes, "t.ckt", header.start, header.ended, warnings, window);
        std::vector<TraceEvent> got, buffer(block);
        for (size_t n; (n = bulk.next(std::span<TraceEvent>(buffer))) > 0;) got.insert(got.end(), buffer.begin(), buffer.begin() + n);
        const std::string where = "case " + std::to_string(c) + ", block " + std::to_string(block) + ", window " + std::to_string(window);
        EXPECT_TRUE(got == expected) << where;
        EXPECT_EQ(warnings, careful_warnings) << where;
        const StreamSummary &a = bulk.summary(), &b = careful.summary();
        EXPECT_EQ(a.initial_stack, b.initial_stack) << where;
        EXPECT_EQ(std::tie(a.lost, a.ended, a.truncated, a.bytes, a.last_time, a.events, a.calls, a.specials),
                  std::tie(b.lost, b.ended, b.truncated, b.bytes, b.last_time, b.events, b.calls, b.specials))
            << where;
      }
    }
  }
}

// Decoded on a thread of its own, a stream file gives the same events,
// summary and warnings.
TEST(TraceEventReaderTest, BackgroundDecodingChangesNothing) {
  StreamBuilder s(1, 1, 0);
  s.define(1, 0x1000).define(2, 0x2000).stack({1});
  std::mt19937 rng(5);
  for (int i = 0; i < 200000; ++i) s.enter(1 + rng() % 2, rng() % 100).exit(rng() % 3000);
  std::vector<uint8_t> damaged = s.b;
  damaged[damaged.size() - 100] = 0x03;  // a special of an unknown subtype
  damaged[damaged.size() - 99] = 0x7f;
  TempDir dir;
  int k = 0;
  for (const auto& bytes : {s.b, damaged}) {
    const std::string name = std::to_string(++k) + "-1.ckt";
    ASSERT_TRUE(testing::write_bytes(dir / name, bytes));
    TraceThread t;
    t.tid = 1;
    t.file = dir / name;
    ReadEvents fore = read_events(t), back = read_events(t, true);
    EXPECT_TRUE(back.events == fore.events) << name;
    EXPECT_EQ(back.warnings, fore.warnings) << name;
    EXPECT_EQ(back.summary.initial_stack, fore.summary.initial_stack) << name;
    EXPECT_EQ(std::tie(back.summary.lost, back.summary.bytes, back.summary.last_time, back.summary.truncated),
              std::tie(fore.summary.lost, fore.summary.bytes, fore.summary.last_time, fore.summary.truncated))
        << name;
    EXPECT_GT(back.blocks, 1u);
  }
  {  // a reader dropped before the end stops its thread
    TraceThread t;
    t.tid = 1;
    t.file = dir / "1-1.ckt";
    std::vector<std::string> warnings;
    TraceEventReader reader(t, warnings, true);
    EXPECT_FALSE(reader.next().empty());
  }
}

}  // namespace
}  // namespace covkit::format
