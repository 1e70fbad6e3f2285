#include "model/gcov_session.h"


#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "format/gcov_tags.h"
#include "model/counts.h"
#include "model/flow_solver.h"
#include "util/demangle.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/thread_pool.h"

namespace covkit::model {

void sort_by_start(std::span<SessionFunction*> fns) {
  std::sort(fns.begin(), fns.end(), [](const SessionFunction* a, const SessionFunction* b) {
    return a->fn.start_line == b->fn.start_line ? a->fn.start_column < b->fn.start_column
                                                : a->fn.start_line < b->fn.start_line;
  });
}

const LineInfo LineTable::kNoLine{};

void LineTable::make_marked(size_t room_after) {
  entries_.reserve(entries_.size() + marked_ + room_after);
  marked_ = 0;
  for (uint32_t& s : slot_)
    if (s == kMarked) {
      entries_.emplace_back();
      s = uint32_t(entries_.size());
    }
}

namespace {

// The functions of `by_start` from `first` on that start at `line`, sorted
// as gcov sorts them each time it asks.
std::span<SessionFunction*> starting_at(std::vector<SessionFunction*>& by_start,
                                        std::vector<SessionFunction*>::iterator first, uint32_t line) {
  auto last = first;
  while (last != by_start.end() && (*last)->fn.start_line == line) ++last;
  const std::span<SessionFunction*> fns(first, last);
  sort_by_start(fns);
  return fns;
}

}  // namespace

std::span<SessionFunction*> SourceCoverage::functions_at(uint32_t line) {
  if (line >= starts.size() || !starts[line]) return {};
  auto first = std::partition_point(by_start_line.begin(), by_start_line.end(),
                                    [line](const SessionFunction* f) { return f->fn.start_line < line; });
  return starting_at(by_start_line, first, line);
}

std::span<SessionFunction*> SourceCoverage::functions_from(size_t first) {
  return starting_at(by_start_line, by_start_line.begin() + std::ptrdiff_t(first),
                     by_start_line[first]->fn.start_line);
}

void derive_file_names(const std::string& arg, const std::string& object_directory, std::string& notes,
                       std::string& data) {
  std::string name;
  bool base = false;
  if (!object_directory.empty()) {
    name = object_directory;
    base = util::is_directory(object_directory);
    if (base && name.back() != '/') name += '/';
  } else {
    name = arg;
  }
  if (base) {
    size_t slash = arg.rfind('/');
    name += slash == std::string::npos ? arg : arg.substr(slash + 1);
  }
  // Strip the extension of the last path component.
  size_t slash = name.rfind('/');
  size_t dot = name.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) name.resize(dot);
  notes = name + ".gcno";
  data = name + ".gcda";
}

LoadedObject load_object(const std::string& arg, const std::string& object_directory) {
  std::string notes, data;
  derive_file_names(arg, object_directory, notes, data);
  return load_object_files(std::move(notes), std::move(data));
}

namespace {

// Below this many blocks in all, a session's flow graphs are solved on one
// thread (thread_pool.cc keeps its workers, but the first one is started by
// the first parallel round: its stack, TLS and a clone).
constexpr size_t kParallelSolveBlocks = 4096;

// A path that exists but is no regular file: a directory, a device, a link
// to one, a FIFO. gcov opens it and finds no magic ("not a gcov notes/data
// file"); covkit reads none of them (a FIFO could block it for ever) and
// says what gcov says.
bool opened_by_gcov_without_magic(const std::string& path) {
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  return !ec && type != std::filesystem::file_type::regular && type != std::filesystem::file_type::not_found;
}

// Why a notes file cannot be read, in words a user can act on. A
// kernel-style tree (/sys/kernel/debug/gcov) holds links into the build
// tree: one that leads nowhere means the build tree moved or is gone.
std::string notes_unreadable_reason(const std::string& path, const Error& error) {
  std::error_code ec;
  if (!std::filesystem::is_symlink(path, ec)) return error.message;
  const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
  if (ec) return error.message;
  return fmt::format("a symbolic link to {}: {} (a kernel-style tree links into the build tree, which must stay "
                     "where it was built)",
                     target.string(), error.message);
}

}  // namespace

