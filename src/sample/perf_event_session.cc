#include "sample/perf_event_session.h"

#include <fmt/format.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace covkit::sample {

namespace {

// Data pages per ring (a power of two): 256 KiB with 4 KiB pages, a few
// hundred branch-stack samples; fewer when the locked-memory limit says so.
constexpr size_t kRingPages = 64;
constexpr size_t kMinRingPages = 2;

int perf_event_open(perf_event_attr& attr, pid_t pid, int cpu) {
  return int(::syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

// The cpu-clock counter's period in ns; branch stacks take theirs from
// their facility's event (perf_branch_facility.h).
uint64_t cpu_clock_period(const PerfEventConfig& c) { return c.period_ns ? c.period_ns : 1; }

// "0-3,6" from /sys/devices/system/cpu/online; every CPU sysconf knows
// when that cannot be read.
std::vector<int> online_cpus() {
  std::vector<int> cpus;
  std::ifstream in("/sys/devices/system/cpu/online");
  std::string text;
  if (in && std::getline(in, text)) {
    std::stringstream ranges(text);
    std::string range;
    while (std::getline(ranges, range, ',')) {
      int lo = 0, hi = 0;
      if (std::sscanf(range.c_str(), "%d-%d", &lo, &hi) == 2 && lo >= 0 && hi >= lo && hi < 65536)
        for (int c = lo; c <= hi; ++c) cpus.push_back(c);
      else if (std::sscanf(range.c_str(), "%d", &lo) == 1 && lo >= 0 && lo < 65536)
        cpus.push_back(lo);
    }
  }
  if (cpus.empty()) {
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < std::max(n, 1L); ++c) cpus.push_back(int(c));
  }
  return cpus;
}

std::string paranoid_level() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  std::string level;
  if (in) in >> level;
  return level.empty() ? "unknown" : level;
}

// One line on why perf_event_open refused `config`'s counter with `err`.
PerfRefusal refusal(int err, const PerfEventConfig& config) {
  const bool branch = config.kind == PerfEventKind::branch_stack;
  const char* what = branch ? "branch stacks" : "cpu-clock samples";
  const RefusalKind kind = classify_refusal(err, branch, config.facility);
  std::string m;
  if (kind == RefusalKind::not_permitted) {
    m = fmt::format("not permitted to record {} (perf_event_open: {}; kernel.perf_event_paranoid is {}: 2 or "
                    "less, or CAP_PERFMON, is needed)",
                    what, std::strerror(err), paranoid_level());
  } else if (err == ENOSYS) {
    m = fmt::format("perf_event_open is not available for {} (a kernel without perf events, or a seccomp "
                    "filter: {})",
                    what, std::strerror(err));
  } else if (kind == RefusalKind::absent) {
    m = config.facility == BranchFacility::none
            ? fmt::format("no branch stack here: no PMU lists one in /sys/bus/event_source/devices, and "
                          "perf_event_open says {} (a virtual machine without a PMU?)",
                          std::strerror(err))
            : fmt::format("the {} branch stack is in use by someone else (perf_event_open: {})",
                          facility_name(config.facility), std::strerror(err));
  } else {
    m = fmt::format("perf_event_open refused covkit's counter for {} on {}: {} (covkit's attributes do not fit "
                    "this machine: a defect to report)",
                    what, branch ? facility_name(config.facility) : "the cpu-clock software event",
                    std::strerror(err));
  }
  PerfRefusal r(kind, std::move(m));
  r.errno_value = err;
  return r;
}

// Copies n bytes at `at` of a ring's data (size a power of two), wrapping.
void copy_wrapped(const uint8_t* data, size_t size, uint64_t at, uint8_t* out, size_t n) {
  const size_t from = size_t(at & (size - 1));
  const size_t first = std::min(n, size - from);
  std::memcpy(out, data + from, first);
  std::memcpy(out + first, data, n - first);
}

}  // namespace

perf_event_attr perf_event_attributes(const PerfEventConfig& c, size_t ring_bytes) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  // The records' layout, which the ring reader parses with the same call.
  a.sample_type = format::perf_ring_layout(c.callchain, c.kind == PerfEventKind::branch_stack).sample_type;
  if (c.kind == PerfEventKind::branch_stack) {
    const BranchEvent e = branch_event_for(c.facility, c.period_ns, c.branch_depth);
    a.type = e.type;
    a.config = e.config;
    a.freq = e.freq;
    a.sample_period = e.period_or_freq;  // sample_freq shares its place
    a.branch_sample_type = e.branch_sample_type;
  } else {
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = cpu_clock_period(c);
  }
  a.disabled = !c.enabled;
  a.enable_on_exec = !c.enabled;
  a.inherit = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.exclude_callchain_kernel = 1;
  a.mmap = 1;
  a.mmap2 = 1;
  a.comm = 1;
  a.comm_exec = 1;
  a.task = 1;
  a.sample_id_all = 1;
  a.watermark = 1;
  a.wakeup_watermark = uint32_t(std::max<size_t>(1, ring_bytes / 4));
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  return a;
}

PerfEventConfig perf_config_for(PerfEventKind kind) {
  PerfEventConfig config;
  config.kind = kind;
  if (kind == PerfEventKind::branch_stack) {
    const PmuFacts facts = read_pmu_facts();
    config.facility = branch_facility(facts);
    config.branch_depth = facts.branch_depth;
  }
  return config;
}

Expected<void, PerfRefusal> probe_perf(PerfEventKind kind) {
  const PerfEventConfig config = perf_config_for(kind);
  perf_event_attr a = perf_event_attributes(config, 4096);
  a.enable_on_exec = 0;
  a.inherit = 0;
  const int fd = perf_event_open(a, 0, -1);
  if (fd < 0) return refusal(errno, config);
  ::close(fd);
  return {};
}

