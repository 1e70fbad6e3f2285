#include "format/lcov_tracefile_reader.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/counts.h"
#include "model/coverage_merge.h"
#include "util/printable.h"

namespace covkit::format {

namespace {

using model::BranchCov;
using model::FileCov;
using model::FunctionCov;
using model::LineCov;

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

struct Failure {
  std::string message;  // without the "line N: " prefix
};

// Everything a field parser returns: a value or why not.
template <typename T>
struct Parsed {
  T value{};
  std::optional<Failure> failure;
};

Parsed<uint64_t> parse_digits(std::string_view s, std::string_view what) {
  Parsed<uint64_t> p;
  if (!s.empty() && s[0] == '-') {
    p.failure = Failure{fmt::format("negative {} {}", what, shown(s))};
    return p;
  }
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), p.value);
  if (s.empty() || ec == std::errc::invalid_argument || end != s.data() + s.size())
    p.failure = Failure{fmt::format("{} {} is not a number", what, shown(s))};
  else if (ec == std::errc::result_out_of_range)
    p.failure = Failure{fmt::format("{} {} is out of range", what, shown(s))};
  return p;
}

Parsed<uint32_t> parse_line_number(std::string_view s) {
  auto d = parse_digits(s, "line number");
  Parsed<uint32_t> p;
  p.failure = d.failure;
  if (!p.failure && d.value > kMaxLine)
    p.failure = Failure{fmt::format("line number {} exceeds {}", d.value, kMaxLine)};
  p.value = uint32_t(d.value);
  return p;
}

Parsed<int64_t> parse_count(std::string_view s) {
  auto d = parse_digits(s, "count");
  Parsed<int64_t> p;
  p.failure = d.failure;
  if (!p.failure && d.value > uint64_t(std::numeric_limits<int64_t>::max()))
    p.failure = Failure{fmt::format("count {} is out of range", d.value)};
  p.value = int64_t(d.value);
  return p;
}

// Splits off the text before the first comma; nullopt when there is none.
std::optional<std::string_view> take_field(std::string_view& rest) {
  size_t comma = rest.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view field = rest.substr(0, comma);
  rest.remove_prefix(comma + 1);
  return field;
}

struct FunctionEntry {
  bool located = false;
  uint32_t start = 0, end = 0;
  int64_t count = 0;
};

// One SF ... end_of_record block as it is read.
class Record {
 public:
  explicit Record(std::string path) : path_(std::move(path)) {}

  std::optional<Failure> line(std::string_view key, std::string_view value);
  FileCov finish() &&;

 private:
  std::optional<Failure> da(std::string_view v);
  std::optional<Failure> brda(std::string_view v);
  std::optional<Failure> fn(std::string_view v);
  std::optional<Failure> fnda(std::string_view v);
  std::optional<Failure> fnl(std::string_view v);
  std::optional<Failure> fna(std::string_view v);
  FunctionEntry& function(std::string_view name);

  std::string path_;
  std::map<uint32_t, LineCov> lines_;
  std::vector<std::string> function_order_;  // first appearance, for a stable result
  std::unordered_map<std::string, FunctionEntry> functions_;
  std::unordered_map<uint64_t, std::pair<uint32_t, uint32_t>> leaders_;  // FNL index -> start, end
};

std::optional<Failure> Record::line(std::string_view key, std::string_view value) {
  if (key == "DA") return da(value);
  if (key == "BRDA") return brda(value);
  if (key == "FN") return fn(value);
  if (key == "FNDA") return fnda(value);
  if (key == "FNL") return fnl(value);
  if (key == "FNA") return fna(value);
  return std::nullopt;  // totals, VER, MC/DC and keys of later lcov versions
}

LineCov& line_entry(std::map<uint32_t, LineCov>& lines, uint32_t number) {
  LineCov& l = lines[number];
  l.number = number;
  return l;
}

