#pragma once
// Helpers of the sample tests that analyse real binaries: a C program
// built with gcc-12 in a directory of its own, and a recording of it made
// by hand whose one image maps the file's executable segments at their
// link addresses (a non-PIE program as it runs).
#include <string>

#include "format/sample_records.h"
#include "sample/binary_image.h"
#include "test_support.h"

namespace covkit::sample::test_programs {

struct BuiltProgram {
  covkit::testing::TempDir dir;
  std::string exe, why;  // why: what went wrong when build_program is false
};

// Writes `source` as dir/`file` and builds dir/prog with `flags`.
inline bool build_program(BuiltProgram& b, const char* source, const std::string& flags,
                          const std::string& file = "p.c") {
  if (covkit::testing::run_command("command -v gcc-12 >/dev/null") != 0) {
    b.why = "gcc-12 is not installed";
    return false;
  }
  covkit::testing::write_text(b.dir / file, source);
  b.exe = b.dir / "prog";
  std::string out;
  if (covkit::testing::run_command("cd '" + b.dir.path() + "' && gcc-12 " + flags + " -o prog " + file, &out) != 0) {
    b.why = "gcc-12 failed: " + out;
    return false;
  }
  return true;
}

inline format::SampleRecording identity_recording(const BinaryImage& img, const std::string& path) {
  format::SampleRecording r;
  r.mode = "breakpoint";
  format::SampleImage image;
  image.id = 0;
  for (const LoadSegment& s : img.segments())
    if (s.executable) image.mappings.push_back({s.vaddr, s.vaddr + s.mem_size, s.offset, path, img.build_id()});
  r.images.push_back(image);
  return r;
}

}  // namespace covkit::sample::test_programs
