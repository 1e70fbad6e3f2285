// Reads gmon.out records (see gmon_reader.h). Every read is checked against
// the bytes that remain, so a count field cannot make the reader allocate or
// read more than the file holds.
#include "format/gmon_reader.h"

#include <cstring>

#include <fmt/format.h>

#include "util/file_io.h"
#include "util/foreign_data.h"

namespace covkit::format {

namespace {

enum : uint8_t { kTagHistogram = 0, kTagArc = 1, kTagBlockCounts = 2 };

class Cursor {
 public:
  explicit Cursor(std::span<const uint8_t> b) : b_(b) {}
  size_t pos() const { return pos_; }
  size_t left() const { return b_.size() - pos_; }
  bool done() const { return pos_ >= b_.size(); }
  uint64_t le(size_t n) {  // caller checked left() >= n
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(b_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }
  const uint8_t* take(size_t n) {
    const uint8_t* p = b_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  std::span<const uint8_t> b_;
  size_t pos_ = 0;
};

Error truncated(uint64_t at, const char* what) {
  return Error(at, fmt::format("file ends inside {} (truncated?)", what));
}

}  // namespace

bool has_gmon_magic(std::span<const uint8_t> bytes) {
  return bytes.size() >= 4 && std::memcmp(bytes.data(), "gmon", 4) == 0;
}

Expected<GmonFile> parse_gmon(std::span<const uint8_t> bytes) {
  if (bytes.size() < 4 || !has_gmon_magic(bytes))
    return Error(0, "not a gmon.out file (no \"gmon\" magic)");
  if (bytes.size() < kGmonHeaderSize) return truncated(bytes.size(), "the header");
  Cursor c(bytes);
  c.take(4);
  GmonFile file;
  file.version = uint32_t(c.le(4));
  // glibc writes version 1; gprof also reads 0 (an older layout of the
  // block-count records only, which covkit does not read).
  if (file.version != 1) return Error(4, fmt::format("unsupported gmon.out version {}", file.version));
  c.take(12);
  while (!c.done()) {
    const uint64_t at = c.pos();
    const uint8_t tag = *c.take(1);
    switch (tag) {
      case kTagHistogram: {
        constexpr size_t kHeader = 8 + 8 + 4 + 4 + 15 + 1;
        if (c.left() < kHeader) return truncated(c.pos(), "a histogram header");
        GmonHistogram h;
        h.offset = at;
        h.low_pc = c.le(8);
        h.high_pc = c.le(8);
        const uint64_t n = c.le(4);
        h.prof_rate = uint32_t(c.le(4));
        const char* dim = reinterpret_cast<const char*>(c.take(15));
        h.dimension.assign(dim, strnlen(dim, 15));
        h.dimension_abbrev = char(*c.take(1));
        if (c.left() / 2 < n)
          return Error(c.pos(), fmt::format("file ends inside a histogram: {} buckets announced, room for {}", n,
                                            c.left() / 2));
        h.buckets.resize(n);
        for (uint64_t i = 0; i < n; ++i) h.buckets[i] = uint16_t(c.le(2));
        file.histograms.push_back(std::move(h));
        break;
      }
      case kTagArc: {
        if (c.left() < 20) return truncated(c.pos(), "a call-graph arc");
        GmonArc a;
        a.from_pc = c.le(8);
        a.self_pc = c.le(8);
        a.count = uint32_t(c.le(4));
        file.arcs.push_back(a);
        break;
      }
      case kTagBlockCounts: {
        if (c.left() < 4) return truncated(c.pos(), "a basic-block record");
        const uint64_t n = c.le(4);
        if (c.left() / 16 < n)
          return Error(c.pos(), fmt::format("file ends inside a basic-block record: {} blocks announced, room for {}",
                                            n, c.left() / 16));
        for (uint64_t i = 0; i < n; ++i) {
          GmonBlockCount b;
          b.address = c.le(8);
          b.count = c.le(8);
          file.block_counts.push_back(b);
        }
        break;
      }
      default:
        return Error(at, fmt::format("unknown record tag {} (corrupt file?)", tag));
    }
  }
  return file;
}

Expected<GmonFile> read_gmon(const std::string& path) {
  auto data = util::read_input_file(path);
  if (!data) return data.error();
  auto parsed = parse_gmon(data->bytes());
  if (!parsed) return parsed.error();
  return std::move(*parsed);
}

}  // namespace covkit::format
