#include "sample/binary_image.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "format/eh_frame.h"
#include "format/elf_symbols.h"
#include "sample/fde_functions.h"
#include "util/foreign_data.h"

namespace covkit::sample {

namespace {

struct ElfHandle {
  Elf* elf = nullptr;
  ~ElfHandle() {
    if (elf) elf_end(elf);
  }
};

std::string section_name(Elf* elf, size_t shstrndx, const GElf_Shdr& sh) {
  const char* n = elf_strptr(elf, shstrndx, sh.sh_name);
  return n ? n : "";
}

std::string hex(std::span<const uint8_t> bytes) {
  std::string out;
  for (uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

// NT_GNU_BUILD_ID from any note section.
std::string read_build_id(Elf* elf) {
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    GElf_Nhdr nh;
    size_t off = 0, name_off, desc_off;
    while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
      if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
          std::string_view(static_cast<const char*>(data->d_buf) + name_off, 3) == "GNU")
        return hex({static_cast<const uint8_t*>(data->d_buf) + desc_off, nh.n_descsz});
    }
  }
  return {};
}

// Function symbols (defined, with a size) of the first symbol table of
// `type`; aliases at one address keep the first global name.
std::vector<FunctionSymbol> read_functions(Elf* elf, Elf64_Word type) {
  std::map<uint64_t, std::pair<FunctionSymbol, bool>> by_address;  // -> (symbol, global)
  format::for_each_defined_symbol(elf, type, [&](const GElf_Sym& sym, const char* name) {
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 || !*name) return;
    bool global = GELF_ST_BIND(sym.st_info) != STB_LOCAL;
    auto it = by_address.find(sym.st_value);
    if (it != by_address.end() && (it->second.second || !global)) return;
    by_address[sym.st_value] = {FunctionSymbol{name, sym.st_value, sym.st_size}, global};
  });
  std::vector<FunctionSymbol> out;
  for (auto& [addr, entry] : by_address) out.push_back(std::move(entry.first));
  return out;
}

// GOT slot -> imported name, from the PLT's and the -fno-plt GOT's relocations.
std::map<uint64_t, std::string> read_got_names(Elf* elf) {
  std::map<uint64_t, std::string> out;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0) continue;
    Elf_Scn* symscn = elf_getscn(elf, sh.sh_link);
    GElf_Shdr symsh;
    if (!symscn || !gelf_getshdr(symscn, &symsh)) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    Elf_Data* syms = elf_getdata(symscn, nullptr);
    if (!data || !syms) continue;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Rela rela;
      if (!gelf_getrela(data, int(i), &rela)) break;
      auto rtype = GELF_R_TYPE(rela.r_info);
      if (rtype != R_X86_64_JUMP_SLOT && rtype != R_X86_64_GLOB_DAT) continue;
      GElf_Sym sym;
      if (!gelf_getsym(syms, int(GELF_R_SYM(rela.r_info)), &sym)) continue;
      const char* name = elf_strptr(elf, symsh.sh_link, sym.st_name);
      if (name && *name) out[rela.r_offset] = name;
    }
  }
  return out;
}

// Slot -> the value the dynamic linker stores there, for relocations whose
// value the file alone decides (relative ones, and absolute ones against a
// symbol the file defines): what tables of code pointers hold at run time.
std::map<uint64_t, uint64_t> read_relocated(Elf* elf) {
  std::map<uint64_t, uint64_t> out;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    Elf_Scn* symscn = elf_getscn(elf, sh.sh_link);
    Elf_Data* syms = symscn ? elf_getdata(symscn, nullptr) : nullptr;
    for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; ++i) {
      GElf_Rela rela;
      if (!gelf_getrela(data, int(i), &rela)) break;
      auto rtype = GELF_R_TYPE(rela.r_info);
      if (rtype == R_X86_64_RELATIVE) {
        out[rela.r_offset] = uint64_t(rela.r_addend);
      } else if (rtype == R_X86_64_64 && syms) {
        GElf_Sym sym;
        if (gelf_getsym(syms, int(GELF_R_SYM(rela.r_info)), &sym) && sym.st_shndx != SHN_UNDEF)
          out[rela.r_offset] = sym.st_value + uint64_t(rela.r_addend);
      }
    }
  }
  return out;
}

// Data objects with a size (a computed goto's table of labels is one).
std::map<uint64_t, uint64_t> read_objects(Elf* elf) {
  std::map<uint64_t, uint64_t> out;
  for (Elf64_Word type : {Elf64_Word(SHT_SYMTAB), Elf64_Word(SHT_DYNSYM)})
    format::for_each_defined_symbol(elf, type, [&](const GElf_Sym& sym, const char*) {
      if (GELF_ST_TYPE(sym.st_info) == STT_OBJECT && sym.st_size > 0) out.try_emplace(sym.st_value, sym.st_value + sym.st_size);
    });
  return out;
}

