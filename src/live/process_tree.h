#pragma once
// The descendants of a process (children, their children...), found from
// every /proc/PID/stat's parent field: pre-fork servers keep their workers
// as children.
#include <sys/types.h>

#include <vector>

namespace covkit::live {

// `pid`'s descendants, parents before their children, each once.
std::vector<pid_t> descendants(pid_t pid);

}  // namespace covkit::live
