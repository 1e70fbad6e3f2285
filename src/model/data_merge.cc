#include "model/data_merge.h"

#include <fmt/format.h>

#include <vector>

#include "format/gcda_writer.h"
#include "format/gcov_tags.h"
#include "model/counts.h"

namespace covkit::model {

namespace {

using format::DataFile;
using format::DataRecord;
using Kind = DataRecord::Kind;

// A function record with the counter records after it, or one record of
// another kind standing alone (summary, unknown tags, stray counters).
struct Unit {
  size_t first = 0;
  size_t count = 1;
};

std::vector<Unit> units_of(const DataFile& f) {
  std::vector<Unit> units;
  for (size_t i = 0; i < f.records.size(); ++i) {
    if (f.records[i].kind == Kind::kCounters && !units.empty() &&
        f.records[units.back().first].kind == Kind::kFunction && units.back().first + units.back().count == i) {
      ++units.back().count;
      continue;
    }
    units.push_back({i, 1});
  }
  return units;
}

enum class CounterMerge { kAdd, kIor, kTimeProfile, kUnsupported };

// GCC's gcov-counter.def, GCC 10 onwards (covkit merges GCC >= 9; GCC 9's
// kinds 3, 4 and 8 are value profiles too, so the same table serves).
CounterMerge merge_rule(uint32_t tag, int gcc_major) {
  uint32_t kind = (tag - format::kTagCounterBase) >> 17;
  switch (kind) {
    case 0:  // arcs
    case 1:  // interval
    case 2:  // pow2
    case 5:  // average
      return CounterMerge::kAdd;
    case 6:  // ior
      return CounterMerge::kIor;
    case 7:  // time_profiler
      return CounterMerge::kTimeProfile;
    case 8:  // GCC 14's condition coverage bitsets; GCC 9's indirect_call_topn
      return gcc_major >= 14 ? CounterMerge::kIor : CounterMerge::kUnsupported;
    default:  // topn / indirect_call / single: value profiles with their own merge
      return CounterMerge::kUnsupported;
  }
}

int64_t merge_value(CounterMerge rule, int64_t a, int64_t b) {
  switch (rule) {
    case CounterMerge::kAdd:
      return add_counts(a, b);
    case CounterMerge::kIor:
      return a | b;
    case CounterMerge::kTimeProfile:  // the earliest first visit of any run
      return b != 0 && (a == 0 || b < a) ? b : a;
    case CounterMerge::kUnsupported:
      break;
  }
  return a;
}

std::optional<DataRecord> merge_counters(const DataRecord& a, const DataRecord& b, int gcc_major, uint32_t ident,
                                         std::string* error) {
  if (a.tag != b.tag || a.num_counters != b.num_counters) {
    *error = fmt::format("function {}: counter records differ (tag 0x{:08x} with {} counters vs 0x{:08x} with {})",
                         ident, a.tag, a.num_counters, b.tag, b.num_counters);
    return std::nullopt;
  }
  CounterMerge rule = merge_rule(a.tag, gcc_major);
  if (rule == CounterMerge::kUnsupported) {
    *error = fmt::format("function {}: counter kind {} is a value profile (-fprofile-generate) that covkit "
                         "cannot merge; use gcov-tool merge",
                         ident, (a.tag - format::kTagCounterBase) >> 17);
    return std::nullopt;
  }
  // Zero is the identity of every rule, so an all-zero side (which may claim
  // any number of counters) is never expanded.
  if (b.all_zero) return a;
  if (a.all_zero) return b;
  DataRecord out = a;
  for (size_t i = 0; i < out.counters.size(); ++i) out.counters[i] = merge_value(rule, a.counters[i], b.counters[i]);
  return out;
}

bool append_function(const DataFile& a, Unit ua, const DataFile& b, Unit ub, std::vector<DataRecord>& out,
                     std::string* error) {
  const DataRecord& fa = a.records[ua.first];
  const DataRecord& fb = b.records[ub.first];
  // A placeholder has no counters here; the other program's copy is the data.
  const DataFile& whole = fa.placeholder ? b : a;
  Unit whole_unit = fa.placeholder ? ub : ua;
  if (fa.placeholder || fb.placeholder) {
    for (size_t i = 0; i < whole_unit.count; ++i) out.push_back(whole.records[whole_unit.first + i]);
    return true;
  }
  if (!fa.has_ids || !fb.has_ids) {
    *error = fmt::format("function record at offset {} is malformed", fa.has_ids ? fb.offset : fa.offset);
    return false;
  }
  if (fa.ident != fb.ident || fa.lineno_checksum != fb.lineno_checksum || fa.cfg_checksum != fb.cfg_checksum) {
    *error = fmt::format(
        "function {} differs (ident {} vs {}, line checksum 0x{:08x} vs 0x{:08x}, cfg checksum 0x{:08x} vs "
        "0x{:08x}): the sources changed between the builds",
        fa.ident, fa.ident, fb.ident, fa.lineno_checksum, fb.lineno_checksum, fa.cfg_checksum, fb.cfg_checksum);
    return false;
  }
  if (ua.count != ub.count) {
    *error = fmt::format("function {}: {} counter records vs {}", fa.ident, ua.count - 1, ub.count - 1);
    return false;
  }
  out.push_back(fa);
  for (size_t i = 1; i < ua.count; ++i) {
    auto merged = merge_counters(a.records[ua.first + i], b.records[ub.first + i], a.version.major, fa.ident, error);
    if (!merged) return false;
    out.push_back(std::move(*merged));
  }
  return true;
}

bool append_unit(const DataFile& a, Unit ua, const DataFile& b, Unit ub, std::vector<DataRecord>& out,
                 std::string* error) {
  const DataRecord& ra = a.records[ua.first];
  const DataRecord& rb = b.records[ub.first];
  if (ra.kind != rb.kind || ra.tag != rb.tag) {
    *error = fmt::format("record 0x{:08x} at offset {} meets record 0x{:08x} at offset {}: the layouts differ", ra.tag,
                         ra.offset, rb.tag, rb.offset);
    return false;
  }
  switch (ra.kind) {
    case Kind::kFunction:
      return append_function(a, ua, b, ub, out, error);
    case Kind::kSummary: {
      DataRecord s = ra;
      s.runs = ra.runs + rb.runs;  // uint32, wrapping as in libgcov
      s.sum_max = ra.sum_max + rb.sum_max;
      out.push_back(std::move(s));
      return true;
    }
    case Kind::kOther:
      if (ra.words != rb.words) {
        *error = fmt::format("record 0x{:08x} at offset {} differs and covkit does not know how to add it", ra.tag,
                             ra.offset);
        return false;
      }
      out.push_back(ra);
      return true;
    case Kind::kCounters:
      break;
  }
  *error = fmt::format("counter record at offset {} follows no function", ra.offset);
  return false;
}

}  // namespace

Expected<DataFile> merge_data(const DataFile& a, const DataFile& b) {
  if (a.error || b.error) return Error("a data file is corrupt");
  if (a.version.raw != b.version.raw)
    return Error(fmt::format("written by different GCC versions ({} vs {})", a.version.four_chars(),
                             b.version.four_chars()));
  // GCC 8's program summary holds histograms that libgcov rebuilds from the
  // whole program; they cannot be added from two files.
  if (a.version.major < 9)
    return Error(fmt::format("GCC {} data files cannot be merged (only GCC 9 and later)", a.version.major));
  if (a.stamp != b.stamp)
    return Error(fmt::format("stamps differ (0x{:08x} vs 0x{:08x}): the object was compiled again in between",
                             a.stamp, b.stamp));
  if (a.checksum != b.checksum)
    return Error(fmt::format("checksums differ (0x{:08x} vs 0x{:08x}): the object was compiled again in between",
                             a.checksum, b.checksum));
  std::vector<Unit> ua = units_of(a), ub = units_of(b);
  if (ua.size() != ub.size())
    return Error(fmt::format("the files hold different numbers of functions ({} records vs {})", ua.size(),
                             ub.size()));
  std::string error;  // the helpers below still say why through a string
  DataFile out;
  out.version = a.version;
  out.swapped = a.swapped;
  out.stamp = a.stamp;
  out.checksum = a.checksum;
  out.terminated = true;  // libgcov always ends the file with a zero word
  out.records.reserve(a.records.size());
  for (size_t i = 0; i < ua.size(); ++i)
    if (!append_unit(a, ua[i], b, ub[i], out.records, &error)) return Error(error);
  format::compact_zero_counters(out);
  return out;
}

}  // namespace covkit::model