LoadedObject load_object_files(std::string notes_name, std::string data_name, const format::DataFile* counts) {
  LoadedObject obj;
  obj.notes_name = std::move(notes_name);
  obj.data_name = std::move(data_name);
  // Notes are often named by the data (a running process's .gcda names):
  // read with the rights of the data's owners (util/foreign_data.h).
  auto notes_bytes = util::read_named_file(obj.notes_name);
  if (notes_bytes) util::note_data_file(obj.notes_name, *notes_bytes);
  if (!notes_bytes) {
    obj.notes_open_error = notes_unreadable_reason(obj.notes_name, notes_bytes.error());
    obj.notes_errno = notes_bytes.error().errno_value;
  }
  if (auto& bytes = notes_bytes) {
    obj.notes_opened = true;
    obj.notes_mtime = bytes->mtime();
    parse_notes(obj, bytes->bytes());
  }
  load_data(obj, counts);
  return obj;
}

void parse_notes(LoadedObject& obj, std::span<const uint8_t> bytes) {
  // Graphs are built here, in parallel with other objects; source names
  // become indices into local_names, remapped when merged.
  std::unordered_map<std::string, uint32_t> local;
  // Most LINES records name the file the one before named: compared,
  // not hashed (a path of some 60 bytes for each of 10^4-10^5 records).
  const std::string* last_name = nullptr;
  uint32_t last_index = 0;
  auto source_of = [&](const std::string& name) -> uint32_t {
    if (last_name && *last_name == name) return last_index;
    auto [it, fresh] = local.emplace(name, uint32_t(obj.local_names.size()));
    if (fresh) obj.local_names.push_back(name);
    last_name = &it->first;
    last_index = it->second;
    return last_index;
  };
  // A location names its file by an index into the notes' files: each
  // looked up once.
  std::vector<uint32_t> file_source;
  // Each function's graph is built as soon as its records are read, and
  // the reader reuses the records' arrays for the next function: its
  // records and graph reuse that memory instead of fresh pages (the records of a whole file, then its
  // graphs, took two fifths of jsoncpp's page faults). The graphs hold
  // everything gcov's rules need; clang's notes are read by llvm-cov's
  // rules too (model/llvm_gcov.h), from the records, so clang's functions
  // are kept and their graphs built from copies.
  auto take = [&](const format::NotesFile& nf, format::NotesFunction& f) {
    auto location_source_of = [&](uint32_t file) -> uint32_t {
      if (file >= file_source.size()) file_source.resize(nf.files.size(), UINT32_MAX);
      uint32_t& known = file_source[file];
      if (known == UINT32_MAX) known = source_of(nf.files[file]);
      return known;
    };
    obj.functions.emplace_back().fn = build_function(f, source_of, location_source_of);
    return !nf.version.is_gcc48();
  };
  // Room for as many functions as a file of this size usually holds
  // (GCC writes ~800 bytes a function, and more): memory reserved and
  // never written is no page of the process's. Capped: a huge or
  // hostile file grows the array as it is read.
  obj.functions.reserve(std::min<size_t>(bytes.size() / 128 + 16, size_t(1) << 16));
  auto res = format::read_notes(bytes, take);
  if (!res)
    obj.notes = res.error();
  else
    obj.notes = std::move(*res);
}

