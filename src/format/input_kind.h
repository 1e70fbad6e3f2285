#pragma once
// What a path given to a command holds, as far as its names and first bytes
// tell: every command that is handed the wrong kind of file or directory
// says what it is and which command reads it ("trace/ is a covkit trace
// recording (covkit trace record): covkit trace report trace/"), instead of
// "not a recording" or an empty result. Bounded: a directory is looked at
// one level deep and a few thousand entries at most; a file's first 4 KiB.
#include <string>

namespace covkit::format {

enum class InputKind {
  missing,           // nothing there
  trace_recording,   // covkit trace record -o DIR
  sample_recording,  // covkit sample record -o DIR
  html_site,         // covkit report --html DIR
  build_tree,        // .gcno files (and maybe .gcda)
  data_tree,         // .gcda files only (a snapshot, a GCOV_PREFIX run)
  notes_file,        // a .gcno
  data_file,         // a .gcda
  trace_stream,      // one thread's .ckt of a trace recording
  perf_data,         // perf record's perf.data
  gmon_out,          // gprof's gmon.out
  lcov_tracefile,    // TN:/SF: records
  covkit_json,       // covkit report --json
  elf,               // a program or library
  other_directory,
  other_file,
};

struct InputDescription {
  InputKind kind = InputKind::missing;
  std::string what;    // "a covkit trace recording (covkit trace record)"
  std::string reader;  // "covkit trace report", or "" when no command reads it as a whole
};

InputDescription describe_input(const std::string& path);

// " (it is a covkit trace recording (covkit trace record): covkit trace
// report PATH)" for a path of another kind than `wanted`, "" when it is of
// that kind (or one its reader takes alike: any of covkit report's trees
// and files; a sample recording or a perf.data) or of none covkit knows.
std::string wrong_kind_hint(const std::string& path, InputKind wanted);

}  // namespace covkit::format
