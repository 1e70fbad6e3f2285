#include "live/elf_image.h"

#include <elf.h>

#include <cstring>

namespace covkit::live {

namespace {

template <typename T>
bool read_at(std::span<const uint8_t> bytes, uint64_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

Expected<Elf64_Ehdr> header(std::span<const uint8_t> bytes) {
  Elf64_Ehdr eh;
  if (!read_at(bytes, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return Error("not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return Error("not a 64-bit ELF file");
  const bool little = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  if (eh.e_ident[EI_DATA] != (little ? ELFDATA2LSB : ELFDATA2MSB)) return Error("ELF file of the other byte order");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) && eh.e_phnum != 0) return Error("unexpected program header size");
  return eh;
}

}  // namespace

Expected<uint64_t> program_headers_end(std::span<const uint8_t> ehdr) {
  auto eh = header(ehdr);
  if (!eh) return eh.error();
  if (eh->e_phnum > 4096) return Error("too many program headers");
  return eh->e_phoff + uint64_t(eh->e_phnum) * sizeof(Elf64_Phdr);
}

Expected<ElfLoadInfo> parse_load_info(std::span<const uint8_t> head) {
  auto eh = header(head);
  if (!eh) return eh.error();
  if (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) return Error("not an executable or shared object");
  ElfLoadInfo info;
  info.type = eh->e_type;
  for (unsigned i = 0; i < eh->e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!read_at(head, eh->e_phoff + uint64_t(i) * sizeof ph, ph)) return Error("program headers cut short");
    if (ph.p_type != PT_LOAD) continue;
    if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr) return Error("segment wraps around");
    info.loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, (ph.p_flags & PF_W) != 0, (ph.p_flags & PF_X) != 0});
  }
  if (info.loads.empty()) return Error("no loadable segment");
  return info;
}

Expected<SymbolTable> find_symbols(std::span<const uint8_t> file, bool dynamic,
                                   const std::vector<std::string_view>& names) {
  auto eh = header(file);
  if (!eh) return eh.error();
  SymbolTable table;
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0) return table;
  const uint32_t want = dynamic ? SHT_DYNSYM : SHT_SYMTAB;
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!read_at(file, eh->e_shoff + uint64_t(i) * sizeof sh, sh)) return Error("section headers cut short");
    if (sh.sh_type != want) continue;
    Elf64_Shdr strings;
    if (sh.sh_link >= eh->e_shnum ||
        !read_at(file, eh->e_shoff + uint64_t(sh.sh_link) * sizeof strings, strings))
      return Error("symbol table without its string table");
    if (strings.sh_offset > file.size() || file.size() - strings.sh_offset < strings.sh_size)
      return Error("string table outside the file");
    std::string_view text(reinterpret_cast<const char*>(file.data() + strings.sh_offset), strings.sh_size);
    table.present = true;
    if (sh.sh_entsize != sizeof(Elf64_Sym)) return Error("unexpected symbol size");
    uint64_t count = sh.sh_size / sizeof(Elf64_Sym);
    for (uint64_t k = 0; k < count; ++k) {
      Elf64_Sym sym;
      if (!read_at(file, sh.sh_offset + k * sizeof sym, sym)) return Error("symbol table cut short");
      if (sym.st_shndx == SHN_UNDEF || sym.st_name >= text.size()) continue;
      std::string_view name = text.substr(sym.st_name);
      name = name.substr(0, name.find('\0'));
      for (std::string_view w : names)
        if (name == w) table.found.emplace_back(std::string(name), sym.st_value);
    }
  }
  return table;
}

std::optional<uint64_t> symbol_value(const SymbolTable& table, std::string_view name) {
  for (const auto& [n, v] : table.found)
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace covkit::live
