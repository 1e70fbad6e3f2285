#pragma once
// A stream's parts (format::StreamParts) replayed on every core and used in
// order (util::run_ordered), as the flat profile and the timeline read
// them: a window of four parts per core is in flight, so memory holds a few
// parts' results whatever the length of the stream.
#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "format/trace_stream_ranges.h"
#include "util/ordered_jobs.h"

namespace covkit::trace {

// `run(i, range, result)` replays part i (on any thread) into a result
// that starts as Result{}; `use(i, range, result)` takes it on the
// caller's thread, in order, and returns false to stop (then so does this).
// After it, parts.tail() is where the stream's tail starts.
template <class Result>
bool run_stream_parts(format::StreamParts& parts, unsigned threads,
                      const std::function<void(size_t, const format::StreamPart&, Result&)>& run,
                      const std::function<bool(size_t, const format::StreamPart&, Result&)>& use) {
  struct Slot {
    format::StreamPart range;
    Result result;
  };
  const size_t window = size_t(std::max(threads, 1u)) * 4;
  std::vector<Slot> slots(window);
  util::OrderedJobs jobs;
  jobs.prepare = [&](size_t i) {
    const std::optional<format::StreamPart> next = parts.next();
    if (next) slots[i % window].range = *next;
    return next.has_value();
  };
  jobs.run = [&](size_t i) {
    Slot& slot = slots[i % window];
    slot.result = Result{};
    run(i, slot.range, slot.result);
  };
  jobs.use = [&](size_t i) {
    Slot& slot = slots[i % window];
    const bool go = use(i, slot.range, slot.result);
    slot.result = Result{};  // its memory goes now, not when the slot is reused
    return go;
  };
  return util::run_ordered(jobs, threads, window);
}

}  // namespace covkit::trace
