// Fuzzes the trace readers: the first byte picks the half (thread stream or
// process metadata) and, for a stream, a read window of 1 to 40 bytes; the
// rest is the file. Nothing may crash, hang or trip a sanitizer, a decoded
// stream must be perfectly nested, and read through the small window it must
// decode exactly as read whole. A stream with restart points is also read in
// parts (trace/split_profile.h), with and without call paths: when the parts
// are used, they count each function's calls and the deepest stack as the
// front to back decode does, and the call paths change no flat number.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "format/trace_meta_parser.h"
#include "format/trace_stream_decoder.h"
#include "format/trace_stream_records.h"
#include "trace/split_profile.h"

using namespace covkit::format;

namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_trace: %s\n", what);
  std::abort();
}

// The stream decoded with a window of `window` bytes (views read files a
// window at a time; what they decode must not depend on where windows end).
bool same_with_window(std::span<const uint8_t> bytes, const TraceThread& whole,
                      const std::vector<std::string>& whole_warnings, size_t window) {
  TraceThread thread;
  StreamHeader header;
  std::vector<std::string> warnings;
  decode_trace_stream(bytes, "fuzz.ckt", thread, header, warnings, window);
  return thread.events == whole.events && thread.initial_stack == whole.initial_stack && thread.lost == whole.lost &&
         thread.ended == whole.ended && thread.truncated == whole.truncated && thread.bytes == whole.bytes &&
         thread.last_time == whole.last_time && warnings == whole_warnings;
}

// The stream read in parts (on one thread: the fuzzer runs many inputs).
void parts(std::span<const uint8_t> bytes, const StreamHeader& header, const TraceThread& thread) {
  if (header.chunk == 0) return;
  StreamBytes source(bytes);
  std::vector<std::string> flat_warnings, paths_warnings;
  const TraceClock ns;
  auto flat = covkit::trace::split_profile(source, header, "fuzz.ckt", ns, std::nullopt, 1, flat_warnings, false);
  auto paths = covkit::trace::split_profile(source, header, "fuzz.ckt", ns, std::nullopt, 1, paths_warnings, true);
  if (flat.has_value() != paths.has_value()) fail("call paths change whether the parts are used");
  if (!flat) return;
  if (flat->max_depth != paths->max_depth || flat->deepest != paths->deepest || flat->order != paths->order ||
      flat->begin != paths->begin || flat->end != paths->end || flat->lost != paths->lost)
    fail("call paths change the flat profile");
  // Calls per id and the deepest stack, front to back.
  std::vector<uint64_t> calls(flat->functions.size(), 0);
  uint64_t depth = 0, deepest = 0;
  for (const TraceEvent& e : thread.events) {
    if (e.kind == TraceEvent::Kind::kEnter) {
      if (e.fn_id >= calls.size()) fail("the parts miss a function");
      ++calls[e.fn_id];
      deepest = std::max(deepest, ++depth);
    } else if (e.kind == TraceEvent::Kind::kExit) {
      --depth;
    }
  }
  for (size_t id = 0; id < calls.size(); ++id)
    if (calls[id] != flat->functions[id].calls || calls[id] != paths->functions[id].calls)
      fail("the parts count other calls");
  if (deepest != flat->max_depth) fail("the parts find another deepest stack");
  // Ids named by function, several ids per function (batches replayed again
  // when an id proves to share one): the same calls and stack; the call
  // paths name only those functions.
  const covkit::trace::SplitKeyOf key_of = [](uint64_t address, uint64_t) { return uint32_t(address % 5); };
  std::vector<std::string> keyed_warnings;
  for (bool call_paths : {false, true}) {
    auto keyed = covkit::trace::split_profile(source, header, "fuzz.ckt", ns, std::nullopt, 1, keyed_warnings,
                                              call_paths, key_of);
    if (!keyed) fail("naming ids by function keeps the parts from being used");
    if (keyed->max_depth != flat->max_depth || keyed->deepest != flat->deepest || keyed->order != flat->order)
      fail("naming ids by function changes the stack");
    for (size_t id = 0; id < calls.size(); ++id)
      if (calls[id] != keyed->functions[id].calls) fail("naming ids by function changes the calls");
    for (const covkit::trace::PathNode& n : keyed->paths.nodes)
      if (n.fn >= 5 && n.fn != covkit::trace::kThreadRoot && n.fn != covkit::trace::kDeeperCalls)
        fail("a call path names no function");
  }
  // Counters in ticks: parts whose counters all convert without the
  // clock's checks use TraceClock::near (a first pair at the stream's start
  // offers it to every part; one further on refuses it to the early ones).
  // The calls and the stack do not depend on the clock.
  for (uint64_t behind : {uint64_t(0), uint64_t(1000)}) {
    const TraceClock ticks(header.start + behind, 5000, 0.37);
    std::vector<std::string> tick_warnings;
    auto timed = covkit::trace::split_profile(source, header, "fuzz.ckt", ticks, std::nullopt, 1, tick_warnings, false);
    if (!timed) fail("a clock in ticks keeps the parts from being used");
    if (timed->max_depth != flat->max_depth || timed->deepest != flat->deepest || timed->order != flat->order)
      fail("a clock in ticks changes the stack");
    for (size_t id = 0; id < calls.size(); ++id)
      if (calls[id] != timed->functions[id].calls) fail("a clock in ticks changes the calls");
  }
}

