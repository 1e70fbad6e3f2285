#pragma once
// How every `covkit trace` view shows problems found inside a trace
// (damaged or cut files): as warnings, the first few of them.
#include <string>
#include <vector>

namespace covkit::cli {

// Prints up to 20 warnings as "covkit trace COMMAND: warning: ...", then how
// many more there were.
void print_trace_warnings(const char* command, const std::vector<std::string>& warnings);

}  // namespace covkit::cli
