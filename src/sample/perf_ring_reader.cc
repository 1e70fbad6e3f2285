#include "sample/perf_ring_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace covkit::sample {

namespace {

// How often the rings are read while the program runs, at the latest (a
// ring past a quarter full wakes covkit sooner).
constexpr int kReadEveryMs = 50;
// Ring warnings kept in the recording: the first few say what went wrong.
constexpr size_t kMaxRingWarnings = 5;

// Records stamped this close to a read may still be on their way into a
// ring: they wait for the next read.
constexpr uint64_t kSettleNs = 10'000'000;

}  // namespace

uint64_t realtime_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

uint64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}


PerfRingReader::PerfRingReader(PerfEventSession& session, PerfRecordingBuilder& builder, format::SampleRecording& rec)
    : session_(session), builder_(builder), rec_(rec), random_(std::random_device{}()) {}

void PerfRingReader::step() {
    session_.wait(kReadEveryMs);
    drain(false);
    session_.shuffle_period(random_);
  }

void PerfRingReader::finish() {
    drain(true);
    if (warnings_total_ > kMaxRingWarnings)
      rec_.warnings.push_back(fmt::format("{} more perf ring buffer warnings", warnings_total_ - kMaxRingWarnings));
  }

void PerfRingReader::drain(bool all) {
    const uint64_t horizon = monotonic_ns() - kSettleNs;
    session_.read(records_, warnings_);
    for (format::PerfRecord& r : records_) pending_.push_back(std::move(r));
    records_.clear();
    std::stable_sort(pending_.begin(), pending_.end(), [](const format::PerfRecord& a, const format::PerfRecord& b) {
      return format::perf_record_time(a) < format::perf_record_time(b);
    });
    size_t ready = 0;
    while (ready < pending_.size() && (all || format::perf_record_time(pending_[ready]) <= horizon)) ++ready;
    const uint64_t now = realtime_ns();
    for (size_t i = 0; i < ready; ++i) builder_.add(pending_[i], now);
    pending_.erase(pending_.begin(), pending_.begin() + ptrdiff_t(ready));
    for (std::string& w : warnings_)
      if (warnings_total_++ < kMaxRingWarnings) rec_.warnings.push_back(std::move(w));
    warnings_.clear();
  }

}  // namespace covkit::sample
