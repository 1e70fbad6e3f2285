#include "live/profraw_image.h"

#include <fmt/format.h>

#include <cstring>

namespace covkit::live {

namespace {

constexpr uint64_t kRawMagic = 0xff6c70726f667281ull;
constexpr uint64_t kVariantFlags = 0xff00000000000000ull;
constexpr uint64_t kDebugInfoCorrelate = 1ull << 59;
constexpr uint64_t kByteCoverage = 1ull << 60;
constexpr uint64_t kValueKindLast = 1;  // indirect call targets, memory operation sizes
// No module holds sections this large; a size beyond it is a damaged or
// hostile record, refused before anything is read.
constexpr uint64_t kMaxSection = uint64_t(1) << 30;
// The runtime stores at most 255 as a site's value count.
constexpr uint32_t kMaxSiteValues = 255;

uint64_t pad8(uint64_t n) { return (8 - n % 8) % 8; }

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  const size_t at = out.size();
  out.resize(at + 8);
  std::memcpy(out.data() + at, &v, 8);
}
void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  const size_t at = out.size();
  out.resize(at + 4);
  std::memcpy(out.data() + at, &v, 4);
}

// One __llvm_profile_data record, the fields used here.
struct ProfileRecord {
  uint64_t counter_ptr = 0, values = 0;
  uint32_t num_counters = 0;
  uint16_t sites[kValueKindLast + 1] = {0, 0};
};

ProfileRecord record_at(std::span<const uint8_t> data, uint64_t index) {
  ProfileRecord r;
  const uint8_t* p = data.data() + index * kProfileRecordSize;
  std::memcpy(&r.counter_ptr, p + 16, 8);
  std::memcpy(&r.values, p + 32, 8);
  std::memcpy(&r.num_counters, p + 40, 4);
  std::memcpy(r.sites, p + 44, 4);
  return r;
}

unsigned version_of(const ProfileSections& s) { return unsigned(s.version_word & ~kVariantFlags); }
uint64_t counter_bytes(const ProfileSections& s) { return (s.version_word & kByteCoverage) ? 1 : 8; }

// One record's value profile data, as the runtime serialises it: a
// ValueProfData header, then per value kind with sites its record (kind,
// site count, each site's value count padded to 8, the values).
Expected<void> append_value_data(const ProfileRecord& r, uint64_t index, const MemorySource& memory,
                                 std::vector<uint8_t>& out, size_t& sites_seen) {
  uint32_t kinds = 0;
  uint64_t total_sites = 0;
  for (uint16_t n : r.sites) {
    kinds += n != 0;
    total_sites += n;
  }
  if (kinds == 0) return {};
  sites_seen += total_sites;
  // Each site's list head, from the record's array (absent: nothing was counted).
  std::vector<uint64_t> heads(total_sites, 0);
  if (r.values != 0)
    if (auto read = memory.read(r.values, heads.data(), heads.size() * 8); !read)
      return Error(fmt::format("data record {}: its value sites at {:#x} cannot be read: {}", index, r.values,
                               read.error().message));
  struct Value {
    uint64_t value, count;
  };
  std::vector<std::vector<Value>> site_values(total_sites);
  for (size_t site = 0; site < total_sites; ++site)
    for (uint64_t node = heads[site]; node != 0 && site_values[site].size() < kMaxSiteValues;) {
      uint64_t words[3];
      if (auto read = memory.read(node, words, sizeof words); !read)
        return Error(fmt::format("data record {}: a value node at {:#x} cannot be read: {}", index, node,
                                 read.error().message));
      site_values[site].push_back({words[0], words[1]});
      node = words[2];
    }
  const size_t start = out.size();
  put_u32(out, 0);  // the total size, known at the end
  put_u32(out, kinds);
  size_t site = 0;
  for (uint32_t kind = 0; kind <= kValueKindLast; ++kind) {
    const uint16_t n = r.sites[kind];
    if (n == 0) continue;
    put_u32(out, kind);
    put_u32(out, n);
    for (uint16_t j = 0; j < n; ++j) out.push_back(uint8_t(site_values[site + j].size()));
    out.resize(out.size() + pad8(8 + n), 0);
    for (uint16_t j = 0; j < n; ++j)
      for (const Value& v : site_values[site + j]) {
        put_u64(out, v.value);
        put_u64(out, v.count);
      }
    site += n;
  }
  const uint32_t total = uint32_t(out.size() - start);
  std::memcpy(out.data() + start, &total, 4);
  return {};
}

}  // namespace