void load_data(LoadedObject& obj, const format::DataFile* counts) {
  if (obj.data_name.empty()) return;
  if (counts) {
    obj.data_opened = true;
    obj.data = *counts;
    return;
  }
  // Through another user's link: read with that user's rights (they chose
  // the file; util/foreign_data.h).
  auto bytes = util::read_input_file(obj.data_name);
  if (bytes) util::note_data_file(obj.data_name, *bytes);
  if (!bytes) {
    // Absent is how an object that never ran looks; anything else (no
    // permission, a FIFO, a device) is a run's counts that cannot be read.
    if (bytes.error().errno_value != ENOENT) obj.data_open_error = bytes.error();
    return;
  }
  obj.data_opened = true;
  // Only the arc counters of the notes' functions are used, and only when
  // they have the notes' number of them (gcov's rule): nothing else is
  // decoded, so a huge or hostile data file costs no memory.
  std::vector<std::pair<uint32_t, size_t>> arc_counts;
  arc_counts.reserve(obj.functions.size());
  for (const SessionFunction& f : obj.functions) arc_counts.emplace_back(f.fn.ident, f.fn.counts.size());
  const format::ArcCounts arcs(std::move(arc_counts));
  format::DataReadLimits limits;
  limits.arcs_by_function = &arcs;
  limits.everything = false;
  auto res = format::read_data(bytes->bytes(), limits);
  if (!res)
    obj.data = res.error();
  else
    obj.data = std::move(*res);
}

SessionCarry advance_carry(SessionCarry carry, const LoadedObject& obj) {
  auto& seen = carry.processed_files;
  if (std::find(seen.begin(), seen.end(), obj.data_name) != seen.end()) return carry;
  seen.push_back(obj.data_name);
  if (const auto* nf = std::get_if<format::NotesFile>(&obj.notes)) {
    carry.cwd = nf->cwd;
    carry.version = nf->version;
    carry.has_unexecuted_blocks = nf->has_unexecuted_blocks;
  }
  if (!obj.data_opened) carry.no_data_file = true;
  return carry;
}

GcovSession::GcovSession(SessionOptions opts, SessionCarry carry)
    : opts_(std::move(opts)),
      sources_(opts_.source_prefix, opts_.source_facts),
      processed_files_(std::move(carry.processed_files)),
      bbg_supports_has_unexecuted_blocks_(carry.has_unexecuted_blocks),
      bbg_cwd_(std::move(carry.cwd)),
      no_data_file_(carry.no_data_file),
      version_(carry.version) {}

const std::string& GcovSession::demangled_name(SessionFunction& f) {
  if (f.demangled.empty()) f.demangled = util::demangle(f.fn.name);
  return f.demangled;
}

const std::string& GcovSession::function_name(const SessionFunction& f) const {
  return opts_.demangle ? demangled_name(const_cast<SessionFunction&>(f)) : f.fn.name;
}

void GcovSession::add_object(LoadedObject&& obj, const std::string& arg) {
  bbg_file_name_ = obj.notes_name;
  da_file_name_ = obj.data_name;
  bbg_file_time_ = 0;
  bbg_stamp_ = 0;
  if (std::find(processed_files_.begin(), processed_files_.end(), da_file_name_) != processed_files_.end()) {
    report({DiagnosticKind::kAlreadyProcessed, arg});
    return;
  }
  processed_files_.push_back(da_file_name_);
  read_notes(obj);
  read_counts(obj);
  // The counts are in the graphs now: the data file's records (a record
  // and a counter array per function) are freed here rather than with the
  // caller's object, so that the line tables and text made next reuse
  // their memory instead of touching fresh pages (tinyxml2.cpp: ~30 pages).
  obj.data = std::monostate{};
}

