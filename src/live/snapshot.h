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
#include <string>
#include <vector>

#include "format/gcda.h"
#include "live/gcov_info_layout.h"
#include "live/module_roots.h"
#include "util/expected.h"

namespace covkit::live {

struct SnapshotOptions {
  bool stop = true;         // stop every thread for the read (and the reset)
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

// One object's .gcda as libgcov writes it (a fresh file): the run counted
// unless the module's root says it already was, placeholders for functions
// another object owns, all-zero arrays without payload (not top-N ones).
format::DataFile object_data_file(const ModuleSnapshot& module, const ObjectSnapshot& object);

// The .gcda files libgcov would write now, into an empty directory, keyed by
// the file name the program holds (absolute unless built otherwise). Two
// modules holding one object (the same .o linked twice) are added as
// libgcov's exit would add them.
Expected<std::map<std::string, format::DataFile>> snapshot_data_files(const Snapshot& snapshot);

}  // namespace covkit::live
