#include "format/lcov_tracefile_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "util/printable.h"

namespace covkit::format {

namespace {

// Larger line numbers are not source lines but damage (GCC's own limit for
// line maps is far below), and would make per-line tables explode.
constexpr uint32_t kMaxLine = 1u << 23;

// A field as it may appear in a one-line message: printable and short.
std::string shown(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out = util::printable(s.substr(0, kMax));
  if (s.size() > kMax) out += "...";
  return "'" + out + "'";
}

// Field parsers fail with the message alone; the caller adds "line N: ".
Expected<uint64_t> parse_digits(std::string_view s, std::string_view what) {
  if (!s.empty() && s[0] == '-') return Error(fmt::format("negative {} {}", what, shown(s)));
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size())
    return Error(fmt::format("{} {} is not a number", what, shown(s)));
  if (ec == std::errc::result_out_of_range) return Error(fmt::format("{} {} is out of range", what, shown(s)));
  return value;
}

Expected<uint32_t> parse_line_number(std::string_view s) {
  auto d = parse_digits(s, "line number");
  if (!d) return d.error();
  if (*d > kMaxLine) return Error(fmt::format("line number {} exceeds {}", *d, kMaxLine));
  return uint32_t(*d);
}

Expected<int64_t> parse_count(std::string_view s) {
  auto d = parse_digits(s, "count");
  if (!d) return d.error();
  if (*d > uint64_t(std::numeric_limits<int64_t>::max())) return Error(fmt::format("count {} is out of range", *d));
  return int64_t(*d);
}

// A count lcov itself may write: gcov prints the negative counts that racing
// threads leave (lost updates, flow then solved to below zero) and geninfo
// copies them. lcov reads them as nothing run (DA 0, BRDA "-", the FNDA line
// ignored), so a tracefile lcov wrote stays readable. nullopt: negative.
Expected<std::optional<int64_t>> parse_lcov_count(std::string_view s) {
  if (s.size() > 1 && s[0] == '-') {
    if (auto magnitude = parse_digits(s.substr(1), "count"); !magnitude) return magnitude.error();
    return std::optional<int64_t>{};
  }
  auto count = parse_count(s);
  if (!count) return count.error();
  return std::optional<int64_t>{*count};
}

// Splits off the text before the first comma; nullopt when there is none.
std::optional<std::string_view> take_field(std::string_view& rest) {
  size_t comma = rest.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view field = rest.substr(0, comma);
  rest.remove_prefix(comma + 1);
  return field;
}

// One SF ... end_of_record block as it is read: its lines and functions as
// records, in file order. Only lcov's own syntax is resolved here (BRDA lines
// gathered per line, FNA names placed at their FNL); sums and merges are the
// model's.
class LcovRecord {
 public:
  explicit LcovRecord(std::string path) { source_.path = std::move(path); }
  const std::string& path() const { return source_.path; }
  bool empty() const { return source_.lines.empty() && source_.functions.empty(); }

  Expected<void> line(std::string_view key, std::string_view value);
  SourceRecord finish() &&;
  // Negative counts read so far (read as not run, as lcov reads them).
  size_t negative_counts() const { return negative_counts_; }

 private:
  Expected<void> da(std::string_view v);
  Expected<void> brda(std::string_view v);
  Expected<void> fn(std::string_view v);
  Expected<void> fnda(std::string_view v);
  Expected<void> fnl(std::string_view v);
  Expected<void> fna(std::string_view v);

  SourceRecord source_;
  // The BRDAs of one line: the entry they gather on, and what finds one
  // listed again in the record (the same block and branch), which adds to the
  // first as lcov reads it: lcov 1.16 lists a line's branches once per function
  // holding the line (a source #included several times, as pcre2test.c
  // includes pcre2_printint.c). lcov writes a line's ids ascending, so only a
  // line where one is not greater than the last pays for a lookup table.
  struct LineBranches {
    size_t entry = 0;  // in source_.lines
    size_t first_link = 0, last_link = 0;  // its branches' ids in links_
    bool ascending = true;
    std::unordered_map<uint64_t, size_t> position;  // id -> branch, once not ascending
  };
  struct IdLink {
    uint64_t id;
    size_t next;  // the line's next branch in links_ (up to its last_link)
  };
  uint64_t branch_id(uint64_t block, bool is_throw, std::string_view block_field, std::string_view branch_field);
  std::optional<size_t> branch_seen(LineBranches& line, uint64_t id);

