#pragma once
// Reading /proc/PID/* files of a process that may exit at any moment. They
// report size 0, so they are read until the end; and a read that fails
// because the process died (ESRCH) is an error value, never an exception
// (std::ifstream throws from its buffer in that case).
#include <string>

#include "util/expected.h"

namespace covkit::live {

Expected<std::string> read_proc_file(const std::string& path);

}  // namespace covkit::live
