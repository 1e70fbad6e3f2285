#pragma once
// `covkit live dump` and `covkit live reset` as whole operations over one
// process or a process tree: snapshot (and reset) each process, turn the
// snapshots into .gcda files, place them. The command line only parses
// options and prints what these return.
//
// The rule that keeps counts from being added twice (docs/covkit-live.md):
// a dump with --reset is what `__gcov_dump(); __gcov_reset();` inside the
// program would do: the counters restart from zero and the run is marked
// counted, so the dumps and the program's own exit add up to exactly what it
// did, run counted once. A dump without --reset holds everything so far:
// it only goes to files that do not exist yet.
#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "live/dump_output.h"
#include "live/snapshot.h"
#include "util/expected.h"

namespace covkit::live {

struct DumpRequest {
  pid_t pid = 0;
  std::string directory;  // -o DIR; empty: the program's own paths
  bool reset = false;
  bool stop = true;
  bool children = false;
  bool merge = false;  // with children under -o: one tree, the processes added
};

struct ProcessSummary {
  pid_t pid = 0;
  size_t modules = 0, objects = 0, functions = 0, counters = 0, threads = 0;
  bool stopped = false;
  std::chrono::nanoseconds pause{0};
  std::vector<std::string> module_notes;  // "PATH: root found by symtab"
};

struct DumpResult {
  std::vector<ProcessSummary> processes;
  std::vector<WrittenFile> files;
  std::vector<std::string> warnings;  // one line each
};

Expected<DumpResult> dump(const DumpRequest& request);

// The hook for `covkit live report` (and --watch): the .gcda files the
// process's libgcov would write now, in memory, keyed by their .gcda path
// as the program names it (the .gcno is beside it), read in one stop (or
// none, `stop` false), errors worded as dump words them. Nothing in the
// process changes. SnapshotError says why there are none (snapshot.h).
Expected<std::map<std::string, format::DataFile>, SnapshotError> snapshot_files(pid_t pid, bool stop = true,
                                                                                ProcessSummary* summary = nullptr);

struct ResetRequest {
  pid_t pid = 0;
  std::vector<std::string> sources;  // empty: every object
  bool children = false;
};

struct ResetResult {
  std::vector<ProcessSummary> processes;
  size_t objects_reset = 0;
};

Expected<ResetResult> reset(const ResetRequest& request);

}  // namespace covkit::live
