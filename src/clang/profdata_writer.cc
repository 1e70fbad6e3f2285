#include "clang/profdata_writer.h"

#include <array>
#include <bit>
#include <map>

#include "clang/profdata_reader.h"
#include "clang/profile_names.h"

namespace covkit::clang {

namespace {

constexpr uint64_t kWrittenVersion = 7;
// ProfileSummaryBuilder's default cutoffs, in millionths of the total count.
constexpr std::array<uint64_t, 16> kCutoffs = {10000,  100000, 200000, 300000, 400000, 500000, 600000, 700000,
                                               800000, 900000, 950000, 990000, 999000, 999900, 999990, 999999};

void put64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(char(v >> (8 * i)));
}
void put16(std::string& out, uint16_t v) {
  out.push_back(char(v));
  out.push_back(char(v >> 8));
}
void set64(std::string& out, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[at + size_t(i)] = char(v >> (8 * i));
}

// The profile summary as llvm-profdata computes it for front-end profiles:
// a function's first counter is its entry count, the others internal ones.
struct SummaryBuilder {
  uint64_t total = 0, max_count = 0, max_internal = 0, max_function = 0, counts = 0, functions = 0;
  std::map<uint64_t, uint64_t, std::greater<uint64_t>> frequency;  // count -> how many counters have it

  void count(uint64_t c) {
    total += c;  // wraps as LLVM's does
    max_count = std::max(max_count, c);
    ++counts;
    ++frequency[c];
  }
  void add(const std::vector<uint64_t>& c) {
    if (c.empty()) return;
    ++functions;
    if (c[0] != ~0ull) {
      count(c[0]);
      max_function = std::max(max_function, c[0]);
    }
    for (size_t i = 1; i < c.size(); ++i) {
      if (c[i] == ~0ull) continue;
      count(c[i]);
      max_internal = std::max(max_internal, c[i]);
    }
  }
  void write(std::string& out) const {
    put64(out, 6);  // fields
    put64(out, kCutoffs.size());
    for (uint64_t f : {functions, counts, max_function, max_count, max_internal, total}) put64(out, f);
    auto it = frequency.begin();
    uint64_t sum = 0, seen = 0, min_count = 0;
    for (uint64_t cutoff : kCutoffs) {
      const uint64_t desired = uint64_t((unsigned __int128)total * cutoff / 1000000);
      while (sum < desired && it != frequency.end()) {
        min_count = it->first;
        sum += it->first * it->second;
        seen += it->second;
        ++it;
      }
      put64(out, cutoff);
      put64(out, min_count);
      put64(out, seen);
    }
  }
};

struct TableItem {
  uint64_t hash;
  std::string_view name;
};

}  // namespace

std::string write_profdata(const ProfileCounts& counts) {
  std::string out;
  put64(out, kIndexedMagic);
  put64(out, kWrittenVersion | (counts.variant & kVariantMask));
  put64(out, 0);  // unused
  put64(out, 0);  // hash type: MD5
  const size_t hash_offset_at = out.size();
  put64(out, 0);  // the hash table's offset, set below

  const std::vector<std::string_view> names = counts.names();
  SummaryBuilder summary;
  for (std::string_view n : names)
    for (const ProfileCounts::Entry& e : *counts.entries(n)) summary.add(e.counts);
  summary.write(out);

  // Buckets as LLVM's generator sizes them: one for two entries or fewer,
  // else the power of two above 4/3 of the entries.
  const uint64_t entries = names.size();
  const uint64_t buckets = entries <= 2 ? 1 : std::bit_ceil(entries * 4 / 3 + 1);
  std::vector<std::vector<TableItem>> bucket(buckets);
  for (std::string_view n : names) {
    const uint64_t h = name_ref(n);
    bucket[h & (buckets - 1)].push_back({h, n});
  }
  std::vector<uint64_t> offsets(buckets, 0);
  for (uint64_t b = 0; b < buckets; ++b) {
    if (bucket[b].empty()) continue;
    offsets[b] = out.size();
    put16(out, uint16_t(bucket[b].size()));
    for (const TableItem& item : bucket[b]) {
      const std::vector<ProfileCounts::Entry>& es = *counts.entries(item.name);
      uint64_t data_len = 0;
      for (const ProfileCounts::Entry& e : es) data_len += 8 + 8 + 8 * e.counts.size() + 8;
      put64(out, item.hash);
      put64(out, item.name.size());
      put64(out, data_len);
      out += item.name;
      for (const ProfileCounts::Entry& e : es) {
        put64(out, e.hash);
        put64(out, e.counts.size());
        for (uint64_t c : e.counts) put64(out, c);
        put64(out, 8);  // an empty value profile record: its size (8), no value kinds
      }
    }
  }
  while (out.size() % 8 != 0) out.push_back('\0');
  set64(out, hash_offset_at, out.size());
  put64(out, buckets);
  put64(out, entries);
  for (uint64_t o : offsets) put64(out, o);
  return out;
}

}  // namespace covkit::clang

