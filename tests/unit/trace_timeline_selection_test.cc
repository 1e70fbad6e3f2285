// Which calls a timeline keeps (trace/timeline_selection.h): against a full
// sort of every call, with many equal durations (the tie-break by order
// decides), offered in batches from several "threads" in shuffled order,
// and the radix sort by order against std::sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "trace/timeline_selection.h"

namespace trace_timeline_selection_test {

using covkit::trace::Candidates;
using covkit::trace::Selection;
using covkit::trace::SelectionLimits;
using covkit::trace::TimelineCall;

std::vector<TimelineCall> random_calls(size_t n, uint64_t durations, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<TimelineCall> calls(n);
  for (size_t i = 0; i < n; ++i) {
    TimelineCall& c = calls[i];
    c.begin = rng() % 1000000;
    c.end = c.begin + rng() % durations;
    // Unique orders spread over several threads' ranges and all eight bytes.
    c.order = (uint64_t(i % 5) << 40) | (uint64_t(i) * 2654435761u % (uint64_t(1) << 40));
    if (i % 7 == 0) c.order |= uint64_t(i) << 56;
    c.address = i;
  }
  return calls;
}

// What the selection must give: the calls at least min long, the best
// max_events of them by `better`, in order.
std::vector<TimelineCall> expected(std::vector<TimelineCall> calls, const SelectionLimits& limits) {
  std::erase_if(calls, [&](const TimelineCall& c) { return c.duration() < limits.min_duration_ns; });
  std::sort(calls.begin(), calls.end(), covkit::trace::better);
  if (limits.max_events != 0 && calls.size() > limits.max_events) calls.resize(size_t(limits.max_events));
  std::sort(calls.begin(), calls.end(), [](const TimelineCall& a, const TimelineCall& b) { return a.order < b.order; });
  return calls;
}

std::vector<uint64_t> addresses(const std::vector<TimelineCall>& calls) {
  std::vector<uint64_t> out;
  for (const TimelineCall& c : calls) out.push_back(c.address);
  return out;
}

TEST(TimelineSelection, KeepsTheBestWhateverTheOrderOfOffers) {
  for (uint64_t durations : {3u, 50u, 100000u}) {
    const std::vector<TimelineCall> calls = random_calls(30000, durations, durations);
    for (SelectionLimits limits : {SelectionLimits{0, 0}, SelectionLimits{0, 1}, SelectionLimits{0, 1000},
                                   SelectionLimits{1, 7000}, SelectionLimits{2, 29999}, SelectionLimits{0, 40000}}) {
      const std::vector<TimelineCall> want = expected(calls, limits);
      std::vector<TimelineCall> shuffled = calls;
      std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(limits.max_events));
      Selection selection(limits, calls.size());
      // Three offerers taking turns, each flushing when its batch is full.
      std::vector<Candidates> offerers;
      for (int k = 0; k < 3; ++k) offerers.emplace_back(selection);
      for (size_t i = 0; i < shuffled.size(); ++i) offerers[i % 3].offer(shuffled[i]);
      for (Candidates& c : offerers) c.flush();
      const std::vector<TimelineCall> got = selection.take();
      EXPECT_EQ(addresses(got), addresses(want)) << durations << " " << limits.max_events;
      EXPECT_EQ(selection.counts().calls, calls.size());
      const uint64_t too_short = uint64_t(std::count_if(
          calls.begin(), calls.end(), [&](const TimelineCall& c) { return c.duration() < limits.min_duration_ns; }));
      EXPECT_EQ(selection.counts().too_short, too_short);
      EXPECT_EQ(selection.counts().over_limit, calls.size() - too_short - want.size());
    }
  }
}

TEST(TimelineSelection, SortByOrderMatchesAComparisonSort) {
  for (size_t n : {0u, 1u, 2u, 255u, 256u, 257u, 100000u}) {
    std::vector<TimelineCall> calls = random_calls(n, 10, n);
    std::shuffle(calls.begin(), calls.end(), std::mt19937_64(n + 1));
    std::vector<TimelineCall> want = calls;
    std::sort(want.begin(), want.end(), [](const TimelineCall& a, const TimelineCall& b) { return a.order < b.order; });
    covkit::trace::sort_by_order(calls);
    EXPECT_EQ(addresses(calls), addresses(want)) << n;
  }
  // Keys that share every byte but one, and keys that differ only in the top byte.
  std::vector<TimelineCall> calls(512);
  for (size_t i = 0; i < calls.size(); ++i) {
    calls[i].order = i < 256 ? (uint64_t(0xabcdef) << 16 | uint64_t(255 - i) << 8) : uint64_t(511 - i) << 56 | 1;
    calls[i].address = i;
  }
  covkit::trace::sort_by_order(calls);
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_LT(calls[i - 1].order, calls[i].order) << i;
}

}  // namespace trace_timeline_selection_test
