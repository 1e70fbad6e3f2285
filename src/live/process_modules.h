#pragma once
// The modules of a process (the executable and every shared library, dlopen'ed
// ones too): each file mapped into it that is an ELF executable or shared
// object, with the address ranges it occupies. The ranges come from the
// program headers as the process holds them, cut to what is really mapped.
#include <sys/types.h>

#include <string>
#include <vector>

#include "live/memory_source.h"
#include "live/process_maps.h"
#include "util/expected.h"

namespace covkit::live {

struct Module {
  std::string path;      // as /proc/PID/maps names it
  uint64_t load_bias = 0;  // added to the file's addresses
  uint64_t start = 0;      // the mapping of file offset 0
  uint64_t map_end = 0;    // the end of that mapping (for /proc/PID/map_files)
  uint32_t dev_major = 0, dev_minor = 0;
  uint64_t inode = 0;
  ModuleBounds bounds;
};

// Every ELF module of the map. `memory` reads the process (the ELF header
// and program headers of each module are read from it). A file that is no
// ELF module (a locale archive, a font) is skipped.
std::vector<Module> find_modules(const std::vector<Mapping>& maps, const MemorySource& memory);

}  // namespace covkit::live
