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
#include <string>
#include <vector>

#include "live/profraw_image.h"
#include "live/snapshot.h"
#include "util/expected.h"

namespace covkit::live {

struct ClangModule {
  std::string path;  // as /proc/PID/maps names it
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
};

// Whether a module of the process has clang's profile sections (looked at
// while it runs, damaged ones included; an error when its maps cannot be read).
Expected<bool, SnapshotError> has_clang_profile(pid_t pid);

// The whole operation: find, stop, read, (write,) reset, resume.
Expected<ClangCapture, SnapshotError> capture_clang(pid_t pid, const ClangCaptureOptions& options);

}  // namespace covkit::live
