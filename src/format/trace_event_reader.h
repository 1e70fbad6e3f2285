#pragma once
// A thread's events for a view, a block at a time, from its stream file (or
// from the events of a thread built in memory): what the views use instead
// of holding a trace's events, which may be billions.
//
//   TraceEventReader r(thread, warnings);
//   auto block = r.next();                     // the first block, then
//   open(r.summary().initial_stack);           // frames open at the start
//   for (; !block.empty(); block = r.next())
//     for (const TraceEvent& e : block) ...
//   r.summary().last_time ...                  // after the last block
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/trace_event_pipe.h"
#include "format/trace_reader.h"
#include "format/trace_stream_decoder.h"

namespace covkit::format {

struct EventReadOptions {
  // The stream is decoded on a thread of its own, ahead of the caller (a
  // core to spare); the events, summary and warnings are the same.
  bool background = false;
  // Bytes read from the file at a time: a view that reads many streams at
  // once (trace replay merges them) takes less, so that memory stays small.
  size_t window = kStreamWindow;
  // Where the runtime dropped events, as kLost events (not in background).
  bool lost_events = false;
};

class TraceEventReader {
 public:
  // Problems met while reading (a damaged or unreadable file) go to
  // `warnings`, one line each naming the file.
  TraceEventReader(const TraceThread& thread, std::vector<std::string>& warnings, const EventReadOptions& options);
  TraceEventReader(const TraceThread& thread, std::vector<std::string>& warnings, bool background = false)
      : TraceEventReader(thread, warnings, EventReadOptions{.background = background}) {}
  ~TraceEventReader();

  // The next events; empty at the end. Valid until the next call.
  std::span<const TraceEvent> next();
  // What the stream says besides its events: initial_stack once next() was
  // called, the rest once next() returned an empty block.
  const StreamSummary& summary() const { return summary_; }

 private:
  const TraceThread& thread_;
  std::vector<std::string>& warnings_;
  std::optional<StreamBytes> bytes_;
  std::optional<StreamDecoder> decoder_;
  std::unique_ptr<EventPipe> pipe_;  // instead of decoder_, in the background
  std::vector<TraceEvent> block_;
  StreamSummary summary_;
  bool memory_done_ = false;
  bool pipe_done_ = false;
};

}  // namespace covkit::format
