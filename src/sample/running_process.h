#pragma once
// The executable mappings a running process already has when `sample
// record --pid` attaches through perf_event_open, as the MMAP2 records the
// kernel would have sent for them had the counters been there.
#include <sys/types.h>

#include <vector>

#include "format/perf_event_records.h"

namespace covkit::sample {

// Its executable mappings of /proc/PID/maps (files and the vdso; anything
// else the recording builder leaves out, as it does for MMAP2 records).
std::vector<format::PerfMmap> mappings_of(pid_t pid);

}  // namespace covkit::sample
