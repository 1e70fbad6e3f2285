#include "format/elf_symbols.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "format/elf_open.h"
#include "util/file_io.h"
#include "util/output_path.h"

namespace covkit::format {

Expected<OpenElf> OpenElf::open(const std::string& path) {
  util::test_stop_point("elf-open");
  // Regular files only, never opened otherwise: the modules a traced or
  // sampled process maps are opened by the paths it shows, which its user
  // can swap for a FIFO (whose open waits for a writer for ever) or a device.
  auto opened = util::open_regular_file(path);
  if (!opened) {
    Error e = opened.error();
    e.message = fmt::format("{}: {}{}", path, e.errno_value ? "cannot open: " : "", e.message);
    return e;
  }
  return open(std::move(*opened), path);
}

Expected<OpenElf> OpenElf::open(util::UniqueFd fd, const std::string& path) {
  elf_version(EV_CURRENT);
  OpenElf f;
  f.fd_ = fd.release();
  f.elf_ = format::begin_elf(f.fd_);
  if (!f.elf_ || elf_kind(f.elf_) != ELF_K_ELF || gelf_getclass(f.elf_) != ELFCLASS64)
    return Error(fmt::format("{}: not a 64-bit ELF file", path));
  return f;
}

OpenElf::OpenElf(OpenElf&& o) noexcept : fd_(std::exchange(o.fd_, -1)), elf_(std::exchange(o.elf_, nullptr)) {}

OpenElf::~OpenElf() {
  if (elf_) elf_end(elf_);
  if (fd_ >= 0) ::close(fd_);
}

void for_each_defined_symbol(Elf* elf, uint32_t type,
                             const std::function<void(const GElf_Sym&, const char*)>& visit) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data) continue;
    size_t count = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym) || sym.st_shndx == SHN_UNDEF) continue;
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      visit(sym, name ? name : "");
    }
    return;
  }
}

bool has_section_of_type(Elf* elf, uint32_t type) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) && sh.sh_type == type) return true;
  }
  return false;
}

Expected<std::vector<FunctionSymbol>> function_symbols(const std::string& path) {
  auto f = OpenElf::open(path);
  if (!f) return f.error();
  Elf* elf = f->elf();
  std::vector<FunctionSymbol> out;
  auto visit = [&](const GElf_Sym& sym, const char* name) {
    if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 || sym.st_shndx >= SHN_LORESERVE) return;
    GElf_Shdr sh;
    Elf_Scn* scn = elf_getscn(elf, sym.st_shndx);
    if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR)) out.push_back({name, sym.st_value, sym.st_size});
  };
  for_each_defined_symbol(elf, has_section_of_type(elf, SHT_SYMTAB) ? SHT_SYMTAB : SHT_DYNSYM, visit);
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
  return out;
}

Expected<std::vector<uint64_t>> function_entries(const std::string& path) {
  auto symbols = function_symbols(path);
  if (!symbols) return symbols.error();
  std::vector<uint64_t> out;
  for (const FunctionSymbol& s : *symbols)
    if (out.empty() || out.back() != s.address) out.push_back(s.address);
  return out;
}

Expected<std::vector<uint64_t>> patchable_entries(const std::string& path) {
  auto f = OpenElf::open(path);
  if (!f) return f.error();
  Elf* elf = f->elf();
  size_t names = 0;
  if (elf_getshdrstrndx(elf, &names) != 0) return Error(fmt::format("{}: no section names", path));
  std::vector<uint64_t> out;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    const char* name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : nullptr;
    if (!name || std::strcmp(name, "__patchable_function_entries") != 0 || sh.sh_type == SHT_NOBITS) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!data || !data->d_buf) continue;
    const size_t n = data->d_size / sizeof(uint64_t);
    for (size_t i = 0; i < n; ++i) {
      uint64_t a;
      std::memcpy(&a, static_cast<const char*>(data->d_buf) + i * sizeof a, sizeof a);
      if (a != 0) out.push_back(a);  // 0: left to a relocation (not seen in linked files)
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Expected<std::optional<uint64_t>> symbol_address(const std::string& path, std::string_view name) {
  auto f = OpenElf::open(path);
  if (!f) return f.error();
  std::optional<uint64_t> found;
  for (uint32_t type : {uint32_t(SHT_SYMTAB), uint32_t(SHT_DYNSYM)}) {
    for_each_defined_symbol(f->elf(), type, [&](const GElf_Sym& sym, const char* n) {
      if (!found && name == n) found = sym.st_value;
    });
    if (found) break;
  }
  return found;
}

}  // namespace covkit::format
