#pragma once
// Where `covkit sample record --mode breakpoint` plants its one-shot int3s:
// per module, ELF virtual addresses (as the file's symbols and the CFG
// analysis name them, before any load bias). The recorder asks a provider
// for each module it finds mapped executable in a traced process, so
// libraries loaded late (dlopen) get their plan when they appear.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/sample_records.h"
#include "live/elf_image.h"
#include "util/expected.h"

namespace covkit::sample {

struct ModulePlan {
  std::string path;      // matched when build_id is empty or the module has none
  std::string build_id;  // lower-case hex; preferred over the path
  std::vector<uint64_t> vaddrs;
};

// A plan computed ahead of the run (by the CFG analysis, for instance).
struct BreakpointPlan {
  std::vector<ModulePlan> modules;
  // The module's entry: by build-id when both sides have one, else by path.
  const ModulePlan* find(const std::string& path, const std::string& build_id) const;
};

// The module as the recorder found it mapped: its path (as /proc/PID/maps
// names it) and build-id ("" when none), and `file`: the recorder's
// descriptor of the file the process maps (MappedModule::file()), which
// root's own reads of the module go through, never the path, which the
// process's owner may point at another file; "" for a plan asked for by
// name. (The analysis reads the path with the rights of the process's
// owner: util::read_named_file.)
struct ModuleIdentity {
  std::string path;
  std::string build_id;
  std::string file;
  const std::string& read_by() const { return file.empty() ? path : file; }
};

// The ELF addresses to plant in one module; empty to leave it alone. An
// error becomes a warning of the recording and the module is not planted.
using BreakpointProvider = std::function<Expected<std::vector<uint64_t>>(const ModuleIdentity&)>;

// Serves a precomputed plan; modules it does not list get no breakpoint.
BreakpointProvider plan_provider(BreakpointPlan plan);
// Function-level coverage with no analysis: every function entry of the
// module's symbol table (see elf_module_file.h). `only`, when not empty,
// restricts it to the modules whose path is listed (a program without its
// libraries, say).
BreakpointProvider function_entry_provider(std::vector<std::string> only = {});

// ELF virtual address <-> address in the process, for one module: `loads`
// are its PT_LOAD segments, `mappings` the process's executable mappings of
// its file. nullopt when the address is in no executable segment or that
// part of the file is not mapped (PIE or not, the file offset decides).
std::optional<uint64_t> file_to_runtime(uint64_t vaddr, std::span<const live::LoadSegment> loads,
                                        std::span<const format::SampleMapping> mappings);
std::optional<uint64_t> runtime_to_file(uint64_t address, std::span<const live::LoadSegment> loads,
                                        std::span<const format::SampleMapping> mappings);

}  // namespace covkit::sample
