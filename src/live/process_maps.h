#pragma once
// A process's memory map as /proc/PID/maps lists it.
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::live {

struct Mapping {
  uint64_t start = 0, end = 0, offset = 0;
  bool readable = false, writable = false, executable = false, shared = false;
  uint32_t dev_major = 0, dev_minor = 0;
  uint64_t inode = 0;
  std::string path;  // "" for anonymous memory; "[heap]", "[stack]"...; " (deleted)" kept
};

// Parses the text of /proc/PID/maps; a malformed line is an error.
Expected<std::vector<Mapping>> parse_maps(std::string_view text);
// Reads and parses /proc/PID/maps.
Expected<std::vector<Mapping>> read_maps(pid_t pid);

}  // namespace covkit::live
