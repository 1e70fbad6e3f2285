#include "clang/profdata_reader.h"

#include <fmt/format.h>

#include "clang/byte_cursor.h"

namespace covkit::clang {

namespace {

constexpr uint64_t kIndexedMinVersion = 4;  // the first with a summary
constexpr uint64_t kIndexedMaxVersion = 9;  // clang 16's

// Skips a summary: field count, cutoff count, the fields, then three words
// (cutoff, minimum count, number of counts) per cutoff.
Expected<void> skip_summary(ByteCursor& in) {
  const uint64_t where = in.offset();
  auto fields = in.u64();
  auto cutoffs = in.u64();
  if (!fields || !cutoffs) return Error(where, "the profile summary is cut short");
  if (*fields > in.remaining() / 8 || *cutoffs > in.remaining() / 24 ||
      !in.skip(size_t(*fields * 8)) || !in.skip(size_t(*cutoffs * 24)))
    return Error(where, fmt::format("a profile summary of {} fields and {} cutoffs runs past the end", *fields,
                                    *cutoffs));
  return {};
}

// One name's data: for each of its hashes, counter count, counters, and a
// value profile record whose first word is its size.
Expected<void> read_name_data(ByteCursor& d, std::string_view name, uint64_t version,
                              std::vector<FunctionCounts>& out) {
  if (d.size() % 8 != 0)
    return d.error(fmt::format("the data of {} is {} bytes, not a multiple of 8", name, d.size()));
  while (!d.at_end()) {
    const uint64_t where = d.offset();
    auto hash = d.u64();
    auto n = d.u64();
    if (!hash || !n || *n > d.remaining() / 8)
      return Error(where, fmt::format("a record of {} runs past its data", name));
    FunctionCounts f;
    f.name = std::string(name);
    f.hash = *hash;
    f.counts.reserve(size_t(*n));
    for (uint64_t i = 0; i < *n; ++i) f.counts.push_back(*d.u64());
    if (version >= 3) {
      const uint64_t vwhere = d.offset();
      auto total = d.u32();
      if (!total || *total < 8 || *total % 8 != 0 || *total - 4 > d.remaining())
        return Error(vwhere, fmt::format("the value profile record of {} is damaged", name));
      d.skip(*total - 4);
    }
    out.push_back(std::move(f));
  }
  return {};
}

}  // namespace

bool looks_like_profdata(std::span<const uint8_t> bytes) {
  if (bytes.size() < 8) return false;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | bytes[size_t(i)];
  return v == kIndexedMagic;
}

Expected<IndexedProfile> read_profdata(std::span<const uint8_t> bytes) {
  if (!looks_like_profdata(bytes)) return Error(0, "not an indexed profile (no .profdata magic)");
  ByteCursor in(bytes);
  in.u64();
  IndexedProfile p;
  auto version_word = in.u64();
  if (!version_word) return in.error("the header is cut short");
  p.variant = *version_word & kVariantMask;
  const uint64_t version = *version_word & ~kVariantMask;
  if (version < kIndexedMinVersion || version > kIndexedMaxVersion)
    return Error(8, fmt::format("indexed profile version {}: covkit reads versions {} to {} (llvm-profdata 13 to "
                                "16 write 7 to 9)",
                                version, kIndexedMinVersion, kIndexedMaxVersion));
  p.version = unsigned(version);
  auto unused = in.u64();
  auto hash_type = in.u64();
  auto hash_offset = in.u64();
  if (version >= 8) in.u64();  // memory profile offset
  if (version >= 9) in.u64();  // binary ids offset
  if (!unused || !hash_type || !hash_offset || in.remaining() == 0) return in.error("the header is cut short");
  if (*hash_type != 0)
    return Error(24, fmt::format("hash type {}: only MD5 (0) exists", *hash_type));
  if (auto s = skip_summary(in); !s) return std::move(s).error();
  if (p.variant & kVariantContextIr)
    if (auto s = skip_summary(in); !s) return std::move(s).error();

  // The bucket table: bucket count, entry count, one offset per bucket.
  const uint64_t payload_at = in.position();
  if (*hash_offset < payload_at || *hash_offset > bytes.size() || bytes.size() - *hash_offset < 16)
    return Error(32, fmt::format("the hash table's offset {} lies outside the file", *hash_offset));
  ByteCursor table(bytes.subspan(size_t(*hash_offset)), false, *hash_offset);
  const uint64_t buckets = *table.u64();
  const uint64_t entries = *table.u64();
  if (buckets > table.remaining() / 8)
    return Error(*hash_offset, fmt::format("a hash table of {} buckets runs past the end", buckets));

  // The records, bucket after bucket, up to the table.
  ByteCursor rec(bytes.subspan(0, size_t(*hash_offset)));
  rec.seek(payload_at);
  uint64_t left_in_bucket = 0;
  for (uint64_t e = 0; e < entries; ++e) {
    const uint64_t where = rec.offset();
    if (left_in_bucket == 0) {
      auto n = rec.u16();
      if (!n || *n == 0)
        return Error(where, fmt::format("{} of {} functions read, then no bucket", e, entries));
      left_in_bucket = *n;
    }
    const uint64_t item = rec.offset();
    auto hash = rec.u64();
    auto key_len = rec.u64();
    auto data_len = rec.u64();
    if (!hash || !key_len || !data_len || *key_len > rec.remaining() || *data_len > rec.remaining() - *key_len)
      return Error(item, fmt::format("function {} of {} runs past the records", e + 1, entries));
    std::string_view name = *rec.text(size_t(*key_len));
    if (name.empty()) return Error(item, "a function without a name");
    ByteCursor d(*rec.bytes(size_t(*data_len)), false, item + 24 + *key_len);
    if (auto r = read_name_data(d, name, version, p.functions); !r) return std::move(r).error();
    --left_in_bucket;
  }
  return p;
}

}  // namespace covkit::clang
