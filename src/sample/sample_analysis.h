#pragma once
// covkit sample's analysis: a SampleRecording (branch vectors, steps,
// stacks, ips, breakpoint hits, all in absolute addresses) into coverage
// of the program's sources (model::ProjectCov).
//
// Design notes
//  - Pipeline per module (one ELF file, loaded once however many processes
//    mapped it): binary_image (libelf: symbols or .eh_frame FDEs, PLT/GOT
//    names, build-id) ->
//    instruction_decoder (Zydis) -> function_cfg (+ indirect_jumps) ->
//    module_cfg (noreturn fixpoint) -> path_recovery (evidence -> blocks
//    that ran, per sample) -> inference (dominators / post-dominators) ->
//    line_table (libdw) + coverage_builder -> model::to_model.
//  - Soundness: what is "observed" is only what evidence proves; ranges
//    that contradict the CFG are dropped, not repaired. Dominator
//    inference is sound for a correct CFG. Shye mode trusts the
//    post-dominator tree (wrong when a call does not return); sound mode
//    treats every call as a possible exit. Inferred-only lines are kept
//    apart so reports can show them (--show-inferred).
//  - Counts are estimates (samples whose evidence covered a block), not
//    execution counts; breakpoint hits count 1 each.
//  - Modules: addresses go through the recording's mappings (file offset)
//    and the ELF's program headers, so PIE/ASLR need nothing else. A
//    mapping whose file's build-id differs from the recorded one is not
//    analyzed (its addresses would mean other code); a stripped module's
//    functions come from .eh_frame, named fn_<hex> (one warning says so;
//    without .eh_frame it has none); a module without DWARF gets
//    function-level results listed under the module's path.
//  - System libraries (options.skip_prefixes) are not analyzed by default:
//    their code is not the user's and has no debug info.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "format/sample_records.h"
#include "model/project_coverage.h"
#include "sample/inference.h"
#include "sample/line_table.h"
#include "sample/module_cfg.h"
#include "util/expected.h"

namespace covkit::sample {

struct AnalysisOptions {
  InferenceMode inference = InferenceMode::dominators;
  std::string source_root;  // absolute source paths inside it are shown relative to it
  // Modules whose path starts with one of these are not analyzed.
  std::vector<std::string> skip_prefixes = {"/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/", "/usr/libexec/"};
};

struct ModuleSummary {
  std::string path;
  size_t functions = 0, blocks = 0, blocks_observed = 0, blocks_inferred = 0;
  std::vector<std::string> warnings;        // one line each, naming the file
};

struct SampleCoverage {
  model::ProjectCov coverage;
  // Report path -> lines covered only through inference, sorted.
  std::map<std::string, std::vector<uint32_t>> inferred_only_lines;
  std::vector<ModuleSummary> modules;
  std::vector<std::string> warnings;  // not tied to one module
  // Breakpoint mode: the images and functions the plan left alone, and
  // why, one line each ("/usr/bin/bash: not planted: no line information").
  std::vector<std::string> notes;
  uint64_t unplaced_addresses = 0;    // evidence outside every analyzed function
  // Branch-to-branch ranges seen, and those dropped because they
  // contradict the CFG (many dropped: a filtered branch stack, or code the
  // CFG gets wrong).
  uint64_t ranges = 0, ranges_dropped = 0;
};

// Unreadable or stripped modules are warnings, not failures (the model
// then lacks them). The error is for a recording that contradicts itself:
// a sample or hit naming an image the recording does not list.
Expected<SampleCoverage> analyze_recording(const format::SampleRecording& recording, const AnalysisOptions& options);

// Where breakpoint mode plants in one module: block-start vaddrs
// (file-relative), sorted, such that the hits on the planted blocks that
// ran give, through the inference, every block that ran.
//  - A whole run (a program started under covkit): block B is skipped when
//    one of its dominator-tree children C post-dominates B under the sound
//    post-dominators (calls are exits): then B ran => C ran (no call in
//    between can fail to return) and C ran => B ran (B dominates C), so
//    C's hit (or the hit that implies C, by the same rule down the tree)
//    tells B's.
//  - A window (--pid: a process attached while it runs): C ran => B ran is
//    no proof that B ran in the window (it may have run before the
//    attach), so of such a pair C is skipped instead, when B is its only
//    predecessor (a loop's header may run again without B): B's hit in the
//    window proves C ran after it. The report infers with post-dominators
//    only.
// Functions whose code cannot be decoded completely get no plants; each is
// named in `skipped`. Root blocks that hold padding only are not planted.
enum class PlanWindow { whole_run, attached };
struct ModuleSites {
  std::vector<uint64_t> vaddrs;
  std::vector<std::string> skipped;  // "NAME: why", one per function left out
  std::string digest;  // breakpoint_sites(path): the MD5 of the file analyzed
};
ModuleSites breakpoint_sites(const ModuleCfg& module, PlanWindow window = PlanWindow::whole_run);

// A module's CFG as the analysis builds it, with its line table's rows as
// the places blocks may start (function_cfg.h).
ModuleCfg build_module_cfg(BinaryImage image, const LineTable& lines);
// The same for a file: loads and analyzes it.
Expected<ModuleSites> breakpoint_sites(const std::string& path, PlanWindow window = PlanWindow::whole_run);

}  // namespace covkit::sample
