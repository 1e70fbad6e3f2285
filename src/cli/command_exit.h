#pragma once
// How a command ends, for main() and every command: its one-line errors, its
// exit status, and standard output checked. Without CLI11 (cli/command_line.h),
// so that main.cc builds none of CLI11's static validators before a command
// runs (cli/cli11.h).
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::cli {

// Prints "COMMAND: FILE: message" (or "COMMAND: message" when FILE is
// empty), control characters escaped; returns `status`.
int fail(std::string_view command, std::string_view file, std::string_view message, int status = 1);
int fail(std::string_view command, std::string_view file, const Error& error, int status = 1);

// After a command: whatever it wrote to standard output flushed, and a
// failed write (a full disk, a closed descriptor) said in one line
// ("COMMAND: <stdout>: No space left on device"), status 1 where the command
// had succeeded. Otherwise `status`.
int checked_stdout(std::string_view command, int status);

// The candidate within two edits of `word` (the closest), or "".
std::string closest(const std::vector<std::string>& candidates, std::string_view word);

}  // namespace covkit::cli
