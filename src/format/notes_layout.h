#pragma once
// Where two notes files of the same code may differ. A source compiled with
// the same options into several programs (a library's files linked into
// each test, as zstd's tests are) leaves notes that differ only in the
// header's stamp and checksum and in each function's ident; the rest, the
// graphs and lines, is the same bytes. A report then reads them once
// (model/notes_reuse.h). Nothing is interpreted here but the record frames.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace covkit::format {

struct NotesLayout {
  bool swapped = false;                  // written in the other byte order
  size_t stamp_offset = 0;               // byte offset of the header's stamp word
  std::optional<size_t> checksum_offset; // of its checksum word (GCC >= 12)
  std::vector<size_t> ident_offsets;     // of each FUNCTION record's ident word, in file order

  // The 4-byte words named above, ascending.
  std::vector<size_t> varying_words() const;
  // The word at `offset` (< data.size() - 3) in the file's byte order.
  uint32_t word_at(std::span<const uint8_t> data, size_t offset) const;
};

// The layout of `data`, or nothing when it is no notes file of GCC 8 or
// later whose records all lie inside it (such files are read one by one).
std::optional<NotesLayout> notes_layout(std::span<const uint8_t> data);

// Whether `a` and `b` (of one size, both of `layout`) are the same bytes
// outside the varying words.
bool same_but_varying(std::span<const uint8_t> a, std::span<const uint8_t> b, const std::vector<size_t>& varying);

}  // namespace covkit::format
