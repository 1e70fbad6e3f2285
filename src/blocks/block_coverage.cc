#include "blocks/block_coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "blocks/block_counts.h"
#include "blocks/block_file.h"
#include "model/load_coverage_file.h"
#include "runtime/blocks/block_contract.h"
#include "sample/binary_image.h"
#include "sample/coverage_builder.h"
#include "sample/dominators.h"
#include "sample/inference.h"
#include "sample/line_table.h"
#include "sample/sample_analysis.h"
#include "sample/zydis_library.h"
#include "util/file_io.h"
#include "util/foreign_data.h"
#include "util/printable.h"

namespace covkit::blocks {

namespace {

// One module's blocks from every file: address -> count (kinds kept apart
// only to say whether counts wrapped and whether they are exact).
struct ModuleBlocks {
  std::map<uint64_t, uint64_t> counts;
  size_t entries = 0;
  bool wrapped = false;
  // Every count is of calls counted one by one (trace-pc, trace-pc-guard),
  // none dropped: a hooked block the files do not name did not run.
  bool exact = true;
};

// gcov counts a function's declaration line (where its entry block is
// said to be) even when no instruction is on it, as clang's line table
// leaves it when the brace is on the next line: so does this, with the
// function's entry count.
void add_declaration_lines(format::SourceRecord& s) {
  std::set<uint32_t> have;
  for (const format::LineRecord& l : s.lines) have.insert(l.number);
  for (const format::FunctionRecord& f : s.functions)
    if (f.start_line && have.insert(f.start_line).second) {
      format::LineRecord l;
      l.number = f.start_line;
      l.count = f.execution_count;
      s.lines.push_back(l);
    }
}

// gcov counts label and `case` lines (GCC gives a jump target's block the
// label's line in its notes), which no line-table row names: a binary
// holds no trace of them. A line the module's lines do not list, inside a
// function, that is a label line (below) is the line's that control reaches
// from it, the next listed line (the lines between have no code): it ran as
// often (the label's block is that statement's). Sources that cannot be
// read add nothing. Label lines:
//  - a label alone: `name:`, `case X:`, `default:` (then a brace, comment);
//  - `case X:` or `default:` before anything: the rest made no code (the
//    line would have a row), e.g. `default: lua_assert(0);` expanding to
//    nothing;
//  - a macro that makes a label, `vmcase(OP_MOVE) {` (Lua's interpreter):
//    a name that is no keyword, balanced parentheses without a `;`, then
//    `{` or `:` only.
bool is_label_line(std::string_view text) {
  static const std::regex label(R"(^\s*(case\b[^;]*|default\s*|[A-Za-z_]\w*\s*):(?!:)\s*\{?\s*(//.*|/\*.*\*/\s*)?$)");
  static const std::regex access(R"(^\s*(public|private|protected)\s*:)");
  static const std::regex case_label(R"(^\s*(case\b[^;]*?|default\s*):(?!:))");
  if (std::regex_search(text.begin(), text.end(), label))
    return !std::regex_search(text.begin(), text.end(), access);
  if (std::regex_search(text.begin(), text.end(), case_label)) return true;
  static const std::regex macro(R"(^\s*([A-Za-z_]\w*)\s*\()");
  static const std::regex opens(R"(^\s*(\{|:)\s*(//.*|/\*.*\*/\s*)?$)");
  static const std::regex keyword(R"(^(if|while|for|switch|return|sizeof|do|else|catch|defined|_Generic|__attribute__|alignof|_Alignof|typeof|__typeof__|decltype)$)");
  std::match_results<std::string_view::const_iterator> m;
  if (!std::regex_search(text.begin(), text.end(), m, macro)) return false;
  if (std::regex_search(m[1].first, m[1].second, keyword)) return false;
  int depth = 1;
  auto at = m[0].second;
  for (; at != text.end() && depth > 0; ++at) {
    if (*at == ';') return false;
    depth += *at == '(' ? 1 : *at == ')' ? -1 : 0;
  }
  return depth == 0 && std::regex_search(at, text.end(), opens);
}

void add_label_lines(format::SourceRecord& s) {
  if (s.absolute_path.empty() || s.functions.empty() || s.lines.empty()) return;
  auto data = util::read_source_file(s.absolute_path);
  if (!data) return;
  std::vector<std::string_view> text;
  for (std::string_view rest = data->text(); !rest.empty();) {
    size_t nl = rest.find('\n');
    text.push_back(rest.substr(0, nl));
    if (nl == std::string_view::npos) break;
    rest.remove_prefix(nl + 1);
  }
  std::map<uint32_t, int64_t> listed;
  for (const format::LineRecord& l : s.lines) listed[l.number] = std::max(listed[l.number], l.count);
  std::vector<uint32_t> starts;
  for (const format::FunctionRecord& f : s.functions)
    if (f.start_line) starts.push_back(f.start_line);
  std::sort(starts.begin(), starts.end());
  std::vector<format::LineRecord> added;
  for (uint32_t n = 1; n <= text.size(); ++n) {
    if (listed.count(n) || !is_label_line(text[n - 1])) continue;
    auto after = std::upper_bound(starts.begin(), starts.end(), n);
    if (after == starts.begin()) continue;  // before every function
    auto next = listed.upper_bound(n);
    if (next == listed.end() || (after != starts.end() && next->first >= *after)) continue;
    format::LineRecord l;
    l.number = n;
    l.count = next->second;
    added.push_back(l);
  }
  for (format::LineRecord& l : added) s.lines.push_back(std::move(l));
}

void add_block_file(const std::string& path, const BlockFile& file, std::map<std::string, ModuleBlocks>& modules,
                    std::vector<std::string>& warnings) {
  if (file.dropped_pcs || file.dropped_guards)
    warnings.push_back(fmt::format("{}: the runtime had no room for {} trace-pc address(es) and {} guard(s): their "
                                   "blocks are missing",
                                   util::printable(path), file.dropped_pcs, file.dropped_guards));
  if (file.unpaired_counters || file.mismatched_tables)
    warnings.push_back(fmt::format("{}: {} inline counter set(s) without a matching pc table (build with "
                                   "-fsanitize-coverage=...,pc-table): left out",
                                   util::printable(path), file.unpaired_counters + file.mismatched_tables));
  if (file.dropped_trace)
    warnings.push_back(fmt::format("{}: its block trace dropped {} event(s) (past its bound, or of addresses without "
                                   "an id): covkit blocks dump {}" CKB_TRACE_SUFFIX " says which",
                                   util::printable(path), file.dropped_trace, util::printable(path)));
  if (file.unmapped_blocks)
    warnings.push_back(fmt::format("{}: {} block(s) ran in a module unloaded before the program exited (dlclose): "
                                   "they are not in the report",
                                   util::printable(path), file.unmapped_blocks));
  for (const BlockModule& m : file.modules) {
    if (m.blocks.empty()) continue;
    ModuleBlocks& into = modules[m.path];
    for (const BlockEntry& e : m.blocks) {
      ++into.entries;
      into.wrapped |= e.kind == BlockKind::kWrapped;
      into.exact &= e.kind == BlockKind::kCount;
      into.counts[e.address] += e.count;
    }
  }
}

}  // namespace

Expected<BlockCoverage> load_block_coverage(const std::vector<std::string>& files, const BlockCoverageOptions& options) {
  std::vector<NamedBlockFile> parsed;
  for (const std::string& path : files) {
    auto data = util::read_input_file(path);
    if (!data) return Error(fmt::format("{}: {}", util::printable(path), data.error().message));
    util::note_data_file(path, *data);
    auto file = parse_block_file(data->text());
    if (!file) return Error(fmt::format("{}: {}", util::printable(path), file.error().message));
    parsed.push_back({path, std::move(*file)});
  }
  return block_coverage_of(parsed, options);
}

Expected<BlockCoverage> block_coverage_of(const std::vector<NamedBlockFile>& files, const BlockCoverageOptions& options) {
  BlockCoverage out;
  std::map<std::string, ModuleBlocks> modules;
  for (const NamedBlockFile& f : files) add_block_file(f.name, f.file, modules, out.warnings);
  // Blocks the runtime had no room for may be any module's.
  for (const NamedBlockFile& f : files)
    if (f.file.dropped_pcs || f.file.dropped_guards)
      for (auto& [path, m] : modules) m.exact = false;
  if (auto decoder = sample::zydis_library(); !decoder) return decoder.error();
  format::CoverageRecords records;
  for (const auto& [path, blocks] : modules) {
    BlockModuleSummary sum;
    sum.path = path;
    sum.entries = blocks.entries;
    sum.wrapped_counts = blocks.wrapped;
    if (path.empty() || path.front() != '/') {
      out.warnings.push_back(fmt::format("{}: no file to read its code from: left out", util::printable(path)));
      continue;
    }
    util::note_data_path(path);
    auto image = sample::load_binary_image(path);
    if (!image) {
      out.warnings.push_back(fmt::format("{}: {}: left out", util::printable(path), image.error().describe()));
      continue;
    }
    auto lines = sample::load_line_table(path);
    if (!lines) {
      out.warnings.push_back(fmt::format("{}: {}: left out", util::printable(path), lines.error().describe()));
      continue;
    }
    if (!lines->has_debug_info)
      out.warnings.push_back(fmt::format("{}: no debug information (built without -g?): function-level results only",
                                         util::printable(path)));
    sample::ModuleCfg cfg = sample::build_module_cfg(std::move(*image), *lines);
    // Hook addresses onto blocks; a zero count (an inline counter that
    // did not run, or wrapped to 0) says nothing.
    std::vector<std::map<int, int64_t>> observed(cfg.functions.size());
    std::vector<char> instrumented(cfg.functions.size(), 0);
    for (const auto& [address, count] : blocks.counts) {
      auto at = cfg.locate(address);
      if (!at) {
        ++sum.unplaced;
        continue;
      }
      instrumented[size_t(at->function)] = 1;
      if (count == 0) continue;
      int64_t& c = observed[size_t(at->function)][at->block];
      c += int64_t(std::min<uint64_t>(count, uint64_t(INT64_MAX) - uint64_t(c)));
    }
    // States for every function (module_coverage takes them parallel to
    // the module's functions); only the functions the compiler
    // instrumented are listed: the C runtime's start files and anything
    // else built without the flag say nothing about the sources.
    sample::ModuleBlockStates states;
    std::set<std::string> listed;
    for (size_t f = 0; f < cfg.functions.size(); ++f) {
      if (!instrumented[f]) {
        states.functions.emplace_back(cfg.functions[f].blocks.size());
        continue;
      }
      listed.insert(cfg.functions[f].name);
      states.functions.push_back(sample::infer_blocks(cfg.functions[f], observed[f], sample::InferenceMode::shye));
      exact_counts(cfg.functions[f], observed[f], blocks.exact, entered_unseen(cfg.image, cfg.functions[f]),
                   states.functions.back());
      mark_lineless(cfg.functions[f], *lines, states.functions.back());
      for (const sample::BlockState& b : states.functions.back()) sum.blocks_ran += b.executed;
      sum.blocks += cfg.functions[f].blocks.size();
    }
    sample::ModuleCoverage mc = sample::module_coverage(cfg, *lines, states, options.source_root);
    for (auto& s : mc.records.sources) {
      std::erase_if(s.functions, [&](const format::FunctionRecord& r) { return !listed.count(r.name); });
      add_declaration_lines(s);
      add_label_lines(s);
      records.sources.push_back(std::move(s));
    }
    if (sum.unplaced)
      out.warnings.push_back(fmt::format("{}: {} block address(es) in no function covkit found (the file changed "
                                         "since the run?)",
                                         util::printable(path), sum.unplaced));
    out.modules.push_back(std::move(sum));
  }
  out.coverage = model::to_model(std::move(records));
  return out;
}

}  // namespace covkit::blocks
