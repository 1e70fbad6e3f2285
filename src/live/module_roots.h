#pragma once
// Where each module keeps its libgcov root (__gcov_root: the head of the
// list of its objects' gcov_info records, and the dumped/run_counted flags).
// Three ways, in order:
//   1. the module file's .symtab names __gcov_root (any unstripped build);
//   2. a module's .dynsym names __gcov_master (every shared library built
//      with --coverage exports it, and so does an executable that such a
//      library was linked against): the master's root and the roots' own
//      next links reach every registered module of the process, stripped
//      executables included;
//   3. otherwise the module's writable data is scanned for gcov_info records
//      that validate completely, the head of their list is the one no other
//      record links to, and the root is the one word of the module that
//      points at that head.
// Nothing found in a module means it was not built with --coverage.
#include <sys/types.h>

#include <string>
#include <vector>

#include "live/memory_source.h"
#include "live/process_modules.h"

namespace covkit::live {

enum class RootSource { kSymtab, kMasterChain, kScan };
const char* root_source_name(RootSource s);

struct ModuleRoot {
  size_t module = 0;  // index into the modules given
  uint64_t address = 0;
  RootSource source = RootSource::kSymtab;
};

// `pid` names the process whose files are opened through /proc/PID/
// (map_files, root) so that a rebuilt or deleted file is never mistaken for
// the one mapped: a file whose device and inode differ is not used.
std::vector<ModuleRoot> find_roots(pid_t pid, const std::vector<Module>& modules, const MemorySource& memory);

// Step 3 alone, on one module (exposed for tests).
std::optional<uint64_t> scan_for_root(const Module& module, const MemorySource& memory);

}  // namespace covkit::live
