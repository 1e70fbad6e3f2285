#pragma once
// `covkit sample record --source perf`: the program runs as it is (nothing
// preloaded: static and setuid-free programs alike), and the kernel samples
// it through perf_event_open (perf_event_session.h); covkit reads the rings
// while it runs and writes the recording itself, in the runtime's format
// (perf_recording_builder.h), so every analysis reads it alike.
#include "sample/sample_recorder.h"

namespace covkit::sample {

// Hardware branch stacks sampled at this period by default: perf record's
// 4000 samples a second. A sample costs the PMU's interrupt and a copy of
// its branch stack, microseconds where the emulation pays ~2.5 ms a vector
// (not measured: this VM has no PMU).
inline constexpr uint64_t kDefaultPerfBranchPeriodNs = 250'000;

// The mean period a recording through perf samples at: the request's, or
// its mode's default.
uint64_t perf_period_ns(const RecordRequest& request);

// request.mode: branch (the PMU's branch stack) or pc (cpu-clock).
Expected<RecordOutcome, RecordError> record_with_perf(const RecordRequest& request);

}  // namespace covkit::sample
