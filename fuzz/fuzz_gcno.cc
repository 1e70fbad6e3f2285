// Fuzzes the notes reader and, for what it accepts, the graph builder, the
// flow solver, the exception-block search and the per-line cycle counting;
// and the notes layout (format/notes_layout.h), which must name the words
// the reader read as the stamp, the checksum and each function's ident.
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
#include "format/notes_layout.h"
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
  const std::span<const uint8_t> bytes(data, size);
  auto res = format::read_notes(bytes);
  auto* notes = (res ? &*res : nullptr);
  const auto layout = format::notes_layout(bytes);
  if (layout) {
    const std::vector<size_t> varying = layout->varying_words();
    for (size_t w : varying)
      if (w + 4 > size) __builtin_trap();
    if (!format::same_but_varying(bytes, bytes, varying)) __builtin_trap();
  }
  if (!notes) return 0;
  // What notes_reuse relies on: a file read whole has a layout whose words
  // are the values the reader read.
  if (!notes->error && !notes->version.is_gcc48()) {
    if (!layout || layout->ident_offsets.size() != notes->functions.size()) __builtin_trap();
    if (layout->word_at(bytes, layout->stamp_offset) != notes->stamp) __builtin_trap();
    if (layout->checksum_offset && layout->word_at(bytes, *layout->checksum_offset) != notes->checksum)
      __builtin_trap();
    for (size_t i = 0; i < notes->functions.size(); ++i)
      if (layout->word_at(bytes, layout->ident_offsets[i]) != notes->functions[i].ident) __builtin_trap();
  }
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