uint64_t read_ring_records(std::span<const uint8_t> data, uint64_t head, uint64_t tail,
                           const format::PerfSampleLayout& layout, std::vector<uint8_t>& scratch,
                           std::vector<format::PerfRecord>& out, std::vector<std::string>& warnings) {
  const size_t size = data.size();
  while (tail < head) {
    perf_event_header h;
    if (head - tail < sizeof h) break;
    copy_wrapped(data.data(), size, tail, reinterpret_cast<uint8_t*>(&h), sizeof h);
    if (h.size < sizeof h || h.size > head - tail || h.size > size) {
      warnings.push_back(fmt::format("perf ring buffer: a record of {} bytes where {} are left; the rest of the ring "
                                     "was skipped",
                                     h.size, head - tail));
      return head;
    }
    scratch.resize(h.size);
    copy_wrapped(data.data(), size, tail, scratch.data(), h.size);
    auto r = format::parse_perf_record(scratch, layout);
    if (r)
      out.push_back(std::move(*r));
    else
      warnings.push_back(fmt::format("perf ring buffer: {} (record type {})", r.error().message, h.type));
    tail += h.size;
  }
  return tail;
}

Expected<PerfEventSession> PerfEventSession::open(const std::vector<pid_t>& tasks, const PerfEventConfig& config) {
  const format::PerfSampleLayout layout =
      format::perf_ring_layout(config.callchain, config.kind == PerfEventKind::branch_stack);
  // Every counter opened is in rings_ at once: on an error, the session's
  // destructor closes what was opened.
  PerfEventSession session(config, layout);
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  session.page_ = page;
  size_t pages = config.ring_pages ? config.ring_pages : kRingPages;
  for (int cpu : online_cpus()) {
    Ring* ring = nullptr;  // this CPU's, once its first counter is open
    for (pid_t task : tasks) {
      perf_event_attr a = perf_event_attributes(config, pages * page);
      const int fd = perf_event_open(a, task, cpu);
      if (fd < 0) {
        if (errno == ESRCH) continue;  // the thread ended meanwhile
        if (errno == ENODEV || errno == ENXIO) break;  // a CPU that went offline
        return static_cast<Error>(refusal(errno, config));  // with its errno: sample record --pid words it
      }
      if (ring) {
        // One ring per CPU, whatever the number of threads.
        ring->more.push_back(fd);
        if (::ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring->fd) != 0)
          return Error(fmt::format("perf_event_open: cannot share the ring of CPU {}: {}", cpu, std::strerror(errno)));
        continue;
      }
      ring = &session.rings_.emplace_back();
      ring->fd = fd;
      // The locked-memory limit (perf_event_mlock_kb per user) may not hold
      // a full ring per CPU: smaller rings, read as often, lose nothing more.
      for (;;) {
        ring->mapped = (pages + 1) * page;
        void* base = ::mmap(nullptr, ring->mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (base != MAP_FAILED) {
          ring->base = base;
          break;
        }
        if (errno != EPERM || pages <= kMinRingPages)
          return Error(fmt::format("cannot map the ring buffer of perf_event_open's counter on CPU {}: {}", cpu,
                                   std::strerror(errno)));
        pages /= 2;
      }
    }
  }
  if (session.rings_.empty()) return Error("perf_event_open: no task left to count, or no online CPU to count on");
  return session;
}

PerfEventSession::PerfEventSession(PerfEventSession&& other) noexcept
    : config_(other.config_), layout_(other.layout_), page_(other.page_), rings_(std::move(other.rings_)) {
  other.rings_.clear();
}

PerfEventSession::~PerfEventSession() {
  for (Ring& r : rings_) {
    for (int fd : r.more) ::close(fd);  // before the ring they write to
    if (r.base) ::munmap(r.base, r.mapped);
    if (r.fd >= 0) ::close(r.fd);
  }
}

void PerfEventSession::wait(int timeout_ms) const {
  std::vector<pollfd> fds;
  for (const Ring& r : rings_) fds.push_back({r.fd, POLLIN, 0});
  ::poll(fds.data(), fds.size(), timeout_ms);  // EINTR and POLLHUP: read anyway
}

void PerfEventSession::read(std::vector<format::PerfRecord>& out, std::vector<std::string>& warnings) {
  for (Ring& r : rings_) read_ring(r, out, warnings);
}

void PerfEventSession::read_ring(Ring& ring, std::vector<format::PerfRecord>& out,
                                 std::vector<std::string>& warnings) {
  auto* meta = static_cast<perf_event_mmap_page*>(ring.base);
  std::span<const uint8_t> data(static_cast<const uint8_t*>(ring.base) + page_, ring.mapped - page_);
  const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  const uint64_t tail = read_ring_records(data, head, meta->data_tail, layout_, record_, out, warnings);
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void PerfEventSession::shuffle_period(std::mt19937_64& random) {
  // The period (or frequency) the counters were opened with.
  const uint64_t mean = perf_event_attributes(config_, 0).sample_period;
  std::uniform_int_distribution<uint64_t> spread(mean / 2, mean + mean / 2);
  for (const Ring& r : rings_) {
    uint64_t value = std::max<uint64_t>(1, spread(random));
    ::ioctl(r.fd, PERF_EVENT_IOC_PERIOD, &value);  // a refusal keeps the mean: nothing to report
    for (int fd : r.more) ::ioctl(fd, PERF_EVENT_IOC_PERIOD, &value);
  }
}

}  // namespace covkit::sample
