#pragma once
// A snapshot of every counter of a running process: each module's libgcov
// records (found and validated before the process is stopped), then, with
// every thread stopped, the counters themselves in as few reads as the
// kernel allows, optionally zeroed in the same stop. The snapshot turns into
// the .gcda files libgcov would write at that instant (snapshot_data_files),
// which is also what `covkit live report` builds its model from.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "format/gcda.h"
#include "live/gcov_info_layout.h"
#include "live/module_roots.h"
#include "util/expected.h"

namespace covkit::live {

struct SnapshotOptions {
  bool stop = true;         // stop every thread for the read (and the reset)
  // With stop: leave running the threads asleep in a call that a stop
  // would make return EINTR (thread_sleep.h); the caller checks they slept on.
  bool gentle = false;
  bool read = true;         // read the counters (false: reset only)
  bool reset = false;       // zero the counters in the same stop
  bool mark_run_counted = false;  // as __gcov_dump does: the next dump adds no run
  // Which objects a reset zeroes (by .gcda name); empty: all of them.
  std::function<bool(const std::string& gcda)> reset_only;
};

struct ObjectSnapshot {
  ObjectRecord record;
  bool reset_selected = true;  // SnapshotOptions::reset_only, decided before the stop
  // Per function, per counter array: the values as libgcov writes them
  // (top-N arrays already in their on-disk form). Empty when not read.
  std::vector<std::vector<std::vector<int64_t>>> counts;
};

struct ModuleSnapshot {
  std::string path;
  RootSource source = RootSource::kSymtab;
  RootRecord root;  // as read in the stop (its flags decide the run count)
  GcovLayout layout;
  int64_t run_max = 0;  // the largest arc counter of the module (libgcov's run_max)
  std::vector<ObjectSnapshot> objects;
};

struct Snapshot {
  pid_t pid = 0;
  std::vector<ModuleSnapshot> modules;
  bool stopped = false;
  size_t threads = 0;
  std::chrono::nanoseconds pause{0};
  size_t functions = 0;       // function records read
  size_t counters_read = 0;   // 8-byte counters
  size_t objects_reset = 0;
  size_t left_asleep = 0;     // threads the gentle stop left running
};

// Why there is no snapshot, for callers that walk a tree of processes: a
// descendant without coverage (it exec'd another program) or one that
// ended meanwhile is passed over; any other failure is one.
enum class SnapshotFailure {
  kFailed,      // a permission refusal, an unknown layout, a record that does not validate...
  kNoCoverage,  // no module with registered libgcov records (none left: all unloaded)
  kExited,      // the process ended before or during the snapshot (errno_value ESRCH)
};

struct SnapshotError : Error {
  SnapshotFailure why = SnapshotFailure::kFailed;
  SnapshotError(Error e, SnapshotFailure w = SnapshotFailure::kFailed) : Error(std::move(e)), why(w) {}
};

// A descendant's failure that a walk over a process tree passes over.
inline bool passable(const SnapshotError& e) { return e.why != SnapshotFailure::kFailed; }

// Errors are one line: "no coverage data ...", "process exited during the
// dump", "the process executed another program during the dump" (also when
// caught inside the exec, which looks like an exit), a permission refusal
// (worded by the caller, see access_check.h), an unknown libgcov layout, a
// record that does not validate.
Expected<Snapshot, SnapshotError> take_snapshot(pid_t pid, const SnapshotOptions& options);

// Where a reset leaves its trace in the process: covkit's own 4 bytes in the
// padding after each module root's flags (libgcov 11/12 never reads or
// writes them: it touches the flags as one byte). A reset writes `begun`
// there first, then in one write zeroes the counters, sets the flags and
// writes `done` last: whoever reads the word later (the next dump, after a
// covkit that was killed) knows whether the reset happened, did not start,
// or was cut short inside that one write. Values have the top bit set, so
// the 8-byte word at root + 8 is never mistaken for a pointer.
struct ResetMarker {
  uint32_t begun = 0, done = 0;
  static ResetMarker fresh(uint32_t avoid);  // random, neither equal to `avoid`
};
inline constexpr uint64_t kRootMarkerOffset = 12;

// One process's snapshot taken step by step, so that a dump of a process
// tree can stop every process before it reads any, read all before it
// resets any, and keep what it read safe before the reset (live_dump).
// take_snapshot is these steps for one process. Errors are take_snapshot's.
class ProcessCapture {
 public:
  // Finds the records while the process runs (nothing is stopped).
  static Expected<ProcessCapture, SnapshotError> prepare(pid_t pid, const SnapshotOptions& options);
  ProcessCapture(ProcessCapture&&) noexcept;
  ProcessCapture& operator=(ProcessCapture&&) = delete;
  ~ProcessCapture();  // resumes the process if still stopped

