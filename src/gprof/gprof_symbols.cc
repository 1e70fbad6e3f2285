// gprof's function symbols from an ELF file (gprof_symbols.h), read with
// libelf; source files of static functions (shown in gprof's index) from
// gprof_source_files.h.
#include "gprof/gprof_symbols.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <unordered_set>

#include "gprof/gprof_elf_file.h"
#include "gprof/gprof_source_files.h"

namespace covkit::trace {

namespace {

// bfd's one-letter class of a symbol (nm's letter), reduced to what gprof
// asks: 'T' (global text), 't' (local text) or 0.
char symbol_class(const GElf_Sym& s, const char* name, const char* strtab_end, Elf* elf, size_t shnum) {
  const unsigned type = GELF_ST_TYPE(s.st_info), bind = GELF_ST_BIND(s.st_info);
  if (type == STT_FILE) return 0;  // bfd: a debugging symbol
  if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_COMMON) return 0;
  if (type == STT_GNU_IFUNC) return 0;  // 'i'
  if (bind == STB_WEAK) return type == STT_OBJECT ? 0 : 'T';  // 'W': weak, treated as text
  if (bind == STB_GNU_UNIQUE) return 0;
  if (bind != STB_GLOBAL && bind != STB_LOCAL) return 0;
  if (s.st_shndx == SHN_ABS || s.st_shndx >= SHN_LORESERVE || s.st_shndx >= shnum) return 0;
  Elf_Scn* scn = elf_getscn(elf, s.st_shndx);
  GElf_Shdr sh;
  if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR)) return 0;
  if (bind == STB_GLOBAL) return 'T';
  return gprof_static_name_ok(name, strtab_end) ? 't' : 0;
}

}  // namespace

bool gprof_static_name_ok(const char* name, const char* end) {
  if (name >= end || !*name) return false;
  const bool marker = std::strncmp(name, "__gnu_compiled", 14) == 0 || std::strncmp(name, "___gnu_compiled", 15) == 0;
  // gprof scans with the outer loop stepping past the NUL that ends a dotted
  // suffix, so it goes on into the next name of the string table; `end`
  // bounds that as the table does.
  for (const char* p = name; p < end && *p; ++p) {
    if (*p == '$') return false;
    while (*p == '.') {
      // ".N", ".clone.N", ".constprop.N", any number of them.
      bool digit_seen = false;
      static constexpr char kClone[] = ".clone.", kConstprop[] = ".constprop.";
      const size_t len = strnlen(p, size_t(end - p));
      if (len > sizeof kClone - 1 && std::strncmp(p, kClone, sizeof kClone - 1) == 0)
        p += sizeof kClone - 2;
      else if (len > sizeof kConstprop - 1 && std::strncmp(p, kConstprop, sizeof kConstprop - 1) == 0)
        p += sizeof kConstprop - 2;
      for (++p; p < end && *p; ++p) {
        if (digit_seen && *p == '.') break;
        if (std::isdigit(static_cast<unsigned char>(*p)))
          digit_seen = true;
        else
          return false;
      }
      if (p >= end) return !marker;
    }
  }
  return !marker;
}

bool gprof_static_name_ok(const std::string& name) {
  return gprof_static_name_ok(name.c_str(), name.c_str() + name.size() + 1);
}

void finalize_gprof_symbols(std::vector<GprofSymbol>& symbols, uint64_t text_end) {
  if (symbols.empty()) return;
  // gprof's qsort is glibc's merge sort: stable.
  std::stable_sort(symbols.begin(), symbols.end(), [](const GprofSymbol& l, const GprofSymbol& r) {
    if (l.addr != r.addr) return l.addr < r.addr;
    if (l.is_func != r.is_func) return l.is_func;
    return !l.is_static && r.is_static;
  });
  std::vector<GprofSymbol> kept;
  kept.reserve(symbols.size());
  uint64_t prev_addr = symbols.front().addr - 1;
  for (GprofSymbol& s : symbols) {
    if (!kept.empty() && s.addr == prev_addr) {
      const GprofSymbol& d = kept.back();
      const bool better =
          (!s.is_static && d.is_static) ||
          (s.is_static == d.is_static &&
           ((s.is_func && !d.is_func) ||
            (s.is_func == d.is_func &&
             ((s.name[0] != '_' && d.name[0] == '_') ||
              (s.name[0] == '_' && d.name[0] == '_' && s.name[1] != '_' && d.name[1] == '_')))));
      if (better) kept.back() = std::move(s);
      continue;
    }
    if (!kept.empty()) kept.back().end_addr = s.addr - 1;
    prev_addr = s.addr;
    kept.push_back(std::move(s));
  }
  kept.back().end_addr = text_end - 1;
  symbols = std::move(kept);
}

