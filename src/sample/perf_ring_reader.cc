#include "sample/perf_ring_reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "util/clock_ns.h"

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
  const uint64_t horizon = util::clock_ns(CLOCK_MONOTONIC) - kSettleNs;
  session_.read(pending_, warnings_);
  auto time_of = [](const format::PerfRecord& r) { return format::perf_record_time(r); };
  std::stable_sort(pending_.begin(), pending_.end(),
                   [&](const format::PerfRecord& a, const format::PerfRecord& b) { return time_of(a) < time_of(b); });
  const auto ready = all ? pending_.end()
                         : std::partition_point(pending_.begin(), pending_.end(),
                                                [&](const format::PerfRecord& r) { return time_of(r) <= horizon; });
  const uint64_t now = util::clock_ns(CLOCK_REALTIME);
  for (auto it = pending_.begin(); it != ready; ++it) builder_.add(*it, now);
  pending_.erase(pending_.begin(), ready);
  for (std::string& w : warnings_)
    if (warnings_total_++ < kMaxRingWarnings) rec_.warnings.push_back(std::move(w));
  warnings_.clear();
}

}  // namespace covkit::sample
