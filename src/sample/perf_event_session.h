#pragma once
// The kernel's side of `covkit sample record --source perf`: one
// perf_event_open counter per CPU on a process (and, inherited, on the
// threads and processes it starts), enabled when it execs, each with a ring
// buffer that covkit reads while the program runs.
//
//   branch: CPU cycles sampled at a frequency (the kernel adjusts the
//           period), each sample with the PMU's branch stack of user-space
//           branches (Intel LBR, AMD BRS/LbrExtV2, ARM BRBE): needs a PMU
//           with one, which virtual machines rarely pass through;
//   pc:     the cpu-clock software event at a period of CPU time: IP and
//           call chain only, but it works wherever perf_event_open does.
//
// Both sample the user call chain (the kernel's frame-pointer walk) and
// ask for the records that name the process images: MMAP2 (executable file
// mappings, of PIE programs and shared libraries at their load addresses),
// COMM with exec, FORK and EXIT. Permission: perf_event_paranoid <= 2 for a
// process of one's own (user space only, as here), or CAP_PERFMON.
#include <sys/types.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "format/perf_event_records.h"
#include "sample/perf_branch_facility.h"
#include "util/expected.h"

namespace covkit::sample {

enum class PerfEventKind { branch_stack, cpu_clock };

struct PerfEventConfig {
  PerfEventKind kind = PerfEventKind::cpu_clock;
  uint64_t period_ns = 10'000'000;  // mean time between samples
  bool callchain = true;
  // Counting from now on (attached to running threads), not from the exec.
  bool enabled = false;
  // The branch stack the machine has (branch_stack only): its driver's
  // event and filter (perf_branch_facility.h).
  BranchFacility facility = BranchFacility::none;
  int branch_depth = 0;
  // Data pages per ring (a power of two); 0: covkit's default.
  size_t ring_pages = 0;
};

// The counter's attributes, as perf_event_open gets them, for rings of
// `ring_bytes`.
perf_event_attr perf_event_attributes(const PerfEventConfig& config, size_t ring_bytes);

// Why perf_event_open refused: the message (one line) and whether that is
// a fact about this machine (absent, not permitted) or a failure.
struct PerfRefusal : Error {
  RefusalKind kind = RefusalKind::failed;
  PerfRefusal(RefusalKind k, std::string m) : Error(std::move(m)), kind(k) {}
};

// Whether this machine lets covkit sample `kind`: a counter opened on
// covkit itself, never enabled, with the attributes a recording would use
// (the facility read from sysfs and /proc/cpuinfo). The refusal says why
// not (no PMU, a PMU without a branch stack, permissions, a seccomp
// filter, or attributes the kernel finds invalid), in one line.
Expected<void, PerfRefusal> probe_perf(PerfEventKind kind);
// The config a recording of `kind` uses on this machine.
PerfEventConfig perf_config_for(PerfEventKind kind);

class PerfEventSession {
 public:
  // Counters on each of `tasks` (a process stopped before its exec, or the
  // threads of a running one), one per CPU and task, disabled until the
  // exec unless config.enabled; the counters of one CPU share its ring. A
  // task that has ended meanwhile is left out; none left is an Error.
  static Expected<PerfEventSession> open(const std::vector<pid_t>& tasks, const PerfEventConfig& config);
  PerfEventSession(PerfEventSession&& other) noexcept;
  PerfEventSession& operator=(PerfEventSession&&) = delete;
  ~PerfEventSession();

  // Waits up to `timeout_ms` for a ring to fill past its watermark.
  void wait(int timeout_ms) const;
  // Every record written since the last read, ring by ring. A record that
  // cannot be parsed is a warning (and the rest of its ring is skipped).
  // Records lost to a full ring come as the kernel's LOST records.
  void read(std::vector<format::PerfRecord>& out, std::vector<std::string>& warnings);
  // A new random period (or frequency) around the mean, for every counter
  // and its inherited copies: samples do not fall in step with the
  // program's loops.
  void shuffle_period(std::mt19937_64& random);
  const format::PerfSampleLayout& layout() const { return layout_; }

 private:
  struct Ring {
    int fd = -1;
    void* base = nullptr;
    size_t mapped = 0;
    std::vector<int> more;  // counters of other tasks on the same CPU, writing here
  };
  PerfEventSession(PerfEventConfig config, format::PerfSampleLayout layout)
      : config_(config), layout_(layout) {}
  void read_ring(Ring& ring, std::vector<format::PerfRecord>& out, std::vector<std::string>& warnings);

  PerfEventConfig config_;
  format::PerfSampleLayout layout_;
  size_t page_ = 4096;
  std::vector<Ring> rings_;
  std::vector<uint8_t> record_;  // one record, unwrapped
};

// The records between `tail` and `head` of a ring's data area (`data`, a
// power of two in size, as the kernel writes it: a record may run across
// its end), appended to `out`; returns the new tail. A record that cannot
// be parsed is a warning; a header that makes no sense ends the read at
// `head` (the rest of the ring is lost, and said so).
uint64_t read_ring_records(std::span<const uint8_t> data, uint64_t head, uint64_t tail,
                           const format::PerfSampleLayout& layout, std::vector<uint8_t>& scratch,
                           std::vector<format::PerfRecord>& out, std::vector<std::string>& warnings);

}  // namespace covkit::sample