Expected<void> check_profile_sections(const ProfileSections& s, const ModuleBounds& bounds) {
  const unsigned version = version_of(s);
  if (version != 7 && version != 8)
    return Error(fmt::format("raw profile version {} (__llvm_profile_raw_version): covkit writes versions 7 "
                             "(clang 13) and 8 (clang 14 to 16)",
                             version));
  if (s.version_word & kDebugInfoCorrelate)
    return Error("built with -debug-info-correlate: the profile's names live in the debug information, which a "
                 "live dump does not write");
  struct Section {
    const char* name;
    uint64_t at, size;
    bool writable;
  };
  for (const Section& sec : {Section{"__llvm_prf_data", s.data, s.data_size, false},
                             Section{"__llvm_prf_cnts", s.counters, s.counters_size, true},
                             Section{"__llvm_prf_names", s.names, s.names_size, false}}) {
    if (sec.size > kMaxSection)
      return Error(fmt::format("section {} of {} bytes: larger than any profile (damaged)", sec.name, sec.size));
    if (sec.size != 0 && !bounds.holds(sec.at, sec.size, sec.writable))
      return Error(fmt::format("section {} ({} bytes at {:#x}) lies outside the module's {} memory", sec.name,
                               sec.size, sec.at, sec.writable ? "writable" : "mapped"));
  }
  if (s.data_size % kProfileRecordSize != 0)
    return Error(fmt::format("section __llvm_prf_data of {} bytes is no whole number of {}-byte records", s.data_size,
                             kProfileRecordSize));
  if (s.counters_size % counter_bytes(s) != 0)
    return Error(fmt::format("section __llvm_prf_cnts of {} bytes is no whole number of {}-byte counters",
                             s.counters_size, counter_bytes(s)));
  for (const auto& id : s.build_ids)
    if (id.empty() || id.size() > 1024)
      return Error(fmt::format("a GNU build id of {} bytes (damaged note)", id.size()));
  return {};
}

Expected<ProfrawImage> build_profraw(const ProfileSections& s, const MemorySource& memory) {
  const unsigned version = version_of(s);
  const uint64_t unit = counter_bytes(s);
  std::vector<uint8_t> data(s.data_size), counters(s.counters_size), names(s.names_size);
  for (auto [what, at, into] : {std::tuple{"__llvm_prf_data", s.data, &data},
                                std::tuple{"__llvm_prf_cnts", s.counters, &counters},
                                std::tuple{"__llvm_prf_names", s.names, &names}})
    if (!into->empty())
      if (auto r = memory.read(at, into->data(), into->size()); !r)
      {
        Error e(fmt::format("section {} cannot be read: {}", what, r.error().message));
        e.errno_value = r.error().errno_value;
        return e;
      }

  ProfrawImage image;
  image.records = s.data_size / kProfileRecordSize;
  image.counters = s.counters_size / unit;
  // Each record's counters must lie in the section (version 8 keeps the
  // pointer relative to the record itself, version 7 absolute).
  for (uint64_t i = 0; i < image.records; ++i) {
    const ProfileRecord r = record_at(data, i);
    const uint64_t at = version >= 8 ? s.data + i * kProfileRecordSize + r.counter_ptr : r.counter_ptr;
    const uint64_t offset = at - s.counters;
    if (r.num_counters == 0 || offset > s.counters_size || offset % unit != 0 ||
        uint64_t(r.num_counters) * unit > s.counters_size - offset)
      return Error(fmt::format("data record {}: its {} counters at {:#x} lie outside __llvm_prf_cnts ({} bytes at "
                               "{:#x})",
                               i, r.num_counters, at, s.counters_size, s.counters));
  }

  // The build ids as the runtime writes them: a length, the bytes, and
  // (version 8) padding to 8. clang 13's runtime writes none.
  std::vector<uint8_t> ids;
  if (version >= 8)
    for (const auto& id : s.build_ids) {
      put_u64(ids, id.size());
      ids.insert(ids.end(), id.begin(), id.end());
      ids.resize(ids.size() + pad8(id.size()), 0);
    }
  std::vector<uint8_t> values;
  for (uint64_t i = 0; i < image.records; ++i)
    if (auto r = append_value_data(record_at(data, i), i, memory, values, image.value_sites); !r) return r.error();

  std::vector<uint8_t>& out = image.bytes;
  out.reserve(11 * 8 + ids.size() + data.size() + counters.size() + names.size() + 16 + values.size());
  put_u64(out, kRawMagic);
  put_u64(out, s.version_word);
  put_u64(out, ids.size());
  put_u64(out, image.records);
  put_u64(out, 0);  // padding before the counters: continuous mode only
  put_u64(out, image.counters);
  put_u64(out, pad8(s.counters_size));
  put_u64(out, s.names_size);
  put_u64(out, version >= 8 ? s.counters - s.data : s.counters);
  put_u64(out, s.names);
  put_u64(out, kValueKindLast);
  out.insert(out.end(), ids.begin(), ids.end());
  out.insert(out.end(), data.begin(), data.end());
  out.insert(out.end(), counters.begin(), counters.end());
  out.resize(out.size() + pad8(s.counters_size), 0);
  out.insert(out.end(), names.begin(), names.end());
  out.resize(out.size() + pad8(s.names_size), 0);
  out.insert(out.end(), values.begin(), values.end());
  return image;
}

}  // namespace covkit::live
