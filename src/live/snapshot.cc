#include "live/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "format/gcda_writer.h"
#include "format/gcov_tags.h"
#include "format/gcov_version.h"
#include "live/access_check.h"
#include "live/memory_cache.h"
#include "live/proc_files.h"
#include "live/process_maps.h"
#include "live/process_modules.h"
#include "live/process_stop.h"
#include "live/remote_memory.h"
#include "model/data_merge.h"
#include "util/printable.h"

namespace covkit::live {

namespace {

constexpr size_t kMaxTopnPairs = 64;  // libgcov tracks at most 32 values

SnapshotError gone() {
  Error e("the process exited during the dump; nothing was written");
  e.errno_value = ESRCH;
  return {std::move(e), SnapshotFailure::kExited};
}

SnapshotError no_coverage(std::string message) { return {Error(std::move(message)), SnapshotFailure::kNoCoverage}; }

SnapshotError executed_other() {
  return no_coverage("the process executed another program during the dump; nothing was written");
}

// The records of every module with coverage data, found before any stop.
struct Discovery {
  std::vector<Mapping> maps;
  std::vector<Module> modules;
  std::vector<ModuleSnapshot> found;
  bool complete = true;  // false: to be found in the stop (see take_snapshot)
};

// How often a discovery while the program runs is tried before its error
// stands (without a stop; with one, the last try is in the stop).
constexpr int kRunningDiscoveries = 3;

Expected<Discovery> discover(pid_t at, const RemoteMemory& remote, const SnapshotOptions& options) {
  Discovery d;
  auto maps = read_maps(at);
  if (!maps) return maps.error();
  d.maps = std::move(*maps);
  // The records are read in blocks (thousands of small reads otherwise).
  const CachedMemory memory(remote, d.maps);
  // The maps may be readable where the memory is not (root without
  // CAP_SYS_PTRACE and another user's process): that is a refusal, to be
  // said as one, not "no coverage data" after every read failed.
  for (const Mapping& m : d.maps) {
    if (!m.readable) continue;
    char byte;
    if (auto r = memory.read(m.start, &byte, 1); !r && is_refusal(r.error())) return r.error();
    break;
  }
  d.modules = find_modules(d.maps, memory);
  for (const ModuleRoot& r : find_roots(at, d.modules, memory)) {
    const Module& m = d.modules[r.module];
    auto records = decode_module(memory, m.bounds, r.address);
    if (!records) {
      Error e(fmt::format("{}: {}", m.path, records.error().message));
      e.errno_value = records.error().errno_value;  // ESRCH: the process is exiting
      return e;
    }
    if (records->objects.empty()) continue;  // constructors not run yet
    ModuleSnapshot ms;
    ms.path = m.path;
    ms.source = r.source;
    ms.root = records->root;
    ms.layout = records->layout;
    for (ObjectRecord& o : records->objects) {
      // Decided now, while the program runs: the choice may read files.
      bool selected = !options.reset_only || options.reset_only(o.filename);
      ms.objects.push_back({std::move(o), selected, {}});
    }
    d.found.push_back(std::move(ms));
  }
  return d;
}

// Whether the process is exiting. Its exit detaches the memory before
// /proc shows a zombie, and a killed process's main thread may be a zombie
// before the others end (as after pthread_exit, when the others run on):
// the thread read through having ended, or its maps or memory gone, says so.
bool exiting(pid_t pid, pid_t at, const RemoteMemory& memory) {
  if (thread_exited(pid, at) || !process_running(pid)) return true;
  auto maps = read_maps(at);
  if (!maps) return process_gone(maps.error()) || maps.error().errno_value == ENOENT;  // not: EACCES
  if (maps->empty()) return true;
  for (const Mapping& m : *maps) {
    if (!m.readable) continue;
    char byte;
    auto r = memory.read(m.start, &byte, 1);
    if (r) return false;
    if (process_gone(r.error())) return true;
  }
  return thread_exited(pid, at) || !process_running(pid);
}

// An error met on the way: the process's exit, or what it says.
SnapshotError exit_or(pid_t pid, pid_t at, const RemoteMemory& memory, const Error& e) {
  return process_gone(e) || exiting(pid, at, memory) ? gone() : SnapshotError(e);
}

bool same_maps(const std::vector<Mapping>& a, const std::vector<Mapping>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].start != b[i].start || a[i].end != b[i].end || a[i].inode != b[i].inode) return false;
  return true;
}

