#pragma once
// Reads a trace directory written by libcovkit-trace (docs/trace-format.md):
// per process image its metadata (clock calibration, loaded modules, thread
// names) and per thread the header of its event stream. The events
// themselves are not read here: a trace may hold billions, so views pull
// them a block at a time (format/trace_event_reader.h) and keep what they
// need, never the events. Works on directories of running programs: it reads
// what has been written and drops a torn last event.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/expected.h"

namespace covkit::format {

struct TraceSegment {
  uint64_t lo = 0, hi = 0;  // absolute addresses [lo, hi) of an executable PT_LOAD
};

struct TraceModule {
  uint64_t base = 0;      // load bias (dlpi_addr)
  uint64_t seen = 0;      // counter value when the runtime first saw it
  std::string path;       // absolute; the main program's is the exe path
  std::vector<TraceSegment> segments;
  std::string build_id;   // lower-case hex of its NT_GNU_BUILD_ID as it was mapped; "" when not recorded
};

// 24 bytes: views read millions per second, a block at a time.
struct TraceEvent {
  // kLost only from a reader that asked for them (EventReadOptions::lost_events):
  // the runtime dropped `address` events here.
  enum class Kind : uint8_t { kEnter, kExit, kLost };
  Kind kind = Kind::kEnter;
  uint32_t fn_id = 0;    // the stream's id of the function (enter only; 0: unknown), dense from 1
  uint64_t time = 0;     // counter (tsc ticks or ns, see TraceProcess::to_ns)
  uint64_t address = 0;  // the function (enter only); kLost: how many events were dropped
  bool operator==(const TraceEvent&) const = default;
};

// What the runtime said about a whole stream in its header when the thread
// ended (or the stream stopped): counts without reading the events.
struct StreamCounts {
  uint64_t calls = 0, events = 0, lost = 0;
};

struct TraceThread {
  uint32_t tid = 0;
  std::string name;                    // from the metadata ("" if the thread never had one of its own)
  std::string file;                    // the .ckt path; "" for a thread built in memory (events below)
  uint64_t start = 0;                  // header start counter
  bool ended = false;                  // the thread finished normally (header flag; the end event too, once read)
  std::optional<StreamCounts> counts;  // from the header, when the runtime wrote them

  // A thread built in memory (tests, tools) carries its events and what
  // reading its stream would tell; for a stream file they are filled in by
  // decode_trace_stream, and views get them from a TraceEventReader.
  std::vector<uint64_t> initial_stack;  // frames open when the stream starts (fork), outermost first
  std::vector<TraceEvent> events;       // perfectly nested after initial_stack
  uint64_t lost = 0;                    // events the runtime reported dropped
  bool truncated = false;               // the stream ended inside an event (still running, or killed)
  uint64_t bytes = 0;                   // bytes of the stream in use: header and decoded events
  uint64_t last_time = 0;               // counter of the last event read, specials (end) included
};

// The counter -> ns conversion of one process, computed once: what
// TraceProcess::to_ns does, for callers that convert every event.
class TraceClock {
 public:
  TraceClock() = default;  // counters are ns already
  // ns = n0 + (counter - c0) * slope.
  TraceClock(uint64_t c0, uint64_t n0, double slope)
      : identity(false), c0(c0), n0(n0), slope(slope), n0_as_double_(double(n0)) {}

  // Double precision: exact to the ns for 2^53 ns (104 days) from the first
  // pair. Called for every event of a trace: the common case (a counter
  // within 2^62 of c0, a result within 2^62 ns) takes signed conversions,
  // which x86 does in one instruction, and gives what the general case does.
  // Always inlined: in a build of a whole folder at once GCC's unit growth
  // limit left it a call, a quarter of `trace report`'s profile.
  [[gnu::always_inline]] uint64_t operator()(uint64_t counter) const {
    if (identity) return counter;
    const bool ahead = counter >= c0;
    const uint64_t d = ahead ? counter - c0 : c0 - counter;
    if (d < kNear) [[likely]] {
      const double offset = double(int64_t(d)) * slope;
      const double ns = n0_as_double_ + (ahead ? offset : -offset);
      if (ns > 0 && ns < double(kNear)) [[likely]] return uint64_t(int64_t(ns));
    }
    return convert(counter);
  }

