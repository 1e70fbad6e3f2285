// Fuzzes the readers of libcovkit-blocks' files: the block file
// (blocks/block_file) and the block trace (blocks/block_trace), and, on a
// trace either accepts, its text (addresses only: no module is read). The
// files may be another user's: the readers must never read past their
// input, allocate beyond what it holds, or fail without saying why.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blocks/block_file.h"
#include "blocks/block_trace.h"
#include "blocks/block_trace_text.h"

using namespace covkit;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  auto file = blocks::parse_block_file(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!file && file.error().message.empty()) {
    std::fprintf(stderr, "fuzz_blocks: a block file refused without a reason\n");
    std::abort();
  }
  auto trace = blocks::parse_block_trace(bytes);
  if (!trace) {
    if (trace.error().message.empty()) {
      std::fprintf(stderr, "fuzz_blocks: a block trace refused without a reason\n");
      std::abort();
    }
    return 0;
  }
  if (trace->events.size() * 4 > size) {
    std::fprintf(stderr, "fuzz_blocks: more events than the input holds\n");
    std::abort();
  }
  blocks::BlockTraceTextOptions options;
  options.addresses_only = true;
  std::vector<std::string> warnings;
  size_t written = 0;
  blocks::write_block_trace_text(*trace, options, [&](std::string_view piece) { written += piece.size(); }, warnings);
  if (written == 0) std::abort();
  return 0;
}
