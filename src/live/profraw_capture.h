#pragma once
// A running process built with clang's source-based coverage
// (-fprofile-instr-generate): each module that carries the profile runtime
// (its __llvm_prf_cnts section and __llvm_profile_raw_version), found
// through its ELF file's section headers plus the load bias, and, with every
// thread stopped (process_stop.h), the .profraw each module's runtime would
// write at that instant (profraw_image.h), its counters optionally zeroed in
// the same stop, as __llvm_profile_reset_counters() would.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "live/profraw_image.h"
#include "live/snapshot.h"
#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::live {

struct ClangModule {
  std::string path;  // as /proc/PID/maps names it
  // The file mapped, checked against the mapping's device and inode and
  // kept open: the path may name another file by the time it is read again.
  std::shared_ptr<const util::UniqueFd> file;
  ProfileSections sections;
  ProfrawImage image;  // after the read
};

struct ClangCaptureOptions {
  bool stop = true;
  bool reset = false;  // zero the counters in the same stop
  // In the stop, after the read and before the reset: what was read is
  // written out first, so that a file that cannot be written leaves the
  // counters as they were. An error here resumes the process untouched.
  std::function<Expected<void>(const std::vector<ClangModule>&)> before_reset;
};

struct ClangCapture {
  pid_t pid = 0;
  std::vector<ClangModule> modules;
  bool stopped = false;
  size_t threads = 0;
  std::chrono::nanoseconds pause{0};
  // Modules whose file could not be checked against the mapping (replaced
  // since the process started, and /proc/PID/map_files not readable): not
  // read, so a profile they might hold is missing. One line each.
  std::vector<std::string> unverified;
};

// Whether a module of the process has clang's profile sections (looked at
// while it runs, damaged ones included; an error when its maps cannot be read).
Expected<bool, SnapshotError> has_clang_profile(pid_t pid);

// The whole operation: find, stop, read, (write,) reset, resume.
Expected<ClangCapture, SnapshotError> capture_clang(pid_t pid, const ClangCaptureOptions& options);

}  // namespace covkit::live
