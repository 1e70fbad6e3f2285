#pragma once
// Builds .gcno/.gcda images in memory, word by word, the way GCC writes them:
//   kGcc12: record lengths in bytes, strings as a byte length (strlen + 1)
//           followed by exactly that many bytes (no padding, so later words
//           may be unaligned), a checksum word in the header;
//   kGcc11: record lengths in words, strings as a word count followed by the
//           NUL-padded words, no checksum in the header.
// Either byte order: `big_endian` byte-swaps every word (strings stay bytes).
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/gcov_tags.h"

namespace covkit::testing {

enum class Layout { kGcc12, kGcc11 };

// Version words: "B22*" (GCC 12.2) and "B13*" (GCC 11.3).
inline constexpr uint32_t kVersion12 = 0x4232322a;
inline constexpr uint32_t kVersion11 = 0x4231332a;

struct ArcSpec {
  uint32_t dst;
  uint32_t flags;
};

struct LineSpec {  // a file switch and the lines after it
  std::string file;
  std::vector<uint32_t> lines;
};

class GcovImageBuilder {
 public:
  explicit GcovImageBuilder(Layout layout, bool big_endian = false) : layout_(layout), big_endian_(big_endian) {}

  Layout layout() const { return layout_; }
  bool lengths_in_bytes() const { return layout_ == Layout::kGcc12; }
  uint32_t default_version() const { return layout_ == Layout::kGcc12 ? kVersion12 : kVersion11; }

  // --- raw pieces -----------------------------------------------------
  GcovImageBuilder& word(uint32_t v) {
    if (big_endian_) v = __builtin_bswap32(v);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out_.insert(out_.end(), p, p + 4);
    return *this;
  }
  GcovImageBuilder& u64(uint64_t v) {  // gcov counters: low word first
    word(uint32_t(v));
    return word(uint32_t(v >> 32));
  }
  GcovImageBuilder& raw(std::string_view bytes) {
    out_.insert(out_.end(), bytes.begin(), bytes.end());
    return *this;
  }
  GcovImageBuilder& string(std::string_view s) {
    if (layout_ == Layout::kGcc12) {
      word(uint32_t(s.size() + 1));
      raw(s);
      out_.push_back(0);
    } else {
      uint32_t alloc = uint32_t((s.size() + 4) / 4);
      word(alloc);
      raw(s);
      out_.insert(out_.end(), size_t(alloc) * 4 - s.size(), 0);
    }
    return *this;
  }
  GcovImageBuilder& null_string() { return word(0); }

  // --- headers -----------------------------------------------------------
  GcovImageBuilder& notes_header(uint32_t stamp, std::string_view cwd, bool has_unexecuted_blocks,
                                 uint32_t checksum = 0) {
    return notes_header_v(default_version(), stamp, cwd, has_unexecuted_blocks, checksum);
  }
  GcovImageBuilder& notes_header_v(uint32_t version, uint32_t stamp, std::string_view cwd,
                                   bool has_unexecuted_blocks, uint32_t checksum = 0) {
    word(format::kNotesMagic).word(version).word(stamp);
    if (layout_ == Layout::kGcc12) word(checksum);
    string(cwd);
    return word(has_unexecuted_blocks ? 1 : 0);
  }
  GcovImageBuilder& data_header(uint32_t stamp, uint32_t checksum = 0) {
    return data_header_v(default_version(), stamp, checksum);
  }
  GcovImageBuilder& data_header_v(uint32_t version, uint32_t stamp, uint32_t checksum = 0) {
    word(format::kDataMagic).word(version).word(stamp);
    if (layout_ == Layout::kGcc12) word(checksum);
    return *this;
  }

