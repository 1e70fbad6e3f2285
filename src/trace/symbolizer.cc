#include "trace/symbolizer.h"

#include <filesystem>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>
#include <vector>

#include "format/dwarf_alt_file.h"
#include "format/dwarf_decl_file.h"
#include "format/elf_debug_expansion.h"
#include "format/elf_open.h"
#include "format/object_files.h"
#include "trace/debug_file_places.h"
#include "util/demangle.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/path_names.h"

namespace covkit::trace {

namespace {

struct ElfSymbol {
  uint64_t addr = 0, size = 0;
  std::string name;
  int rank = 0;  // lower is better among symbols at one address
};

// A pc range of one compile unit.
struct CuRange {
  uint64_t lo = 0, hi = 0;
  size_t cu = 0;
};

struct CompileUnit {
  Dwarf_Die die{};
  bool indexed = false;
  std::unordered_map<uint64_t, Dwarf_Off> functions;  // entry pc -> subprogram DIE
};

// Opens a regular file only: a module path from a damaged or hostile trace
// may name a FIFO or a device, which must not be opened (util/file_io.h),
// or a binary only root may read, which another user's trace is not let
// name (util/foreign_data.h: with the rights of the trace's owner).
int open_regular(const std::string& path) {
  if (path.empty()) return -1;
  auto fd = util::open_named_file(path);
  return fd ? fd->release() : -1;
}

// One ELF file (and its separate debug file, if any), opened once.
class ElfModule {
 public:
  explicit ElfModule(const std::string& path) {
    fd_ = open_regular(path);
    if (fd_ < 0) return;
    elf_ = format::begin_elf(fd_);
    if (!elf_ || elf_kind(elf_) != ELF_K_ELF) return;
    bool full_symtab = load_symbols(elf_);
    open_debug_file(path);
    if (debug_elf_ && !full_symtab) {
      std::vector<ElfSymbol> main_symbols = std::move(symbols_);
      symbols_.clear();
      if (!load_symbols(debug_elf_) || symbols_.empty()) symbols_ = std::move(main_symbols);
    }
    // .dynsym and .symtab may both list a function: keep the best symbol per
    // address. Among equals the first in the table, as uftrace names it: GCC's
    // identical code folding (-fipa-icf, -O2) keeps one function's body and
    // makes the others aliases listed after it (Debian's leveldb:
    // EmptyIterator::SeekToFirst, then SeekToLast at the same address; the
    // debug information gives the body to the first, and so its line).
    std::stable_sort(symbols_.begin(), symbols_.end(), [](const ElfSymbol& a, const ElfSymbol& b) {
      return a.addr != b.addr ? a.addr < b.addr : a.rank < b.rank;
    });
    symbols_.erase(std::unique(symbols_.begin(), symbols_.end(),
                               [](const ElfSymbol& a, const ElfSymbol& b) { return a.addr == b.addr; }),
                   symbols_.end());
    // Debug sections that would expand past the bound are no debug
    // information (format/elf_debug_expansion.h: libdw expands them whole).
    if (debug_elf_ && !format::debug_expansion_past_bound(debug_elf_))
      dwarf_ = dwarf_begin_elf(debug_elf_, DWARF_C_READ, nullptr);
    if (dwarf_) {
      alt_file_.attach(dwarf_, debug_dir_);
    } else if (!format::debug_expansion_past_bound(elf_)) {
      dwarf_ = dwarf_begin_elf(elf_, DWARF_C_READ, nullptr);
      alt_file_.attach(dwarf_, std::filesystem::path(path).parent_path().string());
    }
  }

  ~ElfModule() {
    if (dwarf_) dwarf_end(dwarf_);
    if (debug_elf_) elf_end(debug_elf_);
    if (debug_fd_ >= 0) ::close(debug_fd_);
    if (elf_) elf_end(elf_);
    if (fd_ >= 0) ::close(fd_);
  }
  ElfModule(const ElfModule&) = delete;
  ElfModule& operator=(const ElfModule&) = delete;

  // The function symbol at link-time address `rel`: one starting there, else
  // one whose [value, value + size) holds it.
  const ElfSymbol* symbol(uint64_t rel) const {
    auto it = std::upper_bound(symbols_.begin(), symbols_.end(), rel,
                               [](uint64_t a, const ElfSymbol& s) { return a < s.addr; });
    if (it == symbols_.begin()) return nullptr;
    --it;
    if (it->addr == rel || rel - it->addr < it->size) return &*it;
    return nullptr;
  }

