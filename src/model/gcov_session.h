#pragma once
// gcov's way of turning notes and data files into per-line coverage of source
// files, as one object: read objects (in parallel), attach counters, solve the
// graphs, place blocks on lines and count each line. One session is what one
// gcov run accumulates (all objects in text mode; one object at a time in JSON
// mode). Renderers in report/ read the result.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "format/gcda_reader.h"
#include "format/gcno_reader.h"
#include "model/function_graph.h"
#include "model/line_cycles.h"
#include "model/session_diagnostics.h"
#include "model/source_table.h"
#include "util/expected.h"

namespace covkit::model {

struct ArcRef {
  const Function* fn = nullptr;
  const Arc* arc = nullptr;
};

// A line's lists are views into two arrays of the session's, one piece per
// line (two vectors per line were two allocations each, and a line table of
// 64-byte entries for every line of every header: a third of jsoncpp's page
// faults).
struct LineInfo {
  int64_t count = 0;
  std::span<ArcRef> branches;       // arcs leaving blocks that end on this line
  std::span<LineBlockRef> blocks;   // blocks that end on this line
  bool exists = false;
  bool unexceptional = false;
  bool has_unexecuted_block = false;
};

// A function as a gcov run sees it: the graph plus its place among the others.
struct SessionFunction {
  Function fn;
  std::string demangled;  // filled when a renderer needs it
  bool is_group = false;  // shares its first line with another function (templates, C1/C2 ctors)
  uint32_t blocks_executed = 0;
  std::vector<LineInfo> lines;  // only for group functions: lines start_line..end_line

  bool group_line(uint32_t line, uint32_t src) const {
    return is_group && fn.source == src && fn.start_line <= line && line <= fn.end_line;
  }
  // The line is one of `lines` (a group function's own, once they are sized).
  bool owns_line(uint32_t line, uint32_t src) const {
    return group_line(line, src) && line - fn.start_line < lines.size();
  }
};

// gcov's order of functions: by first line, then column. Sorted with std::sort
// (not stable_sort) so that ties come out in the order gcov's own sort leaves them.
void sort_by_start(std::span<SessionFunction*> fns);

struct CoverageSummary {
  int lines = 0, lines_executed = 0;
  int branches = 0, branches_executed = 0, branches_taken = 0;
  int calls = 0, calls_executed = 0;
};

// A source's lines by number. Most lines of a header have no code (the
// standard headers jsoncpp's test runner includes: 800 lines with code of
// 20,800 up to each one's last): each line number holds only the index of
// its entry, and only lines that blocks are placed on have one (a table of
// 48-byte entries for every line was a quarter of that run's page faults).
class LineTable {
 public:
  // Line numbers below this may have an entry.
  size_t size() const { return slot_.size(); }
  // Line `ln` (< size()): its entry, or an empty line without one.
  const LineInfo& operator[](size_t ln) const {
    const uint32_t s = slot_[ln];
    return s ? entries_[s - 1] : kNoLine;
  }
  // The entry of line `ln` (< size()), or nullptr.
  LineInfo* find(size_t ln) {
    const uint32_t s = ln < slot_.size() ? slot_[ln] : 0;
    return s ? &entries_[s - 1] : nullptr;
  }
  // The entry of line `ln` (< size()), made if it has none; making one
  // may move the others.
  LineInfo& make(size_t ln) {
    uint32_t& s = slot_[ln];
    if (!s) {
      entries_.emplace_back();
      s = uint32_t(entries_.size());
    }
    return entries_[s - 1];
  }
  // Grows the table to `n` line numbers (never shrinks it).
  void grow(size_t n) {
    if (n > slot_.size()) slot_.resize(n, 0);
  }
  // Line `ln` (< size()) is to have an entry: made, with the other lines
  // marked since, by make_marked (all at once: one allocation), which
  // keeps room for `room_after` entries more, made later without moving
  // the others.
  void mark(size_t ln) {
    if (!slot_[ln]) {
      slot_[ln] = kMarked;
      ++marked_;
    }
  }
  void make_marked(size_t room_after = 0);
  // Every entry, in no particular order.
  std::span<LineInfo> entries() { return entries_; }
  std::span<const LineInfo> entries() const { return entries_; }

