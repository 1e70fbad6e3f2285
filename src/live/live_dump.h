#pragma once
// `covkit live dump`, `reset` and `report`'s snapshot as whole operations
// over one process or a process tree. The command line only parses options
// and prints what these return.
//
// A tree is all or nothing: every process is stopped before any is read,
// all are read before any is reset, and what was read is in the journal
// (dump_journal.h) before the first reset; a process that cannot be stopped
// (traced by a debugger, another user's, a second covkit) fails the whole
// command before anything is touched, or, when asked (skip_unstoppable), is
// left out with a warning. So a tree's snapshot is one instant.
//
// The rule that keeps counts from being added twice (docs/covkit-live.md):
// a dump with --reset is what `__gcov_dump(); __gcov_reset();` inside the
// program would do: the counters restart from zero and the run is marked
// counted, so the dumps and the program's own exit add up to exactly what it
// did, run counted once, whatever instant covkit is killed at. A dump
// without --reset holds everything so far: it only goes to files that do
// not exist yet.
#include <sys/types.h>

#include <chrono>
#include <functional>
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
  bool skip_unstoppable = false;
  // Leave running the threads asleep in a call a stop would make return
  // EINTR (epoll_wait, sigtimedwait...: thread_sleep.h), checking they
  // slept through the read (else read again; the third try stops all).
  bool gentle = false;
  // Told at once each line about a journal left by a killed dump and
  // finished now (a kill later in this dump must not lose it); unset: the
  // lines go to the result's warnings.
  std::function<void(const std::string&)> tell;
};

struct ProcessSummary {
  pid_t pid = 0;
  size_t modules = 0, objects = 0, functions = 0, counters = 0, threads = 0;
  bool stopped = false;
  size_t left_asleep = 0;  // threads the gentle stop left running
  std::chrono::nanoseconds pause{0};
  std::vector<std::string> module_notes;  // "PATH: root found by symtab"
};

struct DumpResult {
  int reads = 1;  // > 1: a thread left asleep (gentle) woke, the tree was read again
  std::vector<ProcessSummary> processes;
  std::vector<WrittenFile> files;
  std::vector<std::string> warnings;  // one line each
};

Expected<DumpResult> dump(const DumpRequest& request);

// The hook for `covkit live report` (and --watch): the .gcda files the
// processes' libgcov would write now, in memory, keyed by their .gcda path
// as the program names it (the .gcno is beside it), the processes of a tree
// added as runs are, read in one stop (or none, `stop` false), errors worded
// as dump words them. Nothing in the processes changes. SnapshotError says
// why there are none (snapshot.h).
struct SnapshotRequest {
  pid_t pid = 0;
  bool stop = true;
  bool gentle = false;
  bool children = false;
  bool skip_unstoppable = false;
};
struct TreeSnapshot {
  std::map<std::string, format::DataFile> files;
  std::vector<ProcessSummary> processes;
  std::vector<std::string> warnings;  // processes left out
};
Expected<TreeSnapshot, SnapshotError> snapshot_tree(const SnapshotRequest& request);

struct ResetRequest {
  pid_t pid = 0;
  std::vector<std::string> sources;  // empty: every object
  bool children = false;
  bool skip_unstoppable = false;
  bool gentle = false;
  std::function<void(const std::string&)> tell;  // as DumpRequest::tell
};

struct ResetResult {
  std::vector<ProcessSummary> processes;
  size_t objects_reset = 0;
  std::vector<std::string> warnings;
};

Expected<ResetResult> reset(const ResetRequest& request);

}  // namespace covkit::live
