#pragma once
// The records the kernel writes into a perf_event_open ring buffer, as
// `covkit sample record --source perf` asks for them: samples (IP, TID,
// TIME, and the user call chain and the branch stack when asked), MMAP2,
// COMM, FORK, EXIT, LOST and LOST_SAMPLES; everything else is skipped.
// The bytes come from the kernel, but a fuzzer and the tests hand in any:
// every field is bounds-checked against the record's own size, and a
// record that does not hold what its type says is an Error, never a read
// past it. Layout: linux/perf_event.h (struct perf_event_header and the
// comments on enum perf_event_type), read there, not copied.
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "format/sample_records.h"
#include "util/expected.h"

namespace covkit::format {

// What each sample holds besides IP, TID and TIME (always asked for, with
// sample_id_all, so that the other records end with pid, tid and time: the
// time is read from there, 0 when the record is too short to hold it).
struct PerfSampleLayout {
  bool callchain = false;     // PERF_SAMPLE_CALLCHAIN
  bool branch_stack = false;  // PERF_SAMPLE_BRANCH_STACK, without PERF_SAMPLE_BRANCH_HW_INDEX
};

struct PerfSample {
  uint32_t pid = 0, tid = 0;
  uint64_t ip = 0, time = 0;
  std::vector<uint64_t> callchain;   // as the kernel gives it: context markers, then IPs, innermost first
  std::vector<BranchPair> branches;  // as the kernel gives them: NEWEST first
};

struct PerfMmap {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, length = 0, file_offset = 0;
  uint32_t major = 0, minor = 0;
  uint64_t inode = 0;
  std::string build_id;  // lower-case hex, when the kernel sent it instead of the device and inode
  uint32_t prot = 0, flags = 0;
  std::string path;
  uint64_t time = 0;
};

struct PerfComm {
  uint32_t pid = 0, tid = 0;
  bool exec = false;  // PERF_RECORD_MISC_COMM_EXEC: the process image changed
  std::string name;
  uint64_t time = 0;
};

// FORK and EXIT: a thread (or, when pid == tid, a process) began or ended.
struct PerfTask {
  bool fork = false;
  uint32_t pid = 0, ppid = 0, tid = 0, ptid = 0;
  uint64_t time = 0;
};

struct PerfLost {
  uint64_t count = 0;  // records (LOST) or samples (LOST_SAMPLES) the kernel dropped
  uint64_t time = 0;
};

// std::monostate: a record of a type covkit does not use (THROTTLE, ...).
using PerfRecord = std::variant<std::monostate, PerfSample, PerfMmap, PerfComm, PerfTask, PerfLost>;

// One record, header included: `bytes` is exactly the header's size.
Expected<PerfRecord> parse_perf_record(std::span<const uint8_t> bytes, const PerfSampleLayout& layout);

// Records laid end to end (a ring buffer's data, unwrapped): each parsed
// record goes to `out`; an Error (with the offset of the record) for the
// first one that cannot be, or a header that overruns `bytes`.
Expected<void> parse_perf_records(std::span<const uint8_t> bytes, const PerfSampleLayout& layout,
                                  std::vector<PerfRecord>& out);

// When the record was written (the counters' clock, CLOCK_MONOTONIC here):
// the order of records from several rings. 0 for a skipped type.
uint64_t perf_record_time(const PerfRecord& record);

// The callchain's user frames after the sample's own IP: the return
// addresses of the active frames, innermost first (what the runtime's
// frame-pointer walk gives for Sample::stack).
std::vector<uint64_t> perf_callchain_returns(const PerfSample& sample);

}  // namespace covkit::format