  // --- records -------------------------------------------------------------
  // Writes the tag and a placeholder length; end_record() patches the length
  // from what was written in between (bytes or words by layout).
  size_t begin_record(uint32_t tag) {
    word(tag);
    size_t at = out_.size();
    word(0);
    return at;
  }
  GcovImageBuilder& end_record(size_t length_at) {
    size_t payload = out_.size() - (length_at + 4);
    uint32_t len = uint32_t(lengths_in_bytes() ? payload : payload / 4);
    return patch_word(length_at, len);
  }
  // A record with an explicit length word (possibly lying) and raw payload words.
  GcovImageBuilder& record_words(uint32_t tag, uint32_t length, const std::vector<uint32_t>& payload) {
    word(tag).word(length);
    for (uint32_t w : payload) word(w);
    return *this;
  }

  GcovImageBuilder& function(uint32_t ident, uint32_t lineno_checksum, uint32_t cfg_checksum, std::string_view name,
                             bool artificial, std::string_view source, uint32_t start_line, uint32_t start_column,
                             uint32_t end_line, uint32_t end_column) {
    size_t at = begin_record(format::kTagFunction);
    word(ident).word(lineno_checksum).word(cfg_checksum);
    string(name);
    word(artificial ? 1 : 0);
    string(source);
    word(start_line).word(start_column).word(end_line).word(end_column);
    return end_record(at);
  }
  GcovImageBuilder& blocks(uint32_t n) {
    size_t at = begin_record(format::kTagBlocks);
    word(n);
    return end_record(at);
  }
  GcovImageBuilder& arcs(uint32_t src, const std::vector<ArcSpec>& arcs) {
    size_t at = begin_record(format::kTagArcs);
    word(src);
    for (const ArcSpec& a : arcs) word(a.dst).word(a.flags);
    return end_record(at);
  }
  GcovImageBuilder& lines(uint32_t block, const std::vector<LineSpec>& locations) {
    size_t at = begin_record(format::kTagLines);
    word(block);
    for (const LineSpec& l : locations) {
      word(0);
      string(l.file);
      for (uint32_t ln : l.lines) word(ln);
    }
    word(0);
    null_string();
    return end_record(at);
  }

  GcovImageBuilder& summary(uint32_t runs, uint32_t sum_max) {
    size_t at = begin_record(format::kTagObjectSummary);
    word(runs).word(sum_max);
    return end_record(at);
  }
  GcovImageBuilder& data_function(uint32_t ident, uint32_t lineno_checksum, uint32_t cfg_checksum) {
    size_t at = begin_record(format::kTagFunction);
    word(ident).word(lineno_checksum).word(cfg_checksum);
    return end_record(at);
  }
  GcovImageBuilder& data_function_placeholder() { return word(format::kTagFunction).word(0); }
  GcovImageBuilder& counters(const std::vector<int64_t>& values) {
    size_t at = begin_record(format::kTagArcCounters);
    for (int64_t v : values) u64(uint64_t(v));
    return end_record(at);
  }
  // GCC >= 12's form of an all-zero counter record: negative length, no payload.
  GcovImageBuilder& zero_counters(uint32_t n) {
    uint32_t len = lengths_in_bytes() ? n * 8 : n * 2;
    return word(format::kTagArcCounters).word(uint32_t(-int32_t(len)));
  }

  // --- access ----------------------------------------------------------------
  size_t size() const { return out_.size(); }
  GcovImageBuilder& patch_word(size_t at, uint32_t v) {
    if (big_endian_) v = __builtin_bswap32(v);
    std::memcpy(out_.data() + at, &v, 4);
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return out_; }
  std::vector<uint8_t> take() { return std::move(out_); }

 private:
  Layout layout_;
  bool big_endian_;
  std::vector<uint8_t> out_;
};

// Both layouts in both byte orders, for parameterised tests.
struct ImageParam {
  Layout layout;
  bool big_endian;
};

inline std::string image_param_name(const ImageParam& p) {
  return std::string(p.layout == Layout::kGcc12 ? "Gcc12" : "Gcc11") + (p.big_endian ? "BigEndian" : "LittleEndian");
}

inline const std::vector<ImageParam>& all_image_params() {
  static const std::vector<ImageParam> params{{Layout::kGcc12, false},
                                               {Layout::kGcc12, true},
                                               {Layout::kGcc11, false},
                                               {Layout::kGcc11, true}};
  return params;
}

}  // namespace covkit::testing
