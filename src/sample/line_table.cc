#include "sample/line_table.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <libelf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "format/dwarf_alt_file.h"
#include "format/dwarf_decl_file.h"
#include "format/elf_debug_expansion.h"
#include "sample/statement_markers.h"
#include "util/foreign_data.h"

namespace covkit::sample {

namespace {

class FileTable {
 public:
  explicit FileTable(std::vector<std::string>& files) : files_(files) {}
  // A unit's names are joined to its comp_dir: the names seen so far are
  // for the previous unit's.
  void begin_unit() { by_name_.clear(); }
  uint32_t index(const std::string& comp_dir, const char* name) {
    // libdw hands out the same pointer for a file of the unit's table every
    // time (every row of a line table names one): the path is joined and
    // normalized once per file, not once per row.
    auto cached = by_name_.find(name);
    if (cached != by_name_.end()) return cached->second;
    std::filesystem::path p(name ? name : "");
    if (p.is_relative() && !comp_dir.empty()) p = std::filesystem::path(comp_dir) / p;
    std::string s = p.lexically_normal().string();
    auto [it, fresh] = ids_.try_emplace(s, uint32_t(files_.size()));
    if (fresh) files_.push_back(s);
    by_name_.emplace(name, it->second);
    return it->second;
  }

 private:
  std::vector<std::string>& files_;
  std::map<std::string, uint32_t> ids_;
  std::unordered_map<const char*, uint32_t> by_name_;  // this unit's names, by libdw's pointer
};

std::string comp_dir_of(Dwarf_Die* cu) {
  Dwarf_Attribute a;
  const char* s = dwarf_attr(cu, DW_AT_comp_dir, &a) ? dwarf_formstring(&a) : nullptr;
  return s ? s : "";
}

// Whether a row from `from` on at address `addr` (before the address
// moves on) is of `line` in `src` and has code: the last row at the
// address, since the next one starts further on. (Two rows of no length
// of one line at one address, then another line's, are still a marker:
// lapi.c:346 at the join after `else { ... api_incr_top(L); }`.) A real
// address holds a few views; the look ahead stops after kMaxViews rows, so
// that a hostile table of one address costs linear time.
constexpr size_t kMaxViews = 256;

bool same_line_at(Dwarf_Lines* lines, size_t n, size_t from, Dwarf_Addr addr, int line, const char* src) {
  for (size_t j = from; j < n && j - from < kMaxViews; ++j) {
    Dwarf_Line* l = dwarf_onesrcline(lines, j);
    Dwarf_Addr a = 0;
    bool end = false;
    if (!l || dwarf_lineaddr(l, &a) != 0 || a != addr) return false;
    if (dwarf_lineendsequence(l, &end) != 0 || end) return false;
    Dwarf_Line* after = j + 1 < n ? dwarf_onesrcline(lines, j + 1) : nullptr;
    Dwarf_Addr next = 0;
    if (after && dwarf_lineaddr(after, &next) == 0 && next == addr) continue;  // no code: not the last row here
    int other = 0;
    return dwarf_lineno(l, &other) == 0 && other == line && dwarf_linesrc(l, nullptr, nullptr) == src;
  }
  return false;
}

void read_lines(Dwarf_Die* cu, const std::string& comp_dir, const std::map<uint64_t, DeclLine>& entries, FileTable& files,
                std::vector<LineRange>& out) {
  Dwarf_Lines* lines = nullptr;
  size_t n = 0;
  if (dwarf_getsrclines(cu, &lines, &n) != 0) return;
  const size_t first = out.size();  // the unit's rows are out[first...]
  std::vector<size_t> markers;      // rows of no length, of a line no row at their address continues
  // The row before in the program, while it is a statement's (is_stmt, or
  // continuing one): what a discriminator row of the same line continues.
  struct Statement {
    int line = 0;
    const char* src = nullptr;
    unsigned discriminator = 0;
  };
  std::optional<Statement> statement;
  for (size_t i = 0; i + 1 < n; ++i) {
    std::optional<Statement> before;
    before.swap(statement);  // a row skipped below continues nothing
    Dwarf_Line* l = dwarf_onesrcline(lines, i);
    Dwarf_Line* next = dwarf_onesrcline(lines, i + 1);
    bool end = false, stmt = false;
    Dwarf_Addr lo = 0, hi = 0;
    int line = 0;
    if (!l || !next || dwarf_lineendsequence(l, &end) != 0 || end) continue;
    if (dwarf_lineaddr(l, &lo) != 0 || dwarf_lineaddr(next, &hi) != 0 || hi < lo) continue;
    if (dwarf_lineno(l, &line) != 0 || line <= 0) continue;
    const char* src = dwarf_linesrc(l, nullptr, nullptr);
    unsigned discriminator = 0;
    dwarf_linediscriminator(l, &discriminator);
    // gcc's location views give a statement a row of no length when its
    // first instruction also starts the next row (`return x * 3 + 1;` is
    // an is_stmt row of length 0 then a non-statement row of the same
    // line): the statement starts at that address, so it is kept as a
    // point there. A row of no length whose line no row at that address
    // continues is a statement marker (statement_markers.h).
    bool marker = false;
    const bool has_length = hi != lo;
    if (hi == lo) {
      hi = lo + 1;
      marker = !same_line_at(lines, n, i + 1, lo, line, src);
    }
    dwarf_linebeginstatement(l, &stmt);
    const bool point = hi == lo + 1 && !has_length;
    const bool continues = !stmt && before && before->line == line && before->src == src &&
                           before->discriminator != discriminator;
    if (stmt || continues) statement = Statement{line, src, discriminator};
    out.push_back({lo, hi, files.index(comp_dir, src), uint32_t(line), stmt, !marker, point, continues});
    if (marker) markers.push_back(out.size() - 1 - first);
  }
  resolve_statement_markers(cu, std::span(out).subspan(first), markers, entries);
}

// Subprograms with code (an entry address), anywhere in the unit's tree
// (namespaces, classes, nested functions).
void read_subprograms(Dwarf_Die* parent, const std::string& comp_dir, FileTable& files,
                      std::map<uint64_t, DeclLine>& out, int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram) {
      Dwarf_Addr lo;
      int line = 0;
      if (dwarf_lowpc(&child, &lo) == 0 && dwarf_decl_line(&child, &line) == 0 && line > 0)
        out.try_emplace(lo, DeclLine{files.index(comp_dir, format::declared_file(&child)), uint32_t(line)});
    }
    if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
        tag == DW_TAG_subprogram)
      read_subprograms(&child, comp_dir, files, out, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

// The DIE a function's instances share: the end of the chain of
// DW_AT_abstract_origin (a concrete copy or an inlined instance points to
// the abstract function; an instance inside a concrete copy of another
// inlined function points to the abstract instance, which points on),
// else the DIE itself. Its offset in .debug_info names the function.
Dwarf_Off origin_of(Dwarf_Die* die) {
  Dwarf_Die at = *die;
  for (int hops = 0; hops < 16; ++hops) {
    Dwarf_Attribute a;
    Dwarf_Die next;
    if (!dwarf_attr(&at, DW_AT_abstract_origin, &a) || !dwarf_formref_die(&a, &next)) break;
    at = next;
  }
  return dwarf_dieoffset(&at);
}

// Where a function or inlined instance starts: DW_AT_entry_pc, else
// DW_AT_low_pc, else the lowest of its DW_AT_ranges.
std::optional<uint64_t> entry_of(Dwarf_Die* die) {
  Dwarf_Addr a = 0;
  if (dwarf_entrypc(die, &a) == 0) return a;
  std::optional<uint64_t> lowest;
  Dwarf_Addr base = 0, lo = 0, hi = 0;
  for (ptrdiff_t off = 0; (off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0;)
    if (hi > lo && (!lowest || lo < *lowest)) lowest = lo;
  return lowest;
}

// Out-of-line copies and inlined instances of functions anywhere in the
// unit's tree (inside lexical blocks and other inlined instances too), by
// the DIE they share; an instance may be in another unit than its copy
// (LTO), so the caller pairs them once every unit is read.
struct FunctionInstances {
  std::map<Dwarf_Off, std::vector<uint64_t>> copies, instances;
};

void read_instances(Dwarf_Die* parent, FunctionInstances& out, int depth) {
  Dwarf_Die child;
  if (depth > 64 || dwarf_child(parent, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      if (auto entry = entry_of(&child))
        (tag == DW_TAG_subprogram ? out.copies : out.instances)[origin_of(&child)].push_back(*entry);
    }
    if (dwarf_haschildren(&child)) read_instances(&child, out, depth + 1);
  } while (dwarf_siblingof(&child, &child) == 0);
}

}  // namespace

Expected<LineTable> load_line_table(const std::string& path) {
  // The path comes from data (a recording's mappings, a block file's
  // modules), perhaps another user's: read as load_binary_image reads it,
  // a regular file only (a FIFO swapped in since must not block), with the
  // rights of the data's owners (util/foreign_data.h), then parsed from
  // memory.
  auto file = util::read_named_file(path);
  if (!file) {
    Error e(fmt::format("cannot open: {}", file.error().message));
    e.errno_value = file.error().errno_value;
    return e;
  }
  LineTable t;
  elf_version(EV_CURRENT);
  std::span<const uint8_t> bytes = file->bytes();
  Elf* elf = elf_memory(const_cast<char*>(reinterpret_cast<const char*>(bytes.data())), bytes.size());
  if (!elf) return t;
  // Debug sections that would expand past the bound are none
  // (format/elf_debug_expansion.h: libdw expands them whole).
  Dwarf* dbg = format::debug_expansion_past_bound(elf) ? nullptr : dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (!dbg) {
    elf_end(elf);
    return t;  // no DWARF at all
  }
  // Read from memory, libdw knows no directory: absolute names only.
  format::DwarfAltFile alt_file;
  alt_file.attach(dbg, "");
  FileTable files(t.files);
  FunctionInstances instances;
  Dwarf_Off off = 0, next = 0;
  size_t header = 0;
  while (dwarf_nextcu(dbg, off, &next, &header, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dbg, off + header, &cu)) {
      std::string dir = comp_dir_of(&cu);
      files.begin_unit();
      std::map<uint64_t, DeclLine> entries;  // the unit's
      read_subprograms(&cu, dir, files, entries, 0);
      read_lines(&cu, dir, entries, files, t.ranges);
      t.subprograms.merge(entries);  // an entry already known keeps its first declaration
      read_instances(&cu, instances, 0);
    }
    off = next;
  }
  for (auto& [origin, at] : instances.instances)
    if (auto copies = instances.copies.find(origin); copies != instances.copies.end())
      t.inlined.push_back({std::move(copies->second), std::move(at)});
  dwarf_end(dbg);
  elf_end(elf);
  std::stable_sort(t.ranges.begin(), t.ranges.end(), [](const LineRange& a, const LineRange& b) { return a.lo < b.lo; });
  t.has_debug_info = !t.ranges.empty();
  return t;
}

}  // namespace covkit::sample