void GcovSession::read_notes(LoadedObject& obj) {
  if (!obj.notes_opened) {
    if (opts_.special_files_as_gcov && opened_by_gcov_without_magic(bbg_file_name_))
      report({DiagnosticKind::kNotNotes, bbg_file_name_});
    else
      report({DiagnosticKind::kNotesUnreadable, bbg_file_name_, {}, obj.notes_open_error});
    return;
  }
  bbg_file_time_ = obj.notes_mtime;
  if (auto* hdr = std::get_if<format::HeaderError>(&obj.notes)) {
    switch (hdr->problem) {
      case format::HeaderProblem::kNotThisKind: report({DiagnosticKind::kNotNotes, bbg_file_name_}); break;
      case format::HeaderProblem::kUnsupportedVersion:
        report({DiagnosticKind::kNotesUnsupported, bbg_file_name_, {}, hdr->message});
        break;
      case format::HeaderProblem::kTruncatedHeader:
        report({DiagnosticKind::kNotesTruncated, bbg_file_name_, {}, hdr->message});
        break;
    }
    return;
  }
  auto& nf = std::get<format::NotesFile>(obj.notes);
  version_ = nf.version;
  bbg_stamp_ = nf.stamp;
  bbg_cwd_ = nf.cwd;
  bbg_supports_has_unexecuted_blocks_ = nf.has_unexecuted_blocks;

  auto newer = [this](const std::string& spelling) {
    report({DiagnosticKind::kSourceNewer, spelling, {}, {}, bbg_file_name_});
  };
  std::vector<uint32_t> global(obj.local_names.size());
  bool as_read = true;  // this object's indices are the session's (a report's one object: always)
  for (size_t i = 0; i < obj.local_names.size(); ++i) {
    global[i] = sources_.find(obj.local_names[i], bbg_file_time_, newer);
    if (global[i] != i) as_read = sources_as_read_ = false;
  }
  coverage_.resize(sources_.entries().size());

  std::vector<SessionFunction>& kept = storage_.emplace_back(std::move(obj.functions));
  for (SessionFunction& sf : kept) {
    Function& g = sf.fn;
    if (!as_read) {  // else every index maps to itself: a walk of every location for nothing
      g.source = global[g.source];
      for (BlockLocation& loc : g.location_list) loc.source = global[loc.source];
    }
    functions_.push_back(&sf);
    ident_to_fn_[g.ident] = &sf;
  }
  if (nf.error)
    report({DiagnosticKind::kNotesCorrupt, bbg_file_name_, {}, nf.error->message, {}, nf.error->offset});
  if (functions_.empty()) report({DiagnosticKind::kNoFunctions, bbg_file_name_});
}

void GcovSession::read_counts(LoadedObject& obj) {
  if (!obj.data_opened) {
    if (opts_.special_files_as_gcov && obj.data_open_error && opened_by_gcov_without_magic(da_file_name_)) {
      report({DiagnosticKind::kNotData, da_file_name_});  // status 2, the file still named in the output
      return;
    }
    if (obj.data_open_error)
      report({DiagnosticKind::kDataUnreadable, da_file_name_, {}, obj.data_open_error->message});
    else
      report({DiagnosticKind::kDataMissing, da_file_name_});
    no_data_file_ = true;
    return;
  }
  if (auto* hdr = std::get_if<format::HeaderError>(&obj.data)) {
    switch (hdr->problem) {
      case format::HeaderProblem::kNotThisKind: report({DiagnosticKind::kNotData, da_file_name_}); break;
      case format::HeaderProblem::kUnsupportedVersion:
        report({DiagnosticKind::kDataUnsupported, da_file_name_, {}, hdr->message});
        break;
      case format::HeaderProblem::kTruncatedHeader:
        report({DiagnosticKind::kDataTruncated, da_file_name_, {}, hdr->message});
        break;
    }
    return;
  }
  auto& df = std::get<format::DataFile>(obj.data);
  if (df.version.raw != version_.raw)
    report({DiagnosticKind::kDataVersionMismatch, da_file_name_, {}, df.version.four_chars(), version_.four_chars()});
  if (df.stamp != bbg_stamp_) {
    report({DiagnosticKind::kStampMismatch, da_file_name_});
    return;
  }
  const bool bytes = df.version.lengths_in_bytes();
  SessionFunction* fn = nullptr;
  // A file cut inside a function record reads as a mismatch (gcov reads the
  // missing checksums as 0): the cut is still said, where it is. libgcov
  // writes an object summary first and a zero word last (the kernel writes
  // neither): a file with the one and without the other was cut short after
  // a whole record, which gcov reads, silently, as a shorter file. Either
  // writes a record for each function of the notes: a header alone is cut.
  const bool libgcov_file = std::any_of(df.records.begin(), df.records.end(), [](const format::DataRecord& r) {
    return r.kind == format::DataRecord::Kind::kSummary;
  }) || (df.records.empty() && !ident_to_fn_.empty());
  auto data_error = [&] {
    if (df.error)
      report({DiagnosticKind::kDataCorrupt, da_file_name_, {}, df.error->message, {}, df.error->offset});
    else if (!df.terminated && libgcov_file)
      report({DiagnosticKind::kDataCorrupt, da_file_name_, {},
              "the file ends where a record should start, without the zero word libgcov ends it with", {}, df.bytes_read});
  };
  auto mismatch = [&] {
    report({DiagnosticKind::kProfileMismatch, da_file_name_, function_name(*fn)});
    data_error();
  };
  for (const format::DataRecord& rec : df.records) {
    switch (rec.kind) {
      case format::DataRecord::Kind::kSummary:
        object_runs_ = rec.runs;
        break;
      case format::DataRecord::Kind::kFunction:
        if (rec.placeholder || !rec.has_ids) break;
        {
          auto it = ident_to_fn_.find(rec.ident);
          fn = it == ident_to_fn_.end() ? nullptr : it->second;
        }
        if (fn && (rec.lineno_checksum != fn->fn.lineno_checksum || rec.cfg_checksum != fn->fn.cfg_checksum)) {
          mismatch();
          return;
        }
        break;
      case format::DataRecord::Kind::kCounters: {
        if (!fn || rec.tag != format::kTagArcCounters) break;  // other kinds: value profiles
        uint64_t len = uint64_t(std::llabs(int64_t(int32_t(rec.length))));
        if (!bytes) len *= 4;
        // Counters not decoded (load_object_files decodes only those of this
        // object's own functions) can only belong to another object's
        // function of the same ident: a hostile file, called a mismatch.
        // A record the file ends inside keeps the counters present; gcov
        // reads the missing ones as 0 (rec.counters_missing).
        if (len != uint64_t(fn->fn.counts.size()) * 8 ||
            (!rec.all_zero && rec.counters.size() + rec.counters_missing != fn->fn.counts.size())) {
          mismatch();
          return;
        }
        if (!rec.all_zero)
          for (size_t i = 0; i < rec.counters.size(); ++i)
            fn->fn.counts[i] = add_counts(fn->fn.counts[i], rec.counters[i]);
        break;
      }
      case format::DataRecord::Kind::kOther:
        break;
    }
  }
  data_error();
}

