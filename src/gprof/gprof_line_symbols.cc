// gprof's line symbols (gprof_line_symbols.h) from libdw.
#include "gprof/gprof_line_symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <unordered_map>

#include "gprof/gprof_elf_file.h"
#include "gprof/gprof_source_files.h"

namespace covkit::trace {

namespace {

// One address range of a function (subprogram or inlined subroutine).
struct FunctionRange {
  uint64_t low = 0, high = 0;  // [low, high)
  size_t order = 0;            // of its DIE in the unit: the later wins a tie
  std::string name;
};

std::string function_name(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  for (int at : {DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name})
    if (dwarf_attr_integrate(die, at, &attr))
      if (const char* s = dwarf_formstring(&attr)) return s;
  return {};
}

void collect_functions(Dwarf_Die* parent, std::vector<FunctionRange>& out, size_t& order) {
  Dwarf_Die child;
  if (dwarf_child(parent, &child) != 0) return;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
      const size_t mine = order++;
      std::string name;
      Dwarf_Addr base = 0, low = 0, high = 0;
      ptrdiff_t offset = 0;
      bool named = false;
      while ((offset = dwarf_ranges(&child, offset, &base, &low, &high)) > 0) {
        if (!named) {
          name = function_name(&child);
          named = true;
        }
        if (low < high) out.push_back({low, high, mine, name});
      }
    }
    // Functions nest in functions (inlined), namespaces, classes, blocks.
    if (dwarf_haschildren(&child)) collect_functions(&child, out, order);
  } while (dwarf_siblingof(&child, &child) == 0);
}

struct UnitFunctions {
  std::vector<FunctionRange> ranges;
};

// BFD's nearest-line answer for an address, or nothing.
struct LineAnswer {
  std::string file, function;
  int line = 0;
};

class Answers {
 public:
  explicit Answers(Dwarf* dwarf) : dwarf_(dwarf), files_(dwarf) {}

  bool at(uint64_t addr, LineAnswer& answer) {
    Dwarf_Die cu;
    if (!dwarf_addrdie(dwarf_, addr, &cu)) return false;
    GprofSourceLine where = files_.line_at(addr);
    if (where.file.empty() || where.line == 0) return false;
    const FunctionRange* best = nullptr;
    for (const FunctionRange& f : unit(&cu).ranges) {
      if (addr < f.low || addr >= f.high) continue;
      const uint64_t len = f.high - f.low, best_len = best ? best->high - best->low : 0;
      if (!best || len < best_len || (len == best_len && f.order > best->order)) best = &f;
    }
    if (!best || best->name.empty()) return false;
    answer.file = std::move(where.file);
    answer.line = where.line;
    answer.function = best->name;
    return true;
  }

  // Where answers may change: rows, function ranges and unit ranges.
  std::vector<uint64_t> boundaries() {
    std::vector<uint64_t> out;
    Dwarf_Off offset = 0, next = 0;
    size_t header = 0;
    while (dwarf_nextcu(dwarf_, offset, &next, &header, nullptr, nullptr, nullptr) == 0) {
      Dwarf_Die cu;
      if (dwarf_offdie(dwarf_, offset + header, &cu)) {
        Dwarf_Addr base = 0, low = 0, high = 0;
        for (ptrdiff_t o = 0; (o = dwarf_ranges(&cu, o, &base, &low, &high)) > 0;) {
          out.push_back(low);
          out.push_back(high);
        }
        for (const FunctionRange& f : unit(&cu).ranges) {
          out.push_back(f.low);
          out.push_back(f.high);
        }
        Dwarf_Lines* lines = nullptr;
        size_t count = 0;
        if (dwarf_getsrclines(&cu, &lines, &count) == 0)
          for (size_t i = 0; i < count; ++i) {
            Dwarf_Addr a = 0;
            if (Dwarf_Line* row = dwarf_onesrcline(lines, i); row && dwarf_lineaddr(row, &a) == 0) out.push_back(a);
          }
      }
      offset = next;
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

 private:
  const UnitFunctions& unit(Dwarf_Die* cu) {
    auto [it, added] = units_.try_emplace(dwarf_dieoffset(cu));
    if (added) {
      size_t order = 0;
      collect_functions(cu, it->second.ranges, order);
    }
    return it->second;
  }

  Dwarf* dwarf_;
  GprofSourceFiles files_;
  std::unordered_map<Dwarf_Off, UnitFunctions> units_;
};

}  // namespace

Expected<std::vector<GprofSymbol>> read_gprof_line_symbols(const std::string& path, const GprofSymbolTable& functions) {
  auto h = GprofElfFile::open(path);
  if (!h) return h.error();
  std::vector<GprofSymbol> line_symbols;
  const uint64_t text_begin = functions.text_vma, text_end = functions.text_vma + functions.text_size;
  if (h->dwarf()) {
    Answers answers(h->dwarf());
    std::vector<uint64_t> points = answers.boundaries();
    if (points.empty() || points.front() > text_begin) points.insert(points.begin(), text_begin);
    LineAnswer previous, now;
    bool have_previous = false;
    for (uint64_t addr : points) {
      if (addr < text_begin || addr >= text_end) continue;
      if (!answers.at(addr, now)) continue;
      if (have_previous && now.line == previous.line && now.function == previous.function && now.file == previous.file)
        continue;
      GprofSymbol s;
      s.addr = addr;
      s.name = now.function;
      s.is_func = false;
      s.file = now.file;
      s.line = now.line;
      // The static-ness of the function holding it: the previous line
      // symbol's when it is of the same function, else the symbol table's.
      if (have_previous && now.file == previous.file && now.function == previous.function) {
        s.is_static = line_symbols.back().is_static;
      } else {
        const long f = gprof_symbol_at(functions.symbols, addr);
        s.is_static = f >= 0 && functions.symbols[size_t(f)].is_static;
      }
      line_symbols.push_back(std::move(s));
      previous = now;
      have_previous = true;
    }
  }
  // gprof puts the line symbols first, then the function symbols, and sorts
  // by address keeping that order among equals.
  std::vector<GprofSymbol> all = std::move(line_symbols);
  all.insert(all.end(), functions.symbols.begin(), functions.symbols.end());
  finalize_gprof_symbols(all, text_end);
  return all;
}

}  // namespace covkit::trace
