#include "format/gcda_reader.h"

#include <algorithm>

#include <fmt/format.h>

#include "format/byte_reader.h"
#include "format/gcov_tags.h"

namespace covkit::format {

namespace {

// Counter k of a function has tag kTagCounterBase + (k << 17).
bool is_counter_tag(uint32_t tag) {
  return tag >= kTagCounterBase && tag < kTagCounterBase + (32u << 17) && ((tag - kTagCounterBase) & 0x1ffff) == 0;
}

// Whether DataReadLimits asks for this record's counters; `ident` is that of
// the function record before it (0 when none).
bool wanted(const DataRecord& rec, const DataReadLimits& limits, uint32_t ident) {
  if (rec.tag != kTagArcCounters) return limits.everything;
  if (!limits.arcs_by_function) return true;
  const size_t* arcs = limits.arcs_by_function->find(ident);
  return arcs && *arcs == rec.num_counters;
}

// Reads one record whose tag and length have been read; `r` is limited to it.
std::optional<ParseError> read_record(ByteReader& r, DataRecord& rec, uint64_t len_bytes,
                                      const DataReadLimits& limits, uint32_t ident, bool gcc48) {
  uint32_t words = uint32_t(len_bytes / 4);
  if (rec.tag == kTagObjectSummary) {
    rec.kind = DataRecord::Kind::kSummary;
    auto runs = r.u32(), sum_max = r.u32();
    if (!rec.cut_short && (!runs || !sum_max)) return ParseError{rec.offset, "object summary record too short"};
    rec.runs = runs.value_or(0);
    rec.sum_max = sum_max.value_or(0);
    return std::nullopt;
  }
  if (rec.tag == kTagProgramSummary && gcc48) {
    // clang's: a checksum and a count of counter kinds (both 0), the runs.
    rec.kind = DataRecord::Kind::kSummary;
    if (words >= 3) {
      r.u32();
      r.u32();
      rec.runs = r.u32().value_or(0);
    }
    return std::nullopt;
  }
  if (rec.tag == kTagFunction) {
    rec.kind = DataRecord::Kind::kFunction;
    rec.placeholder = rec.length == 0;
    if (words >= 3) {
      rec.ident = r.u32().value_or(0);
      rec.lineno_checksum = r.u32().value_or(0);
      rec.cfg_checksum = r.u32().value_or(0);
      rec.has_ids = words == 3;
    }
    return std::nullopt;
  }
  if (is_counter_tag(rec.tag)) {
    rec.kind = DataRecord::Kind::kCounters;
    rec.num_counters = uint32_t(len_bytes / 8);
    if (rec.all_zero || !wanted(rec, limits, ident)) return std::nullopt;
    // Only the counters present take memory: a cut record's length is not
    // backed by bytes.
    const uint32_t present = uint32_t(std::min<uint64_t>(rec.num_counters, r.remaining() / 8));
    rec.counters.reserve(present);
    for (uint32_t i = 0; i < present; ++i) rec.counters.push_back(int64_t(*r.u64()));
    rec.counters_missing = rec.num_counters - present;
    return std::nullopt;
  }
  rec.kind = DataRecord::Kind::kOther;
  if (!limits.everything) return std::nullopt;
  const uint32_t present = uint32_t(std::min<uint64_t>(words, r.remaining() / 4));
  rec.words.reserve(present);
  for (uint32_t i = 0; i < present; ++i) rec.words.push_back(*r.u32());
  return std::nullopt;
}

// How many records follow (to the end marker, the end or the first broken
// record): the records' array is then allocated once (grown by doubling,
// it allocated twice the records' size, most of the memory of reading a
// data file).
size_t count_records(ByteReader r, bool bytes) {
  size_t n = 0;
  while (!r.at_end()) {
    auto tag = r.u32();
    if (!tag || *tag == 0) break;
    auto length = r.u32();
    if (!length) break;
    ++n;
    const int32_t signed_len = int32_t(*length);
    if (is_counter_tag(*tag) && signed_len < 0) continue;  // no payload
    const uint64_t len_bytes = bytes ? uint64_t{*length} : uint64_t{*length} * 4;
    if (len_bytes > r.remaining()) break;
    r.seek(r.position() + len_bytes);
  }
  return n;
}

}  // namespace

ArcCounts::ArcCounts(std::vector<std::pair<uint32_t, size_t>> counts) {
  entries_.reserve(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) entries_.push_back({counts[i].first, uint32_t(i), counts[i].second});
  std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
    return a.ident != b.ident ? a.ident < b.ident : a.order < b.order;
  });
}

