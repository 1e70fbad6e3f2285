#pragma once
// The records the kernel writes into a perf_event_open ring buffer (and
// perf record into perf.data, format/perf_data_file.h): samples (IP, TID,
// TIME, the user call chain, the branch stack), MMAP and MMAP2, COMM,
// FORK, EXIT, LOST and LOST_SAMPLES; everything else is skipped.
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

// What a counter's records hold: its attr's sample_type (PERF_SAMPLE_*
// bits: the sample's fields, in the kernel's order), read_format (for
// PERF_SAMPLE_READ) and whether its branch stack starts with hw_idx; with
// sample_id_all, every other record ends with the sample_id fields (TID,
// TIME, ID, STREAM_ID, CPU, IDENTIFIER, those of sample_type), where its
// time is read (0 without them). Fields covkit does not use are skipped;
// those after the branch stack are not read at all.
struct PerfSampleLayout {
  uint64_t sample_type = 0;
  uint64_t read_format = 0;
  bool branch_hw_index = false;
  bool sample_id_all = true;
};

// What covkit's own counters ask for: IP, TID and TIME, and the user call
// chain and the branch stack when asked, with sample_id_all.
PerfSampleLayout perf_ring_layout(bool callchain, bool branch_stack);

struct PerfSample {
  uint32_t pid = 0, tid = 0;
  uint64_t ip = 0, time = 0;
  uint64_t id = 0;  // the counter's (PERF_SAMPLE_IDENTIFIER or PERF_SAMPLE_ID), 0 without
  std::vector<uint64_t> callchain;   // as the kernel gives it: context markers, then IPs, innermost first
  std::vector<BranchPair> branches;  // as the kernel gives them: NEWEST first
};

struct PerfMmap {
  uint32_t pid = 0, tid = 0;
  uint64_t start = 0, length = 0, file_offset = 0;
  uint32_t major = 0, minor = 0;
  uint64_t inode = 0;
  std::string build_id;  // lower-case hex, when the kernel sent it instead of the device and inode
  uint32_t prot = 0, flags = 0;  // MMAP (not MMAP2): PROT_EXEC unless the kernel marked it data
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
