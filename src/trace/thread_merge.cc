#include "trace/thread_merge.h"

#include <algorithm>
#include <optional>
#include <span>

namespace covkit::trace {

namespace {

// Bytes read from each stream at a time: this (and the reader's block of
// events) is the memory per thread whose stream is open.
constexpr size_t kWindow = size_t(64) << 10;

enum class Phase : uint8_t { kStart, kEvents, kDone };

}  // namespace

// A stream is opened when the merge reaches its start and closed at its
// end: the files open at once are those of the threads alive at once, not
// all of a trace's (a program that ran 400 short threads one after the
// other met the limit of open files).
struct ThreadMerge::Cursor {
  Cursor(const MergedThread& t, std::vector<std::string>& warnings)
      : thread(t), to_ns(t.process->clock()), warnings(warnings) {}

  void open() {
    reader.emplace(*thread.thread, warnings, format::EventReadOptions{.window = kWindow, .lost_events = true});
    block = reader->next();
    initial = reader->summary().initial_stack;
    depth = initial.size();
  }

  // Counter -> ns, clamped so that a thread's times never go backwards.
  uint64_t ns(uint64_t counter) {
    last_ns = std::max(last_ns, to_ns(counter));
    return last_ns;
  }

  MergedThread thread;
  format::TraceClock to_ns;
  std::vector<std::string>& warnings;
  std::optional<format::TraceEventReader> reader;  // from the start event handed out to the end
  std::span<const format::TraceEvent> block;
  size_t pos = 0;
  Phase phase = Phase::kStart;
  uint64_t depth = 0, last_ns = 0, last_counter = 0;
  std::vector<uint64_t> initial;
  MergedEvent current;
};

ThreadMerge::ThreadMerge(std::vector<MergedThread> threads, std::vector<std::string>& warnings)
    : threads_(std::move(threads)), warnings_(warnings) {}

ThreadMerge::~ThreadMerge() = default;

bool ThreadMerge::advance(size_t i) {
  Cursor& c = *cursors_[i];
  const format::TraceThread& t = *c.thread.thread;
  MergedEvent& e = c.current;
  e = MergedEvent{};
  e.thread = i;
  if (c.phase == Phase::kStart) {  // its time is known unopened; next() opens it to hand it out
    c.last_counter = t.start;
    c.phase = Phase::kEvents;
    e.kind = MergedEvent::Kind::kStart;
    e.ns = c.ns(t.start);
    e.counter = t.start;
    return true;
  }
  if (c.phase == Phase::kDone) return false;
  if (c.pos == c.block.size()) {
    c.block = c.reader->next();
    c.pos = 0;
  }
  if (c.block.empty()) {
    c.phase = Phase::kDone;
    // Frames still open end at the thread's last event (specials included),
    // or at the end of its process when that ended normally after it: as
    // in the profile and the timeline.
    const format::StreamSummary tail = c.reader->summary();
    c.reader.reset();  // closes the stream
    if (c.depth == 0) return false;
    uint64_t end = std::max({t.start, tail.last_time, c.last_counter});
    const format::TraceProcess& p = *c.thread.process;
    if (p.end && !tail.ended && *p.end > end) end = *p.end;
    e.kind = MergedEvent::Kind::kFinish;
    e.ns = c.ns(end);
    e.count = c.depth;
    return true;
  }
  const format::TraceEvent& ev = c.block[c.pos++];
  c.last_counter = ev.time;
  e.ns = c.ns(ev.time);
  switch (ev.kind) {
    case format::TraceEvent::Kind::kEnter:
      e.kind = MergedEvent::Kind::kEnter;
      e.address = ev.address;
      e.counter = ev.time;
      ++c.depth;
      break;
    case format::TraceEvent::Kind::kExit:
      e.kind = MergedEvent::Kind::kExit;
      if (c.depth > 0) --c.depth;
      break;
    case format::TraceEvent::Kind::kLost:
      e.kind = MergedEvent::Kind::kLost;
      e.count = ev.address;
      break;
  }
  return true;
}

bool ThreadMerge::later(size_t a, size_t b) const {
  const MergedEvent &x = cursors_[a]->current, &y = cursors_[b]->current;
  return x.ns != y.ns ? x.ns > y.ns : a > b;
}

void ThreadMerge::push(size_t i) {
  heap_.push_back(i);
  std::push_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return later(a, b); });
}

void ThreadMerge::pop_top() {
  std::pop_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return later(a, b); });
  heap_.pop_back();
}

bool ThreadMerge::next(MergedEvent& event) {
  if (!started_) {
    started_ = true;
    cursors_.reserve(threads_.size());
    for (size_t i = 0; i < threads_.size(); ++i) {
      cursors_.push_back(std::make_unique<Cursor>(threads_[i], warnings_));
      if (advance(i)) push(i);
    }
  } else if (!heap_.empty()) {
    // The event handed out last time is replaced now (its frames stayed valid).
    const size_t i = heap_.front();
    pop_top();
    if (advance(i)) push(i);
  }
  if (heap_.empty()) return false;
  Cursor& c = *cursors_[heap_.front()];
  if (c.current.kind == MergedEvent::Kind::kStart) {
    c.open();
    c.current.frames = &c.initial;
  }
  event = c.current;
  return true;
}

}  // namespace covkit::trace
