#include "sample/sample_recorder.h"

#include <fmt/format.h>

#include <ctime>
#include <set>
#include <utility>

#include "format/sample_recording_reader.h"
#include "format/sample_recording_writer.h"
#include "sample/sample_environment.h"
#include "sample/sample_recording_dir.h"
#include "trace/record_environment.h"
#include "util/printable.h"

namespace covkit::sample {

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

Expected<RecordOutcome, RecordError> record_samples(const RecordRequest& r) {
  const bool breakpoint = r.mode == SampleMode::breakpoint;
  if (breakpoint && r.plan_socket.empty())
    return RecordError("breakpoint mode inside the program needs covkit's plan server", false);
  auto runtime = r.runtime_library.empty() ? trace::find_runtime_library(kSampleRuntimeName)
                                           : Expected<std::string>(r.runtime_library);
  if (!runtime) return RecordError(runtime.error().message, false);
  auto dir = prepare_sample_dir(r.dir, joined(r.command));
  if (!dir) return RecordError(fmt::format("{}: {}", util::printable(r.dir), dir.error().message), false);

  format::SampleRecording meta;
  meta.mode = std::string(mode_name(r.mode));
  meta.period_ns = breakpoint ? 0
                   : r.period_ns ? r.period_ns
                                 : (r.mode == SampleMode::pc ? kDefaultPcPeriodNs : kDefaultBranchPeriodNs);
  meta.vector_length = r.mode == SampleMode::branch ? r.vector_length : 0;
  meta.command = r.command;
  meta.start_time = utc_now();
  meta.covkit_version = r.covkit_version;
  if (auto ok = format::write_recording_json(dir->path(), meta); !ok)
    return RecordError(fmt::format("{}: {}", util::printable(dir->path()), ok.error().message), false);

  SampleSettings settings{dir->path(), r.mode == SampleMode::branch, breakpoint, r.plan_socket, meta.period_ns,
                          r.mode == SampleMode::branch ? r.vector_length : uint32_t{16}, *runtime};
  auto end = trace::run_program(r.program, r.command, sampled_environment(r.environment, settings));
  if (!end) return RecordError(fmt::format("{}: cannot run: {}", util::printable(r.program), end.error().describe()), true);

  RecordOutcome out{*end, true, dir->path(), dir->moved_to(), std::nullopt, ""};
  auto rec = format::read_sample_recording(dir->path(), format::SampleDetail::summary);
  if (rec)
    out.recording = std::move(*rec);
  else
    out.read_error = rec.error().message;
  return out;
}

std::string sample_summary_line(const format::SampleRecording& rec, const std::string& dir) {
  std::set<std::pair<uint32_t, int32_t>> threads;
  uint64_t steps = 0;
  for (const format::Sample& s : rec.samples) {
    threads.insert({s.image, s.tid});
    steps += s.steps.size();
  }
  auto plural = [](uint64_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); };
  if (rec.mode == "breakpoint")
    return fmt::format("{}, {} of {} hit; recording in {}", plural(rec.images.size(), "image", "images"),
                       rec.hits.size(), plural(rec.planted.size() + rec.planted_not_kept, "breakpoint", "breakpoints"),
                       util::printable(dir));
  std::string line = fmt::format("{}, {}, {}", plural(rec.images.size(), "image", "images"),
                                 plural(threads.size(), "thread", "threads"),
                                 plural(rec.samples.size(), "sample", "samples"));
  uint64_t branches = 0;
  for (const format::Sample& s : rec.samples) branches += s.branches.size();
  // The emulation's steps, or a PMU's branch stacks (--source perf).
  if (rec.mode == "branch")
    line += steps || !branches ? fmt::format(" ({})", plural(steps, "step", "steps"))
                               : fmt::format(" ({})", plural(branches, "branch", "branches"));
  line += fmt::format(", {} lost; recording in {}", rec.lost, util::printable(dir));
  return line;
}

}  // namespace covkit::sample
