#include "trace/thread_merge.h"

#include <algorithm>
#include <span>

namespace covkit::trace {

namespace {

// Bytes read from each stream at a time: the merge keeps every stream open,
// so this (and the reader's block of events) is the memory per thread.
constexpr size_t kWindow = size_t(64) << 10;

enum class Phase : uint8_t { kStart, kEvents, kDone };

}  // namespace

struct ThreadMerge::Cursor {
  Cursor(const MergedThread& t, std::vector<std::string>& warnings)
      : thread(t),
        to_ns(t.process->clock()),
        reader(*t.thread, warnings, format::EventReadOptions{.window = kWindow, .lost_events = true}) {}

  // Counter -> ns, clamped so that a thread's times never go backwards.
  uint64_t ns(uint64_t counter) {
    last_ns = std::max(last_ns, to_ns(counter));
    return last_ns;
  }

  MergedThread thread;
  format::TraceClock to_ns;
  format::TraceEventReader reader;
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
  if (c.phase == Phase::kStart) {
    c.block = c.reader.next();
    c.initial = c.reader.summary().initial_stack;
    c.depth = c.initial.size();
    c.last_counter = t.start;
    c.phase = Phase::kEvents;
    e.kind = MergedEvent::Kind::kStart;
    e.ns = c.ns(t.start);
    e.counter = t.start;
    e.frames = &c.initial;
    return true;
  }
  if (c.phase == Phase::kDone) return false;
  if (c.pos == c.block.size()) {
    c.block = c.reader.next();
    c.pos = 0;
  }
  if (c.block.empty()) {
    c.phase = Phase::kDone;
    if (c.depth == 0) return false;
    // Frames still open end at the thread's last event (specials included),
    // or at the end of its process when that ended normally after it: as
    // in the profile and the timeline.
    const format::StreamSummary& tail = c.reader.summary();
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
  event = cursors_[heap_.front()]->current;
  return true;
}

}  // namespace covkit::trace