  std::unordered_map<uint32_t, LineBranches> branch_lines_;  // by line number
  std::vector<IdLink> links_;                                // every BRDA's id, chained per line
  std::unordered_map<std::string, uint64_t> named_ids_;      // ids of fields that are not two small numbers
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> leaders_;  // FNL index -> start, end
  size_t negative_counts_ = 0;
};

Expected<void> LcovRecord::line(std::string_view key, std::string_view value) {
  if (key == "DA") return da(value);
  if (key == "BRDA") return brda(value);
  if (key == "FN") return fn(value);
  if (key == "FNDA") return fnda(value);
  if (key == "FNL") return fnl(value);
  if (key == "FNA") return fna(value);
  return {};  // totals, VER, MC/DC and keys of later lcov versions
}

// DA:line,count[,checksum]
Expected<void> LcovRecord::da(std::string_view v) {
  auto line_field = take_field(v);
  if (!line_field) return Error("DA needs a line and a count");
  std::string_view count_field = v.substr(0, v.find(','));
  auto number = parse_line_number(*line_field);
  if (!number) return number.error();
  auto count = parse_lcov_count(count_field);
  if (!count) return count.error();
  if (!*count) ++negative_counts_;
  LineRecord l;
  l.number = *number;
  l.count = count->value_or(0);
  source_.lines.push_back(std::move(l));
  return {};
}

// BRDA:line,[e]block,branch,taken. The branch field may itself hold commas
// (lcov 2 writes expressions there for some languages), so the last field is
// taken from the end.
Expected<void> LcovRecord::brda(std::string_view v) {
  auto line_field = take_field(v);
  auto block_field = line_field ? take_field(v) : std::nullopt;
  size_t last = v.rfind(',');
  if (!block_field || last == std::string_view::npos || last == 0) return Error("BRDA needs 4 fields");
  std::string_view taken = v.substr(last + 1);
  auto number = parse_line_number(*line_field);
  if (!number) return number.error();
  const std::string_view block_text = *block_field;
  std::string_view block = block_text;
  bool is_throw = !block.empty() && block[0] == 'e';  // lcov 2: branch taken by an exception
  if (is_throw) block.remove_prefix(1);
  auto block_number = parse_digits(block, "block");
  if (!block_number) return block_number.error();
  BranchRecord br;
  br.is_throw = is_throw;
  br.block = uint32_t(std::min<uint64_t>(*block_number, UINT32_MAX));
  if (taken != "-") {
    auto count = parse_lcov_count(taken);
    if (!count) return count.error();
    if (*count) {
      br.count = **count;
      br.executed = true;
    } else {
      ++negative_counts_;  // lcov reads "-N" as "-": not taken
    }
  }
  // The branches of a line are listed one BRDA each, in order: they gather
  // on one entry for the line, with no count of its own (the line's DA, if
  // any, is another entry: a line that has branches but no DA, as llvm-cov
  // writes, stays without one).
  auto [it, fresh] = branch_lines_.try_emplace(*number);
  LineBranches& line = it->second;
  if (fresh) {
    line.entry = source_.lines.size();
    LineRecord l;
    l.number = *number;
    l.no_count = true;
    source_.lines.push_back(std::move(l));
  }
  std::vector<BranchRecord>& branches = source_.lines[line.entry].branches;
  const uint64_t id = branch_id(*block_number, is_throw, block_text, v.substr(0, last));
  if (auto seen = branch_seen(line, id)) {
    if (br.executed) {  // "-" adds nothing; a count replaces a "-"
      BranchRecord& first = branches[*seen];
      if (__builtin_add_overflow(first.count, br.count, &first.count)) first.count = std::numeric_limits<int64_t>::max();
      first.executed = true;
    }
    return {};
  }
  const size_t link = links_.size();
  links_.push_back({id, 0});
  if (branches.empty())
    line.first_link = link;
  else
    links_[line.last_link].next = link;
  line.last_link = link;
  if (!line.ascending) line.position.emplace(id, branches.size());
  branches.push_back(br);
  return {};
}

// Block and branch as lcov writes them (small numbers, "e" before the block
// of an exception branch) pack into the id; other fields (lcov 2 may write an
// expression as the branch) are numbered as they come, above those.
uint64_t LcovRecord::branch_id(uint64_t block, bool is_throw, std::string_view block_field,
                               std::string_view branch_field) {
  // Up to 9 digits: below 2^30, so block, branch and the flag fit in 63 bits.
  constexpr uint64_t kSmall = uint64_t(1) << 30;
  bool small = block < kSmall && !branch_field.empty() && branch_field.size() <= 9;
  uint64_t branch = 0;
  for (char c : branch_field) {
    if (!small) break;
    small = c >= '0' && c <= '9';
    branch = branch * 10 + uint64_t(c - '0');
  }
  if (small) return block << 32 | branch << 1 | uint64_t(is_throw);
  auto named = named_ids_.try_emplace(fmt::format("{},{}", block_field, branch_field),
                                      (uint64_t(1) << 62) + named_ids_.size());
  return named.first->second;
}

// The position of the line's branch with this id, if it has one.
std::optional<size_t> LcovRecord::branch_seen(LineBranches& line, uint64_t id) {
  if (line.ascending) {
    if (source_.lines[line.entry].branches.empty() || id > links_[line.last_link].id) return std::nullopt;
    line.ascending = false;
    size_t position = 0;
    for (size_t link = line.first_link;; link = links_[link].next) {
      line.position.emplace(links_[link].id, position++);
      if (link == line.last_link) break;
    }
  }
  auto found = line.position.find(id);
  if (found == line.position.end()) return std::nullopt;
  return found->second;
}

// FN:start,name (lcov 1) or FN:start,end,name (lcov 2). A C or C++ name never
// starts with a digit, so "digits," after the start is the end line.
Expected<void> LcovRecord::fn(std::string_view v) {
  auto start_field = take_field(v);
  if (!start_field) return Error("FN needs a line and a name");
  auto start = parse_line_number(*start_field);
  if (!start) return start.error();
  uint32_t end = 0;
  size_t comma = v.find(',');
  // "digits," with nothing after it is a name ("FN:4,10," written for a
  // hostile name "10,"), not an end line with no name.
  if (comma != std::string_view::npos && comma > 0 && comma + 1 < v.size() &&
      v.substr(0, comma).find_first_not_of("0123456789") == std::string_view::npos) {
    auto e = parse_line_number(v.substr(0, comma));
    if (!e) return e.error();
    end = *e;
    v.remove_prefix(comma + 1);
  }
  if (v.empty()) return Error("FN needs a name");
  FunctionRecord f;
  f.name = std::string(v);
  f.start_line = *start;
  f.end_line = end;
  source_.functions.push_back(std::move(f));
  return {};
}

// FNDA:count,name
Expected<void> LcovRecord::fnda(std::string_view v) {
  auto count_field = take_field(v);
  if (!count_field || v.empty()) return Error("FNDA needs a count and a name");
  auto count = parse_lcov_count(*count_field);
  if (!count) return count.error();
  if (!*count) {
    ++negative_counts_;  // lcov skips the line: the function's FN stands, not run
    return {};
  }
  FunctionRecord f;
  f.name = std::string(v);
  f.execution_count = **count;
  source_.functions.push_back(std::move(f));
  return {};
}

// FNL:index,start[,end] (lcov 2.2): the location that FNA lines refer to.
Expected<void> LcovRecord::fnl(std::string_view v) {
  auto index_field = take_field(v);
  if (!index_field) return Error("FNL needs an index and a line");
  auto index = parse_digits(*index_field, "function index");
  if (!index) return index.error();
  std::string_view start_field = v, end_field;
  if (size_t comma = v.find(','); comma != std::string_view::npos) {
    start_field = v.substr(0, comma);
    end_field = v.substr(comma + 1);
  }
  auto start = parse_line_number(start_field);
  if (!start) return start.error();
  uint32_t end = 0;
  if (!end_field.empty()) {
    auto e = parse_line_number(end_field);
    if (!e) return e.error();
    end = *e;
  }
  leaders_[*index] = {*start, end};
  return {};
}

// FNA:index,count,name (lcov 2.2): one alias (name) of the function at FNL index.
Expected<void> LcovRecord::fna(std::string_view v) {
  auto index_field = take_field(v);
  auto count_field = index_field ? take_field(v) : std::nullopt;
  if (!count_field || v.empty()) return Error("FNA needs an index, a count and a name");
  auto index = parse_digits(*index_field, "function index");
  if (!index) return index.error();
  auto count = parse_lcov_count(*count_field);
  if (!count) return count.error();
  if (!*count) ++negative_counts_;  // FNA also declares the function: kept, not run
  auto leader = leaders_.find(*index);
  if (leader == leaders_.end()) return Error(fmt::format("FNA refers to function index {} before its FNL", *index));
  FunctionRecord f;
  f.name = std::string(v);
  f.start_line = leader->second.first;
  f.end_line = leader->second.second;
  f.execution_count = count->value_or(0);
  source_.functions.push_back(std::move(f));
  return {};
}

SourceRecord LcovRecord::finish() && {
  source_.absolute_path = source_.path;
  return std::move(source_);
}

bool is_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key)
    if (!(c >= 'A' && c <= 'Z')) return false;
  return true;
}