// Whether the lists are still what discovery saw: each root and each
// object's link, re-read in one go.
Expected<bool> lists_unchanged(const RemoteMemory& memory, std::vector<ModuleSnapshot>& found) {
  std::vector<RemotePiece> pieces;
  std::vector<uint64_t> words;
  size_t n = 0;
  for (const ModuleSnapshot& m : found) n += 2 + m.objects.size();
  words.resize(n);
  size_t k = 0;
  for (const ModuleSnapshot& m : found) {
    pieces.push_back({m.root.address, &words[k++], 8});
    pieces.push_back({m.root.address + 8, &words[k++], 8});
    for (const ObjectSnapshot& o : m.objects) pieces.push_back({o.record.address + 8, &words[k++], 8});
  }
  if (auto r = memory.read_pieces(pieces); !r) return r.error();
  k = 0;
  for (ModuleSnapshot& m : found) {
    if (words[k++] != m.root.list) return false;
    if (uint32_t(words[k]) != m.root.flags) return false;
    m.root.marker = uint32_t(words[k++] >> 32);  // only covkit writes it
    for (size_t i = 0; i < m.objects.size(); ++i) {
      uint64_t want = i + 1 < m.objects.size() ? m.objects[i + 1].record.address : 0;
      if (words[k++] != want) return false;
    }
  }
  return true;
}

// Every counter array, read with as few system calls as possible: arrays
// are gathered into spans (libgcov's counters sit side by side in .bss).
struct Span {
  uint64_t start = 0, end = 0;
  std::vector<int64_t> words;
};

Expected<std::vector<Span>> read_counter_spans(const RemoteMemory& memory, const std::vector<ModuleSnapshot>& found) {
  std::vector<std::pair<uint64_t, uint64_t>> arrays;
  for (const ModuleSnapshot& m : found)
    for (const ObjectSnapshot& o : m.objects)
      for (const FunctionRecord& f : o.record.functions)
        for (const CounterArray& c : f.counters)
          if (c.num) arrays.emplace_back(c.values, c.values + uint64_t(c.num) * 8);
  std::sort(arrays.begin(), arrays.end());
  std::vector<Span> spans;
  for (auto [s, e] : arrays) {
    if (!spans.empty() && s <= spans.back().end + 256) {
      spans.back().end = std::max(spans.back().end, e);
      continue;
    }
    spans.push_back({s, e, {}});
  }
  std::vector<RemotePiece> pieces;
  for (Span& sp : spans) {
    sp.words.resize((sp.end - sp.start) / 8);
    pieces.push_back({sp.start, sp.words.data(), sp.words.size() * 8});
  }
  if (auto r = memory.read_pieces(pieces); !r) return r.error();
  return spans;
}

const int64_t* values_at(const std::vector<Span>& spans, uint64_t address) {
  auto it = std::upper_bound(spans.begin(), spans.end(), address,
                             [](uint64_t a, const Span& s) { return a < s.start; });
  --it;
  return it->words.data() + (address - it->start) / 8;
}

