#pragma once
// Starting a program under ptrace with everything it will do followed:
// forks, vforks, threads and execs are reported (PTRACE_O_TRACE*), and the
// kernel kills every tracee if covkit dies (PTRACE_O_EXITKILL), so no traced
// process is ever left behind stopped on an int3 nobody will restore.
#include <sys/types.h>

#include <span>
#include <string>

#include "util/expected.h"

namespace covkit::sample {

// Forks, execs argv[0] (searched in PATH) with argv and returns its pid once
// the exec has succeeded; the program is then in (or about to report) its
// PTRACE_EVENT_EXEC stop, before its first instruction. It is seized
// (PTRACE_SEIZE), as an attached process is: its new tasks start with an
// event stop, and a group-stop can be kept with PTRACE_LISTEN. The error
// names the program and why it could not be started (nothing is left
// running then).
Expected<pid_t> launch_traced(std::span<const std::string> argv);

}  // namespace covkit::sample