void stream(std::span<const uint8_t> bytes, size_t window) {
  TraceThread thread;
  StreamHeader header;
  std::vector<std::string> warnings;
  if (decode_trace_stream(bytes, "fuzz.ckt", thread, header, warnings) != StreamStatus::kOk) return;
  if (!same_with_window(bytes, thread, warnings, window)) fail("a small read window decodes otherwise");
  // Nesting: never more exits than open frames (the initial stack counts as open).
  int64_t depth = int64_t(thread.initial_stack.size());
  for (const TraceEvent& e : thread.events) {
    if (e.kind == TraceEvent::Kind::kEnter) {
      ++depth;
    } else if (--depth < 0) {
      fail("an exit without an open frame");
    }
  }
  // The bulk loop (what the views and count_trace_stream use) decodes
  // what the event-at-a-time path above decoded.
  StreamBytes source(bytes);
  std::vector<std::string> bulk_warnings;
  StreamDecoder bulk(source, "fuzz.ckt", header.start, header.ended, bulk_warnings, window);
  std::vector<TraceEvent> events, block(1 + window % 97);
  for (size_t n; (n = bulk.next(std::span<TraceEvent>(block))) > 0;) events.insert(events.end(), block.begin(), block.begin() + n);
  if (events != thread.events || bulk_warnings != warnings || bulk.summary().bytes != thread.bytes ||
      bulk.summary().last_time != thread.last_time || bulk.summary().truncated != thread.truncated)
    fail("the bulk loop decodes otherwise");
  StreamTally counts;
  (void)count_trace_stream(bytes, counts);
  if (counts.events != thread.events.size() || counts.bytes != thread.bytes) fail("counting decodes otherwise");
  // The raw walk of `trace dump --raw`: records follow each other without a
  // gap, and on a stream the decoder read whole without a word, it finds
  // the same enters and exits.
  StreamRecordWalker walker(source, header.start, window);
  StreamRecord r;
  uint64_t at = kTraceHeaderSize, enters = 0, exits = 0;
  StreamRecordWalker::Step step;
  while ((step = walker.next(r)) == StreamRecordWalker::Step::kRecord) {
    if (r.offset != at || r.size == 0) fail("raw records do not follow each other");
    at = r.offset + r.size;
    enters += r.kind == StreamRecord::Kind::kEnter;
    exits += r.kind == StreamRecord::Kind::kExit;
  }
  if (step == StreamRecordWalker::Step::kEnd && warnings.empty() && !thread.truncated) {
    uint64_t dec_enters = 0;
    for (const TraceEvent& e : thread.events) dec_enters += e.kind == TraceEvent::Kind::kEnter;
    if (dec_enters != enters || thread.events.size() - dec_enters != exits) fail("the raw walk finds other events");
  }
  if (thread.initial_stack.empty()) parts(bytes, header, thread);
}

void meta(std::span<const uint8_t> bytes) {
  TraceProcess process;
  std::vector<std::pair<uint32_t, std::string>> names;
  std::vector<std::string> warnings;
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  parse_trace_meta(text, "fuzz.meta", process, names, warnings);
  for (const auto& m : process.modules)
    for (const auto& s : m.segments) (void)process.module_for(s.lo, m.seen);
  (void)process.to_ns(0);
  (void)process.to_ns(UINT64_MAX);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::span<const uint8_t> rest(data + 1, size - 1);
  if (data[0] & 1)
    meta(rest);
  else
    stream(rest, 1 + (data[0] >> 1) % 40);  // windows of 1 to 40 bytes
  return 0;
}
