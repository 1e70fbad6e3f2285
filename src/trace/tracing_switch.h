#pragma once
// Switching the tracing of a running process on and off (covkit trace
// attach): a process started by `covkit trace record --signal SIG` has the
// runtime's settings in its environment (/proc/PID/environ); the signal,
// sent with sigqueue and a value, says on or off (trace_contract.h).
#include <string>
#include <sys/types.h>

#include "util/expected.h"

namespace covkit::trace {

struct TracedProcess {
  pid_t pid = 0;
  std::string dir;  // its trace directory (CKT_ENV_DIR)
  int signal = 0;   // CKT_ENV_SIGNAL
  bool patch = false;  // CKT_ENV_PATCH: recorded with --patch (patch_switch.h)
  pid_t recorder = 0;  // the covkit trace record process named instead of it, if any
};

// What /proc/PID/environ says; an Error (one line) when the process does not
// exist, cannot be read, was not started by covkit trace record, or was
// started without --signal. PID may also be the `covkit trace record`
// process itself (`$!` after `covkit trace record ... &`): then it is the
// program that covkit runs, waited for a moment if it has not started yet.
Expected<TracedProcess> find_traced_process(pid_t pid);

// Sends the switch; an Error when the process is gone or not ours to signal,
// or does not catch the signal within a moment (its runtime not loaded yet:
// the signal would kill it).
Expected<void> switch_tracing(const TracedProcess& process, bool on);

// Waits until the process ends, `seconds` pass (< 0: no limit) or an
// interrupt (SIGINT, SIGTERM) arrives; true when the process ended.
bool wait_for_process(pid_t pid, double seconds);

}  // namespace covkit::trace
