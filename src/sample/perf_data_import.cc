#include "sample/perf_data_import.h"

#include <fmt/format.h>
#include <linux/perf_event.h>

#include <algorithm>

#include "format/perf_data_file.h"
#include "sample/elf_module_file.h"
#include "sample/perf_recording_builder.h"

namespace covkit::sample {

namespace {

// The mean period in ns where the event counts time (cpu-clock,
// task-clock) or samples at a frequency; 0 when it counts something else.
uint64_t period_ns_of(const format::PerfDataEvent& e) {
  if (e.freq) return e.period_or_freq ? 1'000'000'000 / e.period_or_freq : 0;
  const bool clock = e.type == PERF_TYPE_SOFTWARE &&
                     (e.config == PERF_COUNT_SW_CPU_CLOCK || e.config == PERF_COUNT_SW_TASK_CLOCK);
  return clock ? e.period_or_freq : 0;
}

}  // namespace

Expected<format::SampleRecording> import_perf_data(std::span<const uint8_t> bytes, const FileBuildId& build_id_of_file) {
  auto file = format::read_perf_data(bytes);
  if (!file) return file.error();
  for (const format::PerfDataEvent& e : file->events)
    if ((e.layout.sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_TID)) != (PERF_SAMPLE_IP | PERF_SAMPLE_TID))
      return Error(fmt::format("perf.data's samples lack the IP or the thread (sample_type {:#x}): record with perf "
                               "record's defaults",
                               e.layout.sample_type));
  format::SampleRecording rec;
  rec.period_ns = period_ns_of(file->events.front());
  const auto& table = file->build_ids;
  auto build_id = [&table, &build_id_of_file](const format::PerfMmap& m) {
    const std::string& path = m.path;
    auto it = table.find(path);
    return it != table.end() ? it->second : build_id_of_file(path);
  };
  // No process was started by covkit: every image is found from its records.
  PerfRecordingBuilder builder(rec, build_id, -1, "");
  auto read = format::for_each_perf_data_record(*file, [&](const format::PerfRecord& r) { builder.add(r, 0); });
  if (!read) return read.error();
  builder.finish(PerfRecordingBuilder::Images::sampled);
  const bool branches = std::any_of(rec.samples.begin(), rec.samples.end(),
                                    [](const format::Sample& s) { return !s.branches.empty(); });
  rec.mode = branches ? "perf" : "pc";
  return rec;
}

}  // namespace covkit::sample