  // The same conversion for counters in [lo, hi] only, without the
  // checks: every counter of the range takes the common case (the
  // conversion never decreases, so its ends tell). A counter outside is
  // clamped into the range. nullopt when the range needs the checks.
  class Near {
   public:
    [[gnu::always_inline]] uint64_t operator()(uint64_t counter) const {
      counter = std::min(std::max(counter, lo_), hi_);
      return uint64_t(int64_t(n0_ + double(int64_t(counter - c0_)) * slope_));
    }

   private:
    friend class TraceClock;
    Near(uint64_t lo, uint64_t hi, uint64_t c0, double n0, double slope)
        : lo_(lo), hi_(hi), c0_(c0), n0_(n0), slope_(slope) {}
    uint64_t lo_, hi_, c0_;
    double n0_, slope_;
  };
  std::optional<Near> near(uint64_t lo, uint64_t hi) const {
    if (identity || lo > hi || lo < c0 || hi - c0 >= kNear || !(slope >= 0)) return std::nullopt;
    auto ns = [&](uint64_t counter) { return n0_as_double_ + double(int64_t(counter - c0)) * slope; };
    if (!(ns(lo) > 0) || !(ns(hi) < double(kNear))) return std::nullopt;
    return Near(lo, hi, c0, n0_as_double_, slope);
  }

  bool identity = true;
  uint64_t c0 = 0, n0 = 0;
  double slope = 1.0;  // ns per counter tick

 private:
  static constexpr uint64_t kNear = uint64_t(1) << 62;
  uint64_t convert(uint64_t counter) const;  // any counter
  double n0_as_double_ = 0;
};

struct TraceProcess {
  uint32_t pid = 0, ppid = 0;
  std::string image;  // the file stem: "<pid>", or "<pid>.<n>" for a later image of that pid (exec)
  std::string exe;
  bool tsc = false;  // counters are TSC ticks (else CLOCK_MONOTONIC ns)
  // Why the runtime chose that clock ("kernel", "cpu-flags", "forced"...:
  // docs/trace-format.md, "Clock") and the kernel's clocksource then; empty
  // in traces of runtimes before they said.
  std::string clock_reason, kernel_clocksource;
  std::vector<std::pair<uint64_t, uint64_t>> calib;  // (counter, mono ns), in file order
  std::vector<TraceModule> modules;
  std::vector<TraceThread> threads;  // sorted by tid
  std::optional<uint64_t> end;       // counter at normal process end
  std::vector<std::pair<uint64_t, uint32_t>> forks;  // (counter, child pid)
  // Library calls through a hooked PLT slot: the stub's address (the
  // function's identity in the streams) -> the function called and the name
  // the caller's relocation gives it (`plt` lines).
  struct LibraryCall {
    uint64_t target = 0;
    std::string name;
  };
  std::unordered_map<uint64_t, LibraryCall> library_calls;
  // A (counter, mono ns) pair taken by the reader at reading time, for a TSC
  // process with only one `calib` line (still running, or killed): the
  // second point of the slope (docs/trace-format.md, "Clock").
  std::optional<std::pair<uint64_t, uint64_t>> now_calib;

  // Counter -> CLOCK_MONOTONIC ns, by the first and last calibration pairs
  // (or the first and now_calib). Never decreasing in `counter`: pairs that
  // go backwards are not used, and times before 0 are clamped to 0.
  uint64_t to_ns(uint64_t counter) const;
  TraceClock clock() const;
  // The module whose segment holds `address` at time `when`, or nullptr.
  // Among modules at the same place the latest seen at or before `when`
  // wins; when all were seen after `when`, the earliest.
  const TraceModule* module_for(uint64_t address, uint64_t when) const;
};

struct TraceSet {
  std::string dir;
  std::vector<TraceProcess> processes;  // sorted by pid, then image
  std::vector<std::string> warnings;    // one line each, naming the file
  size_t unread_files = 0;              // of those warnings, files not read at all (damaged, not regular)
};

// An Error when `dir` is not a readable trace directory; damaged files
// inside it become warnings.
Expected<TraceSet> read_trace_dir(const std::string& dir);

// The name a view shows for a thread: its own name, else "thread TID".
std::string thread_display_name(const TraceThread& thread);

}  // namespace covkit::format
