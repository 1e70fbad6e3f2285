#pragma once
// The sections of an ELF file (32 or 64 bits, either byte order), read from
// its bytes with every offset checked: where clang's coverage mapping lives
// (__llvm_covmap, __llvm_covfun, __llvm_prf_names) and the GNU build id
// that ties a binary to its profiles. A hostile file gets an Error, never a
// read outside its bytes.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"

namespace covkit::clang {

struct ElfSection {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t address = 0;
  uint64_t offset = 0;              // in the file
  std::span<const uint8_t> bytes;   // empty for SHT_NOBITS
};

struct ElfImage {
  bool is64 = true;
  bool big_endian = false;
  uint16_t type = 0;  // ET_REL 1, ET_EXEC 2, ET_DYN 3
  std::vector<ElfSection> sections;
  std::string build_id;  // lower-case hex; empty when the file has none

  // The sections called `name`, in file order.
  std::vector<const ElfSection*> named(std::string_view name) const;
};

bool looks_like_elf(std::span<const uint8_t> bytes);
Expected<ElfImage> read_elf_sections(std::span<const uint8_t> bytes);

inline constexpr uint32_t kShtNobits = 8;
inline constexpr uint32_t kShtNote = 7;
inline constexpr uint64_t kShfCompressed = 0x800;

}  // namespace covkit::clang
