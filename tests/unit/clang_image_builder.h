#pragma once
// Builds clang's profile and coverage-mapping bytes in memory, the way
// clang 13-16's runtime and compiler lay them out, for the readers' tests:
// raw profiles (versions 7 and 8, either byte order, 32- or 64-bit
// pointers), names blobs (plain or zlib-compressed), and the three coverage
// mapping sections of a binary.
#include <zlib.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/md5.h"

namespace covkit::testing {

class ByteImage {
 public:
  explicit ByteImage(bool big_endian = false) : big_(big_endian) {}
  ByteImage& u8(uint8_t v) {
    b_.push_back(v);
    return *this;
  }
  ByteImage& u16(uint16_t v) { return fixed(v, 2); }
  ByteImage& u32(uint32_t v) { return fixed(v, 4); }
  ByteImage& u64(uint64_t v) { return fixed(v, 8); }
  ByteImage& uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      if (v) byte |= 0x80;
      b_.push_back(byte);
    } while (v);
    return *this;
  }
  ByteImage& raw(std::string_view s) {
    b_.insert(b_.end(), s.begin(), s.end());
    return *this;
  }
  ByteImage& raw(const std::vector<uint8_t>& s) {
    b_.insert(b_.end(), s.begin(), s.end());
    return *this;
  }
  ByteImage& align(size_t n) {
    while (b_.size() % n) b_.push_back(0);
    return *this;
  }
  size_t size() const { return b_.size(); }
  std::vector<uint8_t>& bytes() { return b_; }
  const std::vector<uint8_t>& bytes() const { return b_; }
  std::string str() const { return std::string(b_.begin(), b_.end()); }

 private:
  ByteImage& fixed(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) b_.push_back(uint8_t(v >> (8 * (big_ ? n - 1 - i : i))));
    return *this;
  }
  bool big_;
  std::vector<uint8_t> b_;
};

inline std::string zlib_compress(std::string_view s) {
  uLongf n = compressBound(uLong(s.size()));
  std::string out(n, '\0');
  compress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(s.data()), uLong(s.size()));
  out.resize(n);
  return out;
}

// A names blob: one block holding `names` separated by '\x01'.
inline std::vector<uint8_t> names_blob(const std::vector<std::string>& names, bool compressed) {
  std::string joined;
  for (size_t i = 0; i < names.size(); ++i) joined += (i ? "\x01" : "") + names[i];
  ByteImage b;
  b.uleb(joined.size());
  if (compressed) {
    std::string z = zlib_compress(joined);
    b.uleb(z.size()).raw(z);
  } else {
    b.uleb(0).raw(joined);
  }
  return b.bytes();
}

struct RawFunction {
  std::string name;
  uint64_t hash = 0;
  std::vector<uint64_t> counts;
  uint16_t value_sites = 0;  // >0: a value profile record follows the names
};

struct RawOptions {
  unsigned version = 8;
  bool big_endian = false;
  bool pointer32 = false;
  bool compressed_names = false;
  std::vector<std::string> binary_ids;  // raw bytes each
  uint64_t variant = 0;
  // The names blob's order when not empty (else the functions' order): two
  // runs can share one blob while their records come in another order.
  std::vector<std::string> names_order;
};

// A raw profile as the runtime writes it: counters laid out in function
// order, the counters' section right before the data in memory (version 8
// keeps relative pointers).
inline std::vector<uint8_t> raw_profile(const std::vector<RawFunction>& fns, const RawOptions& o = {}) {
  const uint64_t record = o.pointer32 ? 40 : 48;
  uint64_t ncounters = 0;
  for (const RawFunction& f : fns) ncounters += f.counts.size();
  std::vector<std::string> names;
  for (const RawFunction& f : fns) names.push_back(f.name);
  if (!o.names_order.empty()) names = o.names_order;
  std::vector<uint8_t> nb = names_blob(names, o.compressed_names);
  ByteImage ids(o.big_endian);
  // Version 8 pads each id to 8 bytes, version 7 does not.
  for (const std::string& id : o.binary_ids) {
    ids.u64(id.size()).raw(id);
    if (o.version >= 8) ids.align(8);
  }

  // Addresses: counters at 0x10000, data at 0x20000, names at 0x30000.
  const uint64_t counters_at = 0x10000, data_at = 0x20000;
  ByteImage b(o.big_endian);
  b.u64(o.pointer32 ? 0xff6c70726f665281ull : 0xff6c70726f667281ull);
  b.u64(o.version | o.variant);
  b.u64(ids.size()).u64(fns.size()).u64(0).u64(ncounters).u64(0).u64(nb.size());
  b.u64(o.version >= 8 ? counters_at - data_at : counters_at).u64(0x30000).u64(1);
  b.raw(ids.bytes());
  uint64_t counter_index = 0;
  for (size_t i = 0; i < fns.size(); ++i) {
    const RawFunction& f = fns[i];
    const uint64_t counter_address = counters_at + counter_index * 8;
    const uint64_t record_address = data_at + i * record;
    const uint64_t ptr = o.version >= 8 ? counter_address - record_address : counter_address;
    b.u64(util::md5_low64(f.name)).u64(f.hash);
    if (o.pointer32)
      b.u32(uint32_t(ptr)).u32(0).u32(f.value_sites ? 0x40000 : 0);
    else
      b.u64(ptr).u64(0).u64(f.value_sites ? 0x40000 : 0);
    b.u32(uint32_t(f.counts.size())).u16(f.value_sites).u16(0);
    if (o.pointer32) b.u32(0);  // 36 bytes of fields, padded to 40
    counter_index += f.counts.size();
  }
  for (const RawFunction& f : fns)
    for (uint64_t c : f.counts) b.u64(c);
  // Padding after the names counts from their size (clang 13's unpadded
  // binary ids may leave everything after them unaligned in the file).
  b.raw(nb);
  for (size_t pad = (8 - nb.size() % 8) % 8; pad > 0; --pad) b.u8(0);
  for (const RawFunction& f : fns)
    if (f.value_sites) {
      // TotalSize 16: the header and one empty kind, no values.
      b.u32(16).u32(0).u32(0).u32(0);
    }
  return b.bytes();
}

