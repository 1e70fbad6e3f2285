#pragma once
// Runs a program and collects its output: argv goes to posix_spawnp as is
// (no shell, so no quoting or injection), stdin is /dev/null, and stdout and
// stderr are drained together so a child filling one pipe cannot block.
#include <string>
#include <vector>

namespace covkit::util {

struct ProcessResult {
  int spawn_errno = 0;   // non-zero: the program could not be started
  int exit_status = -1;  // -1 when killed by a signal
  std::string out, err;
};

// argv[0] is looked up on PATH.
ProcessResult run_process(const std::vector<std::string>& argv);

}  // namespace covkit::util
