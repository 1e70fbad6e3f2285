#pragma once
// The contents of a .gcno ("notes") file, as recorded by the compiler: one
// entry per instrumented function with its basic blocks, arcs and the source
// lines of each block. Nothing here is interpreted; see model/ for that.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "format/gcov_version.h"
#include "format/parse_error.h"

namespace covkit::format {

// Line numbers above this are treated as corruption: real sources stay far
// below it, and per-line tables of hostile files must not exhaust memory.
inline constexpr uint32_t kMaxLineNumber = 1u << 23;

struct NotesArc {
  uint32_t dst = 0;
  uint32_t flags = 0;  // kArcOnTree | kArcFake | kArcFallthrough
};

struct NotesArcs {  // one ARCS record: all arcs leaving one block
  uint32_t src = 0;
  std::vector<NotesArc> arcs;
};

struct NotesLocation {  // a file switch inside a LINES record and the lines after it
  uint32_t file = 0;  // index into NotesFile::files (most records name the same few files)
  std::vector<uint32_t> lines;
};

struct NotesLines {  // one LINES record
  uint32_t block = 0;
  std::vector<NotesLocation> locations;
};

struct NotesFunction {
  uint32_t ident = 0;
  uint32_t lineno_checksum = 0;
  uint32_t cfg_checksum = 0;
  std::string name;
  bool artificial = false;
  std::string source;
  uint32_t start_line = 0, start_column = 0, end_line = 0, end_column = 0;
  std::optional<uint32_t> num_blocks;  // from the BLOCKS record
  int extra_blocks_records = 0;        // BLOCKS records after the first (gcov warns)
  std::vector<NotesArcs> arcs;
  std::vector<NotesLines> lines;
};

struct NotesFile {
  GcovVersion version;
  bool swapped = false;  // written on a machine of the other byte order
  uint32_t stamp = 0;
  uint32_t checksum = 0;  // GCC >= 12 only
  std::string cwd;
  bool has_unexecuted_blocks = false;
  std::vector<NotesFunction> functions;
  // The file names of the LINES records, each once, in order of first mention.
  std::vector<std::string> files;
  // Set when the file is corrupt: `functions` holds what was read before it.
  std::optional<ParseError> error;
};

}  // namespace covkit::format