// A top-N counter's list, on disk: value/count pairs after total and length.
// The nodes live wherever libgcov allocated them (its pools or the heap);
// each read must succeed and the list must end within bounds.
Expected<void> append_topn(const RemoteMemory& memory, const int64_t* triple, std::vector<int64_t>& out) {
  std::vector<int64_t> pairs;
  uint64_t node = uint64_t(triple[2]);
  while (node != 0) {
    if (pairs.size() / 2 >= kMaxTopnPairs) return Error(fmt::format("top-N list at 0x{:x} does not end", node));
    int64_t kv[3];
    if (node % 8 != 0) return Error(fmt::format("misaligned top-N node 0x{:x}", node));
    if (auto r = memory.read(node, kv, sizeof kv); !r) return r.error();
    pairs.push_back(kv[0]);
    pairs.push_back(kv[1]);
    node = uint64_t(kv[2]);
  }
  out.push_back(triple[0]);
  out.push_back(int64_t(pairs.size() / 2));
  out.insert(out.end(), pairs.begin(), pairs.end());
  return {};
}

// libgcov's run_max: the largest value of the first counter array of
// every function, COMDAT copies too. Taken over the union of those arrays,
// each word once: records pointing again and again at one array (a
// hostile process's) cost no more than the array.
int64_t run_max_of(const std::vector<Span>& spans, const ModuleSnapshot& m) {
  std::vector<std::pair<uint64_t, uint64_t>> firsts;
  for (const ObjectSnapshot& o : m.objects)
    for (const FunctionRecord& fn : o.record.functions)
      if (fn.address != 0 && !fn.counters.empty() && fn.counters[0].num)
        firsts.emplace_back(fn.counters[0].values, fn.counters[0].values + uint64_t(fn.counters[0].num) * 8);
  std::sort(firsts.begin(), firsts.end());
  int64_t run_max = 0;
  uint64_t done = 0;  // the words below it are taken
  for (auto [start, end] : firsts) {
    // An array overlapping the ones before lies in their span (spans join
    // arrays that touch): its words from `done` on.
    const uint64_t from = std::max(start, std::min(done, end));
    if (from >= end) continue;
    const int64_t* v = values_at(spans, start);
    for (uint64_t i = (from - start) / 8; i < (end - start) / 8; ++i) run_max = std::max(run_max, v[i]);
    done = std::max(done, end);
  }
  return run_max;
}

Expected<void> fill_counts(const RemoteMemory& memory, const std::vector<Span>& spans, ModuleSnapshot& m,
                           size_t& counters_read) {
  m.run_max = run_max_of(spans, m);
  for (ObjectSnapshot& o : m.objects) {
    o.counts.assign(o.record.functions.size(), {});
    for (size_t f = 0; f < o.record.functions.size(); ++f) {
      const FunctionRecord& fn = o.record.functions[f];
      // A COMDAT copy's counters are its owner's, written by it alone
      // (data_files_of): counted, not copied again for each copy.
      if (!fn.writes_counters()) {
        for (const CounterArray& arr : fn.counters) counters_read += arr.num;
        continue;
      }
      for (size_t c = 0; c < fn.counters.size(); ++c) {
        const CounterArray& arr = fn.counters[c];
        const int64_t* v = arr.num ? values_at(spans, arr.values) : nullptr;
        std::vector<int64_t> out;
        if (is_topn_kind(arr.kind)) {
          for (uint32_t i = 0; i < arr.num; i += 3)
            if (auto r = append_topn(memory, v + i, out); !r) return Error(fmt::format("{}: {}", o.record.filename, r.error().message));
        } else {
          out.assign(v, v + arr.num);
        }
        counters_read += arr.num;
        o.counts[f].push_back(std::move(out));
      }
    }
  }
  return {};
}