  // Stops every thread (without options.stop: nothing).
  Expected<void, SnapshotError> stop();
  // In the stop: what discovery found is checked (found again if a module
  // came or went) and every counter read (options.read).
  Expected<void, SnapshotError> read();
  // The reset, in two writes: `marker.begun`, then the zeros, the flags
  // (run counted with options.mark_run_counted; `dumped` cleared, as
  // __gcov_reset does) and `marker.done` last.
  Expected<void, SnapshotError> begin_reset(const ResetMarker& marker);
  Expected<void, SnapshotError> finish_reset(const ResetMarker& marker);
  // Lets the process go on (the pause is recorded in the snapshot).
  void resume();
  // A failure seen from outside, weighed: resumes the process, and an
  // "exit" is checked for an exec, which looks the same (executed_other()).
  SnapshotError checked(SnapshotError e);
  // The gentle stop (SnapshotOptions::gentle) for the next stop().
  void set_gentle(bool gentle);
  // How many threads the stop left running, asleep; whether every one
  // still sleeps in its call and has not run since the stop.
  size_t left_asleep() const;
  bool slept_through() const;

  pid_t pid() const { return pid_; }
  // The modules found (and, after read(), their counts).
  const std::vector<ModuleSnapshot>& modules() const;
  // The .gcda files libgcov would write (snapshot_data_files); before
  // read(), with every counter zero: what the files will be made of.
  Expected<std::map<std::string, format::DataFile>> data_files() const;
  // The marker word found in the stop (of the first root), and every root.
  uint32_t marker_found() const;
  std::vector<uint64_t> root_addresses() const;
  // The snapshot so far; complete after read() and resume().
  const Snapshot& snapshot() const { return snap_; }
  Snapshot take() &&;

 private:
  struct State;
  explicit ProcessCapture(std::unique_ptr<State> state);
  SnapshotError failure(const Error& e);   // resumes, words the error
  pid_t pid_ = 0;
  std::unique_ptr<State> state_;
  Snapshot snap_;
};

// The marker word of each root at `roots` in process `pid` (read while it
// runs: only covkit writes it). Errors: the process is gone, or unreadable.
Expected<std::vector<uint32_t>> read_reset_markers(pid_t pid, const std::vector<uint64_t>& roots);

// One object's .gcda as libgcov writes it (a fresh file): the run counted
// unless the module's root says it already was, placeholders for functions
// another object owns, all-zero arrays without payload (not top-N ones).
format::DataFile object_data_file(const ModuleSnapshot& module, const ObjectSnapshot& object);

// The .gcda files libgcov would write now, into an empty directory, keyed by
// the file name the program holds (absolute unless built otherwise). Two
// modules holding one object (the same .o linked twice) are added as
// libgcov's exit would add them.
Expected<std::map<std::string, format::DataFile>> snapshot_data_files(const Snapshot& snapshot);
Expected<std::map<std::string, format::DataFile>> data_files_of(const std::vector<ModuleSnapshot>& modules);

}  // namespace covkit::live