void GcovSession::process_all_functions() {
  // Functions sharing a first line (template instantiations, C1/C2
  // constructors) form a group that gcov prints in sections. Found by
  // sorting one array (a map's node per function was an allocation each).
  struct Start {
    uint32_t source, line;
    SessionFunction* f;
  };
  std::vector<Start> starts;
  starts.reserve(functions_.size());
  for (SessionFunction* f : functions_)
    if (!f->fn.artificial) starts.push_back({f->fn.source, f->fn.start_line, f});
  std::sort(starts.begin(), starts.end(), [](const Start& a, const Start& b) {
    return a.source != b.source ? a.source < b.source : a.line < b.line;
  });
  for (size_t i = 1; i < starts.size(); ++i)
    if (starts[i].source == starts[i - 1].source && starts[i].line == starts[i - 1].line)
      starts[i].f->is_group = starts[i - 1].f->is_group = true;
  std::erase_if(functions_, [](SessionFunction* f) { return f->fn.artificial; });

  std::vector<SessionFunction*> to_solve;
  // Each source's line table is sized once, to its last line: grown
  // function by function, it was copied again for nearly every function.
  std::vector<uint32_t> last_line(coverage_.size(), 0);
  for (SessionFunction* f : functions_) {
    // Without counters the function was not in the executable: some other
    // instance was chosen. gcov still shows it when data files are missing.
    if (f->fn.counts.empty() && !no_data_file_) continue;
    SourceCoverage& home = coverage_[f->fn.source];
    home.functions.push_back(f);
    if (f->fn.start_line >= home.starts.size()) home.starts.resize(size_t(f->fn.start_line) + 1);
    home.starts[f->fn.start_line] = true;
    for (Block& b : f->fn.blocks)
      for (const BlockLocation& loc : b.locations) {
        // Sorted as read (place_locations), whether processed here or not.
        if (loc.lines.empty()) continue;
        uint32_t& last = last_line[loc.source];
        if (loc.lines.back() + 1 > last) last = loc.lines.back() + 1;
      }
    if (f->is_group && f->fn.end_line >= f->fn.start_line)
      f->lines.resize(size_t(f->fn.end_line - f->fn.start_line) + 1);
    to_solve.push_back(f);
  }
  for (size_t s = 0; s < coverage_.size(); ++s) coverage_[s].lines.grow(last_line[s]);
  for (SourceCoverage& home : coverage_) {
    home.by_start_line = home.functions;
    std::stable_sort(home.by_start_line.begin(), home.by_start_line.end(),
                     [](const SessionFunction* a, const SessionFunction* b) { return a->fn.start_line < b->fn.start_line; });
  }
  // Every line add_line_counts will place a block on gets its entry now
  // (line_at then only looks them up): the lines of every function's
  // blocks that fall in a table, and are not a group function's own.
  for (SessionFunction* f : functions_)
    for (const Block& b : f->fn.blocks)
      for (const BlockLocation& loc : b.locations) {
        LineTable& lines = coverage_[loc.source].lines;
        for (uint32_t ln : loc.lines)
          if (ln < lines.size() && !f->owns_line(ln, loc.source)) lines.mark(ln);
      }
  // With room for the group functions' lines, which accumulate adds to
  // their file's table in text mode: made then, they moved the whole
  // table to fresh pages (tinyxml2.h's, 68 KB). Room never written is
  // no page of the process's.
  std::vector<size_t> group_lines(coverage_.size(), 0);
  if (!opts_.json)
    for (const SessionFunction* f : to_solve)
      if (f->is_group) group_lines[f->fn.source] += f->lines.size();
  for (size_t s = 0; s < coverage_.size(); ++s) coverage_[s].lines.make_marked(group_lines[s]);
  std::vector<SolveProblems> problems(to_solve.size());
  // A worker thread costs more than solving a small program's graphs (a
  // one-file program's two functions: 15% of `covkit gcov prog.c`'s CPU).
  size_t blocks = 0;
  for (const SessionFunction* f : to_solve) blocks += f->fn.blocks.size();
  const unsigned threads = blocks < kParallelSolveBlocks ? 1 : opts_.threads;
  util::parallel_for(to_solve.size(), threads, [&](size_t i) {
    Function& fn = to_solve[i]->fn;
    problems[i] = solve_flow_graph(fn);
    if (fn.has_catch) find_exception_blocks(fn);
  });
  for (size_t i = 0; i < to_solve.size(); ++i) {
    const std::string& name = function_name(*to_solve[i]);
    if (problems[i].lacks_entry_or_exit) report({DiagnosticKind::kLacksEntryExit, bbg_file_name_, name});
    if (problems[i].arcs_to_entry) report({DiagnosticKind::kArcsToEntry, bbg_file_name_, name});
    if (problems[i].arcs_from_exit) report({DiagnosticKind::kArcsFromExit, bbg_file_name_, name});
  }
}

