#pragma once
// perf.data, as `perf record` writes it to a file: a header, the events'
// attrs (each with the ids of its counters), the data section (the ring
// records of format/perf_event_records.h, perf's own records between them)
// and, after the data, the feature sections, of which the build-ids of the
// files perf saw are read. Layout: tools/perf/Documentation/
// perf.data-file-format.txt in the Linux sources, read there, not copied.
// Little-endian files only; the pipe form (`perf record -o -`) and
// compressed records (`perf record -z`) are refused by name. The bytes may
// be anything: every offset and size is checked against the file.
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "format/perf_event_records.h"
#include "util/expected.h"

namespace covkit::format {

struct PerfDataEvent {
  uint32_t type = 0;               // PERF_TYPE_*
  uint64_t config = 0;             // PERF_COUNT_*
  bool freq = false;               // period_or_freq is a frequency (Hz)
  uint64_t period_or_freq = 0;
  PerfSampleLayout layout;         // what its records hold
  std::vector<uint64_t> ids;       // its counters' ids (one per CPU or thread)
};

struct PerfDataFile {
  std::vector<PerfDataEvent> events;
  std::span<const uint8_t> data;                    // the data section's records
  uint64_t data_offset = 0;                         // where they are in the file, for messages
  std::map<std::string, std::string> build_ids;     // file path -> lower-case hex (HEADER_BUILD_ID)
};

// The 8 bytes every perf.data starts with.
bool is_perf_data(std::span<const uint8_t> file);

// The header, the attrs and the build-ids; `file` must outlive the result.
Expected<PerfDataFile> read_perf_data(std::span<const uint8_t> file);

// The data section's records in time order, as perf orders them: records
// come a round at a time (perf's FINISHED_ROUND marks the ends), rounds
// overlap by at most one, so a record is handed on once a later round has
// ended. Records of perf's own types (>= 64) are skipped, an AUXTRACE
// record's trace with it. Errors carry the record's file offset.
Expected<void> for_each_perf_data_record(const PerfDataFile& file,
                                         const std::function<void(const PerfRecord&)>& handle);

}  // namespace covkit::format