const size_t* ArcCounts::find(uint32_t ident) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), ident,
                             [](const Entry& e, uint32_t id) { return e.ident < id; });
  return it != entries_.end() && it->ident == ident ? &it->arcs : nullptr;
}

DataResult read_data(std::span<const uint8_t> data, const DataReadLimits& limits) {
  DataFile file;
  ByteReader r(data);
  if (!r.read_magic(kDataMagic)) return HeaderError{HeaderProblem::kNotThisKind, 0, "not a gcov data file"};
  file.swapped = r.swapped();
  auto raw = r.u32();
  if (!raw) return HeaderError{HeaderProblem::kTruncatedHeader, 0, "truncated header"};
  auto v = GcovVersion::decode(*raw);
  if (!v || !v->supported())
    return HeaderError{HeaderProblem::kUnsupportedVersion, *raw,
                       unsupported_version_message(*raw)};
  file.version = *v;
  auto stamp = r.u32();
  if (!stamp) return HeaderError{HeaderProblem::kTruncatedHeader, *raw, "truncated header"};
  file.stamp = *stamp;
  if (v->header_has_checksum()) {
    auto cs = r.u32();
    if (!cs) return HeaderError{HeaderProblem::kTruncatedHeader, *raw, "truncated header"};
    file.checksum = *cs;
  }
  const bool bytes = v->lengths_in_bytes();
  uint32_t ident = 0;  // of the last function record
  file.terminated = false;
  file.records.reserve(count_records(r, bytes));
  while (!r.at_end()) {
    size_t offset = r.position();
    auto tag = r.u32();
    if (!tag) {
      file.error = ParseError{offset, fmt::format("{} stray bytes at end of file", r.remaining())};
      break;
    }
    if (*tag == 0) {
      file.terminated = true;
      break;
    }
    auto length = r.u32();
    DataRecord rec;
    rec.tag = *tag;
    rec.offset = offset;
    if (!length) {
      // gcov reads the length as 0 and the record as such (a function
      // placeholder, an empty counter record, a summary of zeros).
      file.error = ParseError{offset, fmt::format("record 0x{:08x} has no length word", *tag)};
      rec.cut_short = true;
      r.set_limit(r.position());
      read_record(r, rec, 0, limits, ident, v->is_gcc48());
      r.clear_limit();
      file.records.push_back(std::move(rec));
      break;
    }
    rec.length = *length;
    // GCC >= 11 marks an all-zero counter record with a negative length and no payload.
    int32_t signed_len = int32_t(*length);
    uint64_t len_bytes;
    uint64_t payload;
    if (is_counter_tag(*tag) && signed_len < 0) {
      rec.all_zero = true;
      len_bytes = bytes ? uint64_t(-int64_t(signed_len)) : uint64_t(-int64_t(signed_len)) * 4;
      payload = 0;
    } else {
      len_bytes = bytes ? uint64_t{*length} : uint64_t{*length} * 4;
      payload = len_bytes;
    }
    size_t base = r.position();
    if (payload > r.size() - base) {
      // gcov keeps what it read of the record (the rest reads as 0), then
      // meets the end of the file where the next tag should be.
      file.error = ParseError{offset, fmt::format("record 0x{:08x} of {} bytes runs past the end of the file ({} bytes)",
                                                  *tag, payload, r.size())};
      rec.cut_short = true;
      r.set_limit(r.size());
      read_record(r, rec, len_bytes, limits, ident, v->is_gcc48());
      r.clear_limit();
      r.seek(r.size());
      file.records.push_back(std::move(rec));
      break;
    }
    r.set_limit(base + payload);
    if (auto err = read_record(r, rec, len_bytes, limits, ident, v->is_gcc48())) {
      file.error = *err;
      break;
    }
    r.clear_limit();
    r.seek(base + payload);
    // As gcov (and GcovSession) do: a placeholder leaves the function as it was.
    if (rec.kind == DataRecord::Kind::kFunction && !rec.placeholder && rec.has_ids) ident = rec.ident;
    file.records.push_back(std::move(rec));
  }
  file.bytes_read = r.position();
  return file;
}

}  // namespace covkit::format
