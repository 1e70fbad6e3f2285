#include "clang/profraw_reader.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <optional>

#include "clang/byte_cursor.h"
#include "clang/profile_names.h"

namespace covkit::clang {

namespace {

constexpr uint64_t kRawMagic64 = 0xff6c70726f667281ull;  // "\x81rforpl\xff" on a little-endian disk
constexpr uint64_t kRawMagic32 = 0xff6c70726f665281ull;
constexpr uint64_t kRawHeaderWords = 11;
// The value kinds a data record has sites for (indirect call targets,
// memory operation sizes): clang 13 to 16 know two.
constexpr uint64_t kValueKindLast = 1;

struct RawShape {
  bool big_endian = false;
  unsigned pointer_bytes = 8;
};

std::optional<RawShape> raw_shape(uint64_t magic_as_little) {
  if (magic_as_little == kRawMagic64) return RawShape{false, 8};
  if (magic_as_little == kRawMagic32) return RawShape{false, 4};
  if (magic_as_little == __builtin_bswap64(kRawMagic64)) return RawShape{true, 8};
  if (magic_as_little == __builtin_bswap64(kRawMagic32)) return RawShape{true, 4};
  return std::nullopt;
}

uint64_t first_u64(std::span<const uint8_t> bytes) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | bytes[size_t(i)];
  return v;
}

std::string hex_bytes(std::span<const uint8_t> b) {
  std::string s;
  for (uint8_t c : b) s += fmt::format("{:02x}", c);
  return s;
}

// a + b <= limit, without overflow.
bool fits(uint64_t a, uint64_t b, uint64_t limit) { return a <= limit && b <= limit - a; }

struct RawHeader {
  uint64_t version = 0, binary_ids_size = 0, data_count = 0, padding_before_counters = 0, counter_count = 0,
           padding_after_counters = 0, names_size = 0, counters_delta = 0, names_delta = 0, value_kind_last = 0;
};

// One profile starting at `start`; `next` receives where the following one
// may start (after its value profile records).
Expected<RawProfileRecords> read_one_profile(std::span<const uint8_t> file, size_t start, size_t& next,
                                             NameTableCache* cache) {
  const RawShape shape = *raw_shape(first_u64(file.subspan(start)));
  ByteCursor in(file.subspan(start), shape.big_endian, start);
  RawProfileRecords out;
  RawProfile& p = out.header;
  p.big_endian = shape.big_endian;
  p.pointer_bytes = shape.pointer_bytes;
  if (in.remaining() < kRawHeaderWords * 8)
    return in.error(fmt::format("the raw profile header is cut short ({} bytes where it takes {})", in.remaining(),
                                kRawHeaderWords * 8));
  in.u64();  // the magic
  RawHeader h;
  const uint64_t version_word = *in.u64();
  p.variant = version_word & kVariantMask;
  h.version = version_word & ~kVariantMask;
  if (h.version != 7 && h.version != 8)
    return Error(start + 8, fmt::format("raw profile version {}: covkit reads versions 7 (clang 13) and 8 "
                                        "(clang 14 to 16)",
                                        h.version));
  p.version = unsigned(h.version);
  if (p.variant & kVariantDebugInfo)
    return Error(start + 8, "written with -debug-info-correlate: its names and records are in the binary's "
                            "debug information, which covkit does not read");
  for (uint64_t* field : {&h.binary_ids_size, &h.data_count, &h.padding_before_counters, &h.counter_count,
                          &h.padding_after_counters, &h.names_size, &h.counters_delta, &h.names_delta,
                          &h.value_kind_last})
    *field = *in.u64();
  if (h.value_kind_last != kValueKindLast)
    return Error(start + 80, fmt::format("{} value kinds where clang 13 to 16 write {}", h.value_kind_last + 1,
                                         kValueKindLast + 1));

  // Where everything is, each step checked against the file's end.
  const uint64_t limit = in.size();
  const uint64_t counter_size = (p.variant & kVariantByteCoverage) ? 1 : 8;
  const uint64_t record_size = shape.pointer_bytes == 8 ? 48 : 40;
  uint64_t at = kRawHeaderWords * 8;
  auto advance = [&](uint64_t count, uint64_t unit, const char* what) -> Expected<uint64_t> {
    if (unit != 0 && count > limit / unit)
      return Error(start + at, fmt::format("{} {} of {} bytes cannot fit in the file", count, what, unit));
    if (!fits(at, count * unit, limit))
      return Error(start + at, fmt::format("the {} ({} bytes) run past the end of the file", what, count * unit));
    const uint64_t begin = at;
    at += count * unit;
    return begin;
  };
  // Version 8 pads each binary id to 8 bytes; clang 13's version 7 does not
  // (its data records may then start unaligned).
  const bool padded_ids = h.version >= 8;
  if (padded_ids && h.binary_ids_size % 8 != 0)
    return Error(start + 16, fmt::format("binary ids of {} bytes, not a multiple of 8", h.binary_ids_size));
  auto ids_at = advance(h.binary_ids_size, 1, "binary ids");
  auto data_at = ids_at ? advance(h.data_count, record_size, "data records") : ids_at;
  auto pad1 = data_at ? advance(h.padding_before_counters, 1, "padding") : data_at;
  auto counters_at = pad1 ? advance(h.counter_count, counter_size, "counters") : pad1;
  auto pad2 = counters_at ? advance(h.padding_after_counters, 1, "padding") : counters_at;
  auto names_at = pad2 ? advance(h.names_size, 1, "names") : pad2;
  if (!names_at) return std::move(names_at).error();
  const uint64_t names_padding = (8 - h.names_size % 8) % 8;
  auto values_at = advance(names_padding, 1, "padding after the names");
  if (!values_at) return std::move(values_at).error();
  const uint64_t value_data_at = at;

  // Binary ids.
  ByteCursor ids(in.data().subspan(*ids_at, h.binary_ids_size), shape.big_endian, start + *ids_at);
  while (!ids.at_end()) {
    const uint64_t where = ids.offset();
    auto len = ids.u64();
    auto id = len && *len <= ids.remaining() ? ids.bytes(size_t(*len)) : std::nullopt;
    if (!id || (padded_ids && !ids.align(8))) return Error(where, "a binary id runs past the binary ids' size");
    p.binary_ids.push_back(hex_bytes(*id));
  }

  auto table = name_table(in.data().subspan(*names_at, h.names_size), start + *names_at, cache);
  if (!table) return std::move(table).error();
  out.names = std::move(*table);
  const NameTable& names = *out.names;
  out.counter_bytes = unsigned(counter_size);

  // The data records, with their counters.
  const uint64_t pointer_mask = shape.pointer_bytes == 8 ? ~0ull : 0xffffffffull;
  const uint64_t counters_bytes = h.counter_count * counter_size;
  uint64_t counters_delta = h.counters_delta;
  ByteCursor values(in.data().subspan(value_data_at), shape.big_endian, start + value_data_at);
  ByteCursor rec(in.data().subspan(*data_at, h.data_count * record_size), shape.big_endian, start + *data_at);
  out.records.reserve(size_t(h.data_count));
  for (uint64_t r = 0; r < h.data_count; ++r) {
    const uint64_t where = rec.offset();
    const uint64_t name_ref = *rec.u64();
    const uint64_t hash = *rec.u64();
    auto pointer = [&] { return shape.pointer_bytes == 8 ? *rec.u64() : uint64_t(*rec.u32()); };
    const uint64_t counter_ptr = pointer();
    pointer();  // the function's address
    pointer();  // its value profile nodes
    const uint32_t num_counters = *rec.u32();
    const uint16_t sites0 = *rec.u16(), sites1 = *rec.u16();
    rec.align(8);

    const std::optional<std::string_view> name = names.find(name_ref);
    if (!name)
      return Error(where, fmt::format("data record {} names function {:#018x}, which is not among the profile's "
                                      "names",
                                      r, name_ref));
    if (num_counters == 0) return Error(where, fmt::format("data record {} ({}) has no counters", r, *name));
    // Version 8 keeps the counter pointer relative to the record itself,
    // and the header's delta is where the counters start relative to the
    // first record: the reference moves with each record.
    const uint64_t offset = (counter_ptr - counters_delta) & pointer_mask;
    if (p.version >= 8) counters_delta -= record_size;
    if (offset > counters_bytes || uint64_t(num_counters) * counter_size > counters_bytes - offset)
      return Error(where, fmt::format("data record {} ({}): its {} counters at byte {} lie outside the {} bytes "
                                      "of counters",
                                      r, *name, num_counters, int64_t(offset), counters_bytes));
    out.records.push_back(
        RawRecord{*name, name_ref, hash, in.data().subspan(*counters_at + offset, num_counters * counter_size)});

    // Value profile records follow the names, one per record that has
    // value sites; only their size matters here.
    if (sites0 != 0 || sites1 != 0) {
      const uint64_t vwhere = values.offset();
      auto total = values.u32();
      if (!total || *total < 8 || *total % 8 != 0 || *total - 4 > values.remaining())
        return Error(vwhere, fmt::format("the value profile record of {} is damaged", *name));
      values.skip(*total - 4);
    }
  }
  next = start + value_data_at + values.position();
  return out;
}

}  // namespace