// One function of a coverage mapping, already encoded (see mapping_bytes).
struct CovFunction {
  std::string name;
  uint64_t hash = 0;
  std::vector<uint8_t> mapping;
  size_t unit = 0;  // which unit's file list it uses
};

// The encoded file list of a unit (format 6: compile directory first).
inline std::vector<uint8_t> filenames_blob(const std::vector<std::string>& names, bool compressed) {
  ByteImage plain;
  for (const std::string& n : names) plain.uleb(n.size()).raw(n);
  ByteImage b;
  b.uleb(names.size()).uleb(plain.size());
  if (compressed) {
    std::string z = zlib_compress(plain.str());
    b.uleb(z.size()).raw(z);
  } else {
    b.uleb(0).raw(plain.bytes());
  }
  return b.bytes();
}

struct MappingImage {
  std::vector<uint8_t> covmap, covfun, names;
};

inline MappingImage mapping_sections(const std::vector<std::vector<std::string>>& units,
                                     const std::vector<CovFunction>& fns, bool big_endian = false,
                                     bool compressed = false, uint32_t version_word = 5) {
  MappingImage m;
  ByteImage map(big_endian);
  std::vector<uint64_t> refs;
  for (const auto& files : units) {
    std::vector<uint8_t> blob = filenames_blob(files, compressed);
    refs.push_back(util::md5_low64(std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size())));
    map.u32(0).u32(uint32_t(blob.size())).u32(0).u32(version_word).raw(blob).align(8);
  }
  m.covmap = map.bytes();
  ByteImage fun(big_endian);
  std::vector<std::string> names;
  for (const CovFunction& f : fns) {
    fun.u64(util::md5_low64(f.name)).u32(uint32_t(f.mapping.size())).u64(f.hash).u64(refs[f.unit]);
    fun.raw(f.mapping).align(8);
    names.push_back(f.name);
  }
  m.covfun = fun.bytes();
  m.names = names_blob(names, compressed);
  return m;
}

// Counter encodings (tag in the low two bits).
inline uint64_t counter_ref(uint32_t id) { return uint64_t(id) << 2 | 1; }
inline uint64_t sub_expr(uint32_t id) { return uint64_t(id) << 2 | 2; }
inline uint64_t add_expr(uint32_t id) { return uint64_t(id) << 2 | 3; }

struct RegionSpec {
  enum Kind { kCode, kExpansion, kSkipped, kGap, kBranch } kind = kCode;
  uint64_t counter = 0, false_counter = 0;  // encoded
  uint32_t expanded = 0;
  uint32_t line_start, column_start, line_end, column_end;
};

// A function's mapping: file ids (indices into its unit's files),
// expressions (pairs of encoded counters), regions per file id.
inline std::vector<uint8_t> mapping_bytes(const std::vector<uint32_t>& files,
                                          const std::vector<std::pair<uint64_t, uint64_t>>& expressions,
                                          const std::vector<std::vector<RegionSpec>>& regions) {
  ByteImage b;
  b.uleb(files.size());
  for (uint32_t f : files) b.uleb(f);
  b.uleb(expressions.size());
  for (auto [l, r] : expressions) b.uleb(l).uleb(r);
  for (const auto& per_file : regions) {
    b.uleb(per_file.size());
    uint32_t prev = 0;
    for (const RegionSpec& r : per_file) {
      switch (r.kind) {
        case RegionSpec::kCode:
        case RegionSpec::kGap:
          b.uleb(r.counter);
          break;
        case RegionSpec::kExpansion:
          b.uleb(uint64_t(r.expanded) << 3 | 4);
          break;
        case RegionSpec::kSkipped:
          b.uleb(2 << 3);
          break;
        case RegionSpec::kBranch:
          b.uleb(4 << 3).uleb(r.counter).uleb(r.false_counter);
          break;
      }
      b.uleb(r.line_start - prev).uleb(r.column_start).uleb(r.line_end - r.line_start);
      b.uleb(r.kind == RegionSpec::kGap ? (r.column_end | (1u << 31)) : r.column_end);
      prev = r.line_start;
    }
  }
  return b.bytes();
}

}  // namespace covkit::testing
