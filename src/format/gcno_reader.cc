#include "format/gcno_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "format/byte_reader.h"
#include "format/gcov_tags.h"
#include "util/printable.h"

namespace covkit::format {

namespace {

// Reads the records of one file. Each record is read inside its own length,
// so a lying length can only yield an error.
class NotesParser {
 public:
  NotesParser(std::span<const uint8_t> data, NotesFile& out, const NotesFunctionSink& sink)
      : r_(data), out_(out), sink_(sink) {}

  std::optional<HeaderError> header();
  void body();
  // Hands the last function read to the sink, or keeps it.
  void flush();

 private:
  bool fail(size_t offset, std::string message) {
    out_.error = ParseError{offset, std::move(message)};
    return false;
  }
  bool function_record(size_t base);
  bool blocks_record(size_t base, uint32_t words);
  bool arcs_record(size_t base, uint32_t words);
  bool lines_record(size_t base);
  // A record that turns out corrupt is not kept: fn_'s arrays go back to
  // their sizes before it.
  struct Marks {
    size_t arcs, arc_list, lines, location_list, line_list;
  };
  Marks marks() const {
    return {fn_->arcs.size(), fn_->arc_list.size(), fn_->lines.size(), fn_->location_list.size(),
            fn_->line_list.size()};
  }
  void roll_back(const Marks& m) {
    fn_->arcs.resize(m.arcs);
    fn_->arc_list.resize(m.arc_list);
    fn_->lines.resize(m.lines);
    fn_->location_list.resize(m.location_list);
    fn_->line_list.resize(m.line_list);
  }

  // The index of `name` in out_.files, added at first sight.
  uint32_t file_index(std::string_view name);
  // Per-line tables downstream are as long as the largest line of each file
  // and each function's span; their sum must stay plausible for the file's
  // size (lines_record charges each file's new largest line).
  bool charge_span(size_t at, uint32_t start, uint32_t end);
  bool over_budget(size_t at);
  // Downstream each location of a block gets an entry per arc leaving it
  // (gcov places a block's branches on the last line of each of its
  // locations): arcs x locations, whichever record comes second charging
  // the pair, must stay plausible for the file's size, or a block of a
  // few thousand arcs and locations asks for millions of entries.
  bool charge_branches(size_t at, uint64_t pairs) {
    branch_budget_used_ += pairs;
    return branch_budget_used_ <= branch_budget_ || branches_over_budget(at);
  }
  bool branches_over_budget(size_t at);
  // fn_'s per-block tallies, sized at its first ARCS or LINES record.
  void tally_blocks() {
    if (tally_fn_ != functions_read_) new_tallies();  // fn_ is function number functions_read_
  }
  void new_tallies();

