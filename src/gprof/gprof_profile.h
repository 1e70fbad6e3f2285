#pragma once
// What gprof computes from a program's function symbols and its gmon.out
// files (binutils 2.40: hist.c, call_graph.c, cg_arcs.c), reproduced step by
// step so the numbers, ties and index numbers are gprof's:
//  - histograms of several files with the same range are added up; each
//    bucket's samples go to the functions it overlaps, in proportion to the
//    overlap (a bucket spanning two functions is split between them);
//  - arcs from a caller's call site to a callee's entry are tallied per pair
//    of functions (a callee pc in a non-function symbol goes to the function
//    before it); self-calls are counted apart;
//  - cycles (gprof_cycles.h) are collapsed, each function's share of the
//    time of its callees is propagated from callees to callers by the
//    fraction of the callee's calls that each caller made;
//  - nodes (functions and cycles as a whole) are numbered by total time,
//    the index numbers of the call graph.
// Times are in histogram ticks (divide by hz for seconds).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/gmon_reader.h"
#include "gprof/gprof_selection.h"
#include "gprof/gprof_symbols.h"
#include "util/expected.h"

namespace covkit::trace {

struct GprofInput {
  std::string path;
  format::GmonFile data;
};

// A profile that cannot be put together (histograms that disagree); `path`
// is the file that brought the disagreement.
struct GprofInputError : Error {
  std::string path;
  GprofInputError(std::string p, std::string message) : Error(std::move(message)), path(std::move(p)) {}
};

struct GprofArc {
  size_t parent = 0, child = 0;  // node indexes
  uint64_t count = 0;
  double time = 0, child_time = 0;  // the parent's share of the child's self and child time, ticks
};

struct GprofNode {
  std::string name;        // mangled; "" for a cycle as a whole
  std::string file;        // source file (for static functions in the index), "" when unknown
  uint64_t addr = 0;
  bool is_static = false, is_func = true, is_cycle = false;
  // The flat profile credits it with its samples and lists it
  // (gprof_selection.h: by default all but the profiler's own functions,
  // mcount...; samples of the others count for nobody).
  bool flat_selected = true;
  double time = 0;           // self time from the histogram (a cycle: its members'), ticks
  double child_time = 0;     // time of callees propagated to it
  uint64_t ncalls = 0;       // calls from other functions (a cycle: from outside it)
  uint64_t self_calls = 0;   // recursive calls (a cycle: calls among its members)
  double prop_fract = 0, prop_self = 0, prop_child = 0;  // gprof's propagation fraction and shares
  bool print_flag = false;
  int top_order = 0;
  int cycle = 0;             // cycle number, 0 when on none
  size_t cycle_head = 0;     // node of its cycle as a whole (itself when on none)
  std::vector<size_t> members;  // a cycle's members, gprof's chain order
  int index = 0;                // call-graph index number
  std::vector<size_t> parents, children;  // arc indexes, gprof's list order (newest arc first)
};

// The histograms of all files, one per range (files with the same range
// added up bucket by bucket), in the order their ranges first came.
struct GprofSummedHistogram {
  uint64_t low_pc = 0, high_pc = 0;
  std::vector<int> samples;  // int, as gprof sums them
};

struct GprofProfile {
  std::vector<GprofNode> nodes;  // the functions by address, then the cycles by number
  size_t function_count = 0;
  std::vector<GprofArc> arcs;
  std::vector<size_t> by_total;  // every node, by total propagated time: the call graph's order (index - 1)
  bool has_histogram = false, has_call_graph = false;
  double hz = 0;                 // samples per second (the first histogram's rate)
  std::string zero_rate_file;    // the file of that rate when it is 0: no time in seconds (inf, nan)
  double hist_scale = 0;         // UNITs (2 bytes) per bucket
  std::string dimension = "seconds";
  char dimension_abbrev = 's';
  double total_time = 0;  // ticks in the histogram credited to functions (flat profile)
  double print_time = 0;  // ticks propagated (call graph)
  std::vector<format::GmonBlockCount> block_counts;  // all files', in file order
  std::vector<GprofSummedHistogram> histograms;
};

// Builds the profile; `inputs` in the order gprof reads them, `selection`
// the symbol specifications' tables (without: gprof's default exclusions).
Expected<GprofProfile, GprofInputError> build_gprof_profile(const GprofSymbolTable& symbols,
                                                            const std::vector<GprofInput>& inputs,
                                                            const GprofSelection& selection);
Expected<GprofProfile, GprofInputError> build_gprof_profile(const GprofSymbolTable& symbols,
                                                            const std::vector<GprofInput>& inputs);

}  // namespace covkit::trace