// Inlined into its two callers' loops (a call per line of every block was
// ~25 instructions a look-up, most of them the call's).
[[gnu::always_inline]] inline LineInfo* GcovSession::line_at(SessionFunction& sf, uint32_t source, uint32_t ln,
                                                             bool& own_line) {
  // A group function's lines are its own; gcov 11/12 leave them out
  // of the function's -f summary.
  own_line = sf.owns_line(ln, source);
  if (own_line) return &sf.lines[ln - sf.fn.start_line];
  // None past the table's end: a function gcov never placed (no counters).
  return coverage_[source].lines.find(ln);
}

void GcovSession::add_line_counts(std::vector<std::pair<std::string, CoverageSummary>>* summaries) {
  // Each line's lists are pieces of two arrays of the session's. One walk
  // of every block's lines (each looked up in its table) counts the lines
  // and notes where each block goes, in order; the pieces are then sized
  // from those notes and filled from them. (A walk of its own to size the
  // pieces, with every look-up again, was a third of this.)
  struct Placement {
    LineInfo* line;
    const Function* fn;
    uint32_t block;
  };
  // At most one a location of a block with code: room for that many, made
  // once, and freed with the walk (kept by the thread, it was memory
  // nothing else could reuse: ~150 more fresh pages in zstd's report).
  std::vector<Placement> placed;
  size_t locations = 0;
  for (const SessionFunction* sf : functions_)
    for (size_t ix = 1; ix + 1 < sf->fn.blocks.size(); ++ix) locations += sf->fn.blocks[ix].locations.size();
  placed.reserve(locations);
  // Every line starts with no count and empty lists (sized below).
  auto reset = [](LineInfo& l) {
    l.count = 0;
    l.blocks = {};
    l.branches = {};
  };
  for (SourceCoverage& src : coverage_)
    for (LineInfo& l : src.lines.entries()) reset(l);
  for (SessionFunction* sf : functions_)
    for (LineInfo& l : sf->lines) reset(l);
  for (SessionFunction* sf : functions_) {
    CoverageSummary cov;
    Function& fn = sf->fn;
    bool has_any_line = false;
    const size_t nblocks = fn.blocks.size();
    for (size_t ix = 0; ix != nblocks; ++ix) {
      Block& block = fn.blocks[ix];
      LineInfo* line = nullptr;
      if (block.count && ix && ix + 1 != nblocks) sf->blocks_executed++;
      for (const BlockLocation& loc : block.locations) {
        for (uint32_t ln : loc.lines) {
          bool own_line = false;
          LineInfo* l = line_at(*sf, loc.source, ln, own_line);
          if (!l) continue;
          line = l;
          if (summaries && !own_line) {
            if (!line->exists) cov.lines++;
            if (!line->count && block.count) cov.lines_executed++;
          }
          line->exists = true;
          if (!block.exceptional) {
            line->unexceptional = true;
            if (block.count == 0) line->has_unexecuted_block = true;
          }
          line->count = add_counts(line->count, block.count);
        }
        has_any_line = true;
        // Entry and exit blocks carry no code of their own. gcov takes the
        // last block for the exit block, a quirk kept for identical output.
        if (!ix || ix + 1 == nblocks) continue;
        if (line) placed.push_back(Placement{line, &fn, uint32_t(ix)});
      }
    }
    if (!has_any_line) report({DiagnosticKind::kNoLines, bbg_file_name_, function_name(*sf)});
    if (summaries) summaries->emplace_back(function_name(*sf), cov);
  }
  // Sizes first (kept in the lists' sizes, their data still null), then
  // each line's piece of the arrays, then the pieces filled in the order
  // the walk placed them.
  size_t branches = 0;
  for (const Placement& p : placed) {
    p.line->blocks = std::span<LineBlockRef>(p.line->blocks.data(), p.line->blocks.size() + 1);
    if (!opts_.branches) continue;
    const size_t succ = p.fn->blocks[p.block].succ.size();
    p.line->branches = std::span<ArcRef>(p.line->branches.data(), p.line->branches.size() + succ);
    branches += succ;
  }
  line_blocks_.assign(placed.size(), LineBlockRef{});
  line_branches_.assign(branches, ArcRef{});
  size_t at_block = 0, at_branch = 0;
  auto give_piece = [&](LineInfo& l) {
    const size_t nb = l.blocks.size(), na = l.branches.size();
    l.blocks = std::span<LineBlockRef>(line_blocks_.data() + at_block, 0);
    l.branches = std::span<ArcRef>(line_branches_.data() + at_branch, 0);
    at_block += nb;
    at_branch += na;
  };
  for (SourceCoverage& src : coverage_)
    for (LineInfo& l : src.lines.entries()) give_piece(l);
  for (SessionFunction* sf : functions_)
    for (LineInfo& l : sf->lines) give_piece(l);
  for (const Placement& p : placed) {
    LineInfo& l = *p.line;
    l.blocks = std::span<LineBlockRef>(l.blocks.data(), l.blocks.size() + 1);
    l.blocks.back() = LineBlockRef{p.fn, p.block};
    if (!opts_.branches) continue;
    const Function& fn = *p.fn;
    for (uint32_t a : fn.blocks[p.block].succ) {
      l.branches = std::span<ArcRef>(l.branches.data(), l.branches.size() + 1);
      l.branches.back() = ArcRef{&fn, &fn.arcs[a]};
    }
  }
}

