#include "format/elf_debug_expansion.h"

#include <gelf.h>

#include <cstring>
#include <string_view>

namespace covkit::format {

uint64_t debug_expansion_past_bound(Elf* elf) {
  size_t shstrndx = 0;
  if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;
  uint64_t packed = 0, expanded = 0;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS) continue;
    uint64_t size = 0;
    if (sh.sh_flags & SHF_COMPRESSED) {
      GElf_Chdr ch;
      if (!gelf_getchdr(scn, &ch)) continue;  // libelf cannot expand it either
      size = ch.ch_size;
    } else {
      const char* name = elf_strptr(elf, shstrndx, sh.sh_name);
      if (!name || !std::string_view(name).starts_with(".zdebug")) continue;
      // "ZLIB" and the expanded size, 8 bytes big-endian (elf_compress_gnu).
      Elf_Data* raw = elf_rawdata(scn, nullptr);
      if (!raw || !raw->d_buf || raw->d_size < 12 || std::memcmp(raw->d_buf, "ZLIB", 4) != 0) continue;
      const auto* b = static_cast<const unsigned char*>(raw->d_buf) + 4;
      for (int i = 0; i < 8; ++i) size = size << 8 | b[i];
    }
    packed += sh.sh_size;
    // Saturated: a stated size near 2^64 is past any bound.
    expanded = size > UINT64_MAX - expanded ? UINT64_MAX : expanded + size;
  }
  const uint64_t bound = packed > (UINT64_MAX - kDebugExpansionSlack) / kMaxDebugExpansion
                             ? UINT64_MAX
                             : packed * kMaxDebugExpansion + kDebugExpansionSlack;
  return expanded > bound ? expanded : 0;
}

}  // namespace covkit::format
