#pragma once
// The functions an ELF file defines, read through libelf: for covkit sample's
// analysis and breakpoint recorder (which disassemble them) and for covkit
// trace record's filters (which name them). Addresses are the file's own
// (ELF virtual addresses; load-relative for PIE and shared libraries).
#include <gelf.h>
#include <libelf.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/expected.h"
#include "util/unique_fd.h"

namespace covkit::format {

struct FunctionSymbol {
  std::string name;  // as the symbol table spells it (mangled); gcc's foo.cold is its own symbol
  uint64_t address = 0, size = 0;  // ELF virtual address (file-relative for PIE)
};

// An open 64-bit ELF file; closed on every path out.
class OpenElf {
 public:
  static Expected<OpenElf> open(const std::string& path);
  // A regular file already open (by util::open_named_file, say); `path` names it in errors.
  static Expected<OpenElf> open(util::UniqueFd fd, const std::string& path);
  OpenElf(OpenElf&& o) noexcept;
  OpenElf(const OpenElf&) = delete;
  OpenElf& operator=(const OpenElf&) = delete;
  OpenElf& operator=(OpenElf&&) = delete;
  ~OpenElf();
  Elf* elf() const { return elf_; }

 private:
  OpenElf() = default;
  int fd_ = -1;
  Elf* elf_ = nullptr;
};

// Calls `visit` for each defined symbol of the first table of type `type`
// (SHT_SYMTAB or SHT_DYNSYM).
void for_each_defined_symbol(Elf* elf, uint32_t type,
                             const std::function<void(const GElf_Sym&, const char*)>& visit);
bool has_section_of_type(Elf* elf, uint32_t type);

// STT_FUNC symbols of nonzero size in executable sections (.symtab, or
// .dynsym when stripped), sorted by address (aliases each listed).
Expected<std::vector<FunctionSymbol>> function_symbols(const std::string& path);

// Entries of those functions: sorted, aliases once.
Expected<std::vector<uint64_t>> function_entries(const std::string& path);

// The addresses GCC and clang list in __patchable_function_entries
// (-fpatchable-function-entry=N[,M]: where each function's N NOPs start, M
// of them before its entry), sorted; empty when the file has none.
Expected<std::vector<uint64_t>> patchable_entries(const std::string& path);

// The value of the defined symbol `name` (.symtab first, then .dynsym).
Expected<std::optional<uint64_t>> symbol_address(const std::string& path, std::string_view name);

}  // namespace covkit::format
