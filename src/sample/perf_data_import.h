#pragma once
// A perf.data file (format/perf_data_file.h) imported as a SampleRecording,
// through the same builder as covkit's own perf_event_open recordings
// (sample/perf_recording_builder.h): images from COMM/FORK/MMAP2, samples
// with their IP, user call chain and branch stack. Unlike `perf script`
// text, perf.data names every mapping with its load address, so PIE
// programs and shared libraries need no --binary. Mode "perf" when the
// samples carry branch stacks (perf record -b), else "pc" (perf record -e
// cpu-clock, or cycles, without -b).
#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "format/sample_records.h"
#include "sample/elf_module_file.h"
#include "util/expected.h"

namespace covkit::sample {

// The build-id of a file as it is now ("" when it has none or cannot be read).
using FileBuildId = std::function<std::string(const std::string& path)>;

// Build-ids come from the file's build-id table, else from
// `build_id_of_file` (the mapped file read now; a fuzzer reads none).
// Processes with no sample are left out (a system-wide perf record lists
// every process on the machine).
Expected<format::SampleRecording> import_perf_data(std::span<const uint8_t> file,
                                                   const FileBuildId& build_id_of_file = file_build_id);

}  // namespace covkit::sample
