#include "format/notes_layout.h"

#include <cstring>

#include "format/byte_reader.h"
#include "format/gcov_tags.h"
#include "format/gcov_version.h"

namespace covkit::format {

std::vector<size_t> NotesLayout::varying_words() const {
  std::vector<size_t> words;
  words.reserve(ident_offsets.size() + 2);
  words.push_back(stamp_offset);
  if (checksum_offset) words.push_back(*checksum_offset);
  words.insert(words.end(), ident_offsets.begin(), ident_offsets.end());
  return words;
}

uint32_t NotesLayout::word_at(std::span<const uint8_t> data, size_t offset) const {
  uint32_t v;
  std::memcpy(&v, data.data() + offset, 4);
  return swapped ? __builtin_bswap32(v) : v;
}

std::optional<NotesLayout> notes_layout(std::span<const uint8_t> data) {
  ByteReader r(data);
  NotesLayout layout;
  if (!r.read_magic(kNotesMagic)) return std::nullopt;
  layout.swapped = r.swapped();
  const auto raw = r.u32();
  const auto version = raw ? GcovVersion::decode(*raw) : std::nullopt;
  if (!version || !version->supported() || version->is_gcc48()) return std::nullopt;
  layout.stamp_offset = r.position();
  if (!r.u32()) return std::nullopt;
  if (version->header_has_checksum()) {
    layout.checksum_offset = r.position();
    if (!r.u32()) return std::nullopt;
  }
  const bool bytes = version->lengths_in_bytes();
  if (!r.string_view(bytes, nullptr) || !r.u32()) return std::nullopt;  // the working directory, the unexecuted-blocks flag
  while (!r.at_end()) {
    const auto tag = r.u32();
    if (!tag) return std::nullopt;
    if (*tag == 0) break;  // the reader stops here too
    const auto length = r.u32();
    if (!length) return std::nullopt;
    const size_t base = r.position();
    const uint64_t len_bytes = bytes ? uint64_t{*length} : uint64_t{*length} * 4;
    if (len_bytes > r.size() - base) return std::nullopt;
    if (*tag == kTagFunction) {
      if (len_bytes < 4) return std::nullopt;
      layout.ident_offsets.push_back(base);
    }
    r.seek(base + len_bytes);
  }
  return layout;
}

bool same_but_varying(std::span<const uint8_t> a, std::span<const uint8_t> b, const std::vector<size_t>& varying) {
  if (a.size() != b.size()) return false;
  size_t at = 0;
  for (size_t w : varying) {
    if (w < at || w + 4 > a.size()) return false;
    if (std::memcmp(a.data() + at, b.data() + at, w - at) != 0) return false;
    at = w + 4;
  }
  return std::memcmp(a.data() + at, b.data() + at, a.size() - at) == 0;
}

}  // namespace covkit::format
