#include "format/gcda_writer.h"

#include "format/gcov_tags.h"

namespace covkit::format {

namespace {

class WordWriter {
 public:
  explicit WordWriter(bool swap) : swap_(swap) {}
  void u32(uint32_t v) {
    if (swap_) v = __builtin_bswap32(v);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out_.insert(out_.end(), p, p + 4);
  }
  void u64(uint64_t v) {
    u32(uint32_t(v));
    u32(uint32_t(v >> 32));
  }
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  bool swap_;
  std::vector<uint8_t> out_;
};

}  // namespace

std::vector<uint8_t> write_data(const DataFile& file) {
  WordWriter w(file.swapped);
  const bool bytes = file.version.lengths_in_bytes();
  auto length = [bytes](uint64_t n_bytes) { return uint32_t(bytes ? n_bytes : n_bytes / 4); };
  w.u32(kDataMagic);
  w.u32(file.version.raw);
  w.u32(file.stamp);
  if (file.version.header_has_checksum()) w.u32(file.checksum);
  for (const DataRecord& rec : file.records) {
    if (rec.cut_short) break;  // what gcov read of a record the file ends inside: not in the file whole
    w.u32(rec.tag);
    switch (rec.kind) {
      case DataRecord::Kind::kSummary:
        if (rec.tag == kTagProgramSummary) {  // clang's (GCC 4.8's layout): the runs are its third word
          if (rec.length < 3) {
            w.u32(0);
          } else {
            w.u32(length(12));
            w.u32(0);
            w.u32(0);
            w.u32(rec.runs);
          }
          break;
        }
        w.u32(length(8));
        w.u32(rec.runs);
        w.u32(rec.sum_max);
        break;
      case DataRecord::Kind::kFunction:
        if (!rec.has_ids) {
          w.u32(0);
        } else {
          w.u32(length(12));
          w.u32(rec.ident);
          w.u32(rec.lineno_checksum);
          w.u32(rec.cfg_checksum);
        }
        break;
      case DataRecord::Kind::kCounters:
        if (rec.all_zero) {
          w.u32(0u - length(uint64_t{rec.num_counters} * 8));  // "negative" length, wrapping
        } else {
          w.u32(length(uint64_t{rec.counters.size()} * 8));
          for (int64_t c : rec.counters) w.u64(uint64_t(c));
        }
        break;
      case DataRecord::Kind::kOther:
        w.u32(length(uint64_t{rec.words.size()} * 4));
        for (uint32_t v : rec.words) w.u32(v);
        break;
    }
  }
  if (file.terminated) w.u32(0);
  return w.take();
}

void compact_zero_counters(DataFile& file) {
  if (file.version.major < 11) return;  // older libgcov always writes the payload
  for (DataRecord& rec : file.records) {
    if (rec.kind != DataRecord::Kind::kCounters || rec.all_zero) continue;
    bool zero = true;
    for (int64_t c : rec.counters) zero = zero && c == 0;
    if (zero) {
      rec.num_counters = uint32_t(rec.counters.size());
      rec.counters.clear();
      rec.all_zero = true;
    }
  }
}

}  // namespace covkit::format
