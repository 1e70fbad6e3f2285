// One thread stream's timeline read in parallel parts (trace/timeline_parts.h)
// against the same stream replayed front to back: the same JSON, byte for
// byte, and the same counts, for random call trees cut into chunks of every
// size, calls open at the end (closed at the stream's or the process's end),
// ticks converted to ns, limits that keep a few calls or all; and the
// streams that must be read front to back (no restart points, an id given
// two addresses, damage) are, with the same result.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "format/trace_reader.h"
#include "trace/timeline_parts.h"
#include "trace/timeline_selection.h"
#include "trace/timeline_writer.h"
#include "util/sanitizer.h"
#include "trace_stream_writer.h"

namespace covkit::trace {
namespace trace_timeline_parts_test {

using namespace covkit::test_streams;

// Names by address ("f1000"), no ELF files.
class Names {
 public:
  SymbolLookup lookup() {
    return [this](const format::TraceProcess&, uint64_t address, uint64_t) -> const SymbolInfo& {
      SymbolInfo& s = names_[address];
      if (s.name.empty()) s.name = fmt::format("f{:x}", address);
      return s;
    };
  }

 private:
  std::map<uint64_t, SymbolInfo> names_;
};

struct Written {
  std::string json;
  TimelineStats stats;
};

Written timeline(const format::TraceSet& set, unsigned threads, const TimelineOptions& base) {
  Names names;
  TimelineOptions o = base;
  o.threads = threads;
  Written w;
  w.json = write_timeline(set, names.lookup(), o, &w.stats);
  return w;
}

// The stream read in parts on two cores and front to back on one: the
// same file and counts. `parts`: whether the parts could be used.
void check(const std::vector<uint8_t>& bytes, bool parts, bool tsc = false, std::optional<uint64_t> process_end = {}) {
  TempFile file(bytes);
  format::TraceSet set = trace_of(file.path, 1000, tsc);
  set.processes[0].end = process_end;
  {
    Selection selection({}, 0);
    std::vector<std::string> warnings;
    const TimelineStream stream{&set.processes[0], &set.processes[0].threads[0], 0, 0};
    EXPECT_EQ(timeline_parts(stream, 2, selection, warnings), parts);
    if (!parts) {
      EXPECT_EQ(selection.counts().calls, 0u) << "a stream read front to back was offered in part";
    }
  }
  for (uint64_t max_events : {0u, 1u, 7u, 300u}) {
    for (uint64_t min_ns : {0u, 20u}) {
      SCOPED_TRACE(fmt::format("--max-events {} --min-duration {}ns", max_events, min_ns));
      TimelineOptions o;
      o.max_events = max_events;
      o.min_duration_ns = min_ns;
      const Written in_order = timeline(set, 1, o);
      const Written in_parts = timeline(set, 2, o);
      EXPECT_EQ(in_parts.json, in_order.json);
      EXPECT_EQ(std::tie(in_parts.stats.calls, in_parts.stats.written, in_parts.stats.too_short,
                         in_parts.stats.over_limit),
                std::tie(in_order.stats.calls, in_order.stats.written, in_order.stats.too_short,
                         in_order.stats.over_limit));
      EXPECT_EQ(in_parts.stats.warnings, in_order.stats.warnings);
      EXPECT_GT(in_order.stats.calls, 0u);
    }
  }
}

constexpr unsigned kSeeds = COVKIT_ASAN ? 3 : 8;

TEST(TimelineParts, RandomCallTreesMatchTheReplayInOrder) {
  for (unsigned seed = 0; seed < kSeeds; ++seed)
    for (uint32_t chunk : {48u, 61u, 200u, 1024u}) {
      SCOPED_TRACE(fmt::format("seed {} chunk {}", seed, chunk));
      check(random_stream(seed, chunk, 3000, seed % 2 == 0).b, true);
    }
}

TEST(TimelineParts, TicksConvertedToNanoseconds) {
  for (unsigned seed = 20; seed < 20 + kSeeds / 2; ++seed) {
    SCOPED_TRACE(seed);
    check(random_stream(seed, 97, 3000, seed % 2 == 0).b, true, true);
  }
}

// A stream that did not end (killed, or its thread outlived it): the frames
// still open close at the process's end, later than the stream's last event.
TEST(TimelineParts, OpenFramesCloseAtTheProcessEnd) {
  StreamWriter w = random_stream(5, 64, 2000, false);
  check(w.b, true, false, w.last + 123456);
}

TEST(TimelineParts, VersionOneStreamsReadInOrder) { check(random_stream(3, 64, 2000, true, true).b, false); }

// An id that names two functions in two parts: read in order, where the
// second define wins from there on.
TEST(TimelineParts, OneIdTwoAddressesReadsInOrder) {
  StreamWriter w(1000, 48);
  uint64_t now = 1000;
  for (int i = 0; i < 40; ++i) {
    w.enter(1, 0x1000, now += 7);
    w.exit(now += 5);
  }
  w.address[1] = 0;  // the writer defines id 1 again, at another address
  for (int i = 0; i < 40; ++i) {
    w.enter(1, 0x2000, now += 7);
    w.exit(now += 11);
  }
  w.end(now += 1);
  check(w.b, false);
}

// Damage in a part (a lead byte of kind 0): the front to back read stops
// there with a warning; so does the timeline, whichever way it is asked.
TEST(TimelineParts, DamageInAPartReadsInOrder) {
  StreamWriter w = random_stream(7, 64, 2000, true);
  w.b[w.b.size() / 2] = 0x00;
  w.b[w.b.size() / 2 + 1] = 0x08;
  check(w.b, false);
}

}  // namespace trace_timeline_parts_test
}  // namespace covkit::trace
