#include "sample/elf_module_file.h"

#include <elfutils/libdwelf.h>

#include <fmt/format.h>

#include "format/elf_symbols.h"

namespace covkit::sample {

Expected<ElfModuleFile> read_elf_module(const std::string& path) {
  auto f = format::OpenElf::open(path);
  if (!f) return f.error();
  ElfModuleFile out;
  GElf_Ehdr eh;
  if (!gelf_getehdr(f->elf(), &eh)) return Error(fmt::format("{}: no ELF header", path));
  out.type = eh.e_type;
  size_t phnum = 0;
  if (elf_getphdrnum(f->elf(), &phnum) != 0) return Error(fmt::format("{}: no program headers", path));
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(f->elf(), int(i), &ph) || ph.p_type != PT_LOAD) continue;
    out.loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, (ph.p_flags & PF_W) != 0, (ph.p_flags & PF_X) != 0});
  }
  if (out.loads.empty()) return Error(fmt::format("{}: no loadable segment", path));
  const void* id = nullptr;
  ssize_t n = dwelf_elf_gnu_build_id(f->elf(), &id);
  for (ssize_t i = 0; i < n; ++i) out.build_id += fmt::format("{:02x}", static_cast<const uint8_t*>(id)[i]);
  return out;
}

std::string file_build_id(const std::string& path) {
  auto file = read_elf_module(path);
  return file ? file->build_id : std::string();
}

}  // namespace covkit::sample
