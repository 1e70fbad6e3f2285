#pragma once
// The file a module of a process was mapped from, opened through
// /proc/PID/map_files/ (which reaches it even when deleted or replaced) or
// the process's own root (a container), and used only when its device and
// inode are those of the mapping: a file rebuilt since the program started
// is never mistaken for the one it runs. Mapped, so that only the pages of
// its headers and tables are ever read.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "live/process_modules.h"
#include "util/mapped_file.h"
#include "util/unique_fd.h"

namespace covkit::live {

class ModuleFile {
 public:
  ModuleFile(int fd, size_t size, const std::string& path);
  ModuleFile(const ModuleFile&) = delete;
  ModuleFile& operator=(const ModuleFile&) = delete;
  ~ModuleFile();
  std::span<const uint8_t> bytes() const;

 private:
  util::Mapping mapping_;
  std::vector<uint8_t> copy_;  // when it could not be mapped
};

// The mapped file, open: a regular file of the mapping's device and inode,
// reached through `path` (map_files, or the process's root and the module's
// path). Whoever must read the module again later (the report of `live
// report`) reads it through this descriptor, never by its path, which the
// process's owner may point at another file at any time.
struct OpenedModule {
  util::UniqueFd fd;
  size_t size = 0;
  std::string path;
};
// nullopt when no file of the mapping's device and inode can be opened.
std::optional<OpenedModule> open_module_file(pid_t pid, const Module& m);

// The file of one mapping of process `pid` (start-end, and the device and
// inode /proc/PID/maps or perf's MMAP2 record gives): through
// /proc/PID/map_files, else the process's root and `path`, else `path`
// itself (a process gone by then: perf's records are read later), each
// used only when it is a regular file of that device and inode. Each name
// is opened O_PATH and looked at first: a device or FIFO its owner put at
// the path is never opened. nullopt when no name leads to that file.
std::optional<OpenedModule> open_mapped_file(pid_t pid, uint64_t start, uint64_t end, uint32_t dev_major,
                                             uint32_t dev_minor, uint64_t inode, const std::string& path);
std::optional<OpenedModule> open_mapped_file(pid_t pid, const Mapping& m);

// nullptr when no file of the mapping's device and inode can be opened.
std::unique_ptr<ModuleFile> module_file(pid_t pid, const Module& m);

}  // namespace covkit::live
