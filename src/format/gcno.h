#pragma once
// The contents of a .gcno ("notes") file, as recorded by the compiler: one
// entry per instrumented function with its basic blocks, arcs and the source
// lines of each block. Nothing here is interpreted; see model/ for that.
#include <cstdint>
#include <optional>
#include <span>
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

// The records of a function are pieces of a few flat arrays of the
// function's, which the reader reuses from function to function (a vector
// per record, per location and per line list were most of the reader's
// allocations). A record names its piece by first index and count; the
// function's *_of() view it.
struct NotesArcs {  // one ARCS record: all arcs leaving one block
  uint32_t src = 0;
  uint32_t first = 0, count = 0;  // in NotesFunction::arc_list
};

struct NotesLocation {  // a file switch inside a LINES record and the lines after it
  uint32_t file = 0;  // index into NotesFile::files (most records name the same few files)
  uint32_t first = 0, count = 0;  // in NotesFunction::line_list
};

struct NotesLines {  // one LINES record
  uint32_t block = 0;
  uint32_t first = 0, count = 0;  // in NotesFunction::location_list
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
  std::vector<NotesArcs> arcs;         // in the order of the file
  std::vector<NotesLines> lines;       // in the order of the file
  // What the records' pieces are of.
  std::vector<NotesArc> arc_list;
  std::vector<NotesLocation> location_list;
  std::vector<uint32_t> line_list;

  std::span<const NotesArc> arcs_of(const NotesArcs& rec) const { return piece(arc_list, rec.first, rec.count); }
  std::span<const NotesLocation> locations_of(const NotesLines& rec) const {
    return piece(location_list, rec.first, rec.count);
  }
  std::span<const uint32_t> lines_of(const NotesLocation& loc) const { return piece(line_list, loc.first, loc.count); }

  // Appending records (the reader, hand-built graphs): each adds to the
  // last record begun.
  void begin_arcs(uint32_t src) { arcs.push_back(NotesArcs{src, uint32_t(arc_list.size()), 0}); }
  void add_arc(uint32_t dst, uint32_t flags) {
    arc_list.push_back(NotesArc{dst, flags});
    ++arcs.back().count;
  }
  void begin_lines(uint32_t block) { lines.push_back(NotesLines{block, uint32_t(location_list.size()), 0}); }
  void begin_location(uint32_t file) {
    location_list.push_back(NotesLocation{file, uint32_t(line_list.size()), 0});
    ++lines.back().count;
  }
  void add_line(uint32_t line) {
    line_list.push_back(line);
    ++location_list.back().count;
  }

  // Empty again, keeping the arrays' memory for the next function.
  void clear();

 private:
  template <typename T>
  static std::span<const T> piece(const std::vector<T>& all, uint32_t first, uint32_t count) {
    return std::span<const T>(all.data() + first, count);
  }
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