bool is_plt_section(const std::string& name) { return name == ".plt" || name == ".plt.sec" || name == ".plt.got"; }

// PLT stubs are 16-byte entries holding `jmp *slot(%rip)` (ff 25 disp32,
// maybe after a bnd prefix or endbr64) in .plt, .plt.sec or .plt.got.
std::map<uint64_t, std::string> read_plt_names(Elf* elf, size_t shstrndx,
                                               const std::map<uint64_t, std::string>& got) {
  std::map<uint64_t, std::string> out;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS) continue;
    if (!is_plt_section(section_name(elf, shstrndx, sh))) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    const auto* b = static_cast<const uint8_t*>(data->d_buf);
    for (size_t stub = 0; stub + 16 <= data->d_size; stub += 16) {
      for (size_t i = stub; i + 6 <= stub + 16; ++i) {
        if (b[i] != 0xff || b[i + 1] != 0x25) continue;
        int32_t disp = int32_t(uint32_t(b[i + 2]) | uint32_t(b[i + 3]) << 8 | uint32_t(b[i + 4]) << 16 |
                               uint32_t(b[i + 5]) << 24);
        uint64_t slot = sh.sh_addr + i + 6 + uint64_t(int64_t(disp));
        if (auto it = got.find(slot); it != got.end()) out[sh.sh_addr + stub] = it->second;
        break;
      }
    }
  }
  return out;
}

// [begin, end) of the PLT sections.
std::vector<std::pair<uint64_t, uint64_t>> plt_ranges(Elf* elf, size_t shstrndx) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(elf, scn));) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && is_plt_section(section_name(elf, shstrndx, sh)))
      out.push_back({sh.sh_addr, sh.sh_addr + sh.sh_size});
  }
  return out;
}

// Without function symbols in .symtab (strip --strip-all), the exported
// ones in .dynsym and the FDEs of .eh_frame no symbol covers. Returns the
// note (functions found so) or sets `problem` (none found, and why). FDEs
// outside the code (`in_code` false: damaged or hostile) are not counted.
std::string add_stripped_functions(Elf* elf, size_t shstrndx, std::vector<FunctionSymbol>& functions,
                                   const std::function<bool(uint64_t, uint64_t)>& in_code, std::string& problem) {
  Expected<format::EhFrameFunctions> eh = format::read_eh_frame_functions(elf);
  if (!eh) {
    if (functions.empty()) {
      problem = fmt::format("no function symbols (stripped?), and {}: functions unknown", eh.error().describe());
      return {};
    }
    return fmt::format("no .symtab (stripped): only the {} functions of .dynsym are known, {}", functions.size(),
                       eh.error().describe());
  }
  if (!eh->present) {
    if (functions.empty()) problem = "no function symbols (stripped?) and no .eh_frame: functions unknown";
    return {};
  }
  std::erase_if(eh->ranges, [&](const format::FdeRange& r) { return !in_code(r.start, r.size); });
  size_t symbols = functions.size(), added = 0;
  functions = add_fde_functions(std::move(functions), eh->ranges, plt_ranges(elf, shstrndx), &added);
  if (added == 0) {
    if (functions.empty())
      problem = "no function symbols (stripped?) and no FDEs of executable code in .eh_frame: functions unknown";
    return {};
  }
  return symbols == 0 ? fmt::format("no function symbols (stripped): the {} functions come from .eh_frame, "
                                    "named fn_<address>", added)
                      : fmt::format("no .symtab (stripped): {} functions come from .dynsym, {} more from .eh_frame, "
                                    "named fn_<address>", symbols, added);
}

}  // namespace

