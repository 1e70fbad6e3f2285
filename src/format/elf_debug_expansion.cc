#include "format/elf_debug_expansion.h"

#include <gelf.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace covkit::format {

namespace {

// `n` bytes at `at` as an unsigned number, in the file's byte order.
uint64_t read_number(const unsigned char* at, int n, bool big_endian) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | at[big_endian ? i : n - 1 - i];
  return v;
}

// The size a compressed section states it expands to, read from its first
// bytes only (elf_getdata_rawchunk: a file others can change is read with
// pread, format/elf_open, and reading a section whole made a copy of it
// for each header, however many point at the same bytes). 0 when the
// section is too short to say or is not compressed.
uint64_t stated_size(Elf* elf, const GElf_Shdr& sh, bool compressed, bool is64, bool big_endian) {
  // gABI: Elf64_Chdr {type, reserved, size, addralign} or Elf32_Chdr
  // {type, size, addralign}; GNU: "ZLIB" and the size, 8 bytes big-endian.
  const size_t need = compressed ? (is64 ? 16 : 8) : 12;
  if (sh.sh_size < need) return 0;
  Elf_Data* head = elf_getdata_rawchunk(elf, int64_t(sh.sh_offset), need, ELF_T_BYTE);
  if (!head || !head->d_buf || head->d_size < need) return 0;
  const auto* b = static_cast<const unsigned char*>(head->d_buf);
  if (compressed) return is64 ? read_number(b + 8, 8, big_endian) : read_number(b + 4, 4, big_endian);
  if (std::memcmp(b, "ZLIB", 4) != 0) return 0;
  return read_number(b + 4, 8, true);
}

// The bytes of the file the ranges cover, each byte once: section headers
// may all point at the same bytes, and the bound must be of the file's
// bytes, not of how many headers name them.
uint64_t bytes_covered(std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0, end = 0;
  for (const auto& [lo, hi] : ranges) {
    const uint64_t from = std::max(lo, end);
    if (hi > from) covered += hi - from;
    end = std::max(end, hi);
  }
  return covered;
}

}  // namespace

uint64_t debug_expansion_past_bound(Elf* elf) {
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;
  const char* ident = elf_getident(elf, nullptr);
  if (!ident) return 0;
  const bool is64 = ident[EI_CLASS] == ELFCLASS64;
  const bool big_endian = ident[EI_DATA] == ELFDATA2MSB;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  uint64_t expanded = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    const bool compressed = (sh.sh_flags & SHF_COMPRESSED) != 0;
    if (!compressed) {
      const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (!name || !std::string_view(name).starts_with(".zdebug")) continue;
    }
    const uint64_t size = stated_size(elf, sh, compressed, is64, big_endian);
    if (size == 0) continue;
    const uint64_t end = sh.sh_offset > UINT64_MAX - sh.sh_size ? UINT64_MAX : sh.sh_offset + sh.sh_size;
    ranges.emplace_back(sh.sh_offset, end);
    // Saturated: a stated size near 2^64 is past any bound.
    expanded = size > UINT64_MAX - expanded ? UINT64_MAX : expanded + size;
  }
  const uint64_t packed = bytes_covered(ranges);
  const uint64_t bound = packed > (UINT64_MAX - kDebugExpansionSlack) / kMaxDebugExpansion
                             ? UINT64_MAX
                             : packed * kMaxDebugExpansion + kDebugExpansionSlack;
  return expanded > bound ? expanded : 0;
}

}  // namespace covkit::format