// DA:line,count[,checksum]
std::optional<Failure> Record::da(std::string_view v) {
  auto line_field = take_field(v);
  if (!line_field) return Failure{"DA needs a line and a count"};
  std::string_view count_field = v.substr(0, v.find(','));
  auto number = parse_line_number(*line_field);
  if (number.failure) return number.failure;
  auto count = parse_count(count_field);
  if (count.failure) return count.failure;
  LineCov& l = line_entry(lines_, number.value);
  l.count = model::add_report_counts(l.count, count.value);  // lcov sums a line listed twice
  return std::nullopt;
}

// BRDA:line,[e]block,branch,taken. The branch field may itself hold commas
// (lcov 2 writes expressions there for some languages), so the last field is
// taken from the end.
std::optional<Failure> Record::brda(std::string_view v) {
  auto line_field = take_field(v);
  auto block_field = line_field ? take_field(v) : std::nullopt;
  size_t last = v.rfind(',');
  if (!block_field || last == std::string_view::npos || last == 0) return Failure{"BRDA needs 4 fields"};
  std::string_view taken = v.substr(last + 1);
  auto number = parse_line_number(*line_field);
  if (number.failure) return number.failure;
  std::string_view block = *block_field;
  bool is_throw = !block.empty() && block[0] == 'e';  // lcov 2: branch taken by an exception
  if (is_throw) block.remove_prefix(1);
  if (auto b = parse_digits(block, "block"); b.failure) return b.failure;
  BranchCov br;
  br.is_throw = is_throw;
  if (taken != "-") {
    auto count = parse_count(taken);
    if (count.failure) return count.failure;
    br.count = count.value;
    br.executed = true;
  }
  // A branch lives on its line in the model; a line that has branches but no
  // DA (not written by lcov, but legal) gets a zero-count entry.
  line_entry(lines_, number.value).branches.push_back(br);
  return std::nullopt;
}

FunctionEntry& Record::function(std::string_view name) {
  auto [it, inserted] = functions_.try_emplace(std::string(name));
  if (inserted) function_order_.push_back(it->first);
  return it->second;
}

// FN:start,name (lcov 1) or FN:start,end,name (lcov 2). A C or C++ name never
// starts with a digit, so "digits," after the start is the end line.
std::optional<Failure> Record::fn(std::string_view v) {
  auto start_field = take_field(v);
  if (!start_field) return Failure{"FN needs a line and a name"};
  auto start = parse_line_number(*start_field);
  if (start.failure) return start.failure;
  uint32_t end = 0;
  size_t comma = v.find(',');
  if (comma != std::string_view::npos && comma > 0 &&
      v.substr(0, comma).find_first_not_of("0123456789") == std::string_view::npos) {
    auto e = parse_line_number(v.substr(0, comma));
    if (e.failure) return e.failure;
    end = e.value;
    v.remove_prefix(comma + 1);
  }
  if (v.empty()) return Failure{"FN needs a name"};
  FunctionEntry& f = function(v);
  if (!f.located) {  // a name defined twice keeps its first place, as lcov does
    f.located = true;
    f.start = start.value;
    f.end = end;
  }
  return std::nullopt;
}

// FNDA:count,name
std::optional<Failure> Record::fnda(std::string_view v) {
  auto count_field = take_field(v);
  if (!count_field || v.empty()) return Failure{"FNDA needs a count and a name"};
  auto count = parse_count(*count_field);
  if (count.failure) return count.failure;
  FunctionEntry& f = function(v);
  f.count = model::add_report_counts(f.count, count.value);
  return std::nullopt;
}

