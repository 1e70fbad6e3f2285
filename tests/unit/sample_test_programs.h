#pragma once
// Helpers of the sample tests that analyse real binaries: a C program
// built with gcc-12 in a directory of its own, and a recording of it made
// by hand whose one image maps the file's executable segments at their
// link addresses (a non-PIE program as it runs).
#include <cstdint>
#include <map>
#include <string>

#include "format/sample_records.h"
#include "sample/binary_image.h"
#include "sample/sample_analysis.h"
#include "test_support.h"

namespace covkit::sample::test_programs {

// used() runs, never() does not (unless argc > 100), main calls printf.
inline constexpr const char* kUsedNeverProgram =
    "#include <stdio.h>\n"                                           // 1
    "__attribute__((noinline)) int used(int x) {\n"                  // 2
    "  return x * 3 + 1;\n"                                          // 3
    "}\n"                                                            // 4
    "__attribute__((noinline)) int never(int x) {\n"                 // 5
    "  return x * 7 - 2;\n"                                          // 6
    "}\n"                                                            // 7
    "int main(int argc, char **argv) {\n"                            // 8
    "  (void)argv;\n"                                                // 9
    "  if (argc > 100) return never(argc);\n"                        // 10
    "  printf(\"%d\\n\", used(argc));\n"                             // 11
    "  return 0;\n"                                                  // 12
    "}\n";                                                           // 13

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

// The line counts of `source` (its path relative to the program's
// directory) after analyze_recording(r) with dominator inference: -1 for
// a line not listed; empty, with `error` set, when the analysis failed or
// the file is not in its coverage.
inline std::map<uint32_t, int64_t> analyzed_lines(const format::SampleRecording& r, const BuiltProgram& b,
                                                  const std::string& source, std::string& error) {
  AnalysisOptions opt;
  opt.inference = InferenceMode::dominators;
  opt.source_root = b.dir.path();
  auto cov = analyze_recording(r, opt);
  if (!cov) {
    error = cov.error().message;
    return {};
  }
  for (const model::FileCov& f : cov->coverage.files)
    if (f.path == source) {
      std::map<uint32_t, int64_t> out;
      for (const model::LineCov& l : f.lines) out[l.number] = l.count;
      return out;
    }
  error = source + " is not in the analysis's coverage";
  return {};
}

// A line's count in `lines` (analyzed_lines), -1 when not listed.
inline int64_t count_of(const std::map<uint32_t, int64_t>& lines, uint32_t line) {
  auto it = lines.find(line);
  return it == lines.end() ? -1 : it->second;
}

}  // namespace covkit::sample::test_programs