 private:
  static const LineInfo kNoLine;
  static constexpr uint32_t kMarked = UINT32_MAX;
  std::vector<uint32_t> slot_;  // per line number: 1 + index into entries_, or 0
  std::vector<LineInfo> entries_;
  size_t marked_ = 0;  // slots kMarked (counted as marked: make_marked reserves for them without a scan)
};

struct SourceCoverage {
  LineTable lines;  // indexed by line number
  CoverageSummary coverage;
  uint32_t maximum_count = 0;  // 32 bits, as gcov keeps it (it only steers hotness colours)
  std::vector<SessionFunction*> functions;
  // `functions` by first line, each line's in their order in `functions`:
  // functions_at's lists are pieces of it (a hash map of a vector per line
  // was two allocations a function, ~700 of tinyxml2.cpp's 5,300).
  std::vector<SessionFunction*> by_start_line;
  // starts[line]: some function starts there. Renderers ask for every line;
  // most have none, answered without a search.
  std::vector<bool> starts;
  // gcov's get_functions_at_location: sorts the functions starting at `line`
  // by (line, column) in place, as gcov does each time it asks (empty: none).
  std::span<SessionFunction*> functions_at(uint32_t line);
  // The same for a caller that asks in increasing order of lines (a
  // listing): `cursor` (0 at first) is kept between calls and moved past
  // the functions that start before `line`, so each line costs a compare
  // rather than a search (inline: most lines start none).
  std::span<SessionFunction*> functions_at(uint32_t line, size_t& cursor) {
    while (cursor < by_start_line.size() && by_start_line[cursor]->fn.start_line < line) ++cursor;
    if (cursor == by_start_line.size() || by_start_line[cursor]->fn.start_line != line) return {};
    return functions_from(cursor);
  }

 private:
  // The functions from by_start_line[first] on that start at its line, sorted.
  std::span<SessionFunction*> functions_from(size_t first);
};

// One command-line argument's files, read ahead of the sequential merge.
struct LoadedObject {
  std::string notes_name;  // the .gcno path gcov derives from the argument
  std::string data_name;   // the .gcda path
  // Notes: either parsed, or why not.
  bool notes_opened = false;
  std::string notes_open_error;  // why not, when not opened (for reports; gcov says less)
  int notes_errno = 0;           // and the errno then
  int64_t notes_mtime = 0;
  std::variant<std::monostate, format::NotesFile, format::HeaderError> notes;
  bool data_opened = false;
  std::optional<Error> data_open_error;  // exists but cannot be read (not set when absent)
  std::variant<std::monostate, format::DataFile, format::HeaderError> data;
  // Graphs built from the notes, with source indices into `local_names`,
  // as the session keeps them: it takes the whole array (a graph moved to
  // an allocation of its own each, and the array grown by doubling as the
  // notes were read, were two copies of every graph's fixed part).
  std::vector<SessionFunction> functions;
  std::vector<std::string> local_names;  // file names in order of first mention
};

// gcov's derivation of notes/data names from an argument and -o.
void derive_file_names(const std::string& arg, const std::string& object_directory, std::string& notes,
                       std::string& data);

// Reads and parses one object (thread-safe; touches no session state).
LoadedObject load_object(const std::string& arg, const std::string& object_directory);
// The same for a notes and a data file named directly (they may live in
// different trees); an empty data name means the object never ran. `counts`,
// when given, are the data file's contents already in memory (a live
// snapshot): the data file is then not read.
LoadedObject load_object_files(std::string notes_name, std::string data_name,
                               const format::DataFile* counts = nullptr);
// Its two halves, for a caller that has the notes' bytes already
// (model/notes_reuse.h): the graphs of `bytes` into obj.notes, functions and
// local_names; then obj.data_name (or `counts`) into obj.data, decoding the
// counters of obj.functions only.
void parse_notes(LoadedObject& obj, std::span<const uint8_t> bytes);
void load_data(LoadedObject& obj, const format::DataFile* counts = nullptr);

// What a gcov run carries from one argument to the next in JSON mode, where
// each argument is otherwise a session of its own.
struct SessionCarry {
  bool no_data_file = false;  // sticky: once a data file was missing
  std::optional<std::string> cwd;
  format::GcovVersion version = format::GcovVersion::from_gcc(12, 2);
  bool has_unexecuted_blocks = false;
  std::vector<std::string> processed_files;
};

// The carry after `obj` has been added (mirrors GcovSession::add_object).
SessionCarry advance_carry(SessionCarry carry, const LoadedObject& obj);

struct SessionOptions {
  std::string source_prefix;  // -s
  bool branches = false;      // -b: attach arcs to lines
  bool json = false;          // -j: group lines are not summed into the file's lines
  bool demangle = false;      // -m (names in messages)
  unsigned threads = 1;
  // As gcov: a .gcno or .gcda that is a directory, a device or a FIFO is a
  // file opened and found without magic ("not a gcov ... file"), not one
  // that could not be read (covkit report's words, which say why).
  bool special_files_as_gcov = false;
  // Shared by the sessions of one report: what the file system says of
  // each source name, asked once (nullptr: each session asks).
  SourceNameFacts* source_facts = nullptr;
};

class GcovSession {
 public:
  explicit GcovSession(SessionOptions opts, SessionCarry carry = {});

