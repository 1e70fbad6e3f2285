#pragma once
// `covkit sample record` in branch and pc modes, and in breakpoint mode
// inside the program (breakpoint_session.h serves the plan): prepares the recording
// directory, writes recording.json, runs the program with the sampling
// runtime preloaded, waits for it, and reads back what the runtime wrote.
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "format/sample_records.h"
#include "sample/sample_mode.h"
#include "trace/program_run.h"
#include "util/expected.h"

namespace covkit::sample {

// Without a PMU a branch sample costs ~155 single steps, measured at about
// 2.5 ms on this (shared) VM: 5-6% at 50 ms of thread CPU time between
// samples, so the default is 80 ms (about 3%, room for busier machines;
// docs/sample-format.md, Cost). A pc sample costs a few microseconds.
inline constexpr uint64_t kDefaultBranchPeriodNs = 80'000'000;
inline constexpr uint64_t kDefaultPcPeriodNs = 10'000'000;

struct RecordRequest {
  SampleMode mode = SampleMode::branch;  // branch or pc
  uint64_t period_ns = 0;                // 0: the mode's default
  uint32_t vector_length = 16;
  // perf_event_open's rings: data pages each (a power of two), 0: the default.
  uint32_t ring_pages = 0;
  std::string dir;
  std::string program;                   // resolved path of command[0]
  std::vector<std::string> command;      // as given
  std::vector<std::string> environment;  // covkit's own, NAME=VALUE
  std::string covkit_version;
  // Breakpoint mode only: attach to this running process instead of
  // starting `command`, for `attach_seconds` (< 0: until interrupted).
  pid_t attach_pid = 0;
  double attach_seconds = -1;
  std::function<void(size_t threads, size_t planted)> on_attached;  // once planted
  // Breakpoint mode: the int3s' SIGTRAP is taken inside the program by the
  // preloaded runtime (false: by covkit under ptrace; always for --pid).
  bool in_process = true;
  // Breakpoint mode inside the program: where the runtime asks for its
  // plan (set by record_breakpoint_session, read by record_samples).
  std::string plan_socket;
  // libcovkit-sample.so to preload; "" finds it next to covkit (tests name theirs).
  std::string runtime_library;
};

struct RecordOutcome {
  trace::ProgramEnd end;
  bool ended = true;  // false: an attached process still runs (end says nothing)
  std::string dir;       // absolute
  std::string moved_to;  // where an earlier recording went, or ""
  // What the runtime wrote, read back for its summary (SampleDetail::summary:
  // planted sites counted, not kept), or why it cannot be read.
  std::optional<format::SampleRecording> recording;
  std::string read_error;
  // false: an attached process ended meanwhile, but as no child of covkit's,
  // so `end` says nothing (--source perf --pid).
  bool end_known = true;
};

// Errors: the directory, the runtime, or the program that could not be
// started (`program_not_started`: covkit then exits 127, as a shell would).
struct RecordError : Error {
  bool program_not_started = false;
  RecordError(std::string m, bool not_started) : Error(std::move(m)), program_not_started(not_started) {}
};
Expected<RecordOutcome, RecordError> record_samples(const RecordRequest& request);

// Now, as recording.json states a recording's start ("2026-11-24T19:00:00Z").
std::string utc_now();

// "2 images, 3 threads, 40 samples (5.1 KiB of steps), 0 lost; recording in DIR"
std::string sample_summary_line(const format::SampleRecording& rec, const std::string& dir);

}  // namespace covkit::sample
