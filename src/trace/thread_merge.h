#pragma once
// The events of several thread streams merged into one sequence in time
// order (all processes share CLOCK_MONOTONIC), as `uftrace replay` shows
// them: what `covkit trace replay` walks. Each stream is read a block at a
// time through a small window, so memory grows with the number of threads
// (and the depth the caller keeps), never with the number of events.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/trace_event_reader.h"
#include "format/trace_reader.h"

namespace covkit::trace {

struct MergedEvent {
  enum class Kind : uint8_t {
    kStart,   // the thread's stream begins; frames = the frames open then (fork), outermost first
    kEnter,   // address, counter
    kExit,
    kLost,    // count events were dropped here
    kFinish   // the stream ended with `open` frames still open (a killed or running program)
  };
  Kind kind = Kind::kEnter;
  size_t thread = 0;     // index into ThreadMerge::threads()
  uint64_t ns = 0;       // CLOCK_MONOTONIC ns, never decreasing within a thread
  uint64_t address = 0;  // kEnter
  uint64_t counter = 0;  // kEnter: the raw counter (for the symbol lookup)
  uint64_t count = 0;    // kLost: events dropped; kFinish: frames still open
  const std::vector<uint64_t>* frames = nullptr;  // kStart: valid until the next call
};

struct MergedThread {
  const format::TraceProcess* process = nullptr;
  const format::TraceThread* thread = nullptr;
};

class ThreadMerge {
 public:
  // `threads` in trace order (ties in time go to the earlier one). Problems
  // met while reading go to `warnings`, one line each naming the file.
  ThreadMerge(std::vector<MergedThread> threads, std::vector<std::string>& warnings);
  ~ThreadMerge();
  ThreadMerge(const ThreadMerge&) = delete;
  ThreadMerge& operator=(const ThreadMerge&) = delete;

  // The next event of all threads in time order; false at the end.
  bool next(MergedEvent& event);
  const std::vector<MergedThread>& threads() const { return threads_; }

 private:
  struct Cursor;
  bool advance(size_t i);  // loads thread i's next event into its cursor
  void push(size_t i);
  void pop_top();
  bool later(size_t a, size_t b) const;  // heap order: a's event after b's

  std::vector<MergedThread> threads_;
  std::vector<std::string>& warnings_;
  std::vector<std::unique_ptr<Cursor>> cursors_;
  std::vector<size_t> heap_;  // threads with an event, by (ns, index)
  bool started_ = false;
};

}  // namespace covkit::trace