  // gcov's process_file: merges one loaded object into the session.
  void add_object(LoadedObject&& obj, const std::string& arg);
  // gcov's process_all_functions: groups, drops artificial functions, solves.
  void process_all_functions();
  // gcov's add_line_counts for every function; `summaries` receives, per
  // function in order, its name and line coverage (for -f).
  void add_line_counts(std::vector<std::pair<std::string, CoverageSummary>>* summaries);
  // gcov's accumulate_line_counts for one source.
  void accumulate(uint32_t src);
  // gcov's release_structures (JSON mode, between arguments).
  void release();
  // The graphs of the session's one object as its notes gave them (what
  // counting and solving changed put back: reset_to_notes), with the
  // object's own source indices, for another object of the same notes
  // (model/notes_reuse.h); the session has none left. Empty when the
  // session read another number of objects than one, or gave the object's
  // sources other indices than its own.
  std::vector<SessionFunction> take_notes_graphs();

  // What was wrong with the inputs, in order; drained by the caller.
  std::vector<Diagnostic> take_diagnostics() { return std::move(diagnostics_); }

  SourceTable& sources() { return sources_; }
  SourceCoverage& coverage(uint32_t src) { return coverage_[src]; }
  size_t source_count() const { return sources_.entries().size(); }
  const std::vector<SessionFunction*>& functions() const { return functions_; }
  const std::string& function_name(const SessionFunction& f) const;
  static const std::string& demangled_name(SessionFunction& f);

  // State gcov keeps across arguments and prints in headers.
  const std::string& notes_name() const { return bbg_file_name_; }
  const std::string& data_name() const { return da_file_name_; }
  bool no_data_file() const { return no_data_file_; }
  uint32_t object_runs() const { return object_runs_; }
  bool has_unexecuted_blocks() const { return bbg_supports_has_unexecuted_blocks_; }
  const std::optional<std::string>& notes_cwd() const { return bbg_cwd_; }
  const format::GcovVersion& version() const { return version_; }

 private:
  void read_notes(LoadedObject& obj);
  void read_counts(LoadedObject& obj);
  // The line `ln` of `source` as `sf` counts it (its own when a group
  // function's), or nullptr where no line was placed.
  LineInfo* line_at(SessionFunction& sf, uint32_t source, uint32_t ln, bool& own_line);
  void report(Diagnostic d) { diagnostics_.push_back(std::move(d)); }

  SessionOptions opts_;
  SourceTable sources_;
  std::vector<SourceCoverage> coverage_;
  std::vector<std::vector<SessionFunction>> storage_;  // each object's functions, never resized
  bool sources_as_read_ = true;  // every object's source indices are those its notes gave
  std::vector<SessionFunction*> functions_;  // gcov's `functions`, in reading order
  std::unordered_map<uint32_t, SessionFunction*> ident_to_fn_;
  // What the lines' lists view (add_line_counts gives each line its piece).
  std::vector<ArcRef> line_branches_;
  std::vector<LineBlockRef> line_blocks_;
  std::vector<std::string> processed_files_;
  std::vector<Diagnostic> diagnostics_;

  std::string bbg_file_name_, da_file_name_;
  int64_t bbg_file_time_ = 0;
  uint32_t bbg_stamp_ = 0;
  bool bbg_supports_has_unexecuted_blocks_ = false;
  std::optional<std::string> bbg_cwd_;
  bool no_data_file_ = false;  // sticky for the whole run, as in gcov
  uint32_t object_runs_ = 0;
  format::GcovVersion version_ = format::GcovVersion::from_gcc(12, 2);
};

}  // namespace covkit::model
