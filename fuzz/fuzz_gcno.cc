// Fuzzes the notes reader and, for what it accepts, the graph builder, the
// flow solver, the exception-block search and the per-line cycle counting.
// Counter values come from the input itself (its bytes read backwards as
// 64-bit words), so the fuzzer steers them together with the graph.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <utility>
#include <variant>
#include <vector>

#include "format/gcno_reader.h"
#include "model/flow_solver.h"
#include "model/function_graph.h"
#include "model/line_cycles.h"

using namespace covkit;

namespace {

// Deterministic 64-bit values taken from the end of the input, cyclically.
class CounterSource {
 public:
  CounterSource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  int64_t next() {
    if (size_ == 0) return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) {
      v = (v << 8) | data_[size_ - 1 - (pos_ % size_)];
      ++pos_;
    }
    // Mostly small counts (realistic), sometimes anything.
    return (v & 0x8000) ? int64_t(v) : int64_t(v % 1000);
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto res = format::read_notes(std::span<const uint8_t>(data, size));
  auto* notes = (res ? &*res : nullptr);
  if (!notes) return 0;
  CounterSource counters(data, size);
  for (const format::NotesFunction& nf : notes->functions) {
    model::Function fn = model::build_graph(nf);
    for (int64_t& c : fn.counts) c = counters.next();
    model::solve_flow_graph(fn);
    model::find_exception_blocks(fn);
    // Group the function's blocks by (file, line) as gcov places them and count each line.
    std::map<std::pair<std::string, uint32_t>, std::vector<model::LineBlockRef>> lines;
    for (const format::NotesLines& rec : nf.lines) {
      if (rec.block >= fn.blocks.size()) __builtin_trap();  // the reader promised this
      for (const format::NotesLocation& loc : nf.locations_of(rec))
        for (uint32_t ln : nf.lines_of(loc)) lines[{notes->files.at(loc.file), ln}].push_back(model::LineBlockRef{&fn, rec.block});
    }
    for (auto& [key, blocks] : lines) (void)model::line_count_from_blocks(blocks);
    // The reader promised every arc endpoint is a block.
    for (const model::Arc& a : fn.arcs)
      if (a.src >= fn.blocks.size() || a.dst >= fn.blocks.size()) __builtin_trap();
  }
  return 0;
}