// FNL:index,start[,end] (lcov 2.2): the location that FNA lines refer to.
std::optional<Failure> Record::fnl(std::string_view v) {
  auto index_field = take_field(v);
  if (!index_field) return Failure{"FNL needs an index and a line"};
  auto index = parse_digits(*index_field, "function index");
  if (index.failure) return index.failure;
  std::string_view start_field = v, end_field;
  if (size_t comma = v.find(','); comma != std::string_view::npos) {
    start_field = v.substr(0, comma);
    end_field = v.substr(comma + 1);
  }
  auto start = parse_line_number(start_field);
  if (start.failure) return start.failure;
  uint32_t end = 0;
  if (!end_field.empty()) {
    auto e = parse_line_number(end_field);
    if (e.failure) return e.failure;
    end = e.value;
  }
  leaders_[index.value] = {start.value, end};
  return std::nullopt;
}

// FNA:index,count,name (lcov 2.2): one alias (name) of the function at FNL index.
std::optional<Failure> Record::fna(std::string_view v) {
  auto index_field = take_field(v);
  auto count_field = index_field ? take_field(v) : std::nullopt;
  if (!count_field || v.empty()) return Failure{"FNA needs an index, a count and a name"};
  auto index = parse_digits(*index_field, "function index");
  if (index.failure) return index.failure;
  auto count = parse_count(*count_field);
  if (count.failure) return count.failure;
  auto leader = leaders_.find(index.value);
  if (leader == leaders_.end()) return Failure{fmt::format("FNA refers to function index {} before its FNL", index.value)};
  FunctionEntry& f = function(v);
  if (!f.located) {
    f.located = true;
    f.start = leader->second.first;
    f.end = leader->second.second;
  }
  f.count = model::add_report_counts(f.count, count.value);
  return std::nullopt;
}

FileCov Record::finish() && {
  FileCov f;
  f.path = path_;
  f.absolute_path = std::move(path_);
  f.lines.reserve(lines_.size());
  for (auto& [number, l] : lines_) f.lines.push_back(std::move(l));
  for (const std::string& name : function_order_) {
    const FunctionEntry& e = functions_[name];
    FunctionCov fn;
    fn.name = name;
    fn.start_line = e.start;
    fn.end_line = e.end;
    fn.execution_count = e.count;
    f.functions.push_back(std::move(fn));
  }
  model::normalize(f);
  return f;
}

bool is_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key)
    if (!(c >= 'A' && c <= 'Z')) return false;
  return true;
}

}  // namespace

TracefileResult read_lcov_tracefile(std::string_view text) {
  TracefileResult result;
  std::optional<Record> record;
  size_t line_no = 0;
  size_t pos = 0;
  auto fail = [&](size_t offset, const std::string& message) {
    result.error = ParseError{offset, fmt::format("line {}: {}", line_no, message)};
  };
  while (pos < text.size()) {
    size_t offset = pos;
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    line.remove_prefix(first);

    if (line == "end_of_record") {
      if (record) result.project.files.push_back(std::move(*record).finish());
      record.reset();  // a stray end_of_record is harmless
      continue;
    }
    size_t colon = line.find(':');
    std::string_view key = line.substr(0, colon);
    if (colon == std::string_view::npos || !is_key(key)) {
      fail(offset, fmt::format("not a tracefile line: {}", shown(line)));
      break;
    }
    std::string_view value = line.substr(colon + 1);
    if (key == "SF") {
      if (value.empty()) {
        fail(offset, "SF needs a path");
        break;
      }
      // A record lcov left open ends where the next one starts.
      if (record) result.project.files.push_back(std::move(*record).finish());
      record.emplace(std::string(value));
      continue;
    }
    if (key == "TN" || key == "VER") continue;
    if (!record) {
      if (key == "DA" || key == "BRDA" || key == "FN" || key == "FNDA" || key == "FNL" || key == "FNA") {
        fail(offset, fmt::format("{} before any SF", key));
        break;
      }
      continue;
    }
    if (auto failure = record->line(key, value)) {
      fail(offset, failure->message);
      break;
    }
  }
  // A file cut after its last record's data still counts that record, as lcov does.
  if (record && !result.error) result.project.files.push_back(std::move(*record).finish());
  model::normalize(result.project);
  return result;
}

}  // namespace covkit::format
