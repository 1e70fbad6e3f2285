#include "trace/timeline_selection.h"

#include <algorithm>
#include <array>
#include <functional>
#include <utility>

namespace covkit::trace {

Selection::Selection(const SelectionLimits& limits, uint64_t expected) : limits_(limits) {
  const uint64_t room = limits.max_events == 0 ? expected : std::min<uint64_t>(expected, capacity());
  kept_.reserve(size_t(std::min<uint64_t>(room, uint64_t(1) << 26)));
}

void Selection::add(uint64_t calls, uint64_t too_short, std::vector<TimelineCall>& batch, TimelineCall& bar,
                    bool& have) {
  std::lock_guard<std::mutex> hold(lock_);
  counts_.calls += calls;
  counts_.too_short += too_short;
  keep(batch);
  batch.clear();
  bar = bar_;
  have = have_bar_;
}

void Selection::absorb(Selection& other, const std::function<void(TimelineCall&)>& fix) {
  if (other.limits_.max_events != 0 && other.kept_.size() > other.limits_.max_events) other.keep_best();
  for (TimelineCall& c : other.kept_) fix(c);
  std::vector<TimelineCall> calls = std::move(other.kept_);
  other.kept_.clear();
  std::lock_guard<std::mutex> hold(lock_);
  counts_.calls += other.counts_.calls;
  counts_.too_short += other.counts_.too_short;
  other.counts_ = {};
  if (kept_.empty() && !have_bar_) {  // the first: its calls and bar as they are
    kept_ = std::move(calls);
    bar_ = other.bar_;
    have_bar_ = other.have_bar_;
    return;
  }
  keep(calls);
}

void Selection::keep(std::span<const TimelineCall> calls) {
  const bool limited = limits_.max_events != 0;
  for (const TimelineCall& c : calls) {
    if (limited && have_bar_ && !better(c, bar_)) continue;
    kept_.push_back(c);
    if (limited && kept_.size() >= capacity()) keep_best();
  }
}

std::vector<TimelineCall> Selection::take() {
  if (limits_.max_events != 0 && kept_.size() > limits_.max_events) keep_best();
  counts_.over_limit = counts_.calls - counts_.too_short - kept_.size();
  sort_by_order(kept_);
  return std::move(kept_);
}

// The best max_events calls (nth_element: linear; `better` inlined).
void Selection::keep_best() {
  auto last = kept_.begin() + ptrdiff_t(limits_.max_events - 1);
  std::nth_element(kept_.begin(), last, kept_.end(),
                   [](const TimelineCall& a, const TimelineCall& b) { return better(a, b); });
  bar_ = *last;
  have_bar_ = true;
  kept_.resize(size_t(limits_.max_events));
}

Candidates::Candidates(Selection& to)
    : to_(to), min_(to.limits().min_duration_ns), limited_(to.limits().max_events != 0) {
  batch_.reserve(kBatch);
}

void Candidates::flush() {
  to_.add(calls_, too_short_, batch_, bar_, have_bar_);
  calls_ = too_short_ = 0;
}

void sort_by_order(std::vector<TimelineCall>& calls) {
  constexpr unsigned kBytes = 8;
  std::array<std::array<size_t, 256>, kBytes> counts{};
  for (const TimelineCall& c : calls)
    for (unsigned b = 0; b < kBytes; ++b) ++counts[b][(c.order >> (8 * b)) & 0xff];
  std::vector<TimelineCall> other;
  for (unsigned b = 0; b < kBytes; ++b) {
    std::array<size_t, 256>& count = counts[b];
    // A byte that all keys share leaves the order as it is.
    if (std::any_of(count.begin(), count.end(), [&](size_t k) { return k == calls.size(); })) continue;
    size_t at = 0;
    for (size_t& k : count) at += std::exchange(k, at);  // counts become starts
    other.resize(calls.size());
    for (const TimelineCall& c : calls) other[count[(c.order >> (8 * b)) & 0xff]++] = c;
    calls.swap(other);
  }
}

}  // namespace covkit::trace
