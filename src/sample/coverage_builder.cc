#include "sample/coverage_builder.h"

#include <algorithm>
#include <filesystem>
#include <unordered_set>

#include "util/demangle.h"

namespace covkit::sample {

namespace {

struct LineState {
  int64_t count = 0;
  bool covered = false, observed = false, unexecuted_block = false;
};

struct FileState {
  std::map<uint32_t, LineState> lines;
  std::vector<format::FunctionRecord> functions;
};

// gcc's hot/cold splitting makes foo.cold a symbol of its own, but it is
// part of foo: its lines count, it is not a function of the source.
bool is_cold_part(const std::string& name) {
  return name.ends_with(".cold") || name.find(".cold.") != std::string::npos;
}

// The entry's declaration (DW_AT_decl_line), else the line of the entry address.
std::optional<DeclLine> function_start(const LineTable& lines, uint64_t entry) {
  if (auto it = lines.subprograms.find(entry); it != lines.subprograms.end()) return it->second;
  std::optional<DeclLine> out;
  lines.for_each_overlapping(entry, entry + 1, [&](const LineRange& r) {
    if (!out) out = DeclLine{r.file, r.line};
  });
  return out;
}

// `inlined_runs`: what its inlined instances add (inlined_runs below).
format::FunctionRecord function_record(const FunctionCfg& f, const std::vector<BlockState>& states, uint32_t line,
                                       int64_t inlined_runs = 0) {
  format::FunctionRecord r;
  r.name = f.name;
  r.demangled = util::demangle(f.name);
  r.start_line = line;
  r.blocks = uint32_t(f.blocks.size());
  for (const BlockState& s : states) r.blocks_executed += s.executed ? 1 : 0;
  if (!states.empty() && states[0].executed) r.execution_count = std::max<int64_t>(states[0].count, 1);
  r.execution_count += inlined_runs;
  return r;
}

// The function of `module` whose entry is `entry` (-1 if none).
int function_at(const ModuleCfg& module, uint64_t entry) {
  auto it = std::lower_bound(module.functions.begin(), module.functions.end(), entry,
                             [](const FunctionCfg& f, uint64_t a) { return f.address < a; });
  return it != module.functions.end() && it->address == entry ? int(it - module.functions.begin()) : -1;
}

// A function inlined into its callers was called wherever one of its
// inlined instances ran, though its out-of-line copy never did: each
// instance whose entry's block ran adds that block's count to the
// function's. By the entry of the copy that stands for the function: the
// one named as in the source (not a .constprop/.isra/.part clone), else
// the lowest. A lower bound of the calls: an instance whose entry gcc
// scheduled into a block of its own that did not run is not counted, nor
// are instances the DWARF does not describe.
std::map<uint64_t, int64_t> inlined_runs(const ModuleCfg& module, const LineTable& lines,
                                         const ModuleBlockStates& states) {
  std::map<uint64_t, int64_t> out;
  for (const InlinedFunction& fn : lines.inlined) {
    int64_t runs = 0;
    for (uint64_t at : fn.instances) {
      auto ref = module.locate(at);
      if (!ref || size_t(ref->function) >= states.functions.size()) continue;
      const std::vector<BlockState>& st = states.functions[size_t(ref->function)];
      if (size_t(ref->block) < st.size() && st[size_t(ref->block)].executed)
        runs += std::max<int64_t>(st[size_t(ref->block)].count, 1);
    }
    if (runs == 0) continue;
    auto plain = [&](int i) { return module.functions[size_t(i)].name.find('.') == std::string::npos; };
    int chosen = -1;
    for (uint64_t entry : fn.copies) {
      const int i = function_at(module, entry);
      if (i >= 0 && (chosen < 0 || (plain(i) != plain(chosen) ? plain(i) : i < chosen))) chosen = i;
    }
    if (chosen >= 0) out[module.functions[size_t(chosen)].address] += runs;
  }
  return out;
}

// Whether code of `line` (a row that covers) lies in block `from` of `f`
// or in a block it reaches going forward (to higher addresses: no loop
// back). A statement marker whose line has code of its own nearby (see
// statement_markers.h) ran with its block when that code lies ahead: gcc
// sank the statement past a branch (`int n = 0;` stored on one path only)
// and the marker is where it stood. When the code is not ahead, the marker
// is the join after the statement and says nothing of it.
// The search gives up (the marker does not count) after kMaxBlocksAhead
// blocks, so that a hostile function of many markers and blocks costs no
// more than a bounded walk per marker.
constexpr size_t kMaxBlocksAhead = 4096;

bool code_ahead(const FunctionCfg& f, int from, uint32_t file, uint32_t line, const LineTable& lines) {
  std::vector<int> todo{from};
  std::unordered_set<int> seen{from};  // not a vector of all blocks: a walk may be short in a long function
  for (size_t visited = 0; !todo.empty() && visited < kMaxBlocksAhead; ++visited) {
    const BasicBlock& b = f.blocks[todo.back()];
    todo.pop_back();
    bool found = false;
    lines.for_each_overlapping(b.start, b.end, [&](const LineRange& r) {
      found = found || (r.covers && r.file == file && r.line == line);
    });
    if (found) return true;
    for (int s : b.succ)
      if (s >= 0 && size_t(s) < f.blocks.size() && f.blocks[s].start > b.start && seen.insert(s).second)
        todo.push_back(s);
  }
  return false;
}

void place_blocks(const FunctionCfg& f, const std::vector<BlockState>& states, const LineTable& lines,
                  std::map<uint32_t, FileState>& files) {
  // First the executable lines (is_stmt rows), then what ran over them.
  // A statement begins where its line has an is_stmt row (gcc's location
  // views: often a row of no length, then the same line's code under a
  // row that is no statement). When a line's statement begins with code
  // here, an instruction of that line elsewhere, under a row that begins
  // no statement, is one gcc moved away from it (a constant hoisted to
  // the entry, a load scheduled before the branch that guards it), and
  // running it says nothing of the statement -- unless its row continues
  // the statement's (a discriminator row right after it: the statement's
  // code in another block, LineRange::continues).
  std::unordered_set<uint64_t> starts;  // (file, line) at an address where its statement begins
  std::unordered_set<uint64_t> begins_with_code;
  auto key = [](const LineRange& r) { return uint64_t(r.file) << 32 | r.line; };
  auto start_key = [&](const LineRange& r) { return key(r) * 0x9e3779b97f4a7c15ull ^ r.lo; };
  lines.for_each_overlapping(f.address, f.address + f.size, [&](const LineRange& r) {
    if (!r.is_stmt) return;
    files[r.file].lines.try_emplace(r.line);
    starts.insert(start_key(r));
  });
  lines.for_each_overlapping(f.address, f.address + f.size, [&](const LineRange& r) {
    if (!r.point && starts.count(start_key(r))) begins_with_code.insert(key(r));
  });
  auto moved_away = [&](const LineRange& r) {
    return !r.is_stmt && !r.continues &&
           (r.point || (begins_with_code.count(key(r)) && !starts.count(start_key(r))));
  };
  for (size_t b = 0; b < f.blocks.size() && b < states.size(); ++b) {
    const BlockState& s = states[b];
    if (s.lineless) continue;
    lines.for_each_overlapping(f.blocks[b].start, f.blocks[b].end, [&](const LineRange& r) {
      auto file = files.find(r.file);
      if (file == files.end()) return;
      auto line = file->second.lines.find(r.line);
      if (line == file->second.lines.end()) return;
      LineState& l = line->second;
      if (!r.covers) {  // a marker of a line with code of its own nearby
        if (!s.executed || !code_ahead(f, int(b), r.file, r.line, lines)) return;
      } else if (moved_away(r)) {
        return;  // moved away from its statement (above), or no code and no statement
      } else if (!s.executed) {
        l.unexecuted_block = true;
        return;
      }
      l.covered = true;
      l.observed = l.observed || s.observed;
      l.count = std::max(l.count, std::max<int64_t>(s.count, 1));
    });
  }
}

}  // namespace

std::string report_path(const std::string& absolute, const std::string& source_root) {
  if (source_root.empty()) return absolute;
  std::filesystem::path rel = std::filesystem::path(absolute).lexically_relative(
      std::filesystem::path(source_root).lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return absolute;
  return rel.string();
}

ModuleCoverage module_coverage(const ModuleCfg& module, const LineTable& lines, const ModuleBlockStates& states,
                               const std::string& source_root) {
  ModuleCoverage out;
  static const std::vector<BlockState> kNone;
  if (!lines.has_debug_info) {
    format::SourceRecord src;
    src.path = module.image.path();
    src.absolute_path = module.image.path();
    for (size_t i = 0; i < module.functions.size(); ++i) {
      const auto& st = i < states.functions.size() ? states.functions[i] : kNone;
      if (!is_cold_part(module.functions[i].name)) src.functions.push_back(function_record(module.functions[i], st, 0));
    }
    if (!src.functions.empty()) out.records.sources.push_back(std::move(src));
    return out;
  }
  std::map<uint32_t, FileState> files;  // by LineTable file index
  const std::map<uint64_t, int64_t> inlined = inlined_runs(module, lines, states);
  for (size_t i = 0; i < module.functions.size(); ++i) {
    const FunctionCfg& f = module.functions[i];
    const auto& st = i < states.functions.size() ? states.functions[i] : kNone;
    place_blocks(f, st, lines, files);
    if (is_cold_part(f.name)) continue;
    // Functions the line table knows nothing of (crt startup code) are
    // not sources the user wrote: left out.
    if (auto start = function_start(lines, f.address)) {
      auto runs = inlined.find(f.address);
      files[start->file].functions.push_back(
          function_record(f, st, start->line, runs == inlined.end() ? 0 : runs->second));
    }
  }
  for (auto& [index, state] : files) {
    if (state.lines.empty() && state.functions.empty()) continue;
    format::SourceRecord src;
    src.absolute_path = lines.files[index];
    src.path = report_path(src.absolute_path, source_root);
    for (const auto& [number, l] : state.lines) {
      format::LineRecord r;
      r.number = number;
      r.count = l.covered ? l.count : 0;
      r.unexecuted_block = l.covered && l.unexecuted_block;
      src.lines.push_back(std::move(r));
      if (l.covered && !l.observed) out.inferred_only[src.path].insert(number);
    }
    src.functions = std::move(state.functions);
    out.records.sources.push_back(std::move(src));
  }
  return out;
}

}  // namespace covkit::sample
