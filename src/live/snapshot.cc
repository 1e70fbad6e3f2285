#include "live/snapshot.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "format/gcda_writer.h"
#include "format/gcov_tags.h"
#include "format/gcov_version.h"
#include "live/access_check.h"
#include "live/proc_files.h"
#include "live/process_maps.h"
#include "live/process_modules.h"
#include "live/process_stop.h"
#include "live/remote_memory.h"
#include "model/data_merge.h"

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

Expected<Discovery> discover(pid_t at, const RemoteMemory& memory, const SnapshotOptions& options) {
  Discovery d;
  auto maps = read_maps(at);
  if (!maps) return maps.error();
  d.maps = std::move(*maps);
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
Expected<bool> lists_unchanged(const RemoteMemory& memory, const std::vector<ModuleSnapshot>& found) {
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
  for (const ModuleSnapshot& m : found) {
    if (words[k++] != m.root.list) return false;
    if (uint32_t(words[k++]) != m.root.flags) return false;
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

Expected<void> fill_counts(const RemoteMemory& memory, const std::vector<Span>& spans, ModuleSnapshot& m,
                           size_t& counters_read) {
  m.run_max = 0;
  for (ObjectSnapshot& o : m.objects) {
    o.counts.assign(o.record.functions.size(), {});
    for (size_t f = 0; f < o.record.functions.size(); ++f) {
      const FunctionRecord& fn = o.record.functions[f];
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
        // libgcov's run_max: the first counter array of every function.
        if (c == 0 && fn.address != 0)
          for (uint32_t i = 0; i < arr.num; ++i) m.run_max = std::max(m.run_max, v[i]);
        counters_read += arr.num;
        o.counts[f].push_back(std::move(out));
      }
    }
  }
  return {};
}

Expected<size_t> reset_counters(const RemoteMemory& memory, std::vector<ModuleSnapshot>& found) {
  // Only the arrays of functions each object owns, as __gcov_reset clears
  // them (a COMDAT copy's counters are its owner's).
  size_t largest = 0, objects = 0;
  std::vector<std::pair<uint64_t, size_t>> arrays;
  for (const ModuleSnapshot& m : found)
    for (const ObjectSnapshot& o : m.objects) {
      if (!o.reset_selected) continue;
      ++objects;
      for (const FunctionRecord& f : o.record.functions)
        if (f.address != 0 && f.owned)
          for (const CounterArray& c : f.counters)
            if (c.num) {
              arrays.emplace_back(c.values, size_t(c.num) * 8);
              largest = std::max(largest, size_t(c.num) * 8);
            }
    }
  std::vector<uint8_t> zeros(largest);
  std::vector<RemotePiece> pieces;
  for (auto [at, len] : arrays) pieces.push_back({at, zeros.data(), len});
  if (auto r = memory.write_pieces(pieces); !r) return r.error();
  return objects;
}

Expected<void> mark_run_counted(const RemoteMemory& memory, std::vector<ModuleSnapshot>& found) {
  for (ModuleSnapshot& m : found) {
    if (m.root.run_counted()) continue;
    uint32_t flags = m.root.flags | 2u;  // run_counted; `dumped` stays
    RemotePiece p{m.root.address + 8, &flags, 4};
    if (auto r = memory.write_pieces({&p, 1}); !r) return r.error();
  }
  return {};
}

// Everything that happens while the process is stopped (or, with
// --no-stop, while it runs).
Expected<void> read_and_reset(pid_t at, const RemoteMemory& memory, Discovery& d, const SnapshotOptions& options,
                              Snapshot& snap) {
  if (options.stop) {
    // Discovery ran while the program ran: a module loaded or unloaded
    // since, or a list that changed, is found again, now that it cannot.
    auto maps = read_maps(at);
    if (!maps) return maps.error();
    bool same = d.complete && same_maps(*maps, d.maps);
    if (same) {
      auto unchanged = lists_unchanged(memory, d.found);
      if (!unchanged) return unchanged.error();
      same = *unchanged;
    }
    if (!same) {
      auto again = discover(at, memory, options);
      if (!again) return again.error();
      d = std::move(*again);
    }
  }
  if (options.read) {
    auto spans = read_counter_spans(memory, d.found);
    if (!spans) return spans.error();
    for (ModuleSnapshot& m : d.found)
      if (auto r = fill_counts(memory, *spans, m, snap.counters_read); !r) return r;
  }
  if (options.reset) {
    auto n = reset_counters(memory, d.found);
    if (!n) return n.error();
    snap.objects_reset = *n;
  }
  if (options.mark_run_counted)
    if (auto r = mark_run_counted(memory, d.found); !r) return r;
  return {};
}

// How long a process that seemed to end is watched for running again, in
// the program it was executing: an exec ends the other threads and waits
// for them, which takes a few ms (more on a loaded machine).
constexpr auto kExecGrace = std::chrono::milliseconds(1000);

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
  for (int none_running = 0;;) {
    // The exec waits for the threads a stop given up halfway left traced.
    reap_ended_tracees(pid);
    if (process_start_time(pid) != started) return false;
    const std::optional<pid_t> at = live_thread(pid);
    if (at == pid) {
      auto maps = read_maps(pid);
      if (maps && !maps->empty()) return true;
    }
    // No thread running, twice in a row: the executing thread takes the
    // process's id between reads of /proc, but it never stops running.
    none_running = at ? 0 : none_running + 1;
    if (none_running == 2 || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

Expected<Snapshot, SnapshotError> snapshot_as_seen(pid_t pid, const SnapshotOptions& options) {
  // The memory and /proc files are read through a running thread: the
  // main thread's are gone once it ended with pthread_exit.
  const std::optional<pid_t> at = live_thread(pid);
  if (!at) {
    Error e(fmt::format("no process {} (or it has exited)", pid));
    e.errno_value = ESRCH;
    return SnapshotError(std::move(e), SnapshotFailure::kExited);
  }
  RemoteMemory memory(*at);
  // Discovery reads the records while the program runs: a module it loads
  // or unloads meanwhile (dlopen, dlclose, an exec) can make a read fail or
  // a record look damaged, and may be back at the same addresses by the
  // time the maps are read again. Such an error is no answer: the
  // discovery is tried again, and with a stop the last try is in the stop,
  // where nothing moves; only what is found there (or, without a stop, on
  // every try) is reported.
  auto d = discover(*at, memory, options);
  for (int tries = 1; !d && tries < kRunningDiscoveries; ++tries) {
    if (process_gone(d.error()) || exiting(pid, *at, memory)) return gone();
    d = discover(*at, memory, options);
  }
  if (!d && (!options.stop || process_gone(d.error()) || exiting(pid, *at, memory)))
    return exit_or(pid, *at, memory, d.error());
  if (!d) {
    d = Discovery{};
    d->complete = false;
  }
  // Nothing found: a program without coverage, or one whose exit has
  // already detached the memory.
  if (d->complete && d->found.empty() && (d->maps.empty() || exiting(pid, *at, memory))) return gone();
  if (d->complete && d->found.empty())
    return no_coverage(
        "no coverage data: no module of the process was built with --coverage (or its libgcov records are not "
        "registered yet)");
  Snapshot snap;
  snap.pid = pid;
  Expected<void> done;
  if (options.stop) {
    auto stop = ProcessStop::stop(pid);
    if (!stop) return exit_or(pid, *at, memory, stop.error());
    // Stopped in the program it executed meanwhile, before any of that
    // program's code ran: it has no counters yet, and the old ones are gone.
    if (stop->executed()) return executed_other();
    snap.stopped = true;
    snap.threads = stop->threads();
    done = read_and_reset(*at, memory, *d, options, snap);
    snap.pause = stop->resume();
  } else {
    done = read_and_reset(*at, memory, *d, options, snap);
  }
  if (!done) return exit_or(pid, *at, memory, done.error());
  if (d->found.empty())
    return exiting(pid, *at, memory) ? gone()
                                     : no_coverage("no coverage data left: the modules were unloaded (or the process "
                                                   "executed another program)");
  for (const ModuleSnapshot& m : d->found)
    for (const ObjectSnapshot& o : m.objects) snap.functions += o.record.functions.size();
  snap.modules = std::move(d->found);
  return snap;
}

}  // namespace

Expected<Snapshot, SnapshotError> take_snapshot(pid_t pid, const SnapshotOptions& options) {
  // Seen from outside, an exec looks like an exit (the memory read goes,
  // the threads end): a process that seemed to end is checked for that.
  const std::optional<uint64_t> started = process_start_time(pid);
  auto snap = snapshot_as_seen(pid, options);
  if (!snap && snap.error().why == SnapshotFailure::kExited && started && executed_instead(pid, *started))
    return executed_other();
  return snap;
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
    if (fn.address == 0 || !fn.owned) {
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

Expected<std::map<std::string, format::DataFile>> snapshot_data_files(const Snapshot& snapshot) {
  std::map<std::string, format::DataFile> files;
  for (const ModuleSnapshot& m : snapshot.modules)
    for (const ObjectSnapshot& o : m.objects) {
      if (o.counts.size() != o.record.functions.size()) return Error("the snapshot holds no counters");
      format::DataFile f = object_data_file(m, o);
      auto [it, inserted] = files.emplace(o.record.filename, f);
      if (inserted) continue;
      auto sum = model::merge_data(it->second, f);
      if (!sum) return Error(fmt::format("{}: {}", o.record.filename, sum.error().message));
      it->second = std::move(*sum);
    }
  return files;
}

}  // namespace covkit::live