// libgcov gives each function an object owns counter arrays of its own (in
// .bss). Owned arrays that overlap are no program's: a process that
// pointed 65,536 function records at one array of 4 M counters had covkit
// copy it for each (2 TB). Before any is copied, such a process is refused.
Expected<void> check_owned_arrays(const std::vector<ModuleSnapshot>& found) {
  struct Owned {
    uint64_t start, end;
    const std::string* object;
  };
  std::vector<Owned> owned;
  for (const ModuleSnapshot& m : found)
    for (const ObjectSnapshot& o : m.objects)
      for (const FunctionRecord& fn : o.record.functions)
        if (fn.writes_counters())
          for (const CounterArray& c : fn.counters)
            if (c.num) owned.push_back({c.values, c.values + uint64_t(c.num) * 8, &o.record.filename});
  std::sort(owned.begin(), owned.end(), [](const Owned& a, const Owned& b) { return a.start < b.start; });
  uint64_t end = 0;
  for (const Owned& a : owned) {
    if (a.start < end)
      return Error(fmt::format("{}: the counters of two functions overlap at 0x{:x} (each function has its own)",
                               util::printable(*a.object), a.start));
    end = std::max(end, a.end);
  }
  return {};
}

// What a reset writes: every counter array of the objects it resets (only
// the arrays of the functions each object owns, as __gcov_reset clears them:
// a COMDAT copy's counters are its owner's), arrays that follow each other
// joined into one piece (libgcov's arrays lie side by side in .bss), then
// each root's flags, then each root's marker: as one write, so that the
// marker says the rest was written.
struct ResetPlan {
  std::vector<std::pair<uint64_t, size_t>> arrays;  // address, bytes
  size_t largest = 0, objects = 0;
};

ResetPlan plan_reset(const std::vector<ModuleSnapshot>& found) {
  ResetPlan plan;
  for (const ModuleSnapshot& m : found)
    for (const ObjectSnapshot& o : m.objects) {
      if (!o.reset_selected) continue;
      ++plan.objects;
      for (const FunctionRecord& f : o.record.functions)
        if (f.writes_counters())
          for (const CounterArray& c : f.counters)
            if (c.num) plan.arrays.emplace_back(c.values, size_t(c.num) * 8);
    }
  std::sort(plan.arrays.begin(), plan.arrays.end());
  std::vector<std::pair<uint64_t, size_t>> joined;
  for (auto [at, len] : plan.arrays) {
    if (!joined.empty() && joined.back().first + joined.back().second >= at) {
      uint64_t end = std::max(joined.back().first + joined.back().second, at + len);
      joined.back().second = size_t(end - joined.back().first);
      continue;
    }
    joined.emplace_back(at, len);
  }
  plan.arrays = std::move(joined);
  for (auto [at, len] : plan.arrays) plan.largest = std::max(plan.largest, len);
  return plan;
}

// The flags a reset leaves: `dumped` cleared (as __gcov_reset does, so the
// program's exit writes what it does after the reset), `run counted` set
// when the dump counted the run (as __gcov_dump does).
uint32_t flags_after_reset(const RootRecord& root, bool mark_run_counted) {
  uint32_t flags = root.flags & ~1u;
  if (mark_run_counted) flags |= 2u;
  return flags;
}

// How long a process that seemed to end is watched for running again, in
// the program it was executing: an exec ends the other threads and waits
// for them, which takes a few ms (more on a loaded machine).
constexpr auto kExecGrace = std::chrono::milliseconds(1000);
constexpr auto kExitSettled = std::chrono::milliseconds(50);