long gprof_symbol_at(const std::vector<GprofSymbol>& sym, uint64_t address) {
  if (sym.empty()) return -1;
  long low = 0, high = long(sym.size()) - 1, mid = -1;
  while (low != high) {
    mid = (high + low) / 2;
    if (sym[mid].addr <= address && sym[mid + 1].addr > address)
      return address > sym[mid].end_addr ? -1 : mid;
    if (sym[mid].addr > address)
      high = mid;
    else
      low = mid + 1;
  }
  // gprof then looks at sym[mid + 1], mid being the last probe (-1 when the
  // table has one symbol).
  if (sym[mid + 1].addr <= address) return address > sym[mid + 1].end_addr ? -1 : mid + 1;
  return -1;
}

Expected<GprofSymbolTable> read_gprof_symbols(const std::string& path) {
  auto h = GprofElfFile::open(path);
  if (!h) return h.error();
  GElf_Ehdr eh;
  if (!gelf_getehdr(h->elf(), &eh)) return Error(std::string("bad ELF header: ") + elf_errmsg(-1));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return Error("not a little-endian 64-bit ELF file (gmon.out files of other targets are not supported)");
  size_t shstrndx = 0, shnum = 0;
  if (elf_getshdrstrndx(h->elf(), &shstrndx) != 0 || elf_getshdrnum(h->elf(), &shnum) != 0)
    return Error(std::string("bad section headers: ") + elf_errmsg(-1));

  GprofSymbolTable table;
  bool have_text = false;
  Elf_Scn* symtab = nullptr;
  GElf_Shdr symtab_header{};
  for (Elf_Scn* scn = elf_nextscn(h->elf(), nullptr); scn; scn = elf_nextscn(h->elf(), scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char* name = elf_strptr(h->elf(), shstrndx, sh.sh_name);
    if (!have_text && name && std::strcmp(name, ".text") == 0) {
      have_text = true;
      table.text_vma = sh.sh_addr;
      table.text_size = sh.sh_size;
    }
    if (sh.sh_type == SHT_SYMTAB && !symtab) {
      symtab = scn;
      symtab_header = sh;
    }
  }
  if (!have_text) return Error("no .text section");
  if (!symtab) return Error("no symbols (stripped?)");

  Elf_Data* data = elf_getdata(symtab, nullptr);
  if (!data) return Error(std::string("unreadable symbol table: ") + elf_errmsg(-1));
  const size_t count = symtab_header.sh_entsize ? symtab_header.sh_size / symtab_header.sh_entsize : 0;
  // Names are checked in place: gprof's check can run on into the next name.
  const char* strtab_begin = nullptr;
  const char* strtab_end = nullptr;
  if (Elf_Scn* strscn = elf_getscn(h->elf(), symtab_header.sh_link))
    if (Elf_Data* sd = elf_getdata(strscn, nullptr); sd && sd->d_buf) {
      strtab_begin = static_cast<const char*>(sd->d_buf);
      strtab_end = strtab_begin + sd->d_size;
    }
  GprofSourceFiles source_files(h->dwarf());
  std::unordered_set<std::string> files_met;
  std::vector<GprofSymbol> candidates;
  for (size_t i = 1; i < count; ++i) {
    GElf_Sym s;
    if (!gelf_getsym(data, int(i), &s)) break;
    const char* raw = elf_strptr(h->elf(), symtab_header.sh_link, s.st_name);
    std::string name = raw ? raw : "";
    const char* name_ptr = raw ? raw : "";
    const char* name_end = raw && raw >= strtab_begin && raw < strtab_end ? strtab_end : name_ptr + name.size() + 1;
    if (GELF_ST_TYPE(s.st_info) == STT_SECTION) {
      // bfd names a section symbol after its section; such names start with
      // '.' and never pass the name rules, but keep bfd's view anyway.
      Elf_Scn* scn = s.st_shndx < shnum ? elf_getscn(h->elf(), s.st_shndx) : nullptr;
      GElf_Shdr sh;
      if (scn && gelf_getshdr(scn, &sh))
        if (const char* sn = elf_strptr(h->elf(), shstrndx, sh.sh_name)) {
          name = sn;
          name_ptr = sn;
          name_end = sn + name.size() + 1;
        }
    }
    const char cls = symbol_class(s, name_ptr, name_end, h->elf(), shnum);
    if (!cls) continue;
    GprofSymbol g;
    g.name = std::move(name);
    g.addr = s.st_value;
    g.is_static = cls == 't';
    const unsigned type = GELF_ST_TYPE(s.st_info);
    g.is_func = type == STT_FUNC || type == STT_GNU_IFUNC;
    GprofSourceLine where = source_files.line_at(g.addr);
    g.file = std::move(where.file);
    g.line = where.line;
    if (!g.file.empty() && files_met.insert(g.file).second) table.source_files.push_back(g.file);
    candidates.push_back(std::move(g));
  }
  if (candidates.empty()) return Error("has no function symbols");
  finalize_gprof_symbols(candidates, table.text_vma + table.text_size);
  table.symbols = std::move(candidates);
  return table;
}

}  // namespace covkit::trace
