#pragma once
// What a running process already has when `sample record --pid` attaches
// through perf_event_open, read from /proc: its threads, its executable
// mappings (as the MMAP2 records the kernel would have sent for them, had
// the counters been there) and its parent.
#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "format/perf_event_records.h"

namespace covkit::sample {

// The thread ids of /proc/PID/task, sorted (empty when the process is gone).
std::vector<pid_t> threads_of(pid_t pid);

// Its executable mappings of /proc/PID/maps (files and the vdso).
std::vector<format::PerfMmap> mappings_of(pid_t pid);

// Its parent's pid (0 when unknown).
int32_t parent_of(pid_t pid);

}  // namespace covkit::sample
