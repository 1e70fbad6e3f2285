#pragma once
// A thread stream decoded on a thread of its own, a few blocks ahead of the
// reader: for a trace of one thread, decoding and replaying then run on two
// cores instead of one after the other on one. Memory stays bounded: a ring
// of kSlots blocks of kEvents events (1.5 MiB).
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "format/trace_reader.h"
#include "format/trace_stream_decoder.h"

namespace covkit::format {

class EventPipe {
 public:
  // Starts decoding `bytes` (which must outlive the pipe) at once.
  EventPipe(const StreamBytes& bytes, const TraceThread& thread);
  ~EventPipe();  // stops the decoding thread if the reader stopped early
  EventPipe(const EventPipe&) = delete;
  EventPipe& operator=(const EventPipe&) = delete;

  // The next block; empty at the end. Valid until the next call. Rethrows
  // what the decoding thread threw (an allocation failure).
  std::span<const TraceEvent> next();
  // Frames open at the start: once next() was called.
  const std::vector<uint64_t>& initial_stack() const { return initial_stack_; }
  // Once next() returned an empty block: the stream's summary, and the
  // decoder's warnings (kept here so that only one thread writes each vector).
  const StreamSummary& summary() const { return summary_; }
  std::vector<std::string>& warnings() { return warnings_; }

 private:
  static constexpr size_t kSlots = 4;
  static constexpr size_t kEvents = 16384;  // per block: a hand-over per ~0.1 ms of work

  void decode(const StreamBytes& bytes, const TraceThread& thread);

  std::vector<TraceEvent> slots_[kSlots];
  size_t counts_[kSlots] = {};
  size_t head_ = 0, tail_ = 0;  // blocks taken by the reader, blocks filled; tail_ - head_ <= kSlots
  bool holding_ = false;        // the reader has block head_ (released by the next call)
  bool finished_ = false, stop_ = false, stack_known_ = false;
  std::exception_ptr failure_;
  std::mutex lock_;
  std::condition_variable changed_;
  std::vector<uint64_t> initial_stack_;
  StreamSummary summary_;
  std::vector<std::string> warnings_;
  std::thread worker_;  // last: started once everything above exists
};

}  // namespace covkit::format
