#include "sample/sample_analysis.h"

#include <memory>

#include <fmt/format.h>

#include "model/load_coverage_file.h"
#include "sample/address_map.h"
#include "sample/breakpoint_site_cache.h"
#include "sample/zydis_library.h"
#include "sample/coverage_builder.h"
#include "sample/dominators.h"
#include "sample/line_table.h"
#include "sample/path_recovery.h"
#include "util/foreign_data.h"

namespace covkit::sample {

namespace {

// Observation counts: [module][function] -> block -> samples.
using Observations = std::vector<std::vector<std::map<int, int64_t>>>;

struct Modules {
  std::vector<std::unique_ptr<ModuleCfg>> cfgs;
  std::vector<Expected<LineTable>> lines;  // parallel to cfgs
  std::vector<const ModuleCfg*> ptrs;
  std::vector<ModuleSummary> summaries;
  std::map<std::string, int> by_path;  // -1: could not be loaded
  // Whether some mapping uses the module (all of them may have been
  // refused for a build-id mismatch: then it is no part of the coverage).
  std::vector<char> mapped;
};

// Every row's address: where a block may start (function_cfg.h).
std::vector<uint64_t> row_addresses(const LineTable& lines) {
  std::vector<uint64_t> out;
  out.reserve(lines.ranges.size());
  for (const LineRange& r : lines.ranges) out.push_back(r.lo);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool analyzable(const std::string& path, const AnalysisOptions& options) {
  if (path.empty() || path.front() != '/') return false;  // [vdso], anonymous code
  for (const std::string& p : options.skip_prefixes)
    if (path.starts_with(p)) return false;
  // covkit's own runtimes ran in the process, but they are not the user's code.
  return !path.ends_with("/libcovkit-sample.so") && !path.ends_with("/libcovkit-trace.so");
}

int load_module(Modules& m, const std::string& path, std::vector<std::string>& warnings) {
  if (auto it = m.by_path.find(path); it != m.by_path.end()) return it->second;
  // Another user's binary names sources too: they are read with that
  // user's rights (util/foreign_data.h), never root's.
  util::note_data_path(path);
  Expected<BinaryImage> img = load_binary_image(path);
  if (!img) {
    warnings.push_back(fmt::format("{}: {}", path, img.error().describe()));
    return m.by_path[path] = -1;
  }
  ModuleSummary s;
  s.path = path;
  if (!img->symbols_problem().empty()) s.warnings.push_back(fmt::format("{}: {}", path, img->symbols_problem()));
  if (!img->functions_note().empty()) s.warnings.push_back(fmt::format("{}: {}", path, img->functions_note()));
  Expected<LineTable> lines = load_line_table(path);
  std::vector<uint64_t> rows = lines ? row_addresses(*lines) : std::vector<uint64_t>{};
  m.cfgs.push_back(std::make_unique<ModuleCfg>(build_module_cfg(std::move(*img), rows)));
  m.lines.push_back(std::move(lines));
  m.ptrs.push_back(m.cfgs.back().get());
  m.summaries.push_back(std::move(s));
  return m.by_path[path] = int(m.cfgs.size() - 1);
}

// Breakpoint mode's plan left the module alone: nothing of it can show (its
// functions would be listed as never run).
bool left_out(const format::SampleRecording& rec, const format::SampleMapping& map) {
  for (const format::LeftOutImage& l : rec.left_out)
    if (l.path == map.path && (l.build_id.empty() || map.build_id.empty() || l.build_id == map.build_id)) return true;
  return false;
}

// Module index per mapping of one image.
std::vector<int> map_image(Modules& m, const format::SampleRecording& recording, const format::SampleImage& image,
                           const AnalysisOptions& options, std::vector<std::string>& warnings) {
  std::vector<int> out;
  std::set<std::string> mismatch_told;
  for (const format::SampleMapping& map : image.mappings) {
    int module = analyzable(map.path, options) && !left_out(recording, map) ? load_module(m, map.path, warnings) : -1;
    if (module >= 0 && !map.build_id.empty() && !m.ptrs[size_t(module)]->image.build_id().empty() &&
        map.build_id != m.ptrs[size_t(module)]->image.build_id()) {
      if (mismatch_told.insert(map.path).second)
        warnings.push_back(fmt::format("{}: build-id {} differs from the recorded {} (the file changed since); "
                                       "its samples are ignored",
                                       map.path, m.ptrs[size_t(module)]->image.build_id(), map.build_id));
      module = -1;
    }
    if (module >= 0) {
      m.mapped.resize(m.ptrs.size(), 0);
      m.mapped[size_t(module)] = 1;
    }
    out.push_back(module);
  }
  return out;
}

// One line per image left out, and per image whose functions were not all
// planted (naming up to kNamedFunctions of them).
constexpr size_t kNamedFunctions = 8;

std::vector<std::string> plan_notes(const format::SampleRecording& rec, const AnalysisOptions& options) {
  std::vector<std::string> out;
  // One line per reason. System libraries only when the report would show
  // them (--include-system): otherwise leaving them out is what it asks.
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const format::LeftOutImage& l : rec.left_out) {
    bool system = false;
    for (const std::string& p : options.skip_prefixes) system = system || l.path.starts_with(p);
    std::vector<std::string>& paths = by_reason[l.reason];
    if (!system && std::find(paths.begin(), paths.end(), l.path) == paths.end()) paths.push_back(l.path);
  }
  for (const auto& [reason, paths] : by_reason) {
    if (paths.empty()) continue;
    std::string list;
    for (const std::string& p : paths) list += (list.empty() ? "" : ", ") + p;
    out.push_back(fmt::format("not planted, {}: {}", reason, list));
  }
  std::map<std::string, std::vector<const format::UnplantedFunction*>> by_image;
  for (const format::UnplantedFunction& u : rec.unplanted) by_image[u.path].push_back(&u);
  for (const auto& [path, fns] : by_image) {
    std::string names;
    for (size_t i = 0; i < fns.size() && i < kNamedFunctions; ++i)
      names += fmt::format("{}{} ({})", i ? ", " : "", fns[i]->function, fns[i]->reason);
    if (fns.size() > kNamedFunctions) names += fmt::format(" and {} more", fns.size() - kNamedFunctions);
    out.push_back(fmt::format("{}: {} function{} not planted, their code could not be decoded completely: {}", path,
                              fns.size(), fns.size() == 1 ? "" : "s", names));
  }
  return out;
}

Located locate(const AddressMap& map, uint64_t a) { return map.locate(a); }

SampleEvidence evidence(const AddressMap& map, const format::Sample& s) {
  SampleEvidence e;
  for (const format::BranchPair& b : s.branches) e.branches.push_back({locate(map, b.from), locate(map, b.to)});
  for (uint64_t a : s.steps) e.steps.push_back(locate(map, a));
  for (uint64_t a : s.stack) e.stack.push_back(locate(map, a));
  if (s.ip) e.ip = locate(map, s.ip);
  return e;
}

void count(Observations& obs, const std::vector<ModuleBlock>& blocks) {
  for (const ModuleBlock& b : blocks) ++obs[size_t(b.module)][size_t(b.block.function)][b.block.block];
}

}  // namespace

Expected<SampleCoverage> analyze_recording(const format::SampleRecording& recording, const AnalysisOptions& options) {
  if (auto decoder = zydis_library(); !decoder) return decoder.error();
  SampleCoverage out;
  Modules modules;
  std::vector<std::vector<int>> image_modules;
  for (const format::SampleImage& image : recording.images)
    image_modules.push_back(map_image(modules, recording, image, options, out.warnings));
  std::vector<AddressMap> maps;
  for (size_t i = 0; i < recording.images.size(); ++i)
    maps.emplace_back(recording.images[i], image_modules[i], modules.ptrs);
  auto map_of = [&](uint32_t id) -> const AddressMap* {
    for (size_t i = 0; i < recording.images.size(); ++i)
      if (recording.images[i].id == id) return &maps[i];
    return nullptr;
  };

  Observations obs(modules.ptrs.size());
  for (size_t m = 0; m < modules.ptrs.size(); ++m) obs[m].resize(modules.ptrs[m]->functions.size());
  RecoveryStats stats;
  for (size_t i = 0; i < recording.samples.size(); ++i) {
    const format::Sample& s = recording.samples[i];
    const AddressMap* map = map_of(s.image);
    if (!map) return Error(fmt::format("sample {} names image {}, which the recording does not list", i, s.image));
    count(obs, recover_blocks(modules.ptrs, evidence(*map, s), &stats));
  }
  for (size_t i = 0; i < recording.hits.size(); ++i) {
    const format::BlockHit& h = recording.hits[i];
    const AddressMap* map = map_of(h.image);
    if (!map) return Error(fmt::format("hit {} names image {}, which the recording does not list", i, h.image));
    SampleEvidence e;
    e.ip = map->locate(h.address);
    count(obs, recover_blocks(modules.ptrs, e, &stats));
  }
  out.unplaced_addresses = stats.unplaced;
  out.ranges = stats.ranges;
  out.ranges_dropped = stats.ranges_dropped;

  format::CoverageRecords records;
  std::map<std::string, std::set<uint32_t>> inferred;
  modules.mapped.resize(modules.ptrs.size(), 0);
  for (size_t m = 0; m < modules.ptrs.size(); ++m) {
    if (!modules.mapped[m]) continue;
    const ModuleCfg& cfg = *modules.ptrs[m];
    ModuleSummary& sum = modules.summaries[m];
    ModuleBlockStates states;
    for (size_t f = 0; f < cfg.functions.size(); ++f) {
      states.functions.push_back(infer_blocks(cfg.functions[f], obs[m][f], options.inference, recording.attached));
      for (const BlockState& b : states.functions.back()) {
        sum.blocks_observed += b.observed;
        sum.blocks_inferred += b.executed && !b.observed;
      }
      sum.blocks += cfg.functions[f].blocks.size();
    }
    sum.functions = cfg.functions.size();
    const Expected<LineTable>& lines = modules.lines[m];
    if (!lines) {
      sum.warnings.push_back(fmt::format("{}: {}", cfg.image.path(), lines.error().describe()));
      continue;
    }
    if (!lines->has_debug_info && !cfg.functions.empty())
      sum.warnings.push_back(fmt::format(
          "{}: no debug information (built without -g, or stripped?): function-level results only", cfg.image.path()));
    ModuleCoverage mc = module_coverage(cfg, *lines, states, options.source_root);
    for (auto& s : mc.records.sources) records.sources.push_back(std::move(s));
    for (auto& [path, ls] : mc.inferred_only) inferred[path].insert(ls.begin(), ls.end());
  }
  out.notes = plan_notes(recording, options);
  out.coverage = model::to_model(std::move(records));
  for (auto& [path, ls] : inferred) out.inferred_only_lines[path] = {ls.begin(), ls.end()};
  for (size_t m = 0; m < modules.summaries.size(); ++m)
    if (modules.mapped[m]) out.modules.push_back(std::move(modules.summaries[m]));
  return out;
}

namespace {

bool is_padding(const FunctionCfg& f, const BasicBlock& b) {
  for (size_t i = b.first_insn; i < b.first_insn + b.insn_count; ++i) {
    const DecodedInsn& d = f.insns[i];
    if (!d.nop && d.flow != Flow::halt && d.flow != Flow::invalid) return false;
  }
  return true;
}

void function_sites(const FunctionCfg& f, PlanWindow window, ModuleSites& out) {
  if (f.blocks.empty()) return;
  if (!f.complete) {
    out.skipped.push_back(fmt::format("{}: {}", f.name, f.problem));
    return;
  }
  Graph g = f.graph();
  DominatorTree dom = compute_dominators(g);
  PostDominatorTree pdom = compute_post_dominators(g, f.exits(true));
  const int n = int(f.blocks.size());
  std::vector<int> preds(size_t(g.size()), 0);
  for (const auto& succ : g.succ)
    for (int s : succ) ++preds[size_t(s)];
  std::vector<char> skip(size_t(n), 0);
  for (int c = 0; c < n; ++c) {
    int parent = dom.idom[size_t(c)];
    if (parent < 0 || parent == c || parent >= n || !pdom.post_dominates(c, parent)) continue;
    if (window == PlanWindow::whole_run) skip[size_t(parent)] = 1;
    // In a window, c may run again without its parent (a loop's header
    // after a set-up that ran before the attach): only a block entered from
    // its parent alone is proved by the parent's hit.
    else if (preds[size_t(c)] == 1) skip[size_t(c)] = 1;
  }
  std::vector<char> root(size_t(n), 0);
  for (int r : f.roots) root[size_t(r)] = 1;
  for (int b = 0; b < n; ++b)
    if (!skip[size_t(b)] && !(root[size_t(b)] && is_padding(f, f.blocks[size_t(b)])))
      out.vaddrs.push_back(f.blocks[size_t(b)].start);
}

}  // namespace

ModuleSites breakpoint_sites(const ModuleCfg& module, PlanWindow window) {
  ModuleSites out;
  for (const FunctionCfg& f : module.functions) function_sites(f, window, out);
  std::sort(out.vaddrs.begin(), out.vaddrs.end());
  out.vaddrs.erase(std::unique(out.vaddrs.begin(), out.vaddrs.end()), out.vaddrs.end());
  return out;
}

ModuleCfg build_module_cfg(BinaryImage image, const LineTable& lines) {
  std::vector<uint64_t> rows = row_addresses(lines);
  return build_module_cfg(std::move(image), rows);
}

Expected<ModuleSites> breakpoint_sites(const std::string& path, PlanWindow window) {
  if (auto decoder = zydis_library(); !decoder) return decoder.error();
  Expected<BinaryImage> img = load_binary_image(path);
  // Messages without the path: the caller names the module (one line, once).
  if (!img) return Error(img.error().describe());
  if (!img->symbols_problem().empty()) return Error(img->symbols_problem());
  const std::string digest = file_digest(img->file_bytes());
  Expected<LineTable> lines = load_line_table(path);
  ModuleSites sites = lines ? breakpoint_sites(build_module_cfg(std::move(*img), *lines), window)
                            : breakpoint_sites(build_module_cfg(std::move(*img)), window);
  sites.digest = digest;
  return sites;
}

}  // namespace covkit::sample