  ByteReader r_;
  NotesFile& out_;
  const NotesFunctionSink& sink_;
  // The function being read: kept or handed to sink_ when the next one
  // starts or the file ends.
  NotesFunction current_;
  bool have_current_ = false;
  size_t functions_read_ = 0;
  std::vector<uint32_t> max_line_;  // by file index
  std::unordered_map<std::string, uint32_t> file_index_;
  uint32_t last_file_ = UINT32_MAX;  // the file index the last name had
  uint64_t line_budget_used_ = 0;
  NotesFunction* fn_ = nullptr;  // function that subrecords attach to
  // Per block of fn_, the arcs of its ARCS record (non-zero: read, so a
  // duplicate is found in constant time; a scan of the earlier records
  // made a function of n blocks cost n^2) and the locations of its LINES
  // records so far. For function number tally_fn_ (1-based; 0: none yet,
  // counted as functions_read_).
  struct BlockTally {
    uint32_t arcs = 0, locations = 0;
  };
  std::vector<BlockTally> tallies_;
  size_t tally_fn_ = 0;
  uint64_t branch_budget_used_ = 0;
  const uint64_t branch_budget_ = 4 * uint64_t(r_.size()) + (1u << 20);
  uint32_t current_tag_ = 0;
};

bool NotesParser::branches_over_budget(size_t at) {
  return fail(at, fmt::format("blocks' arcs on their lines make {} branch entries, implausible for a file of {} bytes",
                              branch_budget_used_, r_.size()));
}

void NotesParser::new_tallies() {
  const uint32_t nblocks = fn_->num_blocks.value_or(0);
  tallies_.assign(nblocks, BlockTally{});
  tally_fn_ = functions_read_;
}

bool NotesParser::over_budget(size_t at) {
  const uint64_t budget = 16 * uint64_t(r_.size()) + (1u << 20);
  if (line_budget_used_ <= budget) return true;
  return fail(at, fmt::format("line numbers span {} lines in all, implausible for a file of {} bytes",
                              line_budget_used_, r_.size()));
}

uint32_t NotesParser::file_index(std::string_view name) {
  // Most LINES records name the file the one before named: compared, not
  // hashed, and no string made.
  if (last_file_ != UINT32_MAX && out_.files[last_file_] == name) return last_file_;
  auto [it, fresh] = file_index_.try_emplace(std::string(name), uint32_t(out_.files.size()));
  if (fresh) {
    out_.files.push_back(it->first);
    max_line_.push_back(0);
  }
  last_file_ = it->second;
  return last_file_;
}

bool NotesParser::charge_span(size_t at, uint32_t start, uint32_t end) {
  if (end >= start) line_budget_used_ += uint64_t(end - start) + 1;
  return over_budget(at);
}

std::optional<HeaderError> NotesParser::header() {
  if (!r_.read_magic(kNotesMagic))
    return HeaderError{HeaderProblem::kNotThisKind, 0, "not a gcov notes file"};
  out_.swapped = r_.swapped();
  auto raw = r_.u32();
  if (!raw) return HeaderError{HeaderProblem::kTruncatedHeader, 0, "truncated header"};
  auto v = GcovVersion::decode(*raw);
  if (!v || !v->supported())
    return HeaderError{HeaderProblem::kUnsupportedVersion, *raw,
                       unsupported_version_message(*raw)};
  out_.version = *v;
  auto stamp = r_.u32();
  if (!stamp) return HeaderError{HeaderProblem::kTruncatedHeader, *raw, "truncated header"};
  out_.stamp = *stamp;
  if (v->header_has_checksum()) {
    auto cs = r_.u32();
    if (!cs) return HeaderError{HeaderProblem::kTruncatedHeader, *raw, "truncated header"};
    out_.checksum = *cs;
  }
  // GCC 8 added the working directory and the unexecuted-blocks flag.
  if (v->is_gcc48()) return std::nullopt;
  bool is_null = false;
  auto cwd = r_.string(v->lengths_in_bytes(), &is_null);
  auto unexec = cwd ? r_.u32() : std::nullopt;
  if (!cwd || !unexec) return HeaderError{HeaderProblem::kTruncatedHeader, *raw, "truncated header"};
  out_.cwd = *cwd;
  out_.has_unexecuted_blocks = *unexec != 0;
  return std::nullopt;
}

void NotesParser::body() {
  const bool bytes = out_.version.lengths_in_bytes();
  while (!r_.at_end()) {
    size_t tag_offset = r_.position();
    r_.clear_limit();
    // The tag and the length, after one look at what is left.
    const size_t head = r_.words_left();
    if (head == 0) {
      fail(tag_offset, fmt::format("{} stray bytes at end of file", r_.remaining()));
      return;
    }
    const uint32_t tag = r_.word_ahead(0);
    if (tag == 0) return;  // explicit end marker
    if (head < 2) {
      fail(tag_offset, fmt::format("record 0x{:08x} has no length word", tag));
      return;
    }
    const uint32_t length = r_.word_ahead(1);
    r_.skip_words(2);
    size_t base = r_.position();
    uint64_t len_bytes = bytes ? uint64_t{length} : uint64_t{length} * 4;
    if (len_bytes > r_.size() - base) {
      fail(tag_offset, fmt::format("record 0x{:08x} of {} bytes runs past the end of the file ({} bytes)",
                                   tag, len_bytes, r_.size()));
      return;
    }
    size_t end = base + len_bytes;
    r_.set_limit(end);
    bool ok = true;
    uint32_t words = uint32_t(len_bytes / 4);
    if (tag == kTagFunction) {
      ok = function_record(base);
    } else if (fn_ && tag == kTagBlocks) {
      ok = blocks_record(base, words);
    } else if (fn_ && tag == kTagArcs) {
      const Marks before = marks();
      ok = arcs_record(base, words);
      if (!ok) roll_back(before);
    } else if (fn_ && tag == kTagLines) {
      const Marks before = marks();
      ok = lines_record(base);
      if (!ok) roll_back(before);
    } else if (current_tag_ && !tag_is_subtag(current_tag_, tag)) {
      fn_ = nullptr;
      current_tag_ = 0;
    }
    if (!ok) return;
    r_.clear_limit();
    r_.seek(end);
  }
}

bool NotesParser::function_record(size_t base) {
  const bool bytes = out_.version.lengths_in_bytes();
  auto ident = r_.u32(), lcs = r_.u32(), ccs = r_.u32();
  if (!ident || !lcs || !ccs) return fail(base, "FUNCTION record too short");
  auto name = r_.string_view(bytes, nullptr);
  if (!name) return fail(base, "FUNCTION record: name runs past the end of the record");
  std::optional<std::string_view> source;
  std::optional<uint32_t> artificial = 0, sl, sc = 0, el = 0, ec = 0;
  if (out_.version.is_gcc48()) {
    source = r_.string_view(bytes, nullptr);
    sl = source ? r_.u32() : std::nullopt;
    if (!sl) return fail(base, fmt::format("FUNCTION record for '{}' too short", util::printable(*name)));
    if (*sl > kMaxLineNumber)
      return fail(base, fmt::format("function '{}' starts at line {}, beyond the limit of {}", util::printable(*name),
                                    *sl, kMaxLineNumber));
  } else {
    artificial = r_.u32();
    source = artificial ? r_.string_view(bytes, nullptr) : std::nullopt;
    if (!artificial || !source)
      return fail(base, fmt::format("FUNCTION record for '{}' too short", util::printable(*name)));
    sl = r_.u32();
    sc = r_.u32();
    el = r_.u32();
    ec = r_.u32();
    if (!sl || !sc || !el || !ec)
      return fail(base, fmt::format("FUNCTION record for '{}' too short", util::printable(*name)));
    if (*sl > kMaxLineNumber || *el > kMaxLineNumber)
      return fail(base, fmt::format("function '{}' spans lines {} to {}, beyond the limit of {}",
                                    util::printable(*name), *sl, *el, kMaxLineNumber));
    if (!charge_span(base, *sl, *el)) return false;
  }
  flush();
  // Filled in place: the arrays of the function before are reused.
  NotesFunction& f = current_;
  f.ident = *ident;
  f.lineno_checksum = *lcs;
  f.cfg_checksum = *ccs;
  f.name.assign(*name);
  f.artificial = *artificial != 0;
  f.source.assign(*source);
  f.start_line = *sl;
  f.start_column = *sc;
  f.end_line = *el;
  f.end_column = *ec;
  have_current_ = true;
  ++functions_read_;
  fn_ = &current_;
  current_tag_ = kTagFunction;
  return true;
}

void NotesParser::flush() {
  if (!have_current_) return;
  have_current_ = false;
  fn_ = nullptr;
  if (sink_ && sink_(out_, current_)) {
    current_.clear();
  } else {
    out_.functions.push_back(std::move(current_));
    current_ = NotesFunction{};
  }
}

bool NotesParser::blocks_record(size_t base, uint32_t words) {
  if (fn_->num_blocks) {
    fn_->extra_blocks_records++;
    return true;
  }
  uint32_t n;
  if (words == 1 && !out_.version.is_gcc48()) {
    n = *r_.u32();
  } else {
    // GCC before 10 wrote one flags word per block instead of a count.
    n = words;
  }
  // Every block but EXIT has an arc leaving it, so a count far beyond the file
  // size is a lie; refusing it keeps hostile files from exhausting memory.
  if (n > r_.size() / 4 + 2)
    return fail(base, fmt::format("function '{}' claims {} blocks, impossible in a file of {} bytes",
                                  util::printable(fn_->name), n, r_.size()));
  fn_->num_blocks = n;
  return true;
}

bool NotesParser::arcs_record(size_t base, uint32_t words) {
  uint32_t nblocks = fn_->num_blocks.value_or(0);
  auto src = r_.u32();
  if (!src) return fail(base, "ARCS record too short");
  if (*src >= nblocks)
    return fail(base, fmt::format("function '{}': arc source block {} out of range ({} blocks)", util::printable(fn_->name),
                                  *src, nblocks));
  tally_blocks();
  if (tallies_[*src].arcs)
    return fail(base, fmt::format("function '{}': second ARCS record for block {}", util::printable(fn_->name), *src));
  uint32_t n = words >= 1 ? (words - 1) / 2 : 0;
  fn_->begin_arcs(*src);
  // The arcs the record holds whole, read after one look at its size (a
  // bounds check per word was a third of reading them); an arc cut short
  // is an error where it starts.
  const uint32_t whole = uint32_t(std::min<size_t>(n, r_.words_left() / 2));
  for (uint32_t i = 0; i < whole; ++i) {
    const uint32_t dst = r_.word_ahead(2 * size_t(i)), flags = r_.word_ahead(2 * size_t(i) + 1);
    if (dst >= nblocks)
      return fail(r_.position() + 8 * size_t(i),
                  fmt::format("function '{}': arc destination block {} out of range ({} blocks)",
                              util::printable(fn_->name), dst, nblocks));
    fn_->add_arc(dst, flags);
  }
  r_.skip_words(2 * size_t(whole));
  if (whole < n) return fail(r_.position(), "ARCS record truncated");
  tallies_[*src].arcs = n;  // a record without arcs may come again
  return charge_branches(base, uint64_t(n) * tallies_[*src].locations);
}

bool NotesParser::lines_record(size_t base) {
  const bool bytes = out_.version.lengths_in_bytes();
  auto block = r_.u32();
  if (!block) return fail(base, "LINES record too short");
  if (*block >= fn_->num_blocks.value_or(0))
    return fail(base, fmt::format("function '{}': lines for block {} out of range ({} blocks)", util::printable(fn_->name),
                                  *block, fn_->num_blocks.value_or(0)));
  tally_blocks();
  fn_->begin_lines(*block);
  bool have_location = false;
  size_t at = r_.position();
  std::optional<uint32_t> word = r_.u32();
  while (true) {
    if (!word) return fail(at, fmt::format("function '{}': LINES record not terminated", util::printable(fn_->name)));
    if (*word) {
      if (*word > kMaxLineNumber)
        return fail(at, fmt::format("function '{}': line number {} beyond the limit of {}", util::printable(fn_->name),
                                    *word, kMaxLineNumber));
      if (!have_location)
        return fail(at, fmt::format("function '{}': line number before any file name", util::printable(fn_->name)));
      // This line and the ones after it up to the next 0, into the
      // location in one loop (most words of a notes file are these).
      NotesLocation& location = fn_->location_list.back();
      uint32_t& max = max_line_[location.file];
      for (;;) {
        const uint32_t line = *word;
        if (line > max) {
          line_budget_used_ += line - max;
          max = line;
          if (!over_budget(at)) return false;
        }
        fn_->line_list.push_back(line);
        ++location.count;
        at = r_.position();
        word = r_.u32();
        if (!word || !*word) break;
        if (*word > kMaxLineNumber)
          return fail(at, fmt::format("function '{}': line number {} beyond the limit of {}",
                                      util::printable(fn_->name), *word, kMaxLineNumber));
      }
      continue;
    }
    if (last_file_ != UINT32_MAX && r_.skip_string_if(bytes, out_.files[last_file_])) {
      // The file the name before named (most are): no search for its end.
      fn_->begin_location(last_file_);
      have_location = true;
      at = r_.position();
      word = r_.u32();
      continue;
    }
    bool is_null = false;
    auto file = r_.string_view(bytes, &is_null);
    if (!file) return fail(at, fmt::format("function '{}': file name runs past the end of LINES", util::printable(fn_->name)));
    if (is_null) break;
    fn_->begin_location(file_index(*file));
    have_location = true;
    at = r_.position();
    word = r_.u32();
  }
  const uint32_t locations = fn_->lines.back().count;
  tallies_[*block].locations += locations;
  return charge_branches(base, uint64_t(locations) * tallies_[*block].arcs);
}

}  // namespace

void NotesFunction::clear() {
  ident = lineno_checksum = cfg_checksum = 0;
  name.clear();
  artificial = false;
  source.clear();
  start_line = start_column = end_line = end_column = 0;
  num_blocks.reset();
  extra_blocks_records = 0;
  arcs.clear();
  lines.clear();
  arc_list.clear();
  location_list.clear();
  line_list.clear();
}

NotesResult read_notes(std::span<const uint8_t> data, const NotesFunctionSink& sink) {
  NotesFile file;
  NotesParser parser(data, file, sink);
  if (auto err = parser.header()) return *err;
  parser.body();
  parser.flush();
  return file;
}

}  // namespace covkit::format