Expected<BinaryImage> load_binary_image(const std::string& path) {
  // Named by data (a recording, a block file, a process's mappings):
  // read with the rights of that data's owners (util/foreign_data.h).
  Expected<util::FileData> file = util::read_named_file(path);
  if (!file) return file.error();
  BinaryImage img;
  img.path_ = path;
  img.data_ = std::make_shared<util::FileData>(std::move(*file));
  elf_version(EV_CURRENT);
  std::span<const uint8_t> bytes = img.data_->bytes();
  ElfHandle h;
  h.elf = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())), bytes.size());
  if (!h.elf || elf_kind(h.elf) != ELF_K_ELF) return Error("not an ELF file");
  GElf_Ehdr eh;
  if (!gelf_getehdr(h.elf, &eh)) return Error(fmt::format("damaged ELF header: {}", elf_errmsg(-1)));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
    return Error("not an x86-64 ELF file (covkit sample reads x86-64 code only)");
  img.pie_ = eh.e_type == ET_DYN;
  size_t phnum = 0;
  if (elf_getphdrnum(h.elf, &phnum) != 0) return Error("damaged program headers");
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr ph;
    if (!gelf_getphdr(h.elf, int(i), &ph) || ph.p_type != PT_LOAD) continue;
    if (ph.p_offset > bytes.size() || ph.p_filesz > bytes.size() - ph.p_offset)
      return Error(fmt::format("a loadable segment lies beyond the end of the file ({} bytes)", bytes.size()));
    img.segments_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz, ph.p_memsz, (ph.p_flags & PF_X) != 0});
  }
  if (img.segments_.empty()) return Error("no loadable segments");
  size_t shstrndx = 0;
  if (elf_getshdrstrndx(h.elf, &shstrndx) != 0) shstrndx = 0;
  img.build_id_ = read_build_id(h.elf);
  for (Elf_Scn* scn = nullptr; (scn = elf_nextscn(h.elf, scn));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0) continue;
    const std::string name = section_name(h.elf, shstrndx, sh);
    if (name == ".debug_line" || name == ".zdebug_line") img.line_table_ = true;
  }
  img.functions_ = read_functions(h.elf, SHT_SYMTAB);
  bool stripped = img.functions_.empty();
  if (stripped) img.functions_ = read_functions(h.elf, SHT_DYNSYM);
  // Symbols outside the executable segments (damaged tables) would send
  // the disassembler into data; drop them.
  auto in_code = [&](uint64_t address, uint64_t size) {
    return img.is_executable(address) && !img.bytes_at(address, size).empty();
  };
  std::erase_if(img.functions_, [&](const FunctionSymbol& f) { return !in_code(f.address, f.size); });
  if (stripped)
    img.functions_note_ = add_stripped_functions(h.elf, shstrndx, img.functions_, in_code, img.symbols_problem_);
  if (img.functions_.empty() && img.symbols_problem_.empty())
    img.symbols_problem_ = "no function symbols (stripped?): functions unknown";
  img.got_names_ = read_got_names(h.elf);
  img.plt_names_ = read_plt_names(h.elf, shstrndx, img.got_names_);
  img.relocated_ = read_relocated(h.elf);
  img.objects_ = read_objects(h.elf);
  return img;
}

std::optional<uint64_t> BinaryImage::vaddr_of_offset(uint64_t offset) const {
  for (const LoadSegment& s : segments_)
    if (offset >= s.offset && offset - s.offset < s.file_size) return s.vaddr + (offset - s.offset);
  return std::nullopt;
}

std::span<const uint8_t> BinaryImage::bytes_at(uint64_t vaddr, uint64_t size) const {
  for (const LoadSegment& s : segments_) {
    if (vaddr < s.vaddr || vaddr - s.vaddr >= s.file_size) continue;
    uint64_t off = vaddr - s.vaddr;
    if (size > s.file_size - off) return {};
    return data_->bytes().subspan(s.offset + off, size);
  }
  return {};
}

bool BinaryImage::is_executable(uint64_t vaddr) const {
  for (const LoadSegment& s : segments_)
    if (s.executable && vaddr >= s.vaddr && vaddr - s.vaddr < s.mem_size) return true;
  return false;
}

const FunctionSymbol* BinaryImage::function_at(uint64_t vaddr) const {
  auto it = std::upper_bound(functions_.begin(), functions_.end(), vaddr,
                             [](uint64_t a, const FunctionSymbol& f) { return a < f.address; });
  if (it == functions_.begin()) return nullptr;
  --it;
  return vaddr - it->address < it->size ? &*it : nullptr;
}

const FunctionSymbol* BinaryImage::function_starting_at(uint64_t vaddr) const {
  const FunctionSymbol* f = function_at(vaddr);
  return f && f->address == vaddr ? f : nullptr;
}

std::string BinaryImage::callee_name(uint64_t vaddr) const {
  if (auto it = plt_names_.find(vaddr); it != plt_names_.end()) return it->second;
  if (const FunctionSymbol* f = function_starting_at(vaddr)) return f->name;
  return {};
}

std::string BinaryImage::got_slot_name(uint64_t vaddr) const {
  auto it = got_names_.find(vaddr);
  return it == got_names_.end() ? std::string() : it->second;
}

std::optional<uint64_t> BinaryImage::pointer_at(uint64_t vaddr) const {
  if (auto it = relocated_.find(vaddr); it != relocated_.end()) return it->second;
  auto bytes = bytes_at(vaddr, 8);
  if (bytes.empty()) return std::nullopt;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | bytes[size_t(i)];
  return v;
}

std::optional<uint64_t> BinaryImage::object_end(uint64_t vaddr) const {
  auto it = objects_.find(vaddr);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

}  // namespace covkit::sample
