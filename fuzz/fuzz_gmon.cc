// Fuzzes the gmon.out reader and, on what it accepts, gprof's analysis and
// printing against a fixed table of functions (hostile histograms and arcs:
// ranges, scales, counts, addresses anywhere). The reader must never read or
// allocate beyond its input; the analysis must never fail on what it gets.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

#include "format/gmon_reader.h"
#include "gprof/gprof_graph.h"
#include "gprof/gprof_profile.h"
#include "gprof/gprof_symbols.h"
#include "gprof/gprof_text.h"

using namespace covkit;

namespace {

trace::GprofSymbolTable table() {
  trace::GprofSymbolTable t;
  const char* names[] = {"_start", "main", "f", "_Z1gi", "h", "k"};
  uint64_t addr = 0x1000;
  for (const char* n : names) {
    trace::GprofSymbol s;
    s.name = n;
    s.addr = addr;
    s.is_static = n[0] == 'h';
    s.is_func = n[0] != 'k';
    t.symbols.push_back(s);
    addr += 0x40;
  }
  t.text_vma = 0x1000;
  t.text_size = addr - 0x1000;
  trace::finalize_gprof_symbols(t.symbols, addr);
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto gmon = format::parse_gmon(std::span<const uint8_t>(data, size));
  if (!gmon) {
    if (!gmon.error().offset || *gmon.error().offset > size) {
      std::fprintf(stderr, "fuzz_gmon: error without an offset inside the input\n");
      std::abort();
    }
    return 0;
  }
  // Histogram buckets cost a loop over the symbols each: keep runs fast.
  size_t buckets = 0;
  for (const auto& h : gmon->histograms) buckets += h.buckets.size();
  if (buckets > 1 << 16) return 0;
  static const trace::GprofSymbolTable symbols = table();
  std::vector<trace::GprofInput> inputs{{"a", *gmon}, {"b", *gmon}};
  auto profile = trace::build_gprof_profile(symbols, inputs);
  if (!profile) return 0;
  trace::GprofTextOptions options;
  options.ignore_zeros = size % 2 == 0;
  std::string text = trace::gprof_text(*profile, options);
  text += trace::gprof_block_counts_text(*profile, symbols);
  trace::CallProfile calls = trace::gprof_call_profile(*profile);
  (void)calls;
  return 0;
}