// Whether a process that looked as if it had ended (no thread of it
// running, the thread read through gone, its memory detached) executed
// another program instead. Caught inside an exec, a process loses its
// memory and every thread but the one executing, whose id becomes the
// process's (its leader a zombie until then); it did not exit if, soon
// after, the same process (the same start time: an exec keeps it) has its
// leader running with memory of its own again. An exited one never does:
// it is gone, a zombie with no thread left, or its pid another process's.
bool executed_instead(pid_t pid, uint64_t started) {
  const auto deadline = std::chrono::steady_clock::now() + kExecGrace;
  std::optional<std::chrono::steady_clock::time_point> none_since;
  for (;;) {
    // The exec waits for the threads a stop given up halfway left traced.
    reap_ended_tracees(pid);
    // Another start time: the pid is another process's. None: gone, or
    // /proc/PID read while the executing thread takes the process's id.
    const std::optional<uint64_t> start = process_start_time(pid);
    if (start && *start != started) return false;
    const std::optional<pid_t> at = start ? live_thread(pid) : std::nullopt;
    if (at == pid) {
      auto maps = read_maps(pid);
      if (maps && !maps->empty()) return true;
    }
    // No thread running for kExitSettled: the executing thread takes the
    // process's id between reads of /proc but never stops running, and an
    // exited process stays so (two reads 2 ms apart were not enough under
    // the sanitizers on a loaded machine: an exec was said to be an exit).
    const auto now = std::chrono::steady_clock::now();
    if (at)
      none_since.reset();
    else if (!none_since)
      none_since = now;
    if ((none_since && now - *none_since >= kExitSettled) || now >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

ResetMarker ResetMarker::fresh(uint32_t avoid) {
  std::random_device rd;
  for (;;) {
    uint32_t r = rd();
    ResetMarker m;
    m.begun = 0x80000000u | (r & 0x7ffffffeu);
    m.done = m.begun | 1u;
    if (m.begun != avoid && m.done != avoid) return m;
  }
}

struct ProcessCapture::State {
  SnapshotOptions options;
  std::optional<uint64_t> started;  // the start time: an exec keeps it
  pid_t at = 0;                     // the thread the process is read through
  RemoteMemory memory{0};
  Discovery found;
  std::optional<ProcessStop> stop;
};

ProcessCapture::ProcessCapture(std::unique_ptr<State> state) : pid_(0), state_(std::move(state)) {}
ProcessCapture::ProcessCapture(ProcessCapture&&) noexcept = default;
ProcessCapture::~ProcessCapture() {
  if (state_) resume();
}

SnapshotError ProcessCapture::failure(const Error& e) {
  // The process is let go first: an exec it is in waits for that.
  resume();
  return checked(exit_or(pid_, state_->at, state_->memory, e));
}

SnapshotError ProcessCapture::checked(SnapshotError e) {
  resume();
  // Seen from outside, an exec looks like an exit (the memory read goes,
  // the threads end): a process that seemed to end is checked for that.
  if (e.why == SnapshotFailure::kExited && state_->started && executed_instead(pid_, *state_->started))
    return executed_other();
  return e;
}

Expected<ProcessCapture, SnapshotError> ProcessCapture::prepare(pid_t pid, const SnapshotOptions& options) {
  auto state = std::make_unique<State>();
  state->options = options;
  state->started = process_start_time(pid);
  auto exited = [&](SnapshotError e) -> SnapshotError {
    if (e.why == SnapshotFailure::kExited && state->started && executed_instead(pid, *state->started))
      return executed_other();
    return e;
  };
  // The memory and /proc files are read through a running thread: the
  // main thread's are gone once it ended with pthread_exit.
  const std::optional<pid_t> at = live_thread(pid);
  if (!at) {
    Error e(fmt::format("no process {} (or it has exited)", pid));
    e.errno_value = ESRCH;
    return exited(SnapshotError(std::move(e), SnapshotFailure::kExited));
  }
  // A kernel thread has no maps, which would look like a process exiting.
  if (auto kthread = kernel_thread_name(pid))
    return no_coverage(
        fmt::format("a kernel thread ({}): it runs no program, so it has no coverage data", util::printable(*kthread)));
  state->at = *at;
  state->memory = RemoteMemory(*at);
  const RemoteMemory& memory = state->memory;
  // Discovery reads the records while the program runs: a module it loads
  // or unloads meanwhile (dlopen, dlclose, an exec) can make a read fail or
  // a record look damaged, and may be back at the same addresses by the
  // time the maps are read again. Such an error is no answer: the
  // discovery is tried again, and with a stop the last try is in the stop,
  // where nothing moves; only what is found there (or, without a stop, on
  // every try) is reported.
  auto d = discover(*at, memory, options);
  for (int tries = 1; !d && tries < kRunningDiscoveries; ++tries) {
    if (process_gone(d.error()) || exiting(pid, *at, memory)) return exited(gone());
    d = discover(*at, memory, options);
  }
  if (!d && (!options.stop || process_gone(d.error()) || exiting(pid, *at, memory)))
    return exited(exit_or(pid, *at, memory, d.error()));
  if (!d) {
    d = Discovery{};
    d->complete = false;
  }
  // Nothing found: a program without coverage, or one whose exit has
  // already detached the memory.
  if (d->complete && d->found.empty() && (d->maps.empty() || exiting(pid, *at, memory))) return exited(gone());
  if (d->complete && d->found.empty())
    return no_coverage(
        "no coverage data: no module of the process was built with --coverage (or its libgcov records are not "
        "registered yet)");
  state->found = std::move(*d);
  ProcessCapture c(std::move(state));
  c.pid_ = pid;
  c.snap_.pid = pid;
  return c;
}

Expected<void, SnapshotError> ProcessCapture::stop() {
  if (!state_->options.stop) return {};
  StopOptions how;
  how.leave_sleepers = state_->options.gentle;
  auto stop = ProcessStop::stop(pid_, how);
  if (!stop) return failure(stop.error());
  // Stopped in the program it executed meanwhile, before any of that
  // program's code ran: it has no counters yet, and the old ones are gone.
  if (stop->executed()) return checked(executed_other());
  state_->stop.emplace(std::move(*stop));
  snap_.stopped = true;
  snap_.threads = state_->stop->threads();
  snap_.left_asleep = state_->stop->sleepers().size();
  return {};
}

void ProcessCapture::set_gentle(bool gentle) { state_->options.gentle = gentle; }

size_t ProcessCapture::left_asleep() const { return state_->stop ? state_->stop->sleepers().size() : 0; }

bool ProcessCapture::slept_through() const { return !state_->stop || state_->stop->sleepers_stayed_asleep(); }

Expected<void, SnapshotError> ProcessCapture::read() {
  State& s = *state_;
  Discovery& d = s.found;
  if (s.options.stop) {
    // Discovery ran while the program ran: a module loaded or unloaded
    // since, or a list that changed, is found again, now that it cannot.
    auto maps = read_maps(s.at);
    if (!maps) return failure(maps.error());
    bool same = d.complete && same_maps(*maps, d.maps);
    if (same) {
      auto unchanged = lists_unchanged(s.memory, d.found);
      if (!unchanged) return failure(unchanged.error());
      same = *unchanged;
    }
    if (!same) {
      auto again = discover(s.at, s.memory, s.options);
      if (!again) return failure(again.error());
      d = std::move(*again);
    }
  }
  if (d.found.empty())
    return checked(exiting(pid_, s.at, s.memory) ? gone()
                                                 : no_coverage("no coverage data left: the modules were unloaded "
                                                               "(or the process executed another program)"));
  if (auto ok = check_owned_arrays(d.found); !ok) return failure(ok.error());
  if (s.options.read) {
    snap_.counters_read = 0;
    auto spans = read_counter_spans(s.memory, d.found);
    if (!spans) return failure(spans.error());
    for (ModuleSnapshot& m : d.found)
      if (auto r = fill_counts(s.memory, *spans, m, snap_.counters_read); !r) return failure(r.error());
  }
  return {};
}

uint32_t ProcessCapture::marker_found() const {
  const auto& found = state_->found.found;
  return found.empty() ? 0 : found.front().root.marker;
}

std::vector<uint64_t> ProcessCapture::root_addresses() const {
  std::vector<uint64_t> roots;
  for (const ModuleSnapshot& m : state_->found.found) roots.push_back(m.root.address);
  return roots;
}

Expected<void, SnapshotError> ProcessCapture::begin_reset(const ResetMarker& marker) {
  std::vector<RemotePiece> pieces;
  for (const ModuleSnapshot& m : state_->found.found)
    pieces.push_back({m.root.address + kRootMarkerOffset, const_cast<uint32_t*>(&marker.begun), 4});
  if (auto r = state_->memory.write_pieces(pieces); !r) return failure(r.error());
  return {};
}

Expected<void, SnapshotError> ProcessCapture::finish_reset(const ResetMarker& marker) {
  std::vector<ModuleSnapshot>& found = state_->found.found;
  ResetPlan plan = plan_reset(found);
  std::vector<uint8_t> zeros(plan.largest);
  std::vector<uint32_t> flags;
  flags.reserve(found.size());
  for (const ModuleSnapshot& m : found) flags.push_back(flags_after_reset(m.root, state_->options.mark_run_counted));
  std::vector<RemotePiece> pieces;
  pieces.reserve(plan.arrays.size() + 2 * found.size());
  for (auto [at, len] : plan.arrays) pieces.push_back({at, zeros.data(), len});
  for (size_t i = 0; i < found.size(); ++i) pieces.push_back({found[i].root.address + 8, &flags[i], 4});
  for (const ModuleSnapshot& m : found)
    pieces.push_back({m.root.address + kRootMarkerOffset, const_cast<uint32_t*>(&marker.done), 4});
  if (auto r = state_->memory.write_pieces(pieces); !r) return failure(r.error());
  snap_.objects_reset = plan.objects;
  return {};
}

void ProcessCapture::resume() {
  if (state_->stop) {
    snap_.pause = state_->stop->resume();
    state_->stop.reset();
  }
}

Snapshot ProcessCapture::take() && {
  resume();
  snap_.functions = 0;
  for (const ModuleSnapshot& m : state_->found.found)
    for (const ObjectSnapshot& o : m.objects) snap_.functions += o.record.functions.size();
  snap_.modules = std::move(state_->found.found);
  return std::move(snap_);
}

Expected<Snapshot, SnapshotError> take_snapshot(pid_t pid, const SnapshotOptions& options) {
  auto capture = ProcessCapture::prepare(pid, options);
  if (!capture) return capture.error();
  if (auto r = capture->stop(); !r) return r.error();
  if (auto r = capture->read(); !r) return r.error();
  if (options.reset) {
    ResetMarker marker = ResetMarker::fresh(capture->marker_found());
    if (auto r = capture->begin_reset(marker); !r) return r.error();
    if (auto r = capture->finish_reset(marker); !r) return r.error();
  }
  return std::move(*capture).take();
}

Expected<std::vector<uint32_t>> read_reset_markers(pid_t pid, const std::vector<uint64_t>& roots) {
  RemoteMemory memory(pid);
  std::vector<uint32_t> words(roots.size());
  std::vector<RemotePiece> pieces;
  for (size_t i = 0; i < roots.size(); ++i) pieces.push_back({roots[i] + kRootMarkerOffset, &words[i], 4});
  if (auto r = memory.read_pieces(pieces); !r) return r.error();
  return words;
}

format::DataFile object_data_file(const ModuleSnapshot& m, const ObjectSnapshot& o) {
  using format::DataRecord;
  format::DataFile f;
  f.version = *format::GcovVersion::decode(o.record.version);
  f.stamp = o.record.stamp;
  f.checksum = o.record.checksum;
  DataRecord summary;
  summary.kind = DataRecord::Kind::kSummary;
  summary.tag = format::kTagObjectSummary;
  // libgcov counts the run (and adds its largest counter) once per process:
  // not again after __gcov_dump (or covkit's dump --reset) marked it counted.
  if (!m.root.run_counted()) {
    summary.runs = 1;
    summary.sum_max = uint32_t(uint64_t(m.run_max));
  }
  f.records.push_back(summary);
  for (size_t i = 0; i < o.record.functions.size(); ++i) {
    const FunctionRecord& fn = o.record.functions[i];
    DataRecord rec;
    rec.kind = DataRecord::Kind::kFunction;
    rec.tag = format::kTagFunction;
    if (!fn.writes_counters()) {
      rec.placeholder = true;  // written by the object that owns it
      f.records.push_back(rec);
      continue;
    }
    rec.has_ids = true;
    rec.ident = fn.ident;
    rec.lineno_checksum = fn.lineno_checksum;
    rec.cfg_checksum = fn.cfg_checksum;
    f.records.push_back(rec);
    for (size_t c = 0; c < fn.counters.size(); ++c) {
      DataRecord ctr;
      ctr.kind = DataRecord::Kind::kCounters;
      ctr.tag = format::kTagCounterBase + (fn.counters[c].kind << 17);
      ctr.counters = o.counts[i][c];
      ctr.num_counters = uint32_t(ctr.counters.size());
      // libgcov writes an all-zero array as a bare negative length, except
      // top-N arrays, which it always streams.
      bool zero = !is_topn_kind(fn.counters[c].kind) &&
                  std::all_of(ctr.counters.begin(), ctr.counters.end(), [](int64_t v) { return v == 0; });
      if (zero) {
        ctr.all_zero = true;
        ctr.counters.clear();
      }
      // The raw length field, as the file would hold it: readers of the
      // model check it against the notes (gcov's rule), as for a file.
      const uint64_t n_bytes = uint64_t{ctr.num_counters} * 8;
      ctr.length = uint32_t(f.version.lengths_in_bytes() ? n_bytes : n_bytes / 4);
      if (zero) ctr.length = 0u - ctr.length;
      f.records.push_back(std::move(ctr));
    }
  }
  return f;
}

Expected<std::map<std::string, format::DataFile>> data_files_of(const std::vector<ModuleSnapshot>& modules) {
  std::map<std::string, format::DataFile> files;
  for (const ModuleSnapshot& m : modules)
    for (const ObjectSnapshot& o : m.objects) {
      if (o.counts.size() != o.record.functions.size()) return Error("the snapshot holds no counters");
      auto it = files.find(o.record.filename);
      if (it == files.end()) {
        files.emplace(o.record.filename, object_data_file(m, o));
        continue;
      }
      auto sum = model::merge_data(it->second, object_data_file(m, o));
      if (!sum) return Error(fmt::format("{}: {}", o.record.filename, sum.error().message));
      it->second = std::move(*sum);
    }
  return files;
}

Expected<std::map<std::string, format::DataFile>> snapshot_data_files(const Snapshot& snapshot) {
  return data_files_of(snapshot.modules);
}

const std::vector<ModuleSnapshot>& ProcessCapture::modules() const { return state_->found.found; }

Expected<std::map<std::string, format::DataFile>> ProcessCapture::data_files() const {
  const std::vector<ModuleSnapshot>& found = state_->found.found;
  bool read = std::all_of(found.begin(), found.end(), [](const ModuleSnapshot& m) {
    return std::all_of(m.objects.begin(), m.objects.end(),
                       [](const ObjectSnapshot& o) { return o.counts.size() == o.record.functions.size(); });
  });
  if (read) return data_files_of(found);
  std::vector<ModuleSnapshot> zero = found;
  for (ModuleSnapshot& m : zero)
    for (ObjectSnapshot& o : m.objects) {
      o.counts.assign(o.record.functions.size(), {});
      for (size_t f = 0; f < o.record.functions.size(); ++f) {
        const FunctionRecord& fn = o.record.functions[f];
        if (!fn.writes_counters()) continue;  // written by its owner (as fill_counts)
        for (const CounterArray& c : fn.counters)
          // A top-N counter on disk: its total and an empty list.
          o.counts[f].push_back(std::vector<int64_t>(is_topn_kind(c.kind) ? 2 * (c.num / 3) : c.num, 0));
      }
    }
  return data_files_of(zero);
}

}  // namespace covkit::live
