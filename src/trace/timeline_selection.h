#pragma once
// Which calls a timeline writes: those that pass --min-duration, and of them at
// most --max-events, the longest (ties: the earlier in the output). Threads
// replayed in parallel offer their calls through a Candidates each; which
// calls are kept does not depend on the order they come in.
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <vector>

namespace covkit::trace {

// One call that may be written, in ns since the trace's start. `order` is
// its place in the output: threads in trace order, calls in call order
// (preorder), so a parent comes before a child that starts with it. Orders
// are unique.
struct TimelineCall {
  uint64_t begin = 0, end = 0;
  uint64_t address = 0, when = 0;  // for the symbol lookup
  uint64_t order = 0;
  uint64_t duration() const { return end - begin; }
};

// Which call is written first when there are too many: the longer, and of
// equal ones the earlier in the output (so callers before callees). A
// strict total order, orders being unique.
inline bool better(const TimelineCall& a, const TimelineCall& b) {
  return a.duration() != b.duration() ? a.duration() > b.duration() : a.order < b.order;
}

struct SelectionLimits {
  uint64_t min_duration_ns = 0;  // shorter calls are counted, not kept
  uint64_t max_events = 0;       // 0: no limit
};

struct SelectionCounts {
  uint64_t calls = 0, too_short = 0, over_limit = 0;
};

// The calls that pass the minimum duration, at most max_events of them, the
// best kept. Candidates collect in a buffer of 1.5 times the limit; when it
// is full, the best `limit` are kept and the worst of them becomes the bar
// a new call must clear: linear time, where a heap paid a logarithm per call.
class Selection {
 public:
  // `expected`: the calls the stream headers announce (0: unknown), so that
  // the buffer is allocated once.
  Selection(const SelectionLimits& limits, uint64_t expected);

  // Takes a batch under a lock: `calls` calls were offered, `too_short` of
  // them too short, `batch` holds the others that cleared the bar as the
  // offerer knew it (emptied). Returns the bar now (`have` false: none yet).
  void add(uint64_t calls, uint64_t too_short, std::vector<TimelineCall>& batch, TimelineCall& bar, bool& have);

  // Takes over what `other` kept and counted (a stream selected on its
  // own), each call passed through `fix` first; `other` is left empty.
  void absorb(Selection& other, const std::function<void(TimelineCall&)>& fix);

  // The kept calls in output order (by `order`), once every batch is in.
  std::vector<TimelineCall> take();

  const SelectionLimits& limits() const { return limits_; }
  const SelectionCounts& counts() const { return counts_; }

 private:
  uint64_t capacity() const { return limits_.max_events + limits_.max_events / 2 + 16; }
  void keep(std::span<const TimelineCall> calls);  // those that clear the bar (under the lock)
  void keep_best();

  const SelectionLimits limits_;
  SelectionCounts counts_;
  std::mutex lock_;
  std::vector<TimelineCall> kept_;
  TimelineCall bar_;
  bool have_bar_ = false;
};

// One thread's side of a Selection: counts and filters its calls against
// the bar it last saw (which only rises, so this drops nothing the
// Selection would keep) and hands the rest over in batches.
class Candidates {
 public:
  explicit Candidates(Selection& to);

  // Inline: called per call of a trace (an out-of-line call was a tenth
  // of the timeline's time).
  [[gnu::always_inline]] void offer(const TimelineCall& c) {
    ++calls_;
    if (c.duration() < min_) {
      ++too_short_;
      return;
    }
    if (limited_ && have_bar_ && !better(c, bar_)) return;
    batch_.push_back(c);
    if (batch_.size() == kBatch) [[unlikely]] flush();
  }

  // After the last offer (not in a destructor: it allocates, and may throw).
  void flush();

 private:
  static constexpr size_t kBatch = 4096;
  Selection& to_;
  const uint64_t min_;
  const bool limited_;
  std::vector<TimelineCall> batch_;
  uint64_t calls_ = 0, too_short_ = 0;
  TimelineCall bar_;
  bool have_bar_ = false;
};

// Sorts calls by `order` (unique keys): a radix sort, a byte at a time,
// skipping the bytes all keys share (the orders of one thread's million
// calls differ in three or four), a little faster than a comparison sort.
void sort_by_order(std::vector<TimelineCall>& calls);

}  // namespace covkit::trace
