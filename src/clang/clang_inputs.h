#pragma once
// What `covkit report` and `covkit merge` read of clang's source-based
// coverage: profiles (.profraw as programs write them, .profdata as
// llvm-profdata writes them) and the binaries whose coverage mapping says
// what the counters count. Found among the paths given: files are taken for
// what their first bytes say; directories are searched for profiles (by
// name) and, unless binaries were named, for executables and shared
// libraries that hold a coverage mapping (by content).
#include <cstddef>
#include <string>
#include <vector>

#include "clang/function_records.h"
#include "clang/profile_counts.h"
#include "clang/profile_names.h"

namespace covkit::clang {

struct ClangInputs {
  std::vector<std::string> profiles;
  std::vector<std::string> binaries;
  bool empty() const { return profiles.empty() && binaries.empty(); }
};

// `binaries` given (--object) are taken as they are and no directory is
// searched for more.
ClangInputs find_clang_inputs(const std::vector<std::string>& paths, const std::vector<std::string>& binaries);

// Named .profraw or .profdata.
bool profile_name(const std::string& name);

enum class FileKind { kOther, kProfraw, kProfdata, kElf };
// By the first bytes (nullopt-like kOther when unreadable).
FileKind file_kind(const std::string& path);
// The same of a file already open (read from its start, its offset kept).
FileKind file_kind(int fd);

struct LoadedProfiles {
  ProfileCounts counts;
  std::vector<std::string> warnings;  // "FILE: what", one line each
  size_t read = 0, damaged = 0;
};
// Reads every profile and adds them up as llvm-profdata merge does; a
// damaged or unreadable one is a warning and left out, an empty one (its
// process died before writing it) silently, as llvm-profdata skips it.
// Files are read on up to `threads` threads, added up in their order.
// `names`: names decoded once for the profiles and the binaries of one run.
LoadedProfiles load_profiles(const std::vector<std::string>& files, unsigned threads = 1,
                             NameTableCache* names = nullptr);

struct LoadedMappings {
  CoverageSet set;
  std::vector<std::string> warnings;
  size_t read = 0, damaged = 0, without_mapping = 0;
};
// Reads each binary's coverage mapping and counts it against `profile`.
LoadedMappings load_mappings(const std::vector<std::string>& binaries, const ProfileCounts& profile,
                             unsigned threads = 1, NameTableCache* names = nullptr);

}  // namespace covkit::clang