void record_counts(const RawProfileRecords& profile, const RawRecord& record, std::vector<uint64_t>& out) {
  if (profile.counter_bytes == 1) {
    out.resize(record.counters.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = record.counters[i] == 0 ? 1 : 0;  // a cleared byte says "ran"
    return;
  }
  out.resize(record.counters.size() / 8);
  std::memcpy(out.data(), record.counters.data(), out.size() * 8);
  if (profile.header.big_endian != (std::endian::native == std::endian::big))
    for (uint64_t& v : out) v = __builtin_bswap64(v);
}

bool looks_like_profraw(std::span<const uint8_t> bytes) {
  return bytes.size() >= 8 && raw_shape(first_u64(bytes)).has_value();
}

Expected<std::vector<RawProfile>> read_profraw(std::span<const uint8_t> bytes, NameTableCache* names) {
  auto scanned = scan_profraw(bytes, names);
  if (!scanned) return std::move(scanned).error();
  std::vector<RawProfile> profiles;
  profiles.reserve(scanned->size());
  for (RawProfileRecords& s : *scanned) {
    RawProfile p = std::move(s.header);
    p.functions.reserve(s.records.size());
    for (const RawRecord& r : s.records) {
      FunctionCounts f;
      f.name = r.name;
      f.hash = r.hash;
      record_counts(s, r, f.counts);
      p.functions.push_back(std::move(f));
    }
    profiles.push_back(std::move(p));
  }
  return profiles;
}

Expected<std::vector<RawProfileRecords>> scan_profraw(std::span<const uint8_t> bytes, NameTableCache* names) {
  if (!looks_like_profraw(bytes)) return Error(0, "not a clang raw profile (no .profraw magic)");
  std::vector<RawProfileRecords> profiles;
  const uint64_t first_magic = first_u64(bytes);
  size_t at = 0;
  while (true) {
    size_t next = 0;
    auto p = read_one_profile(bytes, at, next, names);
    if (!p) return std::move(p).error();
    profiles.push_back(std::move(*p));
    // Zero padding may separate profiles; another one starts aligned, in
    // the same byte order and pointer size.
    while (next < bytes.size() && bytes[next] == 0) ++next;
    if (next >= bytes.size()) return profiles;
    if ((profiles.back().header.version >= 8 && next % 8 != 0) || bytes.size() - next < 8 ||
        first_u64(bytes.subspan(next)) != first_magic)
      return Error(next, "bytes after the profile that do not start another one");
    at = next;
  }
}

}  // namespace covkit::clang