namespace {

void add_branch_counts(CoverageSummary& c, const ArcRef& ref) {
  const Arc& arc = *ref.arc;
  const int64_t src_count = ref.fn->blocks[arc.src].count;
  if (arc.is_call_non_return) {
    c.calls++;
    if (src_count) c.calls_executed++;
  } else if (!arc.is_unconditional) {
    c.branches++;
    if (src_count) c.branches_executed++;
    if (arc.count) c.branches_taken++;
  }
}

void accumulate_line(LineInfo& line, SourceCoverage& src, bool add_coverage) {
  if (add_coverage)
    for (const ArcRef& a : line.branches) add_branch_counts(src.coverage, a);
  if (!line.blocks.empty()) {
    line.count = line_count_from_blocks(line.blocks);
    if (line.count > int64_t(src.maximum_count)) src.maximum_count = uint32_t(line.count);
  }
  if (line.exists && add_coverage) {
    src.coverage.lines++;
    if (line.count) src.coverage.lines_executed++;
  }
}

}  // namespace

void GcovSession::accumulate(uint32_t src_idx) {
  SourceCoverage& src = coverage_[src_idx];
  for (SessionFunction* f : src.functions)
    if (f->fn.source == src_idx && f->is_group)
      for (LineInfo& line : f->lines) accumulate_line(line, src, /*add_coverage=*/false);
  // Group lines count in the file's summary only once, when summed below
  // (gcov 11 and 12; so branches on them never reach the summary).
  for (LineInfo& line : src.lines.entries()) accumulate_line(line, src, true);
  if (opts_.json) return;  // JSON keeps group lines apart
  // The file's entries for the group lines made at once (one by one, the
  // table's entries were copied at each doubling: a header's table of
  // template lines grew to twice its size, on fresh pages).
  bool groups = false;
  for (SessionFunction* f : src.functions) {
    if (f->fn.source != src_idx || !f->is_group) continue;
    groups = true;
    for (size_t i = 0; i < f->lines.size(); ++i) {
      if (!f->lines[i].exists) continue;
      const size_t ln = f->fn.start_line + i;
      src.lines.grow(ln + 1);
      src.lines.mark(ln);
    }
  }
  if (!groups) return;
  src.lines.make_marked();
  for (SessionFunction* f : src.functions) {
    if (f->fn.source != src_idx || !f->is_group) continue;
    for (size_t i = 0; i < f->lines.size(); ++i) {
      const LineInfo& fl = f->lines[i];
      if (!fl.exists) continue;
      size_t ln = f->fn.start_line + i;
      LineInfo& sl = src.lines.make(ln);
      if (!sl.exists) src.coverage.lines++;
      if (!sl.count && fl.count) src.coverage.lines_executed++;
      sl.count = add_counts(sl.count, fl.count);
      sl.exists = true;
      if (fl.has_unexecuted_block) sl.has_unexecuted_block = true;
      if (fl.unexceptional) sl.unexceptional = true;
    }
  }
}

std::vector<SessionFunction> GcovSession::take_notes_graphs() {
  std::vector<SessionFunction> out;
  if (storage_.size() != 1 || !sources_as_read_) return out;
  out = std::move(storage_.front());
  release();
  for (SessionFunction& sf : out) {
    reset_to_notes(sf.fn);
    SessionFunction fresh;
    fresh.fn = std::move(sf.fn);
    sf = std::move(fresh);
  }
  return out;
}

void GcovSession::release() {
  functions_.clear();
  storage_.clear();
  ident_to_fn_.clear();
  line_blocks_.clear();
  line_branches_.clear();
  sources_.clear();
  coverage_.clear();
  sources_as_read_ = true;
}

}  // namespace covkit::model
