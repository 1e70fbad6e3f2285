#pragma once
// What the breakpoint recorder needs from a module's file on disk: where its
// segments load (to turn the plan's ELF addresses into the process's), its
// build-id (to name it in the recording) and a few symbols (function
// entries for the fallback plan, the dynamic linker's _dl_debug_state).
// Read with libelf. A module of a process is read from the file the process
// maps (open_mapped_module), never by the path /proc/PID/maps names, which
// the process's owner may point at another file (a binary only root may
// read) between covkit's reading of the maps and its open.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "live/elf_image.h"
#include "live/module_file.h"
#include "live/process_maps.h"
#include "sample/function_symbol.h"
#include "util/expected.h"

namespace covkit::sample {

struct ElfModuleFile {
  uint16_t type = 0;                     // ET_EXEC or ET_DYN
  std::vector<live::LoadSegment> loads;  // PT_LOAD, in file order
  std::string build_id;                  // lower-case hex; empty when the file has none
};

Expected<ElfModuleFile> read_elf_module(const std::string& path);

// A module of a process, open: the file of its mapping's device and inode
// (live::open_mapped_file). The readers read it by file(), its descriptor's
// name in /proc/self/fd, while this lives; messages name `path`.
struct MappedModule {
  std::string path;  // as the process's maps name it
  live::OpenedModule opened;
  std::string file() const;
};
// An error naming the module when no file of the mapping's device and inode
// can be opened (its path names another file by now and the process no
// longer maps it there, or covkit may not reach /proc/PID/map_files).
Expected<MappedModule> open_mapped_module(pid_t pid, const live::Mapping& m);
Expected<MappedModule> open_mapped_module(pid_t pid, uint64_t start, uint64_t end, uint32_t dev_major,
                                          uint32_t dev_minor, uint64_t inode, const std::string& path);
Expected<ElfModuleFile> read_elf_module(const MappedModule& module);
// An error of a reader given module.file(), its name there replaced by the module's path.
Error named_for(Error e, const MappedModule& module);

// The build-id of the file at `path` as it is now; "" when it has none or
// cannot be read with the rights of the data's owners (util/foreign_data.h:
// the path comes from data, a perf.data's MMAP records).
std::string file_build_id(const std::string& path);

// The file's functions and symbols (format/elf_symbols.h), as the recorder
// has always named them.
using format::function_entries;
using format::function_symbols;
using format::symbol_address;

}  // namespace covkit::sample
