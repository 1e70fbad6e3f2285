#pragma once
// Patching and unpatching the entries of a running process (covkit trace
// attach, for a process recorded with --patch): the runtime lists each
// entry's two states in its memory (ckt_patch_table, trace_contract.h);
// covkit stops every thread with ptrace, moves a thread caught inside an
// entry's NOPs past them (GCC writes five one-byte NOPs: once they are a
// call, a thread in their middle would run the tail of its bytes), writes
// the bytes through /proc/PID/mem and lets the threads go on.
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <optional>

#include "util/expected.h"

namespace covkit::trace {

struct PatchSwitchResult {
  size_t entries = 0;  // listed by the runtime
  size_t changed = 0;  // written this time (the others were already so)
  size_t foreign = 0;  // neither state: left alone (the program rewrote them?)
  size_t moved = 0;    // threads moved past NOPs
  size_t threads = 0;
  std::chrono::nanoseconds pause{};
};

// Writes the calls (`on`) or the NOPs back. nullopt when the process has
// no table (its runtime has none: started without --patch); an Error (one
// line) when it cannot be read, stopped or written.
Expected<std::optional<PatchSwitchResult>> switch_patched_entries(pid_t pid, bool on);

}  // namespace covkit::trace