std::string negative_counts(size_t first_line, size_t n) {
  return fmt::format("line {}: {} negative count{} (counters that lost updates to racing threads?) read as "
                     "not run, as lcov reads them",
                     first_line, n, n == 1 ? "" : "s");
}

std::string unterminated(const LcovRecord& record, size_t sf_line) {
  return fmt::format("line {}: the record of {} has no end_of_record (cut short?); left out, as lcov leaves it",
                     sf_line, util::printable(record.path()));
}

}  // namespace

Expected<CoverageRecords> read_lcov_tracefile(std::string_view text) {
  CoverageRecords result;
  std::vector<SourceRecord> sources;
  auto read = read_lcov_tracefile(text, [&](SourceRecord&& s) { sources.push_back(std::move(s)); });
  if (!read) return read;
  read->sources = std::move(sources);
  return read;
}

Expected<CoverageRecords> read_lcov_tracefile(std::string_view text, const SourceSink& sink) {
  CoverageRecords result;
  std::optional<LcovRecord> record;
  size_t record_line = 0;  // of its SF
  size_t line_no = 0;
  size_t pos = 0;
  size_t negatives = 0, first_negative_line = 0;
  while (pos < text.size()) {
    const size_t offset = pos;
    auto fail = [&](const std::string& message) {
      return Error(offset, fmt::format("line {}: {}", line_no, message));
    };
    // No tracefile line is this long (real paths and names are a few KB);
    // the limit keeps a huge file without newlines from being scanned whole.
    constexpr size_t kMaxLineBytes = size_t(16) << 20;
    size_t nl = text.substr(0, pos + kMaxLineBytes + 1).find('\n', pos);
    if (nl == std::string_view::npos && text.size() - pos > kMaxLineBytes) {
      ++line_no;
      return fail(fmt::format("longer than {} bytes: not a tracefile line", kMaxLineBytes));
    }
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    line.remove_prefix(first);
    // Blanks after a line's numbers (a hand-edited or re-indented file) end
    // it for lcov; a path keeps them (a file name may end in a blank).
    if (!line.starts_with("SF:")) line = line.substr(0, line.find_last_not_of(" \t") + 1);

    if (line == "end_of_record") {
      // A record with nothing in it (lcov 1.16 writes one for a header whose
      // only functions have no lines, such as implicit members) is left out,
      // as lcov -a leaves it out (and a source with no line at all, too: the
      // model's, once the records of a source are added up).
      if (record && !record->empty()) sink(std::move(*record).finish());
      record.reset();  // a stray end_of_record is harmless
      continue;
    }
    size_t colon = line.find(':');
    std::string_view key = line.substr(0, colon);
    if (colon == std::string_view::npos || !is_key(key)) return fail(fmt::format("not a tracefile line: {}", shown(line)));
    std::string_view value = line.substr(colon + 1);
    if (key == "SF") {
      if (value.empty()) return fail("SF needs a path");
      // lcov keeps a record at its end_of_record only: one left open is
      // dropped (lcov says nothing; covkit says so).
      if (record) result.warnings.push_back(unterminated(*record, record_line));
      record.emplace(std::string(value));
      record_line = line_no;
      continue;
    }
    if (key == "TN") {
      if (!value.empty() && std::find(result.test_names.begin(), result.test_names.end(), value) == result.test_names.end())
        result.test_names.emplace_back(value);
      continue;
    }
    if (key == "VER") continue;
    if (!record) {
      if (key == "DA" || key == "BRDA" || key == "FN" || key == "FNDA" || key == "FNL" || key == "FNA")
        return fail(fmt::format("{} before any SF", key));
      continue;
    }
    const size_t negatives_before = record->negative_counts();
    if (auto done = record->line(key, value); !done) return fail(done.error().message);
    if (record->negative_counts() != negatives_before) {
      if (!negatives) first_negative_line = line_no;
      ++negatives;
    }
  }
  if (negatives) result.warnings.push_back(negative_counts(first_negative_line, negatives));
  // A file cut after its last record's data: that record is dropped, as
  // lcov drops it.
  if (record) result.warnings.push_back(unterminated(*record, record_line));
  return result;
}

}  // namespace covkit::format