  // Declaration file and line of the function entered at `rel` (DWARF),
  // else the line of its first instruction.
  void source(uint64_t rel, std::string* file, uint32_t* line) {
    if (!dwarf_) return;
    CompileUnit* cu = unit_for(rel);
    if (!cu) return;
    // DWARF 5 names files relative to the unit's compile directory: report
    // them absolute and tidy, as for every other source.
    auto full = [&](const char* name) {
      Dwarf_Attribute attr;
      const char* dir = dwarf_formstring(dwarf_attr(&cu->die, DW_AT_comp_dir, &attr));
      return name[0] == '/' || !dir ? format::absolute_path(name) : format::absolute_path(name, dir);
    };
    if (!cu->indexed) index_functions(*cu);
    if (auto f = cu->functions.find(rel); f != cu->functions.end()) {
      Dwarf_Die die;
      int decl_line = 0;
      if (dwarf_offdie(dwarf_, f->second, &die) && dwarf_decl_line(&die, &decl_line) == 0 && decl_line > 0) {
        if (const char* name = format::declared_file(&die)) {
          *file = full(name);
          *line = uint32_t(decl_line);
          return;
        }
      }
    }
    if (Dwarf_Line* l = dwarf_getsrc_die(&cu->die, rel)) {
      int lineno = 0;
      const char* name = dwarf_linesrc(l, nullptr, nullptr);
      if (name && dwarf_lineno(l, &lineno) == 0 && lineno > 0) {
        *file = full(name);
        *line = uint32_t(lineno);
      }
    }
  }

 private:
  // Returns true when `elf` has a .symtab. Functions come from .symtab
  // (else .dynsym); from .dynsym also the undefined functions with a value:
  // in a non-PIE program whose code takes a library function's address,
  // that function's canonical address is the program's PLT stub.
  bool load_symbols(Elf* elf) {
    Elf_Scn* symtab = nullptr;
    Elf_Scn* dynsym = nullptr;
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      if (!gelf_getshdr(scn, &sh)) continue;
      if (sh.sh_type == SHT_SYMTAB) symtab = scn;
      else if (sh.sh_type == SHT_DYNSYM) dynsym = scn;
    }
    if (symtab) read_symbols(elf, symtab, false);
    if (dynsym) read_symbols(elf, dynsym, symtab != nullptr);
    return symtab != nullptr;
  }

  void read_symbols(Elf* elf, Elf_Scn* scn, bool plt_stubs_only) {
    GElf_Shdr sh;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (!gelf_getshdr(scn, &sh) || !data || sh.sh_entsize == 0) return;
    size_t n = sh.sh_size / sh.sh_entsize;
    for (size_t i = 0; i < n; ++i) {
      GElf_Sym sym;
      if (!gelf_getsym(data, int(i), &sym)) break;
      int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
      if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0) continue;
      const bool plt_stub = sym.st_shndx == SHN_UNDEF;
      if (plt_stubs_only && !plt_stub) continue;  // defined .dynsym entries repeat .symtab
      const char* name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name || !*name) continue;
      std::string_view shown = name;
      if (plt_stub) shown = shown.substr(0, shown.find('@'));  // .symtab spells "atoi@GLIBC_2.2.5"
      int rank = plt_stub ? 3 : bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
      symbols_.push_back({sym.st_value, plt_stub ? 0 : sym.st_size, std::string(shown), rank});
    }
  }

  // The separate debug file, if one is found (trace/debug_file_places.h).
  void open_debug_file(const std::string& path) {
    const void* id = nullptr;
    ssize_t n = dwelf_elf_gnu_build_id(elf_, &id);
    std::span<const unsigned char> build_id;
    if (n > 0) build_id = {static_cast<const unsigned char*>(id), size_t(n)};
    GElf_Word crc = 0;
    const char* link = dwelf_elf_gnu_debuglink(elf_, &crc);
    const std::vector<std::string> candidates = debug_file_places(path, build_id, link ? link : "");
    for (const std::string& c : candidates) {
      if (c == path) continue;
      int fd = open_regular(c);
      if (fd < 0) continue;
      Elf* e = format::begin_elf(fd);
      if (e && elf_kind(e) == ELF_K_ELF) {
        debug_fd_ = fd;
        debug_elf_ = e;
        debug_dir_ = std::filesystem::path(c).parent_path().string();
        return;
      }
      if (e) elf_end(e);
      ::close(fd);
    }
  }

  // The compile unit whose pc ranges hold `rel`. Built from the units' own
  // ranges, so it does not depend on .debug_aranges being there.
  CompileUnit* unit_for(uint64_t rel) {
    if (!units_built_) build_units();
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), rel,
                               [](uint64_t a, const CuRange& r) { return a < r.lo; });
    // Disjoint ranges: only the last one starting at or before `rel` can hold
    // it; overlapping ones (unusual) are all tried.
    while (it != ranges_.begin()) {
      --it;
      if (rel >= it->lo && rel < it->hi) return &units_[it->cu];
      if (ranges_disjoint_) break;
    }
    return nullptr;
  }

  void build_units() {
    units_built_ = true;
    Dwarf_Off off = 0, next = 0;
    size_t header = 0;
    while (dwarf_nextcu(dwarf_, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die die;
      if (dwarf_offdie(dwarf_, off + header, &die)) {
        size_t index = units_.size();
        bool any = false;
        Dwarf_Addr base = 0, start = 0, end = 0;
        ptrdiff_t r = 0;
        while ((r = dwarf_ranges(&die, r, &base, &start, &end)) > 0) {
          if (end > start) ranges_.push_back({start, end, index}), any = true;
        }
        if (any) units_.push_back({die, false, {}});
      }
      off = next;
    }
    std::sort(ranges_.begin(), ranges_.end(), [](const CuRange& a, const CuRange& b) { return a.lo < b.lo; });
    ranges_disjoint_ = true;
    for (size_t i = 1; i < ranges_.size(); ++i)
      if (ranges_[i].lo < ranges_[i - 1].hi) ranges_disjoint_ = false;
  }

  static int collect_function(Dwarf_Die* func, void* arg) {
    auto* cu = static_cast<CompileUnit*>(arg);
    Dwarf_Addr entry = 0;
    if (dwarf_entrypc(func, &entry) == 0) cu->functions.emplace(entry, dwarf_dieoffset(func));
    return DWARF_CB_OK;
  }

  void index_functions(CompileUnit& cu) {
    cu.indexed = true;
    dwarf_getfuncs(&cu.die, collect_function, &cu, 0);
  }

  int fd_ = -1, debug_fd_ = -1;
  Elf* elf_ = nullptr;
  Elf* debug_elf_ = nullptr;
  Dwarf* dwarf_ = nullptr;
  std::string debug_dir_;
  // Destroyed after dwarf_end(dwarf_) in the destructor's body.
  format::DwarfAltFile alt_file_;
  std::vector<ElfSymbol> symbols_;
  bool units_built_ = false, ranges_disjoint_ = false;
  std::vector<CompileUnit> units_;
  std::vector<CuRange> ranges_;
};

}  // namespace

