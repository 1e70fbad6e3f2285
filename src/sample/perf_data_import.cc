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

// Images no sample fell in go; the others are renumbered in order.
void drop_images_without_samples(format::SampleRecording& rec) {
  std::vector<bool> sampled(rec.images.size(), false);
  for (const format::Sample& s : rec.samples) sampled[s.image] = true;
  std::vector<uint32_t> new_id(rec.images.size(), 0);
  std::vector<format::SampleImage> kept;
  for (size_t i = 0; i < rec.images.size(); ++i) {
    if (!sampled[i]) continue;
    new_id[i] = uint32_t(kept.size());
    kept.push_back(std::move(rec.images[i]));
    kept.back().id = new_id[i];
  }
  rec.images = std::move(kept);
  for (format::Sample& s : rec.samples) s.image = new_id[s.image];
}

}  // namespace

Expected<format::SampleRecording> import_perf_data(std::span<const uint8_t> bytes, FileBuildId file_build_id) {
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
  auto build_id = [&table, &file_build_id](const std::string& path) {
    auto it = table.find(path);
    if (it != table.end()) return it->second;
    if (file_build_id) return file_build_id(path);
    auto elf = read_elf_module(path);
    return elf ? elf->build_id : std::string();
  };
  // No process was started by covkit: every image is found from its records.
  PerfRecordingBuilder builder(rec, build_id, -1, "");
  auto read = format::for_each_perf_data_record(*file, [&](const format::PerfRecord& r) { builder.add(r, 0); });
  if (!read) return read.error();
  builder.finish();
  drop_images_without_samples(rec);
  const bool branches = std::any_of(rec.samples.begin(), rec.samples.end(),
                                    [](const format::Sample& s) { return !s.branches.empty(); });
  rec.mode = branches ? "perf" : "pc";
  return rec;
}

}  // namespace covkit::sample