struct Symbolizer::Impl {
  struct ModuleCache {
    std::unique_ptr<ElfModule> elf;
    std::unordered_map<uint64_t, SymbolInfo> by_rel;
  };
  std::unordered_map<std::string, ModuleCache> modules;
  std::unordered_map<uint64_t, SymbolInfo> outside;  // addresses in no known module
  // Library calls, by process and stub address: stubs are per process.
  std::map<std::pair<const format::TraceProcess*, uint64_t>, SymbolInfo> library_calls;
  // The module of the last lookup: calls come mostly from one module, and
  // hashing its path per lookup was a few percent of a timeline.
  const std::string* last_path = nullptr;  // a key of `modules` (node keys stay put)
  ModuleCache* last = nullptr;
  ModuleCache& cache(const std::string& path) {
    if (!last || *last_path != path) {
      auto it = modules.try_emplace(path).first;
      last_path = &it->first;
      last = &it->second;
    }
    return *last;
  }
};

Symbolizer::Symbolizer() : impl_(std::make_unique<Impl>()) { elf_version(EV_CURRENT); }
Symbolizer::~Symbolizer() = default;

const SymbolInfo& Symbolizer::lookup(const format::TraceProcess& process, uint64_t address, uint64_t when) {
  if (!process.library_calls.empty()) {
    if (auto call = process.library_calls.find(address); call != process.library_calls.end())
      return library_call(process, address, call->second, when);
  }
  const format::TraceModule* module = process.module_for(address, when);
  if (!module) {
    auto [it, fresh] = impl_->outside.try_emplace(address);
    if (fresh) it->second.name = fmt::format("0x{:x} (unknown module)", address);
    return it->second;
  }
  const uint64_t rel = address - module->base;
  Impl::ModuleCache& cache = impl_->cache(module->path);
  auto [it, fresh] = cache.by_rel.try_emplace(rel);
  SymbolInfo& info = it->second;
  if (!fresh) return info;
  if (!cache.elf) cache.elf = std::make_unique<ElfModule>(module->path);
  info.module = module->path;
  if (const ElfSymbol* sym = cache.elf->symbol(rel)) {
    info.known = true;
    info.mangled = sym->name;
    info.name = util::demangle(sym->name);
    if (sym->addr != rel) info.name += fmt::format("+0x{:x}", rel - sym->addr);
  } else {
    info.name = fmt::format("0x{:x} ({})", address, module->path.empty() ? std::string_view("unknown module") : util::last_path_component(module->path));
  }
  cache.elf->source(rel, &info.file, &info.line);
  return info;
}

// A library call is named as its caller asked for it (strlen, not the
// __strlen_avx2 an IFUNC chose; memcpy and memmove apart even where they
// share one implementation), in the module of the function called.
const SymbolInfo& Symbolizer::library_call(const format::TraceProcess& process, uint64_t stub,
                                           const format::TraceProcess::LibraryCall& call, uint64_t when) {
  auto [it, fresh] = impl_->library_calls.try_emplace({&process, stub});
  SymbolInfo& info = it->second;
  if (!fresh) return info;
  info.known = true;
  info.mangled = call.name;
  info.name = util::demangle(call.name);
  if (const format::TraceModule* module = process.module_for(call.target, when)) {
    info.module = module->path;
    Impl::ModuleCache& cache = impl_->cache(module->path);
    if (!cache.elf) cache.elf = std::make_unique<ElfModule>(module->path);
    cache.elf->source(call.target - module->base, &info.file, &info.line);
  }
  return info;
}

}  // namespace covkit::trace
